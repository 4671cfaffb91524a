package authz

// zkAuthorizer is kafka.security.authorizer.AclAuthorizer (ZooKeeper mode,
// Kafka 2.4-3.9), and SimpleAclAuthorizer (0.11-2.3) with legacy set.
type zkAuthorizer struct {
	cfg           Config
	kind          string
	super         map[string]struct{}
	allowEveryone bool
	// broken is an ACL AclAuthorizer cannot load (a principal without ':',
	// an Any operation, permission or resource type): loadCache throws in configure, so
	// the broker does not start and no request is decided.
	broken    *ACL
	brokenExc string
	types     [numTypes]typeACLs
	// byType is AclAuthorizer's resourceCache: for each (principal, host,
	// operation, permission, type, pattern type), the names with such an
	// ACL, each with one of its ACLs.
	byType map[byTypeKey]*nameSet
}

type byTypeKey struct {
	principal, host string
	op              Operation
	perm            Permission
	typ             ResourceType
	pattern         PatternType
}

// nameSet is a set of resource names, each with a representative ACL, in
// first-seen order.
type nameSet struct {
	byName map[string]*entry
	order  []string
}

// NewZK returns ZooKeeper mode's AclAuthorizer (Kafka 2.4-3.9) over acls
// and cfg (ParseZKConfig). Identical ACLs count once, as in its cache. An
// ACL it cannot load (a principal without ':', an operation or permission
// Any) makes every decision Broken: the broker would not start.
func NewZK(acls []ACL, cfg Config) Authorizer {
	return newZK(acls, cfg, "AclAuthorizer", true)
}

// NewZKLegacy returns the ZooKeeper authorizer of Kafka line v: before
// 2.4 SimpleAclAuthorizer, whose decisions are AclAuthorizer's (the same
// order: super user, no ACL in scope, DENY, ALLOW with the same
// implications) except that before 2.0 there are no PREFIXED ACLs (it
// reads only the literal and "*" ones; any PREFIXED ACL given is ignored).
// Brokers before 2.8 never call AuthorizeByResourceType (InitProducerId
// needed IdempotentWrite on the cluster); it answers as AclAuthorizer's.
// From 2.4 on it is NewZK.
func NewZKLegacy(acls []ACL, cfg Config, v Version) Authorizer {
	if v.AtLeast(Version{2, 4}) {
		return NewZK(acls, cfg)
	}
	return newZK(acls, cfg, "SimpleAclAuthorizer", v.AtLeast(Version{2, 0}))
}

func newZK(acls []ACL, cfg Config, kind string, prefixed bool) *zkAuthorizer {
	z := &zkAuthorizer{cfg: cfg, kind: kind, super: superSet(cfg.SuperUsers), allowEveryone: cfg.AllowEveryoneIfNoACLFound,
		byType: map[byTypeKey]*nameSet{}}
	kept := make([]ACL, 0, len(acls))
	for _, a := range acls {
		if a.Pattern == PatternPrefixed && !prefixed {
			continue
		}
		kept = append(kept, a)
	}
	z.types = buildTypes(kept)
	for ti := range z.types {
		for i := range z.types[ti].entries {
			e := &z.types[ti].entries[i]
			if z.broken == nil && (e.colonless || e.Operation == OpAny || e.Permission == PermissionAny || e.Type == ResourceAny) {
				z.broken, z.brokenExc = &e.ACL, "IllegalArgumentException"
			}
			if e.Pattern != PatternLiteral && e.Pattern != PatternPrefixed {
				continue
			}
			k := byTypeKey{e.Principal, e.Host, e.Operation, e.Permission, e.Type, e.Pattern}
			ns := z.byType[k]
			if ns == nil {
				ns = &nameSet{byName: map[string]*entry{}}
				z.byType[k] = ns
			}
			if _, ok := ns.byName[e.Name]; !ok {
				ns.byName[e.Name] = e
				ns.order = append(ns.order, e.Name)
			}
		}
	}
	return z
}

func (z *zkAuthorizer) Kind() string   { return z.kind }
func (z *zkAuthorizer) Config() Config { return z.cfg }

func (z *zkAuthorizer) brokenDecision() Decision {
	return Decision{Reason: Broken, Exception: z.brokenExc, ACL: z.broken}
}

// Authorize is AclAuthorizer.authorizeAction: a super user is allowed; no
// ACL in scope gives allow.everyone.if.no.acl.found; a matching DENY
// (operation or All, no implications) denies; a matching ALLOW (with the
// Describe and DescribeConfigs implications, or All) allows; else denied.
func (z *zkAuthorizer) Authorize(r Request) Decision {
	if z.broken != nil {
		return z.brokenDecision()
	}
	if _, ok := z.super[r.Principal]; ok {
		return Decision{Allowed: true, Reason: SuperUser}
	}
	ti, ok := typeIndex(r.Type)
	if !ok {
		return ruleDecision(false, nil, nil, z.allowEveryone)
	}
	any, allow, deny := z.types[ti].decide(&r, false)
	return ruleDecision(any, allow, deny, z.allowEveryone)
}

// AuthorizeByResourceType is AclAuthorizer's own override (not the
// interface default): after the super user test, a matching LITERAL "*"
// DENY denies; then allow.everyone.if.no.acl.found allows outright (whether
// the type has ACLs is not looked at); then allowed iff some matching
// ALLOW, literal or prefixed, is not covered by a matching DENY (a LITERAL
// "*" ALLOW always counts). Matching is exact: the operation or All, no
// implications.
func (z *zkAuthorizer) AuthorizeByResourceType(principal, host string, op Operation, t ResourceType) Decision {
	if d, ok := checkByTypeArgs(op, t); !ok {
		return d
	}
	if z.broken != nil {
		return z.brokenDecision()
	}
	if _, ok := z.super[principal]; ok {
		return Decision{Allowed: true, Reason: SuperUser}
	}
	var denyLit, denyPre, allowLit, allowPre [8]*nameSet
	z.matching(&denyLit, principal, host, op, Deny, t, PatternLiteral)
	for _, s := range denyLit {
		if s != nil {
			if e, ok := s.byName[WildcardResource]; ok {
				return Decision{Reason: ByTypeDenyWildcard, ACL: &e.ACL}
			}
		}
	}
	if z.allowEveryone {
		return Decision{Allowed: true, Reason: ByTypeAllowEveryone}
	}
	nd := z.matching(&denyPre, principal, host, op, Deny, t, PatternPrefixed) + count(&denyLit)
	na := z.matching(&allowPre, principal, host, op, Allow, t, PatternPrefixed)
	na += z.matching(&allowLit, principal, host, op, Allow, t, PatternLiteral)
	if nd == 0 {
		if na > 0 {
			return z.allowedBy(&allowPre, &allowLit)
		}
		return Decision{Reason: ByTypeNoAllow}
	}
	inDenyPre := func(prefix string) *entry {
		for _, s := range denyPre {
			if s != nil {
				if e, ok := s.byName[prefix]; ok {
					return e
				}
			}
		}
		return nil
	}
	for _, s := range allowPre {
		if s == nil {
			continue
		}
		for _, name := range s.order {
			if hasDominantPrefixedDeny(name, inDenyPre) == nil {
				return Decision{Allowed: true, Reason: ByTypeAllowACL, ACL: &s.byName[name].ACL}
			}
		}
	}
	for _, s := range allowLit {
		if s == nil {
			continue
		}
		for _, name := range s.order {
			e := s.byName[name]
			if name == WildcardResource {
				return Decision{Allowed: true, Reason: ByTypeAllowWildcard, ACL: &e.ACL}
			}
			if inSets(&denyLit, name) || hasDominantPrefixedDeny(name, inDenyPre) != nil {
				continue
			}
			return Decision{Allowed: true, Reason: ByTypeAllowACL, ACL: &e.ACL}
		}
	}
	return Decision{Reason: ByTypeNoAllow}
}

// matching is AclAuthorizer.matchingResources: the name sets of the keys
// (principal or User:*, host or *, op or All); it returns how many exist.
func (z *zkAuthorizer) matching(out *[8]*nameSet, principal, host string, op Operation, perm Permission, t ResourceType, pat PatternType) int {
	n := 0
	for i, p := range [2]string{principal, WildcardPrincipal} {
		if i == 1 && p == principal {
			continue
		}
		for j, h := range [2]string{host, WildcardHost} {
			if j == 1 && h == host {
				continue
			}
			for k, o := range [2]Operation{op, OpAll} {
				if k == 1 && o == op {
					continue
				}
				if s := z.byType[byTypeKey{p, h, o, perm, t, pat}]; s != nil {
					out[n] = s
					n++
				}
			}
		}
	}
	return n
}

func count(sets *[8]*nameSet) int {
	n := 0
	for _, s := range sets {
		if s != nil {
			n++
		}
	}
	return n
}

func inSets(sets *[8]*nameSet, name string) bool {
	for _, s := range sets {
		if s != nil {
			if _, ok := s.byName[name]; ok {
				return true
			}
		}
	}
	return false
}

// allowedBy names an ALLOW of the sets (prefixed first, as Kafka checks).
func (z *zkAuthorizer) allowedBy(pre, lit *[8]*nameSet) Decision {
	for _, sets := range [2]*[8]*nameSet{pre, lit} {
		for _, s := range sets {
			if s != nil && len(s.order) > 0 {
				e := s.byName[s.order[0]]
				reason := ByTypeAllowACL
				if e.Pattern == PatternLiteral && e.Name == WildcardResource {
					reason = ByTypeAllowWildcard
				}
				return Decision{Allowed: true, Reason: reason, ACL: &e.ACL}
			}
		}
	}
	return Decision{Reason: ByTypeNoAllow}
}

// InScope lists AclAuthorizer's matchingAcls for t:name.
func (z *zkAuthorizer) InScope(t ResourceType, name string) []ACL {
	ti, ok := typeIndex(t)
	if !ok {
		return nil
	}
	return z.types[ti].inScope(name, false)
}

// compareStandard is StandardAcl.compareTo: resource type, name (reversed,
// in Java's order), pattern type, operation, principal, host, permission.
func compareStandard(a, b ACL) int {
	if a.Type != b.Type {
		return int(a.Type) - int(b.Type)
	}
	if c := javaCompare(b.Name, a.Name); c != 0 {
		return c
	}
	if a.Pattern != b.Pattern {
		return int(a.Pattern) - int(b.Pattern)
	}
	if a.Operation != b.Operation {
		return int(a.Operation) - int(b.Operation)
	}
	if c := javaCompare(a.Principal, b.Principal); c != 0 {
		return c
	}
	if c := javaCompare(a.Host, b.Host); c != 0 {
		return c
	}
	return int(a.Permission) - int(b.Permission)
}
