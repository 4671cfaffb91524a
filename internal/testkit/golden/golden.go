// Package golden is the one golden-file helper of the tests: Assert
// compares what a test produced with a file under testdata/ and, under
// `go test ... -update`, rewrites the file instead. Test use only.
//
// The -update flag is registered once per test binary, never by a test
// file (TestNoOtherUpdateFlag guards that): a second registration of the
// same name panics when the binary starts. The registration is
// github.com/charmbracelet/x/exp/golden's, imported here for that alone:
// teatest links that package into the tui tests, where it registers
// "update" unconditionally, so a flag of our own could only be registered
// when Go happens to initialize that package first. Importing it makes the
// order certain and the flag the same in every test binary.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	// Registers the -update flag (see the package comment).
	_ "github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"
)

// Updating reports whether the test binary runs with -update, for tests
// that regenerate something other than a plain golden file (a fixture
// database, a generated document).
func Updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// Assert compares got with the golden file path. Under -update it writes
// got to path (creating its directory) and passes. Otherwise a missing file
// or a difference fails the test, naming the file, the first differing
// line and how to rewrite it.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (%s)", err, updateHint(t))
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	t.Errorf("%s", Mismatch(path, want, got)+"\n"+updateHint(t))
}

// AssertString is Assert for a string.
func AssertString(t testing.TB, path, got string) {
	t.Helper()
	Assert(t, path, []byte(got))
}

// updateHint says how to rewrite the file: from this test's directory,
// this test alone, with -update.
func updateHint(t testing.TB) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("if the new output is right, rewrite the file: go test -run '^%s$' -update (in this package)", top)
}

// Mismatch describes how got differs from the golden file's want: the
// file, the first differing line (1-based) with both versions, then the
// whole difference (-want +got).
func Mismatch(path string, want, got []byte) string {
	wl := strings.SplitAfter(string(want), "\n")
	gl := strings.SplitAfter(string(got), "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	line := func(ls []string) string {
		if i >= len(ls) || (i == len(ls)-1 && ls[i] == "") {
			return "(end of file)"
		}
		return fmt.Sprintf("%q", ls[i])
	}
	return fmt.Sprintf("%s differs from the output at line %d:\n want %s\n  got %s\n(-want +got):\n%s",
		path, i+1, line(wl), line(gl), cmp.Diff(string(want), string(got)))
}
