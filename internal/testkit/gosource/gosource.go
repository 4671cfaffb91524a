// Package gosource walks the module's own Go files for the tests that hold
// a rule over the code (no "(s)" counts, no private -update flag, every
// finding id in the vocabulary): one walk, the same directories left out.
// Test use only.
package gosource

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Product reports a non-test Go file.
func Product(rel string) bool {
	return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
}

// Test reports a test Go file.
func Test(rel string) bool { return strings.HasSuffix(rel, "_test.go") }

// Walk parses every Go file under root (the module root, as a path from
// the test's directory) whose slash path relative to root want reports,
// leaving out testdata, vendor and hidden directories, and calls fn with
// it. An unreadable or unparsable file fails t. It returns how many files
// fn got, so a test can tell a walk that found nothing.
func Walk(t testing.TB, root string, want func(rel string) bool, fn func(rel string, fset *token.FileSet, f *ast.File)) int {
	t.Helper()
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || !want(filepath.ToSlash(rel)) {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
