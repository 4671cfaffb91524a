package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenUnusualPaths(t *testing.T) {
	for _, name := range []string{"with space.db", "per%20cent.db", "ünï.db", "what?.db", "hash#1.db"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dir x", name)
			s, err := Open(context.Background(), path)
			if err != nil {
				t.Fatalf("Open(%q): %v", path, err)
			}
			recordRun(t, s, 1)
			s.Close()
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("the database is not at %q: %v", path, err)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			for _, e := range entries {
				if e.Name() != name {
					t.Errorf("stray file %q next to %q", e.Name(), name)
				}
			}
		})
	}
}
