package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanColor: the text plan is coloured on a terminal only, and not
// with --no-color or NO_COLOR; -o json never is.
func TestPlanColor(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"plan", "--snapshot", "../../internal/check/testdata/legacy.snapshot.json", "--target-snapshot", target, "--no-audit"}
	for _, tt := range []struct {
		name    string
		extra   []string
		tty     bool
		noColor bool // NO_COLOR in the environment
		want    bool
	}{
		{"terminal", nil, true, false, true},
		{"pipe", nil, false, false, false},
		{"--no-color", []string{"--no-color"}, true, false, false},
		{"NO_COLOR", nil, true, true, false},
		{"-o json", []string{"-o", "json"}, true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			e := &env{args: append(append([]string{}, args...), tt.extra...), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
				tty: tt.tty, prog: "migrate", noColor: tt.noColor}
			if code := runEnv(context.Background(), e); code != exitPending {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if got := strings.Contains(out.String(), "\x1b[3"); got != tt.want {
				t.Errorf("colour %v, want %v:\n%.300q", got, tt.want, out.String())
			}
		})
	}
	t.Setenv("NO_COLOR", "1")
	if !processEnv(nil).noColor {
		t.Error("NO_COLOR=1 in the environment: the process env has colour")
	}
	t.Setenv("NO_COLOR", "")
	if processEnv(nil).noColor {
		t.Error("NO_COLOR empty: no colour (no-color.org: only a non-empty value turns it off)")
	}
}
