package syncer

import (
	"context"
	"errors"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestResourceTypesKnown: every resource type a change kind of plan's
// registry touches is one the scope knows; a type it does not know is an
// *UnknownResourceError naming it, never a change silently left out of
// every change round.
func TestResourceTypesKnown(t *testing.T) {
	if err := checkResources(plan.ResourceTypes()); err != nil {
		t.Fatalf("plan's resource types: %v", err)
	}
	err := checkResources([]string{"topic", "connector"})
	var ue *UnknownResourceError
	if !errors.As(err, &ue) || ue.Type != "connector" {
		t.Fatalf("checkResources with a new type = %v, want an UnknownResourceError naming it", err)
	}
	for typ := range scoped {
		found := false
		for _, k := range plan.ResourceTypes() {
			found = found || k == typ
		}
		if !found {
			t.Errorf("the scope knows resource type %q, which no change kind touches", typ)
		}
	}
}

// TestRunRefusesUnknownResource: Run does not start while a change can
// touch a resource type the scope does not know.
func TestRunRefusesUnknownResource(t *testing.T) {
	saved := scoped["group"]
	delete(scoped, "group")
	defer func() { scoped["group"] = saved }()
	err := Run(context.Background(), Config{}, make(chan Round, 1))
	var ue *UnknownResourceError
	if !errors.As(err, &ue) || ue.Type != "group" {
		t.Fatalf("Run = %v, want an UnknownResourceError naming group", err)
	}
}
