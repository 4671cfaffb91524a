package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// goldenFile compares got with the golden file (rewritten with -update).
func goldenFile(t *testing.T, file, got string) {
	t.Helper()
	golden.AssertString(t, file, got)
}

// normalizeAudit replaces what changes from run to run (times, pids,
// hashes, paths, column widths that depend on them) with placeholders.
var auditVolatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ`), "<TIME>"},
	{regexp.MustCompile(`\(pid \d+\)`), "(pid <PID>)"},
	{regexp.MustCompile(`[0-9a-f]{64}`), "<HASH>"},
	{regexp.MustCompile(`\b[0-9a-f]{16}\b`), "<HASH16>"},
	{regexp.MustCompile(`\S*/audit\.db`), "<DB>"},
	{regexp.MustCompile(` +\n`), "\n"},
	{regexp.MustCompile(`  +`), "  "},
}

func normalizeAudit(s string) string {
	for _, v := range auditVolatile {
		s = v.re.ReplaceAllString(s, v.repl)
	}
	return s
}

func TestAuditGolden(t *testing.T) {
	path, _ := auditFixture(t)
	tampered := filepath.Join(t.TempDir(), "audit.db")
	{
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tampered, b, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite3", "file:"+tampered)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DELETE FROM rpcs WHERE batch = 2`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	// One byte changed inside the stored (zstd-compressed) plan JSON.
	tamperedPlan := filepath.Join(t.TempDir(), "audit.db")
	{
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tamperedPlan, b, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite3", "file:"+tamperedPlan)
		if err != nil {
			t.Fatal(err)
		}
		var blob []byte
		if err := db.QueryRow(`SELECT plan_json FROM plans WHERE run_id = 1`).Scan(&blob); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(blob, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			t.Fatalf("the plan JSON is not stored zstd-compressed: %.40q", blob)
		}
		blob[len(blob)/2] ^= 0x01
		if _, err := db.Exec(`UPDATE plans SET plan_json = ? WHERE run_id = 1`, blob); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"log.golden", []string{"audit", "log", "--audit-db", path}, exitOK},
		{"log-wide.golden", []string{"audit", "log", "--audit-db", path, "-o", "wide"}, exitOK},
		{"show.golden", []string{"audit", "show", "1", "--audit-db", path}, exitOK},
		{"show-failed.golden", []string{"audit", "show", "1", "--status", "failed", "--audit-db", path}, exitOK},
		{"verify.golden", []string{"audit", "verify", "--audit-db", path}, exitOK},
		{"verify-tampered.golden", []string{"audit", "verify", "--audit-db", tampered}, exitPartial},
		{"verify-tampered-plan.golden", []string{"audit", "verify", "--audit-db", tamperedPlan}, exitPartial},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			code, out, errs := runMigrate(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errs)
			}
			got := normalizeAudit(out)
			goldenFile(t, filepath.Join("testdata", "audit", tt.golden), got)
		})
	}
}
