package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// revertFixture is a source of n topics (one partition each, a retention
// each), an ACL, a quota and a SCRAM user, saved in dir, and the SCRAM
// credentials file for it.
func revertFixture(t *testing.T, dir string, n int) (snap, creds string) {
	t.Helper()
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, ClusterID: "revert-src", Brokers: []snapshot.Broker{{ID: 0}},
		ACLs:       []snapshot.ACL{{ResourceType: "Topic", ResourceName: "t-", PatternType: "PREFIXED", Principal: "User:app", Host: "*", Operation: "Read", Permission: "Allow"}},
		Quotas:     []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "app"}}, Values: map[string]float64{"producer_byte_rate": 1024}}},
		ScramUsers: []snapshot.ScramUser{{Name: "app", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}}}
	for i := range n {
		s.Topics = append(s.Topics, snapshot.Topic{Name: fmt.Sprintf("t-%03d", i), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}},
			Configs: []snapshot.Config{{Key: "retention.ms", Value: fmt.Sprint(3600000 + i)}}})
	}
	s.Sort()
	snap, creds = filepath.Join(dir, "source.json"), filepath.Join(dir, "creds.json")
	if err := snapshot.Save(snap, s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte(`[{"user":"app","mechanism":"SCRAM-SHA-256","password":"app-password-secret"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	return snap, creds
}

// targetState is a kfake target as the revert tests compare it: topics
// with their retention, ACLs, quota entities, SCRAM users. It reads through
// a client of its own (a client keeps metadata for a while).
func targetState(t *testing.T, addr string) string {
	t.Helper()
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(addr, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range topics.Names() {
		rc, err := adm.DescribeTopicConfigs(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		v := ""
		for _, r := range rc {
			for _, c := range r.Configs {
				if c.Key == "retention.ms" && c.Value != nil {
					v = *c.Value
				}
			}
		}
		out = append(out, "topic "+name+" retention.ms="+v)
	}
	acls, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).Allow().Deny().AllowHosts().DenyHosts())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range acls {
		for _, d := range r.Described {
			out = append(out, "acl "+d.Principal+" "+d.Name)
		}
	}
	q, err := adm.DescribeClientQuotas(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range q {
		out = append(out, fmt.Sprintf("quota %v %v", e.Entity, e.Values))
	}
	users, err := adm.DescribeUserSCRAMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for u := range users {
		out = append(out, "scram "+u)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

var (
	digestRe = regexp.MustCompile(`seq \d+, digest [0-9a-f]{64}`)
	addrRe   = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalized replaces what differs from run to run (the record's position
// and hash, the target's port, the temporary directory) in a command's
// output.
func normalized(out, dir string) string {
	out = digestRe.ReplaceAllString(out, "seq N, digest D")
	out = addrRe.ReplaceAllString(out, "127.0.0.1:PORT")
	return strings.ReplaceAll(out, dir, "DIR")
}

// TestAuditRevertKfake: migrate audit revert of an applied run against an
// in-process Kafka: without --delete-created-topics the created topics are
// kept and named; with it the saved revert plan is validated without a
// change (--validate-only), applied, and the target is back to its state
// before the run; applied again it changes nothing; audit verify passes
// and links the runs; without the audit database it is refused.
func TestAuditRevertKfake(t *testing.T) {
	dir := t.TempDir()
	addr, _ := kfakeTarget(t, kfake.NumBrokers(1), kfake.ClusterID("revert-kfake"))
	snap, creds := revertFixture(t, dir, 2)
	db := filepath.Join(dir, "audit.db")
	target := []string{"--bootstrap-server", addr, "--audit-db", db}
	before := targetState(t, addr)
	if code, _, errs := runMigrate(t, append([]string{"apply", "--snapshot", snap, "--scram-credentials", creds, "--placement", "target", "--yes"}, target...)...); code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	after := targetState(t, addr)
	if !strings.Contains(after, "topic t-001 retention.ms=3600001") || !strings.Contains(after, "scram app") || after == before {
		t.Fatalf("the run did not change the target as planned:\n%s", after)
	}

	code, out, errs := runMigrate(t, append([]string{"audit", "revert", "1", "-o", "json"}, target...)...)
	if code != exitPending {
		t.Fatalf("audit revert without --delete-created-topics: exit %d, want 2\n%s", code, errs)
	}
	kept := decodePlan(t, out)
	var keptTopics []string
	for _, b := range kept.Blockers {
		if b.ID == catalogue.IDBlockRevertTopicKept {
			keptTopics = append(keptTopics, b.Resource)
		}
	}
	if strings.Join(keptTopics, " ") != "t-000 t-001" || slices.ContainsFunc(kept.Changes, func(c plan.Change) bool { return c.Kind == plan.KindTopic }) {
		t.Errorf("kept topics %v and changes %+v; want t-000 and t-001 kept, none deleted", keptTopics, kept.Changes)
	}

	file := filepath.Join(dir, "revert.json")
	code, out, errs = runMigrate(t, append([]string{"audit", "revert", "1", "--delete-created-topics", "--out", file}, target...)...)
	if code != exitPending {
		t.Fatalf("audit revert --out: exit %d\n%s", code, errs)
	}
	goldenFile(t, filepath.Join("testdata", "revert", "plan.txt"), normalized(out, dir))
	// The hint it prints works when pasted (as a dry run here).
	_, hint, _ := strings.Cut(out, "Apply it with: ")
	hint = strings.TrimSpace(strings.SplitN(hint, "\n", 2)[0])
	words := shellWords(t, hint)
	if len(words) < 2 || words[0] != "migrate" {
		t.Fatalf("revert hint %q", hint)
	}
	code, out, errs = runMigrate(t, append(words[1:], "--yes", "--validate-only")...)
	if code != exitOK || targetState(t, addr) != after {
		t.Errorf("pasted hint %q --validate-only: exit %d, target changed: %v\n%s%s", hint, code, targetState(t, addr) != after, out, errs)
	}
	applyRevert := append([]string{"apply", "--plan", file, "--yes"}, target...)
	if code, out, errs := runMigrate(t, append(slices.Clone(applyRevert), "--no-audit")...); code != exitError || !strings.Contains(errs, "audit database") {
		t.Errorf("apply of a revert plan with --no-audit: exit %d, want 1 naming the audit database\n%s%s", code, out, errs)
	}
	// The revert deletes what the run created: confirmed by their count
	// (refused without it: TestAuditRevertKilledApplyKfake).
	applyRevert = append(applyRevert, "--confirm-deletes", "5")
	if code, out, errs = runMigrate(t, applyRevert...); code != exitOK {
		t.Fatalf("apply of the revert: exit %d\n%s%s", code, out, errs)
	}
	if got := targetState(t, addr); got != before {
		t.Errorf("after the revert the target is\n%s\nwant as before the run\n%s", got, before)
	}
	code, out, errs = runMigrate(t, append(slices.Clone(applyRevert), "-o", "json")...)
	var twice struct {
		Summary struct {
			Succeeded, Skipped int
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &twice); code != exitOK || err != nil || twice.Summary.Succeeded != 0 || twice.Summary.Skipped != len(kept.Changes)+2 {
		t.Errorf("the revert applied twice: exit %d, %v, summary %+v; want nothing sent\n%s%s", code, err, twice.Summary, out, errs)
	}
	if code, out, errs := runMigrate(t, "audit", "verify", "--audit-db", db); code != exitOK || !strings.Contains(out, "Linked: run 5 reverts run 1") || !strings.Contains(out, "Linked: run 6 reverts run 1") || strings.Contains(out, "run 4 reverts") {
		t.Errorf("audit verify after the revert: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runMigrate(t, "audit", "log", "--audit-db", db); code != exitOK || !strings.Contains(out, "apply (reverts 1)") {
		t.Errorf("audit log does not name the revert:\n%s", out)
	}
	if code, out, _ := runMigrate(t, "audit", "show", "1", "--audit-db", db); code != exitOK || !strings.Contains(out, "Reverted by: run 5,6\n") {
		t.Errorf("audit show of the reverted run:\n%s", out)
	}
	// Nothing is left to revert: exit 0, as plan with nothing to do.
	if code, out, errs := runMigrate(t, append([]string{"audit", "revert", "1", "--delete-created-topics"}, target...)...); code != exitOK || !strings.Contains(out, "No changes: nothing run 1 changed is left to revert.") {
		t.Errorf("audit revert once reverted: exit %d, want 0\n%s%s", code, out, errs)
	}
	if code, _, errs := runMigrate(t, append([]string{"audit", "revert", "99"}, target...)...); code != exitError || !strings.Contains(errs, "run 99 is not in") {
		t.Errorf("audit revert of a run the database lacks: exit %d, want 1 naming it\n%s", code, errs)
	}
	if code, _, errs := runMigrate(t, "audit", "revert", "1", "--bootstrap-server", addr, "--audit-db", filepath.Join(dir, "none.db")); code != exitError || !strings.Contains(errs, "no audit database at") {
		t.Errorf("audit revert without a database: exit %d, want 1 naming it\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("audit revert created a database it was to read")
	}
	for _, f := range []string{db, db + "-wal", file} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("app-password-secret")) {
			t.Errorf("%s holds the SCRAM password", f)
		}
	}
}

// TestAuditRevertKilledApplyKfake: an apply killed (SIGKILL) mid-way is
// reverted, and exactly what it applied is undone: the revert plan deletes
// the topics it had created and nothing else, and applied it leaves the
// target as before the run.
func TestAuditRevertKilledApplyKfake(t *testing.T) {
	dir := t.TempDir()
	addr, _ := kfakeTarget(t, kfake.NumBrokers(1), kfake.ClusterID("revert-killed"))
	snap, creds := revertFixture(t, dir, 40)
	db := filepath.Join(dir, "audit.db")
	target := []string{"--bootstrap-server", addr, "--audit-db", db}
	before := targetState(t, addr)

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	argv, _ := json.Marshal(append([]string{"apply", "--snapshot", snap, "--scram-credentials", creds, "--placement", "target", "--yes",
		"--batch-size", "1", "--max-in-flight", "1", "--rate", "20", "--no-preflight"}, target...))
	cmd.Env = append(os.Environ(), "ZKM_HELPER_ARGS="+string(argv))
	var childOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(childOut.String(), ": done [") < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	var made []string
	for _, l := range strings.Split(targetState(t, addr), "\n") {
		if name, ok := strings.CutPrefix(l, "topic "); ok {
			made = append(made, strings.Fields(name)[0])
		}
	}
	if len(made) == 0 || len(made) == 40 {
		t.Fatalf("the killed apply created %d of 40 topics; want some, not all\n%s", len(made), childOut.String())
	}

	file := filepath.Join(dir, "revert.json")
	code, out, errs := runMigrate(t, append([]string{"audit", "revert", "1", "--delete-created-topics", "--out", file, "-o", "json"}, target...)...)
	if code != exitPending {
		t.Fatalf("audit revert of the killed run: exit %d\n%s", code, errs)
	}
	rp := decodePlan(t, out)
	var deleted []string
	for _, c := range rp.Changes {
		if c.Kind != plan.KindTopic || c.Action != plan.ActionDelete {
			t.Errorf("the revert of a run killed while creating topics holds %s", c.ID)
		}
		deleted = append(deleted, c.Resource.Name)
	}
	if !slices.Equal(deleted, made) {
		t.Errorf("the revert deletes %v; the killed run had created %v", deleted, made)
	}
	applyRevert := append([]string{"apply", "--plan", file, "--yes"}, target...)
	n := fmt.Sprint(len(deleted))
	for _, c := range []struct{ extra, want []string }{
		{nil, []string{"the plan deletes " + n + " resources", "pass --confirm-deletes " + n}},
		{[]string{"--confirm-deletes", "41"}, []string{"--confirm-deletes 41: the plan deletes " + n + " resources, not 41"}},
	} {
		code, out, errs := runMigrate(t, append(slices.Clone(applyRevert), c.extra...)...)
		if code != exitError {
			t.Errorf("apply of the revert %v: exit %d, want 1\n%s%s", c.extra, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("apply of the revert %v: stderr lacks %q:\n%s", c.extra, w, errs)
			}
		}
	}
	if code, out, errs := runMigrate(t, append(applyRevert, "--confirm-deletes", n)...); code != exitOK {
		t.Fatalf("apply of the revert: exit %d\n%s%s", code, out, errs)
	}
	if got := targetState(t, addr); got != before {
		t.Errorf("after reverting the killed run the target is\n%s\nwant as before it\n%s", got, before)
	}
	if code, out, _ := runMigrate(t, "audit", "verify", "--audit-db", db); code != exitOK || !strings.Contains(out, "reverts run 1") {
		t.Errorf("audit verify: exit %d\n%s", code, out)
	}
}
