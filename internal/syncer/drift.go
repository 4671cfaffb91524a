package syncer

import (
	"encoding/json"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// sourceChanges is the scope of entities whose state differs between two
// reads of the source: what changed on the source between them.
func sourceChanges(before, after *snapshot.Snapshot) decoded {
	d := decoded{topics: map[string]bool{}, brokers: map[string]bool{}, users: map[string]bool{}, clients: map[string]bool{}, ips: map[string]bool{}, acls: map[aclResource]bool{}}
	diff := func(a, b map[string]string, into map[string]bool) {
		for k, v := range a {
			if b[k] != v {
				into[k] = true
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				into[k] = true
			}
		}
	}
	topics := func(s *snapshot.Snapshot) map[string]string {
		m := map[string]string{}
		for _, t := range s.Topics {
			m[t.Name] = jsonOf(t)
		}
		for _, t := range s.PendingDeletes {
			m[t] += "\x00pending"
		}
		return m
	}
	brokers := func(s *snapshot.Snapshot) map[string]string {
		m := map[string]string{}
		for _, b := range s.BrokerConfigs {
			m[b.Broker] = jsonOf(b)
		}
		return m
	}
	diff(topics(before), topics(after), d.topics)
	diff(brokers(before), brokers(after), d.brokers)

	// Quotas and SCRAM users land in the map of the entity's first
	// component, as a notification names them.
	quotas := func(s *snapshot.Snapshot, typ string) map[string]string {
		m := map[string]string{}
		for _, q := range s.Quotas {
			if len(q.Entity) > 0 && q.Entity[0].Type == typ {
				m[componentName(q.Entity[0])] += jsonOf(q)
			}
		}
		if typ == snapshot.EntityUser {
			for _, u := range s.ScramUsers {
				m[u.Name] += jsonOf(u)
			}
		}
		return m
	}
	diff(quotas(before, snapshot.EntityUser), quotas(after, snapshot.EntityUser), d.users)
	diff(quotas(before, snapshot.EntityClientID), quotas(after, snapshot.EntityClientID), d.clients)
	diff(quotas(before, snapshot.EntityIP), quotas(after, snapshot.EntityIP), d.ips)

	acls := func(s *snapshot.Snapshot) map[aclResource]string {
		m := map[aclResource]string{}
		for _, a := range s.ACLs {
			m[aclResource{a.ResourceType, a.PatternType, a.ResourceName}] += jsonOf(a)
		}
		return m
	}
	ab, aa := acls(before), acls(after)
	for k, v := range ab {
		if aa[k] != v {
			d.acls[k] = true
		}
	}
	for k := range aa {
		if _, ok := ab[k]; !ok {
			d.acls[k] = true
		}
	}
	return d
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// splitDrift sorts a reconciliation's changes into those the source
// explains (it changed without a notification: missed) and the rest (the
// target was edited, or an earlier round did not finish).
func splitDrift(changes []plan.Change, missed decoded) (fromSource, onTarget []plan.Change) {
	for _, c := range changes {
		if missed.covers(c) {
			fromSource = append(fromSource, c)
		} else {
			onTarget = append(onTarget, c)
		}
	}
	return fromSource, onTarget
}
