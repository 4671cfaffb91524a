package main

import (
	"strings"
	"testing"
)

// Placement and prune flags that cannot work stop plan with one line naming
// the flag, before anything is read from a target.
func TestPlacementFlagErrors(t *testing.T) {
	snap := "../../internal/check/testdata/legacy.snapshot.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--placement", "rack"}, `--placement "rack": want auto, source or target`},
		{[]string{"--prune-cluster-configs"}, "--prune-cluster-configs needs --prune"},
		{[]string{"--reassign", "--placement", "target"}, "--reassign needs a layout"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"plan", "--no-audit", "--snapshot", snap, "--target-snapshot", snap}, tc.args...)
			code, _, errs := runMigrate(t, args...)
			if code != exitError || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 1 and one line containing %q", code, errs, tc.want)
			}
		})
	}
}
