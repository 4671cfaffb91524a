package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
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
	return t
}

// Check compares a change with the target's current state. For a stale
// change it also returns what was observed, for the message. For many
// changes, index the target once with NewTarget and call Target.Check.
func Check(target *snapshot.Snapshot, c *Change) (Status, string) {
	return NewTarget(target).Check(c)
}

// Check compares a change with the indexed target's current state.
func (t *Target) Check(c *Change) (Status, string) {
	obs := t.Observe(c)
	if matches(c.Kind, obs, c.Before) {
		return Pending, ""
	}
	if matches(c.Kind, obs, c.After) {
		return Done, ""
	}
	return Stale, describe(obs)
}

// Shows reports whether the target shows c's After state: what apply's
// verify waits for. It differs from Check == Done for a change whose before-
// and after-states look the same to the target (a password or SCRAM
// credential sent again with --resend-secrets: Kafka never returns them),
// which Check calls Pending and which the target shows at once.
func (t *Target) Shows(c *Change) bool {
	return matches(c.Kind, t.Observe(c), c.After)
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
// returns nil when the resource is absent.
func (ix *Target) Observe(c *Change) *State {
	t := ix.s
	ref := c.After
	if ref == nil {
		ref = c.Before
	}
	switch c.Kind {
	case KindTopic:
		tt := t.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		s := &State{Partitions: int32(len(tt.Partitions)), ReplicationFactor: tt.ReplicationFactor()}
		if ref != nil && ref.Assignment != nil {
			s.Assignment = assignmentOf(tt)
		}
		if ref != nil && len(ref.Configs) > 0 {
			s.Configs = pick(tt.Configs, keysOf(ref.Configs))
		}
		return s
	case KindPartitions:
		tt := t.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		s := &State{Partitions: int32(len(tt.Partitions))}
		if c.After != nil && c.After.Assignment != nil && c.Before != nil && int(c.Before.Partitions) <= len(tt.Partitions) {
			s.Assignment = assignmentOf(tt)[c.Before.Partitions:]
		}
		return s
	case KindReassignment:
		tt := t.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		a := assignmentOf(tt)
		if ref != nil && len(ref.Assignment) <= len(a) {
			a = a[:len(ref.Assignment)]
		}
		return &State{Assignment: a}
	case KindTopicConfig:
		tt := t.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		return &State{Configs: pick(tt.Configs, touchedKeys(c))}
	case KindBrokerConfig:
		return &State{Configs: pick(ix.brokers[c.Resource.Name], touchedKeys(c))}
	case KindQuota:
		keys := map[string]bool{}
		for _, s := range []*State{c.Before, c.After} {
			if s != nil {
				for k := range s.Quota {
					keys[k] = true
				}
			}
		}
		out := map[string]float64{}
		for k, v := range ix.quotas[c.Resource.Name] {
			if keys[k] {
				out[k] = v
			}
		}
		return &State{Quota: out}
	case KindACL:
		if c.Resource.ACL == nil {
			return nil
		}
		if ix.acls[c.Resource.ACL.Key()] {
			return &State{Present: true}
		}
		return nil
	case KindScramUser:
		if it, ok := ix.scram[[2]string{c.Resource.Name, c.Resource.Mechanism}]; ok {
			return &State{Iterations: it}
		}
		return nil
	}
	return nil
}

func touchedKeys(c *Change) map[string]bool {
	keys := map[string]bool{}
	for _, s := range []*State{c.Before, c.After} {
		if s != nil {
			for _, cf := range s.Configs {
				keys[cf.Key] = true
			}
		}
	}
	return keys
}

func keysOf(cs []snapshot.Config) map[string]bool {
	m := make(map[string]bool, len(cs))
	for _, c := range cs {
		m[c.Key] = true
	}
	return m
}

func pick(cs []snapshot.Config, keys map[string]bool) []snapshot.Config {
	var out []snapshot.Config
	for _, c := range cs {
		if keys[c.Key] {
			c.Source = ""
			if c.Sensitive {
				c.Value = ""
			}
			out = append(out, c)
		}
	}
	return out
}

// matches reports whether an observed state equals a planned one for kind k.
func matches(k Kind, obs, ref *State) bool {
	switch k {
	case KindTopicConfig, KindBrokerConfig:
		return equalConfigs(scopeOfKind(k), stateConfigs(obs), stateConfigs(ref))
	case KindQuota:
		var a, b map[string]float64
		if obs != nil {
			a = obs.Quota
		}
		if ref != nil {
			b = ref.Quota
		}
		return maps.Equal(a, b) || (len(a) == 0 && len(b) == 0)
	}
	if ref == nil || obs == nil {
		return ref == nil && obs == nil
	}
	switch k {
	case KindTopic:
		if obs.Partitions != ref.Partitions || obs.ReplicationFactor != ref.ReplicationFactor {
			return false
		}
		if ref.Assignment != nil && !equalAssignment(obs.Assignment, ref.Assignment) {
			return false
		}
		return equalConfigs(catalogue.ScopeTopic, obs.Configs, ref.Configs)
	case KindPartitions:
		if obs.Partitions != ref.Partitions {
			return false
		}
		return ref.Assignment == nil || equalAssignment(obs.Assignment, ref.Assignment)
	case KindReassignment:
		return equalAssignment(obs.Assignment, ref.Assignment)
	case KindACL:
		return obs.Present == ref.Present
	case KindScramUser:
		// Presence is all the protocol shows; the password cannot be read back.
		return ref.Password != nil || obs.Iterations == ref.Iterations
	}
	return false
}

func stateConfigs(s *State) []snapshot.Config {
	if s == nil {
		return nil
	}
	return s.Configs
}

// scopeOfKind is the catalogue scope of a config change kind's keys.
func scopeOfKind(k Kind) catalogue.Scope {
	if k == KindBrokerConfig {
		return catalogue.ScopeBroker
	}
	return catalogue.ScopeTopic
}

// equalConfigs reports whether two config sets hold the same keys with
// values of the same meaning (compared by the keys' Kafka types).
func equalConfigs(scope catalogue.Scope, a, b []snapshot.Config) bool {
	if len(a) != len(b) {
		return false
	}
	bm := make(map[string]snapshot.Config, len(b))
	for _, c := range b {
		bm[c.Key] = c
	}
	for _, x := range a {
		y, ok := bm[x.Key]
		if !ok {
			return false
		}
		if x.Sensitive || y.Sensitive {
			continue // presence is all Kafka shows of a sensitive value
		}
		if !catalogue.EqualValues(scope, x.Key, x.Value, y.Value) {
			return false
		}
	}
	return true
}

// Fingerprint hashes the target state a plan expects: the target cluster id
// and every change's id and Before state.
func Fingerprint(p *Plan) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", p.Target.ClusterID)
	for _, c := range p.Changes {
		b, _ := json.Marshal(c.Before)
		fmt.Fprintf(h, "%s\n%s\n", c.ID, b)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Runnable reports whether the plan has changes to run.
func (p *Plan) Runnable() bool { return len(p.Changes) > 0 }

// Simulate returns a copy of target with the changes applied as Kafka
// would apply them, for tests and previews. Replica placement by the target
// (no explicit assignment) is simulated round-robin over its brokers.
func Simulate(target *snapshot.Snapshot, changes []Change) *snapshot.Snapshot {
	t := cloneSnapshot(target)
	sim := &simulator{t: t, topics: map[string]int{}, deleted: map[string]bool{}, acls: map[string]snapshot.ACL{}, quotas: map[string]int{}}
	for i, tp := range t.Topics {
		sim.topics[tp.Name] = i
	}
	for _, a := range t.ACLs {
		sim.acls[a.Key()] = a
	}
	for i, q := range t.Quotas {
		sim.quotas[q.Entity.String()] = i
	}
	for i := range changes {
		sim.apply(&changes[i])
	}
	t.Topics = slices.DeleteFunc(t.Topics, func(x snapshot.Topic) bool { return sim.deleted[x.Name] })
	t.Quotas = slices.DeleteFunc(t.Quotas, func(q snapshot.Quota) bool { return len(q.Values) == 0 })
	t.ACLs = t.ACLs[:0]
	for _, a := range sim.acls {
		t.ACLs = append(t.ACLs, a)
	}
	t.Sort()
	return t
}

func cloneSnapshot(s *snapshot.Snapshot) *snapshot.Snapshot {
	b, _ := json.Marshal(s)
	var c snapshot.Snapshot
	_ = json.Unmarshal(b, &c)
	return &c
}

// simulator applies changes to a snapshot through indexes, so that a
// full-scale plan simulates in linear time.
type simulator struct {
	t       *snapshot.Snapshot
	topics  map[string]int
	deleted map[string]bool
	acls    map[string]snapshot.ACL
	quotas  map[string]int
}

func (sim *simulator) topic(name string) *snapshot.Topic {
	i, ok := sim.topics[name]
	if !ok || sim.deleted[name] {
		return nil
	}
	return &sim.t.Topics[i]
}

func (sim *simulator) apply(c *Change) {
	t := sim.t
	switch c.Kind {
	case KindTopic:
		if c.Action == ActionDelete {
			sim.deleted[c.Resource.Name] = true
			return
		}
		a := c.After
		nt := snapshot.Topic{Name: c.Resource.Name, Configs: slices.Clone(a.Configs)}
		for p := int32(0); p < a.Partitions; p++ {
			nt.Partitions = append(nt.Partitions, snapshot.Partition{ID: p, Replicas: placement(t, a.Assignment, int(p), a.ReplicationFactor)})
		}
		delete(sim.deleted, nt.Name)
		sim.topics[nt.Name] = len(t.Topics)
		t.Topics = append(t.Topics, nt)
	case KindPartitions:
		tt := sim.topic(c.Resource.Name)
		rf := tt.ReplicationFactor()
		for p := int32(len(tt.Partitions)); p < c.After.Partitions; p++ {
			tt.Partitions = append(tt.Partitions, snapshot.Partition{ID: p, Replicas: placement(t, c.After.Assignment, int(p-c.Before.Partitions), rf)})
		}
	case KindReassignment:
		tt := sim.topic(c.Resource.Name)
		for i, rs := range c.After.Assignment {
			tt.Partitions[i].Replicas = slices.Clone(rs)
		}
	case KindTopicConfig:
		tt := sim.topic(c.Resource.Name)
		tt.Configs = mergeConfigs(tt.Configs, c)
	case KindBrokerConfig:
		for i := range t.BrokerConfigs {
			if t.BrokerConfigs[i].Broker == c.Resource.Name {
				t.BrokerConfigs[i].Configs = mergeConfigs(t.BrokerConfigs[i].Configs, c)
				return
			}
		}
		t.BrokerConfigs = append(t.BrokerConfigs, snapshot.BrokerConfig{Broker: c.Resource.Name, Configs: mergeConfigs(nil, c)})
	case KindQuota:
		i, ok := sim.quotas[c.Resource.Name]
		if !ok {
			i = len(t.Quotas)
			sim.quotas[c.Resource.Name] = i
			t.Quotas = append(t.Quotas, snapshot.Quota{Entity: c.Resource.Entity, Values: map[string]float64{}})
		}
		for k := range c.Before.Quota {
			delete(t.Quotas[i].Values, k)
		}
		maps.Copy(t.Quotas[i].Values, c.After.Quota)
	case KindACL:
		if c.Action == ActionDelete {
			delete(sim.acls, c.Resource.ACL.Key())
		} else {
			sim.acls[c.Resource.ACL.Key()] = *c.Resource.ACL
		}
	case KindScramUser:
		cred := snapshot.ScramCredential{Mechanism: c.Resource.Mechanism, Iterations: c.After.Iterations}
		for i := range t.ScramUsers {
			if t.ScramUsers[i].Name == c.Resource.Name {
				u := &t.ScramUsers[i]
				u.Credentials = slices.DeleteFunc(u.Credentials, func(x snapshot.ScramCredential) bool { return x.Mechanism == cred.Mechanism })
				u.Credentials = append(u.Credentials, cred)
				return
			}
		}
		t.ScramUsers = append(t.ScramUsers, snapshot.ScramUser{Name: c.Resource.Name, Credentials: []snapshot.ScramCredential{cred}})
	}
}

func placement(t *snapshot.Snapshot, assign [][]int32, i, rf int) []int32 {
	if assign != nil && i < len(assign) {
		return slices.Clone(assign[i])
	}
	var out []int32
	for r := 0; r < rf && len(t.Brokers) > 0; r++ {
		out = append(out, t.Brokers[(i+r)%len(t.Brokers)].ID)
	}
	return out
}

func mergeConfigs(cur []snapshot.Config, c *Change) []snapshot.Config {
	out := slices.Clone(cur)
	if c.Before != nil {
		for _, b := range c.Before.Configs {
			out = slices.DeleteFunc(out, func(x snapshot.Config) bool { return x.Key == b.Key })
		}
	}
	for _, a := range c.After.Configs {
		out = slices.DeleteFunc(out, func(x snapshot.Config) bool { return x.Key == a.Key })
		if a.Sensitive {
			a.Secret = nil
		}
		out = append(out, a)
	}
	snapshot.SortConfigs(out)
	return out
}

// ParseBrokerIDMap parses "1=101,2=102".
func ParseBrokerIDMap(s string) (map[int32]int32, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int32]int32{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		from, to, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("--broker-id-map: %q is not from=to", pair)
		}
		f, err1 := strconv.ParseInt(from, 10, 32)
		t, err2 := strconv.ParseInt(to, 10, 32)
		if err1 != nil || err2 != nil || f < 0 || t < 0 {
			return nil, fmt.Errorf("--broker-id-map: %q: broker ids must be non-negative integers", pair)
		}
		if _, dup := m[int32(f)]; dup {
			return nil, fmt.Errorf("--broker-id-map: broker %d mapped twice", f)
		}
		m[int32(f)] = int32(t)
	}
	return m, nil
}
