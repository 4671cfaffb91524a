package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyHintsWork runs the "Apply it with: ..." line plan prints, as
// pasted, for each way of giving the source and the target: it must apply
// the saved plan (exit 0), carrying the source, the target and the inputs
// apply needs again, and none of the flags that shape a plan (apply --plan
// refuses them). A plan reviewed against a --target-snapshot is applied to
// the live target the hint asks for.
func TestApplyHintsWork(t *testing.T) {
	dir := t.TempDir()
	snap, creds := fixtureFiles(t, dir)
	for _, tt := range []struct {
		name   string
		source []string
		target func(bootstrap string) []string
		live   bool // the hint names the target itself
		// partial: the in-process target refuses some of this source's
		// changes (the data directory's fixture is not adapted to kfake as
		// the demo's is): exit 3 is the apply having run.
		partial bool
	}{
		{"snapshot source, live target", []string{"--snapshot", snap}, func(b string) []string { return []string{"--bootstrap-server", b} }, true, false},
		{"snapshot source, target snapshot", []string{"--snapshot", snap}, func(b string) []string {
			tsnap := filepath.Join(t.TempDir(), "target.zst")
			if code, _, errs := runMigrate(t, "snapshot", "--source-bootstrap-server", b, "--out", tsnap); code != exitOK {
				t.Fatalf("snapshot of the target: exit %d: %s", code, errs)
			}
			return []string{"--target-snapshot", tsnap}
		}, false, false},
		{"ZooKeeper data dir source, live target", []string{"--zk-data-dir", zkDataFixture}, func(b string) []string { return []string{"--bootstrap-server", b} }, true, true},
		{"brokers' protocol source, live target", nil, func(b string) []string { return []string{"--bootstrap-server", b} }, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bootstrap, _ := kfakeTarget(t)
			if tt.source == nil { // the source's brokers: a cluster the target snapshot's flow made
				src, _ := kfakeTarget(t)
				tsnap := filepath.Join(t.TempDir(), "src.zst")
				if code, _, errs := runMigrate(t, "plan", "--snapshot", snap, "--bootstrap-server", src, "--scram-credentials", creds,
					"--placement", "target", "--no-audit", "--out", tsnap); code != exitPending {
					t.Fatalf("plan onto the source cluster: exit %d: %s", code, errs)
				}
				if code, _, errs := runMigrate(t, "apply", "--plan", tsnap, "--snapshot", snap, "--bootstrap-server", src, "--scram-credentials", creds, "--no-audit", "--yes"); code != exitOK {
					t.Fatalf("fill the source cluster: exit %d: %s", code, errs)
				}
				tt.source = []string{"--source-bootstrap-server", src}
			}
			out := filepath.Join(t.TempDir(), "plan sel.zst")
			db := filepath.Join(t.TempDir(), "audit.db")
			args := append(append(append([]string{"plan"}, tt.source...), tt.target(bootstrap)...),
				"--scram-credentials", creds, "--placement", "target", "--audit-db", db, "--out", out)
			code, stdout, errs := runMigrate(t, args...)
			if code != exitPending {
				t.Fatalf("plan: exit %d: %s", code, errs)
			}
			_, hint, ok := strings.Cut(stdout, "Apply it with: ")
			if !ok {
				t.Fatalf("plan printed no hint:\n%s", stdout)
			}
			hint = strings.TrimSpace(strings.SplitN(hint, "\n", 2)[0])
			if strings.Contains(hint, "--placement") || strings.Contains(hint, "--out") {
				t.Errorf("the hint carries a flag apply --plan refuses: %s", hint)
			}
			if !tt.live {
				const ask = " --bootstrap-server HOST:PORT [--command-config FILE] (the live target: a --target-snapshot is only reviewed)"
				if !strings.HasSuffix(hint, ask) {
					t.Fatalf("the hint does not ask for the live target: %s", hint)
				}
				hint = strings.TrimSuffix(hint, ask) + " --bootstrap-server " + bootstrap // what the operator fills in
			}
			words := shellWords(t, hint)
			if words[0] != "migrate" {
				t.Fatalf("hint %q does not start with the program", hint)
			}
			code, aout, aerrs := runMigrate(t, append(words[1:], "--yes", "--verify-timeout", "0")...)
			if code != exitOK && !(tt.partial && code == exitPartial && strings.Contains(aout, "Apply finished")) {
				t.Errorf("pasted %q: exit %d\n%s%s", hint, code, aout, aerrs)
			}
		})
	}
}
