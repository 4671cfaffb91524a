package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestRegistryComplete: every kind in Kinds has a full spec (a resource
// type, exactly one way of being built, and how it is observed, matched,
// shown and labelled), and the registry holds no kind Kinds leaves out.
func TestRegistryComplete(t *testing.T) {
	for _, k := range Kinds {
		t.Run(string(k), func(t *testing.T) {
			s, err := specOf(k)
			if err != nil {
				t.Fatal(err)
			}
			missing := map[string]bool{
				"resource":                      s.resource == "",
				"observe":                       s.observe == nil,
				"equal":                         s.equal == nil,
				"fields":                        s.fields == nil,
				"label":                         s.label == nil,
				"invert":                        s.invert == nil,
				"build or modify (exactly one)": (s.build == nil) == (s.modify == nil),
			}
			for what, miss := range missing {
				if miss {
					t.Errorf("kind %s: spec has no %s", k, what)
				}
			}
			if s.modify != nil && s.resource != "topic" {
				t.Errorf("kind %s changes an existing topic but its resource is %q", k, s.resource)
			}
		})
	}
	if len(specs) != len(Kinds) {
		t.Errorf("registry holds %d kinds, Kinds lists %d", len(specs), len(Kinds))
	}
}

// TestUnknownKind: every registry question about an unknown kind is an
// error naming the kind, never a silent default.
func TestUnknownKind(t *testing.T) {
	c := &Change{ID: "delegation-token:t", Kind: "delegation-token", Action: ActionCreate, After: &State{}}
	ix := NewTarget(&snapshot.Snapshot{Format: 1})
	named := func(t *testing.T, err error) {
		t.Helper()
		var uk *UnknownKindError
		if !errors.As(err, &uk) || uk.Kind != c.Kind || !strings.Contains(err.Error(), `"delegation-token"`) {
			t.Errorf("error = %v, want an *UnknownKindError naming delegation-token", err)
		}
	}
	tests := []struct {
		name string
		err  func() error
	}{
		{"CheckKind", func() error { return CheckKind(c.Kind) }},
		{"ResourceType", func() error { _, err := ResourceType(c.Kind); return err }},
		{"Fields", func() error { _, err := Fields(c); return err }},
		{"Observe", func() error { _, err := ix.Observe(c); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { named(t, tt.err()) })
	}
	t.Run("Check", func(t *testing.T) {
		st, obs := ix.Check(c)
		if st != Stale || !strings.Contains(obs, `unknown change kind "delegation-token"`) {
			t.Errorf("Check = %v %q, want stale naming the kind", st, obs)
		}
	})
	t.Run("Shows", func(t *testing.T) {
		if ix.Shows(c) {
			t.Error("Shows = true for a change of an unknown kind")
		}
	})
	for _, k := range Kinds {
		if err := CheckKind(k); err != nil {
			t.Errorf("CheckKind(%s) = %v", k, err)
		}
	}
}
