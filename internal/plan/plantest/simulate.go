// Package plantest holds test helpers for plans: Simulate applies a
// plan's changes to a snapshot the way Kafka would.
package plantest

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Simulate returns a copy of target with the changes applied as Kafka
// would apply them. Replica placement by the target (no explicit
// assignment) is simulated round-robin over its brokers. A change of a kind
// it does not know fails the test.
func Simulate(tb testing.TB, target *snapshot.Snapshot, changes []plan.Change) *snapshot.Snapshot {
	tb.Helper()
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
		c := &changes[i]
		apply, ok := simulators[c.Kind]
		if !ok {
			tb.Fatalf("plantest.Simulate: change %s: %v", c.ID, &plan.UnknownKindError{Kind: c.Kind})
		}
		apply(sim, c)
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

// simulators apply one change of each kind, as Kafka would.
var simulators = map[plan.Kind]func(sim *simulator, c *plan.Change){
	plan.KindTopic: func(sim *simulator, c *plan.Change) {
		t := sim.t
		if c.Action == plan.ActionDelete {
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
	},
	plan.KindPartitions: func(sim *simulator, c *plan.Change) {
		t := sim.t
		tt := sim.topic(c.Resource.Name)
		rf := tt.ReplicationFactor()
		for p := int32(len(tt.Partitions)); p < c.After.Partitions; p++ {
			tt.Partitions = append(tt.Partitions, snapshot.Partition{ID: p, Replicas: placement(t, c.After.Assignment, int(p-c.Before.Partitions), rf)})
		}
	},
	plan.KindReassignment: func(sim *simulator, c *plan.Change) {
		tt := sim.topic(c.Resource.Name)
		for i, rs := range c.After.Assignment {
			tt.Partitions[i].Replicas = slices.Clone(rs)
		}
	},
	plan.KindTopicConfig: func(sim *simulator, c *plan.Change) {
		tt := sim.topic(c.Resource.Name)
		tt.Configs = mergeConfigs(tt.Configs, c)
	},
	plan.KindBrokerConfig: func(sim *simulator, c *plan.Change) {
		t := sim.t
		for i := range t.BrokerConfigs {
			if t.BrokerConfigs[i].Broker == c.Resource.Name {
				t.BrokerConfigs[i].Configs = mergeConfigs(t.BrokerConfigs[i].Configs, c)
				return
			}
		}
		t.BrokerConfigs = append(t.BrokerConfigs, snapshot.BrokerConfig{Broker: c.Resource.Name, Configs: mergeConfigs(nil, c)})
	},
	plan.KindQuota: func(sim *simulator, c *plan.Change) {
		t := sim.t
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
	},
	plan.KindACL: func(sim *simulator, c *plan.Change) {
		if c.Action == plan.ActionDelete {
			delete(sim.acls, c.Resource.ACL.Key())
		} else {
			sim.acls[c.Resource.ACL.Key()] = *c.Resource.ACL
		}
	},
	plan.KindClientMetrics: func(sim *simulator, c *plan.Change) {
		sim.t.ClientMetrics = mergeNamed(sim.t.ClientMetrics, c)
	},
	plan.KindGroupConfig: func(sim *simulator, c *plan.Change) {
		sim.t.GroupConfigs = mergeNamed(sim.t.GroupConfigs, c)
	},
	plan.KindScramUser: func(sim *simulator, c *plan.Change) {
		t := sim.t
		if c.Action == plan.ActionDelete {
			for i := range t.ScramUsers {
				if u := &t.ScramUsers[i]; u.Name == c.Resource.Name {
					u.Credentials = slices.DeleteFunc(u.Credentials, func(x snapshot.ScramCredential) bool { return x.Mechanism == c.Resource.Mechanism })
				}
			}
			// A user with no credential left is not listed at all.
			t.ScramUsers = slices.DeleteFunc(t.ScramUsers, func(u snapshot.ScramUser) bool { return len(u.Credentials) == 0 })
			return
		}
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
	},
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

// mergeNamed applies a config change to a named config resource; one left
// without configs is gone, as Kafka forgets it.
func mergeNamed(list []snapshot.NamedConfigs, c *plan.Change) []snapshot.NamedConfigs {
	i := slices.IndexFunc(list, func(nc snapshot.NamedConfigs) bool { return nc.Name == c.Resource.Name })
	if i < 0 {
		i = len(list)
		list = append(list, snapshot.NamedConfigs{Name: c.Resource.Name})
	}
	list[i].Configs = mergeConfigs(list[i].Configs, c)
	return slices.DeleteFunc(list, func(nc snapshot.NamedConfigs) bool { return len(nc.Configs) == 0 })
}

func mergeConfigs(cur []snapshot.Config, c *plan.Change) []snapshot.Config {
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
