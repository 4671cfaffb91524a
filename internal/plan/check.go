package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// The checks of a plan against itself and against a target, beside
// Recheck (against the plan the source justifies now): Validate (is it a
// plan the tool can carry out, as an edited file may not be) and Triage
// (is each change still pending on the target, done, or stale: apply
// refuses a stale plan, and apply --plan checks it first, so that a stale
// plan is reported as stale before the source is asked to justify it).

// Validate checks that a plan (possibly read from a file someone edited)
// is one the tool can carry out: known kinds, actions its kind has, the
// states each change needs, its resource named consistently and not a
// Kafka-internal topic, and secret references only into the resource and
// key they were read from. The error names the first bad change.
func Validate(p *Plan) error {
	for i := range p.Changes {
		c := &p.Changes[i]
		if why := invalid(c); why != "" {
			return fmt.Errorf("plan change %d (%s): %s", i+1, c.ID, why)
		}
	}
	return nil
}

// invalid says what is wrong with c ("" nothing).
func invalid(c *Change) string {
	s, err := specOf(c.Kind)
	if err != nil {
		return err.Error()
	}
	if !slices.Contains(s.actionsOrAll(), c.Action) {
		return fmt.Sprintf("a %s change has no action %q", c.Kind, c.Action)
	}
	if c.Action != ActionDelete && c.After == nil {
		return "no after-state"
	}
	if s.valid != nil {
		if why := s.valid(c); why != "" {
			return why
		}
	}
	if why := validResource(c, s); why != "" {
		return why
	}
	if why := validStates(c); why != "" {
		return why
	}
	return validSecrets(c, s)
}

// allActions are the actions of a kind that lists none.
var allActions = []Action{ActionCreate, ActionUpdate, ActionDelete}

func (s *spec) actionsOrAll() []Action {
	if s.actions == nil {
		return allActions
	}
	return s.actions
}

// Actions lists the actions a change of kind k can have.
func Actions(k Kind) ([]Action, error) {
	s, err := specOf(k)
	if err != nil {
		return nil, err
	}
	return slices.Clone(s.actionsOrAll()), nil
}

// needsBefore is the check of a kind whose change needs a before-state.
func needsBefore(c *Change) string {
	if c.Before == nil {
		return "no before-state"
	}
	return ""
}

// needsBeforeAndAfter is the check of a config kind whose every change,
// a delete too, holds both states (the keys to delete are the before-state's).
func needsBeforeAndAfter(c *Change) string {
	if c.Before == nil || c.After == nil {
		return "no before- or after-state"
	}
	return ""
}

// validResource checks that a change names its resource consistently and
// that it is not a Kafka-internal topic, which the tool never creates,
// alters or deletes.
func validResource(c *Change, s *spec) string {
	r := c.Resource
	switch {
	case r.Type != s.resource:
		return fmt.Sprintf("resource type %q is not what a %s change touches (%s)", r.Type, c.Kind, s.resource)
	case r.Type == "topic" && catalogue.IsInternalTopic(r.Name):
		return fmt.Sprintf("%s is a Kafka-internal topic, which is never created, altered or deleted", r.Name)
	case (r.Type == "topic" || r.Type == "user") && r.Name == "":
		return "no resource name"
	case c.ID != ChangeID(c.Kind, r):
		return fmt.Sprintf("the id does not name the change's resource (want %s)", ChangeID(c.Kind, r))
	}
	return ""
}

// validStates checks the numbers of a change's states: no negative counts
// or broker ids.
func validStates(c *Change) string {
	for _, st := range []*State{c.Before, c.After} {
		if st == nil {
			continue
		}
		switch {
		case st.Partitions < 0:
			return fmt.Sprintf("negative partition count %d", st.Partitions)
		case st.ReplicationFactor < 0 || st.ReplicationFactor > math.MaxInt16:
			return fmt.Sprintf("replication factor %d out of range", st.ReplicationFactor)
		case st.Iterations < 0:
			return fmt.Sprintf("negative iterations %d", st.Iterations)
		}
		for _, rs := range st.Assignment {
			for _, r := range rs {
				if r < 0 {
					return fmt.Sprintf("negative broker id %d in an assignment", r)
				}
			}
		}
	}
	return ""
}

// validSecrets checks that every secret reference in a change's after-state
// is one the tool writes for that resource and key: a SCRAM credential's
// for that user and mechanism only, a config's for that config key only
// (and a topic's for that topic), never a SCRAM reference in a config. The
// reference is resolved again from the inputs of this run (Secrets); this
// refuses an edited plan early, by name.
func validSecrets(c *Change, s *spec) string {
	if c.After == nil {
		return ""
	}
	if pw := c.After.Password; pw != nil {
		if !s.password {
			return "a password in a " + string(c.Kind) + " change"
		}
		if want := "scram-credentials:" + c.Resource.Name + "/" + c.Resource.Mechanism; pw.Ref() != want {
			return fmt.Sprintf("password reference %q is not this credential's (%s)", pw.Ref(), want)
		}
	}
	for _, cf := range c.After.Configs {
		switch {
		case cf.Secret == nil && !cf.Sensitive:
			continue
		case cf.Secret == nil || !cf.Sensitive:
			return fmt.Sprintf("config %s: a secret reference needs sensitive=true and sensitive=true needs a secret reference", cf.Key)
		case cf.Value != "":
			return fmt.Sprintf("config %s: a sensitive config holds no value", cf.Key)
		}
		ref := cf.Secret.Ref()
		switch {
		case strings.HasPrefix(ref, "scram-credentials:"):
			return fmt.Sprintf("config %s refers to a SCRAM credential (%s)", cf.Key, ref)
		case !strings.HasSuffix(ref, "#"+cf.Key):
			return fmt.Sprintf("config %s refers to another key's secret (%s)", cf.Key, ref)
		case c.Resource.Type == "topic" && !strings.HasSuffix(ref, "/"+c.Resource.Name+"#"+cf.Key):
			return fmt.Sprintf("config %s of topic %s refers to a secret of another resource (%s)", cf.Key, c.Resource.Name, ref)
		case c.Resource.Type == "broker" && !strings.Contains(ref, "/config/brokers/") && !strings.Contains(ref, "broker/"):
			return fmt.Sprintf("config %s of broker %s refers to a secret that is not a broker config (%s)", cf.Key, c.Resource.Name, ref)
		}
	}
	return ""
}

// StaleError refuses a plan whose resources are in neither their planned
// before- nor after-state on the target. Nothing was sent.
type StaleError struct {
	Resources []string // "kind resource: observed state"
}

func (e *StaleError) Error() string {
	n := len(e.Resources)
	shown := e.Resources[:min(n, 5)]
	more := ""
	if n > 5 {
		more = fmt.Sprintf(" (and %d more)", n-5)
	}
	return fmt.Sprintf("plan is stale for %s: %s%s; re-run plan", english.N(n, "resource"), strings.Join(shown, "; "), more)
}

// Triage sorts p's changes by their resources' state on target: todo (in
// their before-state), done (already in their after-state: an interrupted
// earlier apply), or, when any is in neither, a *StaleError naming every
// one that is (and no todo or done).
func Triage(p *Plan, target *snapshot.Snapshot) (todo, done []*Change, err error) {
	var stale []string
	ix := NewTarget(target)
	for i := range p.Changes {
		c := &p.Changes[i]
		switch st, observed := ix.Check(c); st {
		case Pending:
			todo = append(todo, c)
		case Done:
			done = append(done, c)
		default:
			stale = append(stale, fmt.Sprintf("%s %s: found %s", c.Kind, c.Resource.Name, observed))
		}
	}
	if len(stale) > 0 {
		return nil, nil, &StaleError{Resources: stale}
	}
	return todo, done, nil
}
