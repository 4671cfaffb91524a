package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditPath: the demo's database is in a directory of the user's own
// (made 0700) and named by the process; a directory of that name others
// may write to is refused, not used.
func TestAuditPath(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p, err := AuditPath()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, fmt.Sprintf("zkmigrate-demo-%d", os.Getuid()))
	if want := filepath.Join(dir, fmt.Sprintf("audit-%d.db", os.Getpid())); p != want {
		t.Errorf("AuditPath() = %s, want %s", p, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory %s: %v, mode %v; want 0700", dir, err, fi.Mode().Perm())
	}
	if again, err := AuditPath(); err != nil || again != p {
		t.Errorf("second call: %s, %v", again, err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := AuditPath(); err == nil || !strings.Contains(err.Error(), "not a directory only you can write to") {
		t.Errorf("a world-writable directory: %v", err)
	}
}
