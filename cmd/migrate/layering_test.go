package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layering of the command, checked from its code (docs/architecture.md,
// "Building a command"): cmd/migrate parses flags, calls a use case and
// renders one view. These tests parse the package's files themselves (no
// go list, no build), so they fail as soon as a file breaks a rule.

// commandFiles parses the package's non-test Go files (every build
// constraint: a file for another platform counts too).
func commandFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) == 0 {
		t.Fatal("no Go files in cmd/migrate")
	}
	return fset, files
}

// belowTheUseCases are the readers, connections, executors and the sync
// loop: the command reaches them only through internal/migration (and the
// packages beside it), never by importing them.
var belowTheUseCases = []string{
	"zkread", "zkconn", "zkdisk", "zkfeed", "zkwire", "zktree",
	"kread", "kafkaconn", "apply", "syncer", "kraftcheckpoint", "props",
}

const modulePath = "github.com/zkmigrate/zkmigrate/"

// TestCommandImportsNoStage: no file of the command imports a reader, a
// connection, an executor or the sync loop (or a package inside one).
func TestCommandImportsNoStage(t *testing.T) {
	_, files := commandFiles(t)
	for name, f := range files {
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			rest, ok := strings.CutPrefix(path, modulePath+"internal/")
			if !ok {
				continue
			}
			top, _, _ := strings.Cut(rest, "/")
			if slices.Contains(belowTheUseCases, top) {
				t.Errorf("%s imports %s: reach it through a use case (internal/migration or a package beside it)", name, path)
			}
		}
	}
}

// TestQuotaKindNamedInFewFiles: adding or changing a change kind touches
// few files. The criterion, for the quota kind: a product Go file (not a
// _test.go file, not test tooling — internal/testkit, internal/plan/plantest,
// tui/internal/fixture, tools/ — and not testdata) names the kind when it
// refers to the identifier KindQuota (plan.KindQuota), or uses the string
// "quota" as a value the code decides on: a switch case, an operand of ==
// or !=, or a key or value in a composite literal (a registry entry, a
// Resource{Type: "quota"}). The word in a message or a call argument (the
// principal map counts "quota" uses for its findings' text) is not the kind.
// At most 4 files: the kind's plan spec, apply's registry, the principal
// map's collision blockers and sync's scope.
func TestQuotaKindNamedInFewFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{"internal/testkit": true, "internal/plan/plantest": true, "tui/internal/fixture": true, "tools": true}
	var naming []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skip[rel] || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			return err
		}
		if namesQuotaKind(f) {
			naming = append(naming, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(naming) == 0 {
		t.Fatal("no file names the quota kind: the criterion no longer finds plan's own")
	}
	if len(naming) > 4 {
		t.Errorf("the quota kind is named in %d product files, want at most 4: %s", len(naming), strings.Join(naming, ", "))
	}
}

// namesQuotaKind is the criterion of TestQuotaKindNamedInFewFiles for one
// file.
func namesQuotaKind(f *ast.File) bool {
	isQuota := func(e ast.Expr) bool {
		l, ok := e.(*ast.BasicLit)
		return ok && l.Kind == token.STRING && l.Value == `"quota"`
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			found = found || x.Name == "KindQuota"
		case *ast.CaseClause:
			found = found || slices.ContainsFunc(x.List, isQuota)
		case *ast.BinaryExpr:
			found = found || (x.Op == token.EQL || x.Op == token.NEQ) && (isQuota(x.X) || isQuota(x.Y))
		case *ast.KeyValueExpr:
			found = found || isQuota(x.Key) || isQuota(x.Value)
		case *ast.CompositeLit:
			found = found || slices.ContainsFunc(x.Elts, isQuota)
		}
		return !found
	})
	return found
}

// maxFuncLines is the longest a function of the command may be: one that
// needs more does a use case's work, which belongs below it.
const maxFuncLines = 80

// TestCommandFunctionsShort: no function or method of the command is
// longer than maxFuncLines lines, its signature and closing brace
// included (a closure counts toward the function that holds it).
func TestCommandFunctionsShort(t *testing.T) {
	fset, files := commandFiles(t)
	for name, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines, want at most %d: move its use-case work into internal/migration (or a package beside it)", name, fd.Name.Name, n, maxFuncLines)
			}
		}
	}
}

// TestCommandLines: the command is flags, a use case and a view, at most
// 3,000 lines of Go (its non-test files, as wc -l counts them); the flag
// groups commands share live in internal/cliflags, the work below.
func TestCommandLines(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(b), "\n")
	}
	if total > 3000 {
		t.Errorf("cmd/migrate has %d non-test lines, want at most 3,000: move use-case work below it (internal/migration, internal/cliflags)", total)
	}
}
