package gosource

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWalk: Walk gives fn the files want chooses, by their slash paths from
// the root, and never one under testdata, vendor or a hidden directory.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"a.go", "a_test.go", "x/b.go", "x/b_test.go", "x/testdata/c.go", "vendor/d.go", ".git/e.go", "x/.cache/f.go", "g.txt"} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package p\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		want func(string) bool
		got  []string
	}{
		{"product", Product, []string{"a.go", "x/b.go"}},
		{"test", Test, []string{"a_test.go", "x/b_test.go"}},
	}
	for _, tt := range tests {
		var got []string
		n := Walk(t, root, tt.want, func(rel string, _ *token.FileSet, f *ast.File) {
			if f.Name.Name != "p" {
				t.Errorf("%s: parsed package %q", rel, f.Name.Name)
			}
			got = append(got, rel)
		})
		slices.Sort(got)
		if !slices.Equal(got, tt.got) || n != len(tt.got) {
			t.Errorf("%s: Walk gave %v (%d), want %v", tt.name, got, n, tt.got)
		}
	}
}
