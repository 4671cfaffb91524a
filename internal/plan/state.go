package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Status is where a change stands against a target's current state.
type Status int

// The statuses of a change against a live target.
const (
	// Pending: the resource is in the change's Before state; apply sends it.
	Pending Status = iota
	// Done: the resource is already in the After state (for example after
	// an interrupted apply); apply skips it.
	Done
	// Stale: the resource is in neither state; the plan is stale for it and
	// apply refuses it.
	Stale
)

func (s Status) String() string {
	switch s {
	case Pending:
		return "pending"
	case Done:
		return "done"
	}
	return "stale"
}

// Target is a target snapshot indexed for checking many changes against
// it: ACLs, quotas, SCRAM credentials and broker configs by key.
type Target struct {
	s       *snapshot.Snapshot
	acls    map[string]bool
	quotas  map[string]map[string]float64
	scram   map[[2]string]int32
	brokers map[string][]snapshot.Config
	// clientMetrics and groups: configs by subscription and group name.
	clientMetrics map[string][]snapshot.Config
	groups        map[string][]snapshot.Config
}

// NewTarget indexes a target snapshot (which must be sorted).
func NewTarget(s *snapshot.Snapshot) *Target {
	t := &Target{s: s, acls: make(map[string]bool, len(s.ACLs)), quotas: make(map[string]map[string]float64, len(s.Quotas)),
		scram: map[[2]string]int32{}, brokers: map[string][]snapshot.Config{}}
	for _, a := range s.ACLs {
		t.acls[a.Key()] = true
	}
	for _, q := range s.Quotas {
		t.quotas[q.Entity.String()] = q.Values
	}
	for _, u := range s.ScramUsers {
		for _, c := range u.Credentials {
			t.scram[[2]string{u.Name, c.Mechanism}] = c.Iterations
		}
	}
	for _, bc := range s.BrokerConfigs {
		t.brokers[bc.Broker] = bc.Configs
	}
	t.clientMetrics = byName(s.ClientMetrics)
	t.groups = byName(s.GroupConfigs)
	return t
}

// Check compares a change with the target's current state. For a stale
// change it also returns what was observed, for the message. For many
// changes, index the target once with NewTarget and call Target.Check.
func Check(target *snapshot.Snapshot, c *Change) (Status, string) {
	return NewTarget(target).Check(c)
}

// Check compares a change with the indexed target's current state. A change
// of an unknown kind is stale, its message naming the kind (plan.Validate
// refuses such a change before anything is checked).
func (t *Target) Check(c *Change) (Status, string) {
	s, err := specOf(c.Kind)
	if err != nil {
		return Stale, err.Error()
	}
	obs := s.observe(t, c)
	if s.equal(obs, c.Before) {
		return Pending, ""
	}
	if s.equal(obs, c.After) {
		return Done, ""
	}
	return Stale, describe(obs)
}

// Shows reports whether the target shows c's After state: what apply's
// verify waits for. It differs from Check == Done for a change whose before-
// and after-states look the same to the target (a password or SCRAM
// credential sent again with --resend-secrets: Kafka never returns them),
// which Check calls Pending and which the target shows at once. A change of
// an unknown kind is never shown.
func (t *Target) Shows(c *Change) bool {
	s, err := specOf(c.Kind)
	return err == nil && s.equal(s.observe(t, c), c.After)
}

func describe(s *State) string {
	if s == nil {
		return "absent"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// Observe returns the target's current state of c's resource, shaped like
// c.Before and c.After (only the fields and keys the change is about). It
// returns nil when the resource is absent, and an *UnknownKindError for a
// change of an unknown kind.
func (t *Target) Observe(c *Change) (*State, error) {
	s, err := specOf(c.Kind)
	if err != nil {
		return nil, err
	}
	return s.observe(t, c), nil
}

// refState is the state a change's observation is shaped like: its After,
// or for a delete its Before.
func refState(c *Change) *State {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// Fingerprint hashes the target state a plan expects: the target cluster id
// and every change's id and Before state.
func Fingerprint(p *Plan) string {
	h := sha256.New()
	line := func(s string) {
		io.WriteString(h, s)
		h.Write([]byte{'\n'})
	}
	line(p.Target.ClusterID)
	for _, c := range p.Changes {
		b, _ := json.Marshal(c.Before)
		line(c.ID)
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Runnable reports whether the plan has changes to run.
func (p *Plan) Runnable() bool { return len(p.Changes) > 0 }

func byName(list []snapshot.NamedConfigs) map[string][]snapshot.Config {
	m := make(map[string][]snapshot.Config, len(list))
	for _, nc := range list {
		m[nc.Name] = nc.Configs
	}
	return m
}
