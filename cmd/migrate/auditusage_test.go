package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// dirFiles is every file of dir with its bytes (the database and any
// -wal/-shm/-journal files beside it).
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestUsageErrorsRecordNoRun: a usage error, or a command refused before
// it read any cluster or file, leaves the audit database byte-identical
// (an existing one) or absent (a new path); a real run does write to it.
func TestUsageErrorsRecordNoRun(t *testing.T) {
	dir := t.TempDir()
	src, _ := handmadeSnapshot(t)
	snap := filepath.Join(dir, "s.json")
	if err := snapshot.Save(snap, src); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"plan"},
		{"plan", "--bogus"},
		{"plan", "--zookeeper"},
		{"plan", "--snapshot", snap},
		{"plan", "--snapshot", snap, "--zookeeper", "127.0.0.1:1"},
		{"plan", "--snapshot", snap, "--target-snapshot", snap, "--include", "topics"},
		{"plan", "--snapshot", snap, "--target-snapshot", snap, "--topics", "("},
		{"plan", "--snapshot", snap, "--target-snapshot", snap, "-o", "yaml"},
		{"plan", "--snapshot", snap, "--target-snapshot", snap, "--prune-cluster-configs"},
		{"plan", "--snapshot", snap, "--target-snapshot", snap, "extra"},
		{"apply"},
		{"apply", "--snapshot", snap, "--target-snapshot", snap},
		{"apply", "--snapshot", snap, "--bootstrap-server", "127.0.0.1:1", "--batch-size", "0"},
		{"apply", "--plan", "p.json", "--bootstrap-server", "127.0.0.1:1"},
		{"apply", "--snapshot", snap},
		{"check"},
		{"check", "--snapshot", snap, "-o", "xml"},
		{"check", "--snapshot", snap, "--fail-on", "sometimes"},
		{"policy", "test", "--snapshot", snap},
		{"policy", "test", "--policy", "p.yaml"},
		{"demo", "--brokers", "many"},
		{"demo", "--brokers", "0"},
		{"demo", "--brokers", "-1"},
	}
	for _, existing := range []bool{false, true} {
		for _, args := range cases {
			name := strings.ReplaceAll(strings.Join(args, " "), snap, "S")
			if existing {
				name = "existing db/" + name
			}
			t.Run(name, func(t *testing.T) {
				dbDir := t.TempDir()
				db := filepath.Join(dbDir, "audit.db")
				if existing {
					fixture, _ := auditFixture(t)
					b, err := os.ReadFile(fixture)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(db, b, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				before := dirFiles(t, dbDir)
				code, _, errs := runMigrate(t, append(args, "--audit-db", db)...)
				if code != exitError {
					t.Errorf("exit %d, want 1 (stderr %q)", code, errs)
				}
				if diff := cmp.Diff(before, dirFiles(t, dbDir)); diff != "" {
					t.Errorf("the audit database changed (-before +after):\n%.400s", diff)
				}
			})
		}
	}

	// The control: a real run on the same inputs records itself.
	dbDir := t.TempDir()
	db := filepath.Join(dbDir, "audit.db")
	if code, _, errs := runMigrate(t, "plan", "--snapshot", snap, "--target-snapshot", snap, "--audit-db", db); code == exitError {
		t.Fatalf("a real plan failed: %s", errs)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("a real plan did not record its run: %v", err)
	}
}
