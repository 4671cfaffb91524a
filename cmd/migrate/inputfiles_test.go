package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestFileFlagsRefuseWhatIsNotAnInput: every flag that names a file the
// tool reads (and the receipt file it appends to), given /dev/zero, a FIFO
// no one writes to, or a file over every cap (sparse: nothing on disk),
// ends the command with exit 1 and one line on stderr naming the file,
// without reading it: within the test's generous bound (before, /dev/zero
// ran out of memory and a FIFO hung for half an hour) and within a memory
// budget measured by the allocation counter (before, a 200 MB file used
// 942 MB).
func TestFileFlagsRefuseWhatIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	src, _ := handmadeSnapshot(t)
	good := filepath.Join(dir, "good.json")
	if err := snapshot.Save(good, src); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8<<30 + 1); err != nil { // over every cap; sparse
		t.Fatal(err)
	}
	f.Close()
	// A data directory whose snapshot is the bad file; client properties
	// whose trust store is.
	dataDir := func(bad string) string {
		d := filepath.Join(t.TempDir(), "version-2")
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bad, filepath.Join(d, "snapshot.100")); err != nil {
			t.Fatal(err)
		}
		return d
	}
	clientProps := func(bad string) string {
		p := filepath.Join(t.TempDir(), "client.properties")
		if err := os.WriteFile(p, []byte("security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+bad+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := func() string { return filepath.Join(t.TempDir(), "audit.db") }
	offline := []string{"--snapshot", good, "--target-snapshot", good, "--no-audit"}
	cases := []struct {
		name string
		args func(bad string) []string
	}{
		{"plan --snapshot", func(b string) []string {
			return []string{"plan", "--snapshot", b, "--target-snapshot", good, "--no-audit"}
		}},
		{"plan --target-snapshot", func(b string) []string {
			return []string{"plan", "--snapshot", good, "--target-snapshot", b, "--no-audit"}
		}},
		{"plan --policy", func(b string) []string { return append([]string{"plan", "--policy", b}, offline...) }},
		{"plan --scram-credentials", func(b string) []string { return append([]string{"plan", "--scram-credentials", b}, offline...) }},
		{"plan --password-encoder-secret-file", func(b string) []string {
			return append([]string{"plan", "--password-encoder-secret-file", b}, offline...)
		}},
		{"plan --broker-config", func(b string) []string { return append([]string{"plan", "--broker-config", b}, offline...) }},
		{"plan --zk-auth @FILE", func(b string) []string {
			return []string{"plan", "--zookeeper", "127.0.0.1:1", "--zk-auth", "@" + b, "--target-snapshot", good, "--no-audit"}
		}},
		{"plan --zk-tls-config-file", func(b string) []string {
			return []string{"plan", "--zookeeper", "127.0.0.1:1", "--zk-tls-config-file", b, "--target-snapshot", good, "--no-audit"}
		}},
		{"plan --zk-data-dir (its snapshot file)", func(b string) []string {
			return []string{"plan", "--zk-data-dir", dataDir(b), "--target-snapshot", good, "--no-audit"}
		}},
		{"plan --command-config", func(b string) []string {
			return []string{"plan", "--snapshot", good, "--bootstrap-server", "127.0.0.1:1", "--command-config", b, "--no-audit"}
		}},
		{"plan --command-config (its trust store)", func(b string) []string {
			return []string{"plan", "--snapshot", good, "--bootstrap-server", "127.0.0.1:1", "--command-config", clientProps(b), "--no-audit"}
		}},
		{"plan --source-command-config", func(b string) []string {
			return []string{"plan", "--source-bootstrap-server", "127.0.0.1:1", "--source-command-config", b, "--target-snapshot", good, "--no-audit"}
		}},
		{"apply --plan", func(b string) []string {
			return []string{"apply", "--plan", b, "--snapshot", good, "--bootstrap-server", "127.0.0.1:1", "--no-audit"}
		}},
		{"check --snapshot", func(b string) []string { return []string{"check", "--snapshot", b, "--no-audit"} }},
		{"check --policy", func(b string) []string { return []string{"check", "--snapshot", good, "--policy", b, "--no-audit"} }},
		{"access diff --target-snapshot", func(b string) []string {
			return []string{"access", "diff", "--snapshot", good, "--target-snapshot", b, "--no-audit"}
		}},
		{"access diff --target-config", func(b string) []string {
			return []string{"access", "diff", "--snapshot", good, "--target-snapshot", good, "--target-config", b, "--no-audit"}
		}},
		{"access diff --principal-map", func(b string) []string {
			return []string{"access", "diff", "--snapshot", good, "--target-snapshot", good, "--principal-map", b, "--no-audit"}
		}},
		{"bootstrap --show", func(b string) []string { return []string{"bootstrap", "--show", b} }},
		{"bootstrap --in", func(b string) []string {
			return []string{"bootstrap", "--in", b, "--out", filepath.Join(t.TempDir(), "out.checkpoint"), "--zookeeper", "127.0.0.1:1", "--no-audit"}
		}},
		{"audit verify --audit-key", func(b string) []string { return []string{"audit", "verify", "--audit-key", b, "--audit-db", db()} }},
		{"audit verify --receipt-file", func(b string) []string {
			return []string{"audit", "verify", "--receipt-file", b, "--audit-db", db()}
		}},
		{"policy test --policy", func(b string) []string {
			return []string{"policy", "test", "--policy", b, "--snapshot", good, "--no-audit"}
		}},
		{"policy convert --broker-config", func(b string) []string { return []string{"policy", "convert", "--broker-config", b} }},
	}
	bads := []struct{ name, path string }{{"/dev/zero", "/dev/zero"}, {"FIFO", fifo}, {"over the cap", huge}}
	for _, tc := range cases {
		for _, bad := range bads {
			t.Run(tc.name+"/"+bad.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				args := tc.args(bad.path)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				code, out, errs := runMigrateCtx(ctx, args...)
				runtime.ReadMemStats(&after)
				if ctx.Err() != nil {
					t.Fatalf("did not end within the test's bound: %v", args)
				}
				lines := strings.Split(strings.TrimSpace(errs), "\n")
				named := bad.path
				if strings.Contains(tc.name, "--zk-data-dir") {
					named = "version-2/snapshot.100" // a data directory's file, by its name there
				}
				if code != exitError || len(lines) != 1 || !strings.Contains(errs, named) {
					t.Errorf("exit %d, stderr %q, stdout %.200q; want exit 1 and one line naming %s", code, errs, out, named)
				}
				want := "not a regular file"
				if bad.path == huge {
					want = "the most a"
				}
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q does not say %q", errs, want)
				}
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
					t.Errorf("allocated %d MiB refusing %s", alloc>>20, bad.path)
				}
			})
		}
	}
}
