package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildWithoutCgoFails: CGO_ENABLED=0 must not build a migrate that
// runs without its audit trail; the build fails and says why.
func TestBuildWithoutCgoFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command without cgo (-short)")
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "migrate"), ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("a CGO_ENABLED=0 build succeeded: it would run without an audit trail")
	}
	if !strings.Contains(string(out), "migrate_needs_cgo_for_its_audit_trail") {
		t.Fatalf("the build failed without saying why:\n%s", out)
	}
}
