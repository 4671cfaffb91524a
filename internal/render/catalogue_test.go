package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/render"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// docs/checks.md is generated from the catalogue; CI runs this test, so a
// catalogue change without regenerating the docs fails the build.
func TestDocsChecksCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := render.CatalogueMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "checks.md")
	if goldenfile.Updating() {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/checks.md is not current: run go run ./tools/checksdoc\n%s", cmp.Diff(string(have), b.String()))
	}
	for _, r := range catalogue.Findings() {
		if !bytes.Contains(have, []byte("### "+r.ID+"\n")) {
			t.Errorf("docs/checks.md has no section for %s", r.ID)
		}
	}
}
