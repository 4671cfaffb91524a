package plan

import "github.com/zkmigrate/zkmigrate/internal/snapshot"

// ACLsAfter returns the ACLs a target holding acls holds once p's ACL
// changes are applied, as Kafka applies them: a create adds its binding
// (once), a delete removes it; sorted. It is what `migrate access diff
// --planned` and plan's access line prove, without applying anything.
func ACLsAfter(acls []snapshot.ACL, p *Plan) []snapshot.ACL {
	keep := make(map[string]snapshot.ACL, len(acls))
	for _, a := range acls {
		keep[a.Key()] = a
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Kind != KindACL || c.Resource.ACL == nil {
			continue
		}
		switch c.Action {
		case ActionCreate:
			keep[c.Resource.ACL.Key()] = *c.Resource.ACL
		case ActionDelete:
			delete(keep, c.Resource.ACL.Key())
		}
	}
	s := &snapshot.Snapshot{ACLs: make([]snapshot.ACL, 0, len(keep))}
	for _, a := range keep {
		s.ACLs = append(s.ACLs, a)
	}
	s.Sort()
	return s.ACLs
}
