package render

import (
	"reflect"
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestPlanJSONMirrorsPlan: the plan -o json shows has plan.Plan's members,
// in its order, so that a member added to the plan is not left out of
// the view (the view adds each change's fields, derived as it writes).
func TestPlanJSONMirrorsPlan(t *testing.T) {
	names := func(t reflect.Type) []string {
		var out []string
		for i := range t.NumField() {
			out = append(out, t.Field(i).Tag.Get("json"))
		}
		return out
	}
	if got, want := names(reflect.TypeFor[planJSON]()), names(reflect.TypeFor[plan.Plan]()); !slices.Equal(got, want) {
		t.Errorf("planJSON members %q, plan.Plan's %q", got, want)
	}
}
