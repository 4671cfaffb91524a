package plan

// acl: one ACL binding created or, with Prune, deleted. Its resource name
// says all of it, so it has no fields.
// KindACL is a change to one ACL binding.
const KindACL Kind = "acl"

var aclSpec = &spec{
	kind:    KindACL,
	actions: []Action{ActionCreate, ActionDelete},
	valid: func(c *Change) string {
		if c.Resource.ACL == nil {
			return "no ACL"
		}
		return ""
	},
	resource: "acl",
	build:    func(b *builder) error { b.acls(); return nil },
	observe: func(ix *Target, c *Change) *State {
		if c.Resource.ACL != nil && ix.acls[c.Resource.ACL.Key()] {
			return &State{Present: true}
		}
		return nil
	},
	equal: func(obs, ref *State) bool {
		if eq, ok := bothOrNeither(obs, ref); ok {
			return eq
		}
		return obs.Present == ref.Present
	},
	fields: func(*Change) []Field { return nil },
	label:  nameLabel,
	invert: invertSwap,
}

func (b *builder) acls() {
	have := make(map[string]bool, len(b.in.Target.ACLs))
	for _, a := range b.in.Target.ACLs {
		have[a.Key()] = true
	}
	var want map[string]bool // only --prune asks what the source has
	if b.in.Options.Prune {
		want = make(map[string]bool, len(b.in.Source.ACLs))
	}
	for _, a := range b.in.Source.ACLs {
		var key string
		if want != nil || len(have) > 0 {
			key = a.Key()
		}
		if want != nil {
			want[key] = true
		}
		if !b.wantPrincipal(a.Principal) || have[key] {
			continue
		}
		acl := a
		b.add(Change{Kind: KindACL, Action: ActionCreate, Resource: Resource{Type: "acl", Name: a.String(), ACL: &acl},
			After: &State{Present: true}})
	}
	if b.in.Options.Prune {
		for _, a := range b.in.Target.ACLs {
			if want[a.Key()] || !b.wantPrincipal(a.Principal) {
				continue
			}
			acl := a
			b.add(Change{Kind: KindACL, Action: ActionDelete, Resource: Resource{Type: "acl", Name: a.String(), ACL: &acl},
				Before: &State{Present: true}})
		}
	}
}
