package golden

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/gosource"
)

// recorder is a testing.TB that keeps what Errorf and Fatalf report.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestSomething/sub" }
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// setUpdate sets -update for the rest of the test.
func setUpdate(t *testing.T, on bool) {
	t.Helper()
	old := flag.Lookup("update").Value.String()
	if err := flag.Set("update", strconv.FormatBool(on)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("update", old) })
}

func TestAssert(t *testing.T) {
	setUpdate(t, false)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := &recorder{TB: t}
	Assert(r, path, []byte("one\ntwo\nthree\n"))
	AssertString(r, path, "one\ntwo\nthree\n")
	if len(r.msgs) != 0 {
		t.Errorf("a match failed: %q", r.msgs)
	}

	r = &recorder{TB: t}
	AssertString(r, path, "one\n2\nthree\n")
	if len(r.msgs) != 1 {
		t.Fatalf("a mismatch reported %d failures, want 1: %q", len(r.msgs), r.msgs)
	}
	for _, want := range []string{path + " differs from the output at line 2:", `want "two\n"`, `got "2\n"`, "-update", "-run '^TestSomething$'"} {
		if !strings.Contains(r.msgs[0], want) {
			t.Errorf("mismatch message lacks %q:\n%s", want, r.msgs[0])
		}
	}

	r = &recorder{TB: t}
	AssertString(r, path, "one\ntwo\n")
	if len(r.msgs) != 1 || !strings.Contains(r.msgs[0], "line 3:") || !strings.Contains(r.msgs[0], "got (end of file)") {
		t.Errorf("a shorter output: %q, want line 3 against the end of file", r.msgs)
	}

	r = &recorder{TB: t}
	AssertString(r, filepath.Join(dir, "missing.golden"), "x")
	if len(r.msgs) != 1 || !strings.Contains(r.msgs[0], "missing.golden") || !strings.Contains(r.msgs[0], "-update") {
		t.Errorf("a missing file: %q, want a failure naming it and -update", r.msgs)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("without -update the file changed to %q", b)
	}
}

func TestAssertUpdate(t *testing.T) {
	setUpdate(t, true)
	if !Updating() {
		t.Fatal("Updating() = false under -update")
	}
	path := filepath.Join(t.TempDir(), "new", "x.golden")
	r := &recorder{TB: t}
	AssertString(r, path, "fresh\n")
	if len(r.msgs) != 0 {
		t.Errorf("-update failed: %q", r.msgs)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "fresh\n" {
		t.Errorf("-update wrote %q, %v; want \"fresh\\n\"", b, err)
	}
	AssertString(r, path, "changed\n")
	if b, _ := os.ReadFile(path); string(b) != "changed\n" || len(r.msgs) != 0 {
		t.Errorf("-update over an existing file: %q, %q", b, r.msgs)
	}
}

// registers are the names of the flag package's (and a FlagSet's)
// functions that define a flag.
var registers = map[string]bool{
	"Bool": true, "BoolVar": true, "BoolFunc": true, "Func": true, "Var": true, "TextVar": true,
	"String": true, "StringVar": true, "Int": true, "IntVar": true, "Int64": true, "Int64Var": true,
	"Uint": true, "UintVar": true, "Uint64": true, "Uint64Var": true,
	"Float64": true, "Float64Var": true, "Duration": true, "DurationVar": true,
}

// TestNoOtherUpdateFlag: no test file outside this package registers a
// flag named "update" (flag.Bool, flag.BoolVar, flag.Var, ...): the helper's
// is the only one, and a second registration in a test binary panics. It
// parses every _test.go of the module.
func TestNoOtherUpdateFlag(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	files := gosource.Walk(t, root, func(rel string) bool {
		return gosource.Test(rel) && !strings.HasPrefix(rel, "internal/testkit/golden/")
	}, func(rel string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !registers[sel.Sel.Name] {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value == `"update"` {
					t.Errorf("%s:%d: %s registers its own \"update\" flag: use internal/testkit/golden (Assert, Updating)",
						rel, fset.Position(call.Pos()).Line, sel.Sel.Name)
				}
			}
			return true
		})
	})
	if files < 50 {
		t.Fatalf("found only %d test files under %s: the walk is broken", files, root)
	}
}
