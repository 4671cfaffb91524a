package check

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// CrossCheck compares what ZooKeeper holds (zk, a zkread snapshot) with what
// the brokers of the same cluster serve through the admin protocol (served,
// a kread snapshot), kind by kind, and returns one finding per difference,
// sorted as Run sorts. Snapshots of two different clusters give only
// CROSS-CLUSTER-ID. It does no I/O.
func CrossCheck(zk, served *snapshot.Snapshot) []Finding {
	c := &run{s: zk}
	if zk.ClusterID != "" && served.ClusterID != "" && zk.ClusterID != served.ClusterID {
		c.add("CROSS-CLUSTER-ID", "cluster", fmt.Sprintf("ZooKeeper %s holds cluster %s, the brokers at %s serve cluster %s", zk.Address, zk.ClusterID, served.Address, served.ClusterID), "")
		return c.out
	}
	for _, fn := range crossChecks {
		fn(c, zk, served)
	}
	Sort(c.out)
	return c.out
}

var crossChecks = []func(c *run, zk, served *snapshot.Snapshot){
	crossBrokers,
	crossTopics,
	crossBrokerConfigs,
	crossACLs,
	crossQuotas,
	crossScram,
	crossTokens,
}

// crossBrokers compares the registered brokers and their racks.
func crossBrokers(c *run, zk, served *snapshot.Snapshot) {
	zb, sb := brokersByID(zk), brokersByID(served)
	for _, id := range sortedKeys(zb) {
		s, ok := sb[id]
		switch {
		case !ok:
			c.add("CROSS-BROKER", "broker:"+strconv.Itoa(int(id)), "registered in ZooKeeper (/brokers/ids) but not among the brokers the cluster serves in Metadata", "")
		case zb[id].Rack != s.Rack:
			c.add("CROSS-BROKER", "broker:"+strconv.Itoa(int(id)), fmt.Sprintf("rack %q in ZooKeeper, %q served", zb[id].Rack, s.Rack), "")
		}
	}
	for _, id := range sortedKeys(sb) {
		if _, ok := zb[id]; !ok {
			c.add("CROSS-BROKER", "broker:"+strconv.Itoa(int(id)), "served in Metadata but not registered in ZooKeeper (/brokers/ids)", "")
		}
	}
}

func brokersByID(s *snapshot.Snapshot) map[int32]snapshot.Broker {
	m := make(map[int32]snapshot.Broker, len(s.Brokers))
	for _, b := range s.Brokers {
		m[b.ID] = b
	}
	return m
}

// crossTopics compares topics, ids, partitions, replicas, reassignments and
// topic configs.
func crossTopics(c *run, zk, served *snapshot.Snapshot) {
	deleting := map[string]bool{}
	for _, t := range zk.PendingDeletes {
		deleting[t] = true
	}
	zt, st := topicsByName(zk), topicsByName(served)
	for _, name := range sortedKeys(zt) {
		z := zt[name]
		s, ok := st[name]
		res := "topic:" + name
		switch {
		case !ok && deleting[name]:
			c.add("CROSS-TOPIC-DELETING", res, "marked for deletion in ZooKeeper (/admin/delete_topics); the brokers no longer serve it", "")
			continue
		case !ok:
			c.add("CROSS-TOPIC-NOT-SERVED", res, "in ZooKeeper (/brokers/topics) but not in the brokers' Metadata", "")
			continue
		}
		if z.ID != "" && s.ID != "" && z.ID != s.ID {
			c.add("CROSS-TOPIC-ID", res, fmt.Sprintf("topic id %s in ZooKeeper, %s served", z.ID, s.ID), "")
		}
		crossPartitions(c, res, z, s)
		crossConfigs(c, res, catalogue.ScopeTopic, z.Configs, s.Configs)
	}
	for _, name := range sortedKeys(st) {
		if _, ok := zt[name]; !ok {
			c.add("CROSS-TOPIC-NOT-IN-ZK", "topic:"+name, "served in the brokers' Metadata but not in ZooKeeper (/brokers/topics)", "")
		}
	}
}

func topicsByName(s *snapshot.Snapshot) map[string]*snapshot.Topic {
	m := make(map[string]*snapshot.Topic, len(s.Topics))
	for i := range s.Topics {
		m[s.Topics[i].Name] = &s.Topics[i]
	}
	return m
}

// crossPartitions compares partition counts, replica lists (order
// included: the first replica is the preferred leader) and reassignments in
// progress.
func crossPartitions(c *run, res string, z, s *snapshot.Topic) {
	if len(z.Partitions) != len(s.Partitions) {
		c.add("CROSS-PARTITIONS", res, fmt.Sprintf("%d partitions in ZooKeeper, %d served", len(z.Partitions), len(s.Partitions)), "")
	}
	sp := make(map[int32]snapshot.Partition, len(s.Partitions))
	for _, p := range s.Partitions {
		sp[p.ID] = p
	}
	var reps, moving []string
	for _, zp := range z.Partitions {
		p, ok := sp[zp.ID]
		if !ok {
			continue
		}
		if !slices.Equal(zp.Replicas, p.Replicas) {
			reps = append(reps, fmt.Sprintf("%d: [%s] in ZooKeeper, [%s] served", zp.ID, joinInts(zp.Replicas), joinInts(p.Replicas)))
		}
		if !sameSet(zp.Adding, p.Adding) || !sameSet(zp.Removing, p.Removing) {
			moving = append(moving, fmt.Sprintf("%d: adding [%s] removing [%s] in ZooKeeper, adding [%s] removing [%s] served",
				zp.ID, joinInts(zp.Adding), joinInts(zp.Removing), joinInts(p.Adding), joinInts(p.Removing)))
		}
	}
	if len(reps) > 0 {
		c.add("CROSS-REPLICAS", res, "replica assignment differs: "+strings.Join(reps, "; "), "")
	}
	if len(moving) > 0 {
		c.add("CROSS-REASSIGNMENT", res, "reassignment in progress differs: "+strings.Join(moving, "; "), "")
	}
}

func sameSet(a, b []int32) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// crossConfigs compares the dynamic overrides of one resource: values by
// their Kafka type, sensitive entries by presence only (their values are
// never served).
func crossConfigs(c *run, res string, scope catalogue.Scope, zk, served []snapshot.Config) {
	sm := make(map[string]snapshot.Config, len(served))
	for _, cf := range served {
		sm[cf.Key] = cf
	}
	zm := make(map[string]bool, len(zk))
	for _, z := range zk {
		zm[z.Key] = true
		s, ok := sm[z.Key]
		switch {
		case !ok:
			c.add("CROSS-CONFIG-NOT-SERVED", res, z.Key+" is set in ZooKeeper but the brokers do not serve it", "")
		case z.Sensitive || s.Sensitive:
		case !catalogue.EqualValues(scope, z.Key, z.Value, s.Value):
			c.add("CROSS-CONFIG-VALUE", res, fmt.Sprintf("%s is %q in ZooKeeper, %q served", z.Key, z.Value, s.Value), "")
		}
	}
	for _, s := range served {
		if !zm[s.Key] {
			c.add("CROSS-CONFIG-NOT-IN-ZK", res, s.Key+" is served as a dynamic override but not set in ZooKeeper", "")
		}
	}
}

// crossBrokerConfigs compares the cluster default and each broker's dynamic
// configs. A broker that is not running serves none of its configs: that is
// one CROSS-BROKER-CONFIG-OFFLINE finding, not one per key.
func crossBrokerConfigs(c *run, zk, served *snapshot.Snapshot) {
	running := brokersByID(served)
	zc, sc := brokerConfigsByName(zk), brokerConfigsByName(served)
	for _, b := range sortedKeys(zc) {
		if b != "" {
			id, err := strconv.Atoi(b)
			if _, ok := running[int32(id)]; err == nil && !ok {
				c.add("CROSS-BROKER-CONFIG-OFFLINE", brokerRes(b), fmt.Sprintf("ZooKeeper holds %s for broker %s, which is not running, so no broker serves them", english.N(len(zc[b]), "dynamic config"), b), "")
				continue
			}
		}
		crossConfigs(c, brokerRes(b), catalogue.ScopeBroker, zc[b], sc[b])
	}
	for _, b := range sortedKeys(sc) {
		if _, ok := zc[b]; !ok {
			crossConfigs(c, brokerRes(b), catalogue.ScopeBroker, nil, sc[b])
		}
	}
}

func brokerConfigsByName(s *snapshot.Snapshot) map[string][]snapshot.Config {
	m := make(map[string][]snapshot.Config, len(s.BrokerConfigs))
	for _, bc := range s.BrokerConfigs {
		m[bc.Broker] = append(m[bc.Broker], bc.Configs...)
	}
	return m
}

// crossACLs compares ACL bindings exactly.
func crossACLs(c *run, zk, served *snapshot.Snapshot) {
	zm, sm := aclSet(zk.ACLs), aclSet(served.ACLs)
	for _, k := range sortedKeys(zm) {
		if _, ok := sm[k]; !ok {
			a := zm[k]
			c.add("CROSS-ACL", aclRes(a), a.String()+" is in ZooKeeper but the brokers do not serve it", "")
		}
	}
	for _, k := range sortedKeys(sm) {
		if _, ok := zm[k]; !ok {
			a := sm[k]
			c.add("CROSS-ACL", aclRes(a), a.String()+" is served but not in ZooKeeper", "")
		}
	}
}

func aclSet(as []snapshot.ACL) map[string]snapshot.ACL {
	m := make(map[string]snapshot.ACL, len(as))
	for _, a := range as {
		m[a.Key()] = a
	}
	return m
}

func aclRes(a snapshot.ACL) string {
	return "acl:" + a.ResourceType + ":" + a.PatternType + ":" + a.ResourceName
}

// crossQuotas compares client-quota entities and their values.
func crossQuotas(c *run, zk, served *snapshot.Snapshot) {
	zm, sm := quotaMap(zk.Quotas), quotaMap(served.Quotas)
	for _, e := range sortedKeys(zm) {
		s, ok := sm[e]
		if !ok {
			c.add("CROSS-QUOTA", "quota:"+e, "set in ZooKeeper but the brokers do not serve it", "")
			continue
		}
		var diffs []string
		for _, k := range sortedKeys(zm[e]) {
			if v, ok := s[k]; !ok {
				diffs = append(diffs, k+" not served")
			} else if v != zm[e][k] {
				diffs = append(diffs, fmt.Sprintf("%s %v in ZooKeeper, %v served", k, zm[e][k], v))
			}
		}
		for _, k := range sortedKeys(s) {
			if _, ok := zm[e][k]; !ok {
				diffs = append(diffs, k+" served but not in ZooKeeper")
			}
		}
		if len(diffs) > 0 {
			c.add("CROSS-QUOTA", "quota:"+e, strings.Join(diffs, "; "), "")
		}
	}
	for _, e := range sortedKeys(sm) {
		if _, ok := zm[e]; !ok {
			c.add("CROSS-QUOTA", "quota:"+e, "served but not in ZooKeeper", "")
		}
	}
}

func quotaMap(qs []snapshot.Quota) map[string]map[string]float64 {
	m := make(map[string]map[string]float64, len(qs))
	for _, q := range qs {
		m[q.Entity.String()] = q.Values
	}
	return m
}

// crossScram compares SCRAM users, mechanisms and iterations (the keys are
// never served).
func crossScram(c *run, zk, served *snapshot.Snapshot) {
	zm, sm := scramMap(zk.ScramUsers), scramMap(served.ScramUsers)
	for _, k := range scramKeys(zm) {
		it, ok := sm[k]
		switch {
		case !ok:
			c.add("CROSS-SCRAM", "scram-user:User:"+k.User, k.Mechanism+" is in ZooKeeper but the brokers do not serve it", "")
		case it != zm[k]:
			c.add("CROSS-SCRAM", "scram-user:User:"+k.User, fmt.Sprintf("%s has %d iterations in ZooKeeper, %d served", k.Mechanism, zm[k], it), "")
		}
	}
	for _, k := range scramKeys(sm) {
		if _, ok := zm[k]; !ok {
			c.add("CROSS-SCRAM", "scram-user:User:"+k.User, k.Mechanism+" is served but not in ZooKeeper", "")
		}
	}
}

func scramMap(us []snapshot.ScramUser) map[ScramKey]int32 {
	m := map[ScramKey]int32{}
	for _, u := range us {
		for _, cr := range u.Credentials {
			m[ScramKey{User: u.Name, Mechanism: cr.Mechanism}] = cr.Iterations
		}
	}
	return m
}

func scramKeys(m map[ScramKey]int32) []ScramKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b ScramKey) int {
		return cmp.Or(strings.Compare(a.User, b.User), strings.Compare(a.Mechanism, b.Mechanism))
	})
}

// crossTokens compares delegation token ids. A served read that could not
// list tokens (a kread finding says so) is not compared.
func crossTokens(c *run, zk, served *snapshot.Snapshot) {
	for _, f := range served.Findings {
		if f.ID == catalogue.IDKReadTokensNotRead {
			return
		}
	}
	zm, sm := map[string]bool{}, map[string]bool{}
	for _, t := range zk.DelegationTokens {
		zm[t.TokenID] = true
	}
	for _, t := range served.DelegationTokens {
		sm[t.TokenID] = true
	}
	for _, id := range sortedKeys(zm) {
		if !sm[id] {
			c.add("CROSS-DELEGATION-TOKEN", "delegation-token:"+id, "in ZooKeeper but the brokers do not serve it (expired, or the brokers' token cache is behind)", "")
		}
	}
	for _, id := range sortedKeys(sm) {
		if !zm[id] {
			c.add("CROSS-DELEGATION-TOKEN", "delegation-token:"+id, "served but not in ZooKeeper", "")
		}
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[K interface{ ~int32 | ~string }, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}
