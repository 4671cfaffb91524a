package plantest

import (
	"maps"
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestSimulatorsAgreeWithKinds: plantest simulates exactly the kinds of
// plan's registry (plan.Kinds), so that a new kind cannot be planned in a
// test that simulates its plan without a simulator, nor a removed one linger.
func TestSimulatorsAgreeWithKinds(t *testing.T) {
	got := slices.Sorted(maps.Keys(simulators))
	want := slices.Sorted(slices.Values(plan.Kinds))
	if !slices.Equal(got, want) {
		t.Errorf("simulators for %v, plan.Kinds %v", got, want)
	}
}
