package migration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTrailPath: a database to read must exist; a missing one is a
// *NoTrailError the command words with its flag, and nothing is created.
func TestTrailPath(t *testing.T) {
	dir := t.TempDir()
	there := filepath.Join(dir, "there.db")
	if err := os.WriteFile(there, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	if got, err := TrailPath(there); err != nil || got != there {
		t.Errorf("TrailPath(existing) = %q, %v", got, err)
	}
	_, err := OpenTrail(context.Background(), missing)
	var nt *NoTrailError
	if !errors.As(err, &nt) || nt.Path != missing {
		t.Fatalf("OpenTrail(missing) = %v, want a NoTrailError naming it", err)
	}
	if got, want := nt.Text("--audit-db"), "no audit database at "+missing+" (give --audit-db PATH)"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got, want := (&NoTrailError{}).Text("--audit-db"), "no audit database: give --audit-db PATH"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenTrail created %s", missing)
	}
}
