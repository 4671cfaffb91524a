package authz

import "slices"

// typeACLs is one resource type's ACLs, built once: in StandardAcl order
// (name reversed in Java's order, then pattern type, operation, principal,
// host, permission), so each resource pattern's ACLs are one span, with
// each pattern's span found by hashing its name.
type typeACLs struct {
	entries  []entry
	literal  map[string]span // LITERAL ACLs by name ("*" included)
	prefixed map[string]span // PREFIXED ACLs by name
	// prefixLens are the lengths of the PREFIXED names, longest first
	// (only these prefixes of a name need looking up).
	prefixLens []int
	// belowStar: some ACL name starts with a character that sorts below
	// "*" (StandardAuthorizer's "*" section walks into those names).
	belowStar bool
	// colonless lists the positions of ACLs whose principal has no ':'.
	colonless []int32
	// byPrincipal holds, for each span of more than bigSpan ACLs (by its
	// lo), the positions of its ACLs per principal, so that a request
	// looks only at its own principal's and User:*'s.
	byPrincipal map[int32]map[string][]int32
}

// bigSpan is the size from which a span is indexed by principal.
const bigSpan = 16

// span is the positions [lo, hi) of one resource pattern's ACLs.
type span struct{ lo, hi int32 }

// buildTypes sorts and de-duplicates acls (identical ACLs count once in
// both authorizers' caches) and indexes each resource type's share.
func buildTypes(acls []ACL) [numTypes]typeACLs {
	sorted := slices.Clone(acls)
	slices.SortFunc(sorted, compareStandard)
	sorted = slices.Compact(sorted)
	var types [numTypes]typeACLs
	for _, a := range sorted {
		if ti, ok := typeIndex(a.Type); ok {
			types[ti].entries = append(types[ti].entries, newEntry(a))
		}
	}
	for ti := range types {
		t := &types[ti]
		t.literal, t.prefixed = map[string]span{}, map[string]span{}
		for i := range t.entries {
			e := &t.entries[i]
			if e.colonless {
				t.colonless = append(t.colonless, int32(i))
			}
			if e.Name == "" || e.Name[0] < '*' {
				t.belowStar = true
			}
			m := t.literal
			switch e.Pattern {
			case PatternLiteral:
			case PatternPrefixed:
				m = t.prefixed
				if !slices.Contains(t.prefixLens, len(e.Name)) {
					t.prefixLens = append(t.prefixLens, len(e.Name))
				}
			default:
				continue // never consulted by either authorizer
			}
			if sp, ok := m[e.Name]; ok && sp.hi == int32(i) {
				m[e.Name] = span{sp.lo, int32(i + 1)}
			} else {
				m[e.Name] = span{int32(i), int32(i + 1)}
			}
		}
		slices.SortFunc(t.prefixLens, func(a, b int) int { return b - a })
		t.byPrincipal = map[int32]map[string][]int32{}
		for _, m := range []map[string]span{t.literal, t.prefixed} {
			for _, sp := range m {
				if sp.hi-sp.lo <= bigSpan {
					continue
				}
				idx := map[string][]int32{}
				for i := sp.lo; i < sp.hi; i++ {
					p := t.entries[i].Principal
					idx[p] = append(idx[p], i)
				}
				t.byPrincipal[sp.lo] = idx
			}
		}
	}
	return types
}

// scope calls f on each span of ACLs in scope for name, until f returns
// false: the PREFIXED ACLs on the name's prefixes (longest first), the
// LITERAL "*" and the LITERAL name. kraft selects StandardAuthorizer's
// scope, which differs from AclAuthorizer's in two ways: a PREFIXED ""
// applies to every name (on AclAuthorizer only to ""), and the LITERAL "*"
// does not apply to other names starting with "*". (A span may come twice
// for the name "*"; neither authorizer's decision depends on it.)
func (t *typeACLs) scope(name string, kraft bool, f func(span) bool) {
	for _, n := range t.prefixLens {
		if n > len(name) || n == 0 && name != "" && !kraft {
			continue
		}
		if sp, ok := t.prefixed[name[:n]]; ok && !f(sp) {
			return
		}
	}
	if !kraft || name == WildcardResource || len(name) == 0 || name[0] != '*' {
		if sp, ok := t.literal[WildcardResource]; ok && !f(sp) {
			return
		}
	}
	if sp, ok := t.literal[name]; ok {
		f(sp)
	}
}

// inScope lists the ACLs of scope, each once.
func (t *typeACLs) inScope(name string, kraft bool) []ACL {
	var out []ACL
	var last span
	t.scope(name, kraft, func(sp span) bool {
		if sp != last {
			for i := sp.lo; i < sp.hi; i++ {
				out = append(out, t.entries[i].ACL)
			}
		}
		last = sp
		return true
	})
	return out
}

// decide is the decision over the ACLs in scope, as both authorizers take
// it (AclAuthorizer.authorizeAction; StandardAuthorizerData.findAclRule
// when its walk neither throws nor loops): no ACL in scope → the default;
// a matching DENY (its operation or All) → denied; a matching ALLOW (with
// the implications) → allowed; else denied. It returns whether any ACL is
// in scope and the deciding DENY or ALLOW, if any. For StandardAuthorizer
// (kraft) a permission other than ALLOW counts as DENY, as in findResult;
// AclAuthorizer matches only DENY.
func (t *typeACLs) decide(r *Request, kraft bool) (any bool, allow, deny *entry) {
	allowSet, denySet := allowOps(r.Operation), denyOps(r.Operation)
	// check looks at one ACL; false when it denies (the decision is made).
	check := func(e *entry) bool {
		if !e.matches(r.Principal, r.Host) {
			return true
		}
		bit := opBit(e.Operation)
		switch {
		case e.Permission == Allow:
			if allow == nil && bit&allowSet != 0 {
				allow = e
			}
		case e.Permission == Deny || kraft:
			if bit&denySet != 0 {
				deny = e
				return false
			}
		}
		return true
	}
	t.scope(r.Name, kraft, func(sp span) bool {
		any = true
		if sp.hi-sp.lo > bigSpan {
			idx := t.byPrincipal[sp.lo]
			ps := [2]string{r.Principal, WildcardPrincipal}
			n := 2
			if r.Principal == WildcardPrincipal {
				n = 1
			}
			for _, p := range ps[:n] {
				for _, i := range idx[p] {
					if !check(&t.entries[i]) {
						return false
					}
				}
			}
			return true
		}
		for i := sp.lo; i < sp.hi; i++ {
			if !check(&t.entries[i]) {
				return false
			}
		}
		return true
	})
	return any, allow, deny
}

// ruleDecision turns decide's result into a Decision.
func ruleDecision(any bool, allow, deny *entry, allowEveryone bool) Decision {
	switch {
	case deny != nil:
		return Decision{Reason: DenyACL, ACL: &deny.ACL}
	case allow != nil:
		return Decision{Allowed: true, Reason: AllowACL, ACL: &allow.ACL}
	case any:
		return Decision{Reason: NoMatchingAllow}
	case allowEveryone:
		return Decision{Allowed: true, Reason: NoACLAllowEveryone}
	}
	return Decision{Reason: NoACLDeny}
}
