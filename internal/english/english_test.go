package english

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/gosource"
)

// TestN: counts read as English: one thing, otherwise things.
func TestN(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		pl   []string
		want string
	}{
		{0, "change", nil, "0 changes"},
		{1, "change", nil, "1 change"},
		{2, "change", nil, "2 changes"},
		{1, "entry", []string{"entries"}, "1 entry"},
		{3, "entry", []string{"entries"}, "3 entries"},
		{0, "class", []string{"classes"}, "0 classes"},
		{-1, "change", nil, "-1 changes"},
	} {
		if got := N(tt.n, tt.noun, tt.pl...); got != tt.want {
			t.Errorf("N(%d, %q, %q) = %q, want %q", tt.n, tt.noun, tt.pl, got, tt.want)
		}
	}
}

// TestAgree: the verb agrees with the count.
func TestAgree(t *testing.T) {
	for n, want := range map[int]string{0: "are", 1: "is", 2: "are"} {
		if got := Agree(n, "is", "are"); got != want {
			t.Errorf("Agree(%d) = %q, want %q", n, got, want)
		}
	}
}

// hedgedPlural is a count that leaves the plural open: "change(s)".
var hedgedPlural = regexp.MustCompile(`[A-Za-z]\(s\)`)

// TestNoHedgedPlurals: no string literal of the product (cmd, internal,
// tui; not tests, not testdata) counts with "(s)": say "1 change" or
// "2 changes" with N instead (issue 31 item 5).
func TestNoHedgedPlurals(t *testing.T) {
	inProduct := func(rel string) bool {
		top, _, _ := strings.Cut(rel, "/")
		return gosource.Product(rel) && (top == "cmd" || top == "internal" || top == "tui")
	}
	files := gosource.Walk(t, filepath.Join("..", ".."), inProduct, func(_ string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			if m := hedgedPlural.FindString(s); m != "" {
				t.Errorf("%s: %q counts with %q: use english.N", fset.Position(lit.Pos()), s, m)
			}
			return true
		})
	})
	if files < 50 {
		t.Fatalf("only %d product Go files found: is the walk looking in the right place?", files)
	}
}
