package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// TopicState is a topic's layout and configs as a policy sees them.
type TopicState struct {
	Partitions        int32             `cel:"partitions"`         // partition count
	ReplicationFactor int               `cel:"replication_factor"` // replicas per partition
	Assignment        [][]int32         `cel:"assignment"`         // index = partition id; may be nil when the target places replicas
	Configs           map[string]string `cel:"configs"`            // dynamic topic config overrides (sensitive values never appear here)
}

// Action is what is done to a topic.
type Action string

// The actions a policy sees.
const (
	Create Action = "CREATE"
	Modify Action = "MODIFY"
	Delete Action = "DELETE"
)

// Actions lists every action, in the order rules and output use.
var Actions = []Action{Create, Modify, Delete}

func (a Action) bit() uint8 {
	switch a {
	case Create:
		return 1
	case Modify:
		return 2
	case Delete:
		return 4
	}
	return 0
}

// Request is one action on one topic.
//
//	action  Pre                      Post
//	CREATE  nil                      the requested state
//	MODIFY  the target's current     the state after the change
//	DELETE  the target's current     nil
type Request struct {
	Action    Action
	Topic     string
	Principal string // Kafka's full form, "User:alice"; "" when unknown
	Pre, Post *TopicState
}

// Decision is the outcome of evaluating a Request: the first denying rule,
// or Allowed with an empty Rule when no rule denies.
type Decision struct {
	Allowed bool   `json:"allowed"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message,omitempty"`
}

// Adapter is a legacy Java policy class named in the policy file. zkmigrate
// cannot run it; the target's controllers do.
type Adapter struct {
	Class   string            `json:"class"`
	Actions []Action          `json:"actions"`
	Scope   string            `json:"scope"` // ScopeCreate or ScopeAlterConfig
	Config  map[string]string `json:"config,omitempty"`
	Source  string            `json:"source"` // file:line of the legacy key (or of the adapter entry)
}

// Adapter scopes: which legacy interface the class implements.
const (
	ScopeCreate      = "create"       // CreateTopicPolicy, create.topic.policy.class.name
	ScopeAlterConfig = "alter-config" // AlterConfigPolicy, alter.config.policy.class.name
)

// rule is one compiled rule.
type rule struct {
	name    string
	actions uint8          // bit set of Action.bit
	topics  *regexp.Regexp // nil matches every topic
	prg     cel.Program
	message string
	where   string // file:line of the rule
}

// Policy is a loaded, type-checked and compiled policy file. It is
// immutable and safe for concurrent use.
type Policy struct {
	source   string
	digest   string
	rules    []rule
	adapters []Adapter
}

// Source returns the file name the policy was loaded from.
func (p *Policy) Source() string { return p.source }

// Digest returns the SHA-256 of the policy file's bytes, hex-encoded, for
// the audit trail.
func (p *Policy) Digest() string { return p.digest }

// Rules returns the rule names, in file order.
func (p *Policy) Rules() []string {
	out := make([]string, len(p.rules))
	for i, r := range p.rules {
		out[i] = r.name
	}
	return out
}

// Adapters returns the legacy classes the file names. They are enforced
// server-side and never deny anything here.
func (p *Policy) Adapters() []Adapter {
	if p == nil {
		return nil
	}
	out := make([]Adapter, len(p.adapters))
	copy(out, p.adapters)
	return out
}

// Notes returns one line per adapter saying who enforces it, to be reported
// once per run.
func (p *Policy) Notes() []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, a := range p.adapters {
		acts := make([]string, len(a.Actions))
		for i, x := range a.Actions {
			acts[i] = string(x)
		}
		out = append(out, fmt.Sprintf("adapter %s (%s) is enforced by the target's controllers, not by zkmigrate", a.Class, strings.Join(acts, ", ")))
	}
	return out
}

// EvaluateExisting evaluates an existing topic as if it were created now,
// with no principal.
func (p *Policy) EvaluateExisting(topic string, s TopicState) Decision {
	return p.Evaluate(Request{Action: Create, Topic: topic, Post: &s})
}

// Evaluate runs the rules that apply to r's action and topic, in file
// order, and returns the first denial. A rule that cannot be evaluated
// (an error, or a result that is not a bool) denies with the reason: the
// policy fails closed. A request whose shape does not fit its action (a
// CREATE without Post, a MODIFY without Pre, ...) is denied too.
//
// A nil *Policy allows everything.
func (p *Policy) Evaluate(r Request) Decision {
	if p == nil {
		return Decision{Allowed: true}
	}
	bit := r.Action.bit()
	if bit == 0 {
		return Decision{Message: fmt.Sprintf("unknown action %q (denied: the policy fails closed)", r.Action)}
	}
	if msg := shapeError(r); msg != "" {
		return Decision{Message: msg + " (denied: the policy fails closed)"}
	}
	var act interpreter.Activation
	for i := range p.rules {
		ru := &p.rules[i]
		if ru.actions&bit == 0 || (ru.topics != nil && !ru.topics.MatchString(r.Topic)) {
			continue
		}
		if act == nil {
			act = newActivation(r)
		}
		out, _, err := ru.prg.Eval(act)
		if err != nil {
			return Decision{Rule: ru.name, Message: fmt.Sprintf("evaluation error: %v%s (denied: the policy fails closed)", err, nullHint(r, err))}
		}
		b, ok := out.(types.Bool)
		if !ok {
			return Decision{Rule: ru.name, Message: fmt.Sprintf("expression returned %s, not bool (denied: the policy fails closed)", out.Type().(ref.Type).TypeName())}
		}
		if !b {
			return Decision{Rule: ru.name, Message: ru.message}
		}
	}
	return Decision{Allowed: true}
}

func shapeError(r Request) string {
	switch {
	case r.Action == Create && r.Post == nil:
		return "CREATE request without the requested state"
	case r.Action == Modify && (r.Pre == nil || r.Post == nil):
		return "MODIFY request without both the current and the resulting state"
	case r.Action == Delete && r.Pre == nil:
		return "DELETE request without the current state"
	}
	return ""
}

// nullHint explains a "no such key" error on a field of a null pre or post.
func nullHint(r Request, err error) string {
	switch err.Error() {
	case "no such key: partitions", "no such key: replication_factor", "no such key: assignment", "no such key: configs":
	default:
		return ""
	}
	switch {
	case r.Pre == nil:
		return " (pre is null for CREATE)"
	case r.Post == nil:
		return " (post is null for DELETE)"
	}
	return ""
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
