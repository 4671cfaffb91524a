package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// requireGolden compares got with testdata/<test name>.golden, after
// stripping ANSI escapes; -update rewrites the file.
func requireGolden(t *testing.T, got string) {
	t.Helper()
	got = ansi.Strip(got)
	// Trailing spaces are padding: keep the files diff-friendly.
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got = strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	golden.AssertString(t, path, got)
}
