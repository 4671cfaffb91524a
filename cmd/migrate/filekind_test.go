package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrongFileKind gives each of the tool's kinds of file to each flag
// that wants another: the one-line error names the file as what it is,
// what the flag wanted, and where it goes; nothing panics, nothing is
// appended to the wrong file, and no raw decoder error shows.
func TestWrongFileKind(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	src := "../../internal/check/testdata/legacy.snapshot.json"
	target := at("target.json")
	if err := os.WriteFile(target, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := at("audit.db")
	if code, _, errs := runMigrate(t, "plan", "--snapshot", src, "--target-snapshot", target, "--audit-db", db,
		"--out", at("plan.zst"), "--receipt-file", at("receipts.jsonl")); code != exitPending {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	if code, _, errs := runMigrate(t, "audit", "keygen", "--out", at("key.pem")); code != exitOK {
		t.Fatalf("audit keygen: exit %d: %s", code, errs)
	}
	copyFile(t, "../../internal/demo/demodata/legacy.json", at("demo-tree.json"))
	copyFile(t, "../../internal/demo/demodata/legacy.scram.json", at("scram.json"))
	copyFile(t, "../../internal/kraftcheckpoint/testdata/kafka41-format-plain.checkpoint", at("bootstrap.checkpoint"))

	files := map[string]string{ // file: what it is, and its advice
		"plan.zst":             "a plan file, not %s; give it to 'migrate apply --plan'",
		"target.json":          "a snapshot file, not %s; give it to --snapshot (the source) or --target-snapshot",
		"demo-tree.json":       "a ZooKeeper tree file, not %s; a capture of ZooKeeper's znodes, which 'migrate demo' reads itself",
		"receipts.jsonl":       "a receipt file, not %s; give it to --receipt-file",
		"key.pem":              "an audit key file, not %s; give it to --audit-key",
		"key.pem.pub":          "an audit key file, not %s; give it to --audit-key",
		"scram.json":           "a SCRAM credentials file, not %s; give it to --scram-credentials",
		"bootstrap.checkpoint": "a bootstrap checkpoint, not %s; give it to 'migrate bootstrap --in' or 'migrate bootstrap --show'",
		"audit.db":             "an audit database, not %s; give it to --audit-db",
	}
	flags := []struct {
		want  string // the kind the flag wants, with its article
		own   []string
		lines int // lines on stderr (1 unless said)
		args  func(file string) []string
	}{
		{"a snapshot file", []string{"target.json"}, 0, func(f string) []string {
			return []string{"plan", "--snapshot", f, "--target-snapshot", target, "--no-audit"}
		}},
		{"a snapshot file", []string{"target.json"}, 0, func(f string) []string {
			return []string{"plan", "--snapshot", src, "--target-snapshot", f, "--no-audit"}
		}},
		{"a plan file", []string{"plan.zst"}, 0, func(f string) []string {
			return []string{"apply", "--plan", f, "--snapshot", src, "--target-snapshot", target, "--no-audit"}
		}},
		{"a bootstrap checkpoint", []string{"bootstrap.checkpoint"}, 0, func(f string) []string {
			return []string{"bootstrap", "--show", f}
		}},
		{"a SCRAM credentials file", []string{"scram.json"}, 0, func(f string) []string {
			return []string{"plan", "--snapshot", src, "--target-snapshot", target, "--no-audit", "--scram-credentials", f}
		}},
		{"an audit key file", []string{"key.pem", "key.pem.pub"}, 0, func(f string) []string {
			return []string{"audit", "verify", "--audit-db", db, "--audit-key", f}
		}},
		{"a receipt file", []string{"receipts.jsonl"}, 0, func(f string) []string {
			return []string{"audit", "verify", "--audit-db", db, "--receipt-file", f}
		}},
		{"a receipt file", []string{"receipts.jsonl"}, 0, func(f string) []string {
			// apply refuses to run without its trail, in one line (plan
			// goes on, warned).
			return []string{"apply", "--snapshot", src, "--bootstrap-server", "127.0.0.1:1", "--audit-db", at("other.db"), "--receipt-file", f}
		}},
		{"an audit database", []string{"audit.db"}, 0, func(f string) []string {
			return []string{"audit", "log", "--audit-db", f}
		}},
	}
	for _, fl := range flags {
		for file, what := range files {
			if strings.Contains(strings.Join(fl.own, " "), file) {
				continue
			}
			args := fl.args(at(file))
			t.Run(strings.Join(args[:2], " ")+"/"+file, func(t *testing.T) {
				before, _ := os.ReadFile(at(file))
				code, errs := runNoPanic(t, args)
				want := at(file) + " is " + strings.Replace(what, "%s", fl.want, 1)
				lines := max(fl.lines, 1)
				if code != exitError || strings.Count(strings.TrimSpace(errs), "\n") != lines-1 || !strings.Contains(errs, want) {
					t.Errorf("migrate %s: exit %d, stderr %q; want exit 1 and %d line(s) with %q", strings.Join(args, " "), code, errs, lines, want)
				}
				if after, _ := os.ReadFile(at(file)); string(after) != string(before) {
					t.Errorf("migrate %s changed %s", strings.Join(args, " "), file)
				}
			})
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
