package plan

import (
	"fmt"
	"slices"
	"strings"
)

// spec is everything plan knows about one change kind: how its changes are
// built from source and target, how its resource is observed on a target,
// when an observed state matches a planned one, and which fields a change
// shows. Each kind's spec lives in its own file (kind_<name>.go) and is
// registered in specs; nothing else in the repository switches on a kind.
type spec struct {
	kind Kind
	// resource is the Resource.Type its changes touch.
	resource string
	// build adds the kind's changes for the whole plan (nil for a kind
	// that changes an existing topic: see modify).
	build func(b *builder) error
	// modify returns the kind's change to an existing topic of the source
	// and the target, or nil (only for kinds built with topics).
	modify func(b *builder, t *topicPass) *Change
	// observe returns the target's state of c's resource, shaped like
	// c.Before and c.After; nil when the resource is absent.
	observe func(t *Target, c *Change) *State
	// equal reports whether an observed state is a planned one (either may
	// be nil).
	equal func(obs, ref *State) bool
	// fields lists what c sets or removes, key by key.
	fields func(c *Change) []Field
	// label names c's resource for people.
	label func(r Resource) string
	// actions are the actions its changes can have (nil: create, update
	// and delete).
	actions []Action
	// valid checks what the kind needs of a change beyond Validate's
	// common checks (nil: nothing more); "" when fine.
	valid func(c *Change) string
	// password: the kind's after-state may carry a SCRAM password.
	password bool
	// invert undoes an applied change (Invert): Kind, Resource and ID are
	// filled in by Invert.
	invert func(c *Change, in InvertInput) Inverse
	// whole returns the whole state of the resource a delete removes, when
	// its Before holds only part of it (nil: Before is whole).
	whole func(t *Target, c *Change) *State
}

// registry is every change kind's spec in apply order: the one list of
// change kinds. Kinds and specs are made from it; apply's registry and
// plantest's simulators are keyed by kind, and their tests fail unless they
// hold exactly these kinds.
var registry []*spec

// specs indexes the registry by kind (the topic kind's build reads it to
// find the kinds that change an existing topic, hence init).
var specs map[Kind]*spec

func init() {
	registry = []*spec{topicSpec, partitionsSpec, reassignmentSpec, topicConfigSpec, brokerConfigSpec, quotaSpec, aclSpec,
		scramUserSpec, clientMetricsSpec, groupConfigSpec}
	specs = make(map[Kind]*spec, len(registry))
	Kinds = make([]Kind, len(registry))
	for i, s := range registry {
		specs[s.kind], Kinds[i] = s, s.kind
	}
}

// ResourceTypes lists the Resource.Type of every kind, each once, in
// Kinds order: what a change can touch.
func ResourceTypes() []string {
	var out []string
	for _, s := range registry {
		if !slices.Contains(out, s.resource) {
			out = append(out, s.resource)
		}
	}
	return out
}

// UnknownKindError is a change of a kind plan does not know (a plan file
// written by another version, or edited).
type UnknownKindError struct {
	Kind Kind
}

func (e *UnknownKindError) Error() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return fmt.Sprintf("unknown change kind %q (known: %s)", e.Kind, strings.Join(names, ", "))
}

func specOf(k Kind) (*spec, error) {
	if s, ok := specs[k]; ok {
		return s, nil
	}
	return nil, &UnknownKindError{Kind: k}
}

// CheckKind returns an *UnknownKindError for a kind that is not in Kinds.
func CheckKind(k Kind) error {
	_, err := specOf(k)
	return err
}

// ResourceType is the Resource.Type a change of kind k touches.
func ResourceType(k Kind) (string, error) {
	s, err := specOf(k)
	if err != nil {
		return "", err
	}
	return s.resource, nil
}

// Label names a change's resource for people: "orders", "broker 1",
// "<default>", "User:alice SCRAM-SHA-256", an ACL in words. A change of an
// unknown kind is labelled by its resource name.
func Label(c *Change) string {
	s, err := specOf(c.Kind)
	if err != nil {
		return c.Resource.Name
	}
	return s.label(c.Resource)
}

func nameLabel(r Resource) string { return r.Name }

// Field is one value a change sets, alters or removes. Every kind's change
// comes down to a list of fields, which the text diff, the JSON and the TUI
// all show the same way.
type Field struct {
	Key string `json:"key"`
	// Before is the value on the target before the change, nil when unset.
	Before *string `json:"before"`
	// After is the value once the change is applied, nil when removed.
	After *string `json:"after"`
	// Sensitive fields never hold a value: Before and After hold the
	// secret's reference ("" when the value is known to the target only).
	Sensitive bool `json:"sensitive,omitempty"`
}

// Mark is "+" for a field the change sets, "-" for one it removes, "~" for
// one it alters and "=" for one it leaves as it is.
func (f Field) Mark() string {
	switch {
	case f.Before == nil && f.After != nil:
		return "+"
	case f.Before != nil && f.After == nil:
		return "-"
	case f.Before != nil && *f.Before == *f.After && !f.Sensitive:
		return "="
	}
	return "~"
}

// Fields lists what a change sets, alters or removes, key by key. Sensitive
// values never appear: their fields hold secret references only.
func Fields(c *Change) ([]Field, error) {
	s, err := specOf(c.Kind)
	if err != nil {
		return nil, fmt.Errorf("change %s: %w", c.ID, err)
	}
	return s.fields(c), nil
}

func strp(s string) *string { return &s }

// field is a field set (before nil), removed (after nil) or altered.
func field(key string, before, after *string) Field {
	return Field{Key: key, Before: before, After: after}
}

// orEmpty returns s, or an empty state for nil, so that fields can read
// either side of a change.
func orEmpty(s *State) *State {
	if s == nil {
		return &State{}
	}
	return s
}

// bothOrNeither decides equality when either state is nil: equal only when
// both are. ok is false when both are set and the caller must compare.
func bothOrNeither(obs, ref *State) (eq, ok bool) {
	if obs == nil || ref == nil {
		return obs == nil && ref == nil, true
	}
	return false, false
}
