package catalogue_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/gosource"
)

func TestVocabularyEntries(t *testing.T) {
	cats := map[string]map[string]bool{}
	for _, f := range catalogue.Findings() {
		if f.ID == "" || f.Title == "" || f.Why == "" || f.Fix == "" || f.Category == "" {
			t.Errorf("%q: incomplete entry %+v", f.ID, f)
		}
		switch f.Severity {
		case catalogue.SeverityError, catalogue.SeverityWarning, catalogue.SeverityInfo:
		default:
			t.Errorf("%s: severity %q", f.ID, f.Severity)
		}
		if cats[f.From] == nil {
			cats[f.From] = map[string]bool{}
		}
		cats[f.From][f.Category] = true
		if g, ok := catalogue.LookupFinding(f.ID); !ok || g.ID != f.ID || g.From != f.From {
			t.Errorf("LookupFinding(%s) = %+v, %v", f.ID, g, ok)
		}
	}
	for _, from := range []string{catalogue.FromCheck, catalogue.FromReader, catalogue.FromPlan, catalogue.FromBlocker} {
		if len(catalogue.FindingsFrom(from)) == 0 {
			t.Errorf("no findings from %s", from)
		}
	}
	// A category belongs to one reporter, so docs/checks.md's sections do too.
	seen := map[string]string{}
	for from, cs := range cats {
		for c := range cs {
			if other, dup := seen[c]; dup {
				t.Errorf("category %q is used by %s and %s", c, other, from)
			}
			seen[c] = from
		}
	}
	if _, ok := catalogue.LookupFinding("no-such-finding"); ok {
		t.Error("an unknown id was found")
	}
	if len(check.Catalogue()) != len(catalogue.ReportedBy(catalogue.FromCheck)) {
		t.Error("check's catalogue is not what the vocabulary says check reports")
	}
}

// The severities are the snapshot model's spellings, so findings move
// between them without mapping.
func TestSeveritiesMatchSnapshot(t *testing.T) {
	for _, tt := range [][2]string{
		{catalogue.SeverityError, snapshot.SeverityError},
		{catalogue.SeverityWarning, snapshot.SeverityWarning},
		{catalogue.SeverityInfo, snapshot.SeverityInfo},
	} {
		if tt[0] != tt[1] {
			t.Errorf("catalogue %q, snapshot %q", tt[0], tt[1])
		}
	}
}

// idUse is where the product code names a finding id.
type idUse struct {
	pos string
	id  string
}

// scanIDs parses every non-test Go file of the module and returns the ids
// given to finding constructors: string literals (an error outside check)
// and catalogue.ID* constants.
func scanIDs(t *testing.T) (literals, constants []idUse) {
	t.Helper()
	gosource.Walk(t, filepath.Join("..", ".."), gosource.Product, func(rel string, fset *token.FileSet, f *ast.File) {
		inCheck := strings.HasPrefix(rel, "internal/check/")
		ast.Inspect(f, func(n ast.Node) bool {
			var args []ast.Expr
			switch n := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				switch {
				case len(n.Args) == 0:
				case name == "finding" || name == "find" || name == "block":
					args = append(args, n.Args[0])
				case inCheck && (name == "add" || name == "addSev"):
					args = append(args, n.Args[0])
				}
			case *ast.CompositeLit:
				if isFindingType(n.Type) {
					args = append(args, idField(n))
				} else if at, ok := n.Type.(*ast.ArrayType); ok && isFindingType(at.Elt) {
					for _, e := range n.Elts {
						if el, ok := e.(*ast.CompositeLit); ok && el.Type == nil {
							args = append(args, idField(el))
						}
					}
				}
			}
			for _, arg := range args {
				switch a := arg.(type) {
				case *ast.BasicLit:
					if a.Kind == token.STRING {
						s, _ := strconv.Unquote(a.Value)
						literals = append(literals, idUse{rel + ":" + strconv.Itoa(fset.Position(a.Pos()).Line), s})
					}
				case *ast.SelectorExpr:
					if x, ok := a.X.(*ast.Ident); ok && x.Name == "catalogue" && strings.HasPrefix(a.Sel.Name, "ID") {
						constants = append(constants, idUse{rel, a.Sel.Name})
					}
				}
			}
			return true
		})
	})
	return literals, constants
}

// isFindingType reports a snapshot.Finding or plan.Blocker type expression.
func isFindingType(e ast.Expr) bool {
	switch ty := e.(type) {
	case *ast.Ident:
		return ty.Name == "Finding" || ty.Name == "Blocker"
	case *ast.SelectorExpr:
		x, _ := ty.X.(*ast.Ident)
		return x != nil && (x.Name == "snapshot" && ty.Sel.Name == "Finding" || x.Name == "plan" && ty.Sel.Name == "Blocker")
	}
	return false
}

// idField returns the ID field's value of a composite literal, or nil.
func idField(c *ast.CompositeLit) ast.Expr {
	for _, e := range c.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
				return kv.Value
			}
		}
	}
	return nil
}

// Every finding the product makes takes its id from the vocabulary: the
// readers, the plan and the commands through catalogue.ID* constants,
// check through literal ids of its own part (which check.Run also
// verifies); and every id of the vocabulary is made somewhere.
func TestEveryFindingIDIsInTheVocabulary(t *testing.T) {
	literals, constants := scanIDs(t)
	if len(constants) < 30 {
		t.Fatalf("found %d catalogue.ID uses: the scan is not reading the code", len(constants))
	}
	values := constValues(t)
	used := map[string]bool{}
	for _, u := range literals {
		f, ok := catalogue.LookupFinding(u.id)
		switch {
		case u.id == "":
			// a catalogue entry's own literal or a non-id field
		case !strings.HasPrefix(u.pos, filepath.Join("internal", "check")+string(filepath.Separator)) && !strings.HasPrefix(u.pos, filepath.Join("internal", "catalogue")+string(filepath.Separator)):
			t.Errorf("%s: finding id %q is a literal; use its catalogue.ID constant", u.pos, u.id)
		case (!ok || f.ID != u.id) && strings.HasPrefix(u.pos, filepath.Join("internal", "check")):
			t.Errorf("%s: finding id %q is not an id of the vocabulary (a former id?)", u.pos, u.id)
		case ok && strings.HasPrefix(u.pos, filepath.Join("internal", "check")) && f.From != catalogue.FromCheck:
			t.Errorf("%s: check makes a %s finding %q", u.pos, f.From, u.id)
		}
		used[u.id] = true
	}
	for _, u := range constants {
		used[values[u.id]] = true
	}
	for _, f := range catalogue.Findings() {
		if !used[f.ID] {
			t.Errorf("%s (%s) is in the vocabulary but nothing reports it", f.ID, f.From)
		}
	}
}

// constValues maps catalogue.ID* constant names to their ids, from the
// catalogue's source.
func constValues(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("findings.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "findings.go", b, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "ID") {
					m[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return m
}

// The ids scripts may hold from before the vocabulary was one still name
// what they named: each former id resolves to its finding (or, for an id
// that covered several, to all of them), without regard to case.
func TestFormerIDs(t *testing.T) {
	single := map[string]string{
		"KRAFT-PENDING-NOTIFICATIONS":   catalogue.IDNotificationsPending,
		"KRAFT-PENDING-DELETE":          catalogue.IDTopicPendingDelete,
		"KRAFT-LEGACY-REASSIGNMENT":     catalogue.IDLegacyReassignment,
		"KRAFT-REASSIGNMENT":            catalogue.IDTopicMidReassignment,
		"CARRY-DELEGATION-TOKEN":        catalogue.IDDelegationToken,
		"CARRY-TOPIC-ID":                catalogue.IDTopicIDChanges,
		"CARRY-TIERED-STORAGE":          catalogue.IDBlockTieredStorageTopic,
		"TOPIC-LEGACY-CONSUMER-OFFSETS": catalogue.IDOutOfScopeOffsets,
		"kraft-pending-delete":          catalogue.IDTopicPendingDelete,
	}
	for old, want := range single {
		f, ok := catalogue.LookupFinding(old)
		if !ok || f.ID != want {
			t.Errorf("LookupFinding(%s) = %s, %v; want %s", old, f.ID, ok, want)
		}
	}
	group := map[string][]string{
		"ACL-PRINCIPAL-MAP": {catalogue.IDPrincipalMapUnmapped, catalogue.IDPrincipalMapMerge, catalogue.IDBlockPrincipalMapClash},
		"READ-PROBLEM":      {catalogue.IDZnodeMalformed, catalogue.IDReadNotConsistent, catalogue.IDKReadTopicError, "KRAFT-IBP-INVALID"},
	}
	for old, want := range group {
		var got []string
		for _, f := range catalogue.Lookup(old) {
			got = append(got, f.ID)
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("Lookup(%s) = %v, lacks %s", old, got, w)
			}
		}
		if _, ok := catalogue.LookupFinding(old); ok {
			t.Errorf("LookupFinding(%s) picked one of several findings", old)
		}
	}
	if f, ok := catalogue.LookupFinding("Notifications-Pending"); !ok || f.ID != catalogue.IDNotificationsPending {
		t.Errorf("ids do not match without regard to case: %v %v", f.ID, ok)
	}
	// No id is listed twice, and no former id is an id (the indexes panic
	// on either at start-up, so reaching here proves it); every reader
	// finding is reported by check too.
	for _, f := range catalogue.FindingsFrom(catalogue.FromReader) {
		if !f.Reports(catalogue.FromCheck) {
			t.Errorf("%s: a reader finding check does not report", f.ID)
		}
	}
	if len(catalogue.IDs()) != len(catalogue.Findings()) {
		t.Error("IDs and Findings differ")
	}
}
