package authz

import (
	"sync"
)

// kraftAuthorizer is org.apache.kafka.metadata.authorizer.StandardAuthorizer
// (KRaft, Kafka 3.3-4.1), after its initial load.
type kraftAuthorizer struct {
	cfg           Config
	super         map[string]struct{}
	allowEveryone bool
	// types holds each resource type's ACLs in StandardAcl order: the
	// order its walk and acls() follow.
	types [numTypes]typeACLs
	// byPrincipal indexes each type's ACLs by principal string (ascending
	// positions), for the default authorizeByResourceType, which only
	// looks at the asker's and User:*'s ACLs (and throws on any whose
	// principal has no ':', whoever asks: typeACLs.colonless).
	byPrincipal [numTypes]map[string][]int32
	scratch     sync.Pool // *byTypeScratch
}

type byTypeScratch struct{ denyLit, denyPre map[string]*entry }

// NewKRaft returns KRaft's StandardAuthorizer (Kafka 3.3-4.1) over acls and
// cfg (ParseKRaftConfig), as it decides once its initial load is complete
// (before that, non-super users get AuthorizerNotReadyException). Identical
// ACLs count once. The controller does not validate ACL principals, so an
// ACL without ':' can exist; Kafka throws on the requests whose walk reaches
// it (Broken), as it does here.
func NewKRaft(acls []ACL, cfg Config) Authorizer {
	k := &kraftAuthorizer{cfg: cfg, super: superSet(cfg.SuperUsers), allowEveryone: cfg.AllowEveryoneIfNoACLFound}
	k.scratch.New = func() any {
		return &byTypeScratch{denyLit: map[string]*entry{}, denyPre: map[string]*entry{}}
	}
	k.types = buildTypes(acls)
	for ti := range k.types {
		k.byPrincipal[ti] = map[string][]int32{}
		for i := range k.types[ti].entries {
			if e := &k.types[ti].entries[i]; !e.colonless {
				k.byPrincipal[ti][e.Principal] = append(k.byPrincipal[ti][e.Principal], int32(i))
			}
		}
	}
	return k
}

func (k *kraftAuthorizer) Kind() string   { return "StandardAuthorizer" }
func (k *kraftAuthorizer) Config() Config { return k.cfg }

// ruleBuilder is StandardAuthorizerData.MatchingRuleBuilder.
type ruleBuilder struct {
	allow, deny     *entry
	hasResourceAcls bool
}

// Authorize is StandardAuthorizerData.authorize: a super user is allowed;
// then the walk over the ACLs for the name and its prefixes (section 1),
// stopping at the first matching DENY, and over the LITERAL "*" section;
// a DENY denies, an ALLOW allows, no ACL in scope gives the default
// (allow.everyone.if.no.acl.found), else denied.
//
// The walk is taken step for step only where it can throw or loop: when
// the type has an ACL principal without ':', or the name starts with a
// character below "*" and some ACL name of the type does too. Elsewhere the
// walk reaches exactly the ACLs typeACLs.scope lists (FuzzKRaftFastPath
// holds the two to the same decisions), so those are looked up by name.
func (k *kraftAuthorizer) Authorize(r Request) Decision {
	if _, ok := k.super[r.Principal]; ok {
		return Decision{Allowed: true, Reason: SuperUser}
	}
	ti, ok := typeIndex(r.Type)
	if !ok {
		return ruleDecision(false, nil, nil, k.allowEveryone)
	}
	t := &k.types[ti]
	if len(t.colonless) > 0 || (r.Name != "" && r.Name[0] < '*' && t.belowStar) {
		return k.walk(t.entries, &r)
	}
	any, allow, deny := t.decide(&r, true)
	return ruleDecision(any, allow, deny, k.allowEveryone)
}

// walk is StandardAuthorizerData.findAclRule, step for step.
func (k *kraftAuthorizer) walk(acls []entry, r *Request) Decision {
	var b ruleBuilder
	if d, stop := checkSection(acls, r, r.Name, PatternUnknown, &b, nil); stop {
		return d
	}
	if b.deny == nil {
		if d, stop := checkSection(acls, r, WildcardResource, PatternLiteral, &b, nil); stop {
			return d
		}
	}
	return ruleDecision(b.hasResourceAcls, b.allow, b.deny, k.allowEveryone)
}

// checkSection is StandardAuthorizerData.checkSection, step for step: from
// the exemplar (exName, exPattern) on, each ACL whose name is a prefix of
// the request's name is in scope, except a LITERAL one that is not the
// whole name; a LITERAL "*" is in scope wherever the walk meets it; any
// other ACL ends the run, and the walk jumps to the exemplar's name cut to
// the common prefix. It stops (true) on a matching DENY (b.deny set) or
// where Kafka throws or loops (the decision says which). With collect set
// it matches nothing, stops at no DENY, and passes each ACL in scope to
// collect instead (InScope).
func checkSection(acls []entry, r *Request, exName string, exPattern PatternType, b *ruleBuilder, collect func(int)) (Decision, bool) {
	name := r.Name
	start := tail(acls, exName, exPattern)
	for i := start; i < len(acls); {
		e := &acls[i]
		m := commonPrefix(name, e.Name)
		if m == len(e.Name) {
			if e.Pattern == PatternLiteral && m != len(name) {
				i++ // a literal ACL on a proper prefix of the name
				continue
			}
		} else if !(e.Name == WildcardResource && e.Pattern == PatternLiteral) {
			// exemplar.resourceName().substring(0, matchesUpTo)
			units := utf16Len(name[:m])
			if units > utf16Len(exName) {
				return Decision{Reason: Broken, Exception: "StringIndexOutOfBoundsException", ACL: &e.ACL}, true
			}
			exName = prefixUnits(exName, units)
			j := tail(acls, exName, exPattern)
			if j <= start {
				// back where the walk began (the "*" section and a name
				// that shares one character with an ACL name below "*"):
				// it would revisit the same ACLs for ever.
				return Decision{Reason: Hang, ACL: &e.ACL}, true
			}
			start, i = j, j
			continue
		}
		b.hasResourceAcls = true
		if collect != nil {
			collect(i)
			i++
			continue
		}
		if e.colonless { // StandardAcl.kafkaPrincipal
			return Decision{Reason: Broken, Exception: "IllegalStateException", ACL: &e.ACL}, true
		}
		switch findResult(e, r) {
		case Allow:
			b.allow = e
		case Deny:
			b.deny = e
			return Decision{}, false
		}
		i++
	}
	return Decision{}, false
}

// findResult is StandardAuthorizerData.findResult: Allow or Deny when the
// ACL matches the request (principal or User:*, host or *, its operation
// All, or for ALLOW an operation implying the request's, for any other
// permission the request's), 0 when it does not. An ACL whose permission
// is not ALLOW denies, as in Kafka.
func findResult(e *entry, r *Request) Permission {
	if !e.matches(r.Principal, r.Host) {
		return 0
	}
	bit := opBit(e.Operation)
	if e.Permission == Allow {
		if bit&allowOps(r.Operation) == 0 {
			return 0
		}
		return Allow
	}
	if bit&denyOps(r.Operation) == 0 {
		return 0
	}
	return Deny
}

// tail is aclsByResource().tailSet(exemplar, true): the position of the
// first ACL not before the exemplar (name, pattern type, and the lowest
// operation, principal, host and permission).
func tail(acls []entry, exName string, exPattern PatternType) int {
	lo, hi := 0, len(acls)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		e := &acls[mid]
		c := javaCompare(exName, e.Name) // names reversed
		if c == 0 {
			c = int(e.Pattern) - int(exPattern)
			if c == 0 { // the exemplar's operation, principal, host and permission are the lowest
				c = cmpOr(int(e.Operation), len(e.Principal), len(e.Host), int(e.Permission))
			}
		}
		if c < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// cmpOr returns the first non-zero value, or 0.
func cmpOr(vs ...int) int {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}

// prefixUnits is s cut to its first n UTF-16 units (at a character
// boundary).
func prefixUnits(s string, n int) string {
	u := 0
	for i, r := range s {
		if u >= n {
			return s[:i]
		}
		u++
		if r >= 0x10000 {
			u++
		}
	}
	return s
}

// AuthorizeByResourceType is the Authorizer interface's default, which
// StandardAuthorizer does not override: first Authorize of the resource
// LITERAL "hardcode" (allowed there, allowed here: super users, a "*" or
// prefix ALLOW with the implications, allow.everyone when "hardcode" has
// no ACL in scope); then a walk over every ACL of the type in order, where
// a matching LITERAL "*" DENY denies at once and an ACL principal without
// ':' throws; then allowed iff a LITERAL "*" ALLOW matched, or a matching
// ALLOW (exact operation or All) names a literal not denied literally and
// not under a denied prefix, or a prefix not under a denied prefix.
func (k *kraftAuthorizer) AuthorizeByResourceType(principal, host string, op Operation, t ResourceType) Decision {
	if d, ok := checkByTypeArgs(op, t); !ok {
		return d
	}
	probe := k.Authorize(Request{Principal: principal, Host: host, Operation: op, Type: t, Name: "hardcode"})
	if probe.Allowed || probe.Reason == Broken || probe.Reason == Hang {
		probe.Probe = true
		return probe
	}
	ti, _ := typeIndex(t)
	acls := k.types[ti].entries
	lists := [2][]int32{k.byPrincipal[ti][principal]}
	if principal != WildcardPrincipal {
		lists[1] = k.byPrincipal[ti][WildcardPrincipal]
	}
	matches := func(e *entry) bool {
		return (e.wildHost || e.Host == host) && (e.Operation == op || e.Operation == OpAll)
	}
	// The walk's first stop, in order: an unparsable principal (throws) or
	// a matching LITERAL "*" DENY (denies).
	stop := -1
	for _, i := range k.types[ti].colonless {
		if e := &acls[i]; e.wildHost || e.Host == host {
			stop = int(i)
			break
		}
	}
	for _, l := range lists {
		for _, i := range l {
			if stop >= 0 && int(i) > stop {
				break
			}
			e := &acls[i]
			if matches(e) && e.Permission == Deny && e.Pattern == PatternLiteral && e.Name == WildcardResource {
				stop = int(i)
				break
			}
		}
	}
	if stop >= 0 {
		if e := &acls[stop]; e.colonless {
			return Decision{Reason: Broken, Exception: "IllegalArgumentException", ACL: &e.ACL}
		} else {
			return Decision{Reason: ByTypeDenyWildcard, ACL: &e.ACL}
		}
	}
	s := k.scratch.Get().(*byTypeScratch)
	defer func() {
		clear(s.denyLit)
		clear(s.denyPre)
		k.scratch.Put(s)
	}()
	var wildAllow *entry
	for _, l := range lists {
		for _, i := range l {
			e := &acls[i]
			if !matches(e) {
				continue
			}
			switch {
			case e.Permission == Deny && e.Pattern == PatternLiteral:
				s.denyLit[e.Name] = e
			case e.Permission == Deny && e.Pattern == PatternPrefixed:
				s.denyPre[e.Name] = e
			case e.Permission == Allow && e.Pattern == PatternLiteral && e.Name == WildcardResource && wildAllow == nil:
				wildAllow = e
			}
		}
	}
	if wildAllow != nil {
		return Decision{Allowed: true, Reason: ByTypeAllowWildcard, ACL: &wildAllow.ACL}
	}
	inDenyPre := func(prefix string) *entry { return s.denyPre[prefix] }
	for _, l := range lists {
		for _, i := range l {
			e := &acls[i]
			if !matches(e) || e.Permission != Allow || (e.Pattern != PatternLiteral && e.Pattern != PatternPrefixed) {
				continue
			}
			if e.Pattern == PatternLiteral && s.denyLit[e.Name] != nil {
				continue
			}
			if hasDominantPrefixedDeny(e.Name, inDenyPre) == nil {
				return Decision{Allowed: true, Reason: ByTypeAllowACL, ACL: &e.ACL}
			}
		}
	}
	return Decision{Reason: ByTypeNoAllow}
}

// InScope lists the ACLs StandardAuthorizer's walk reaches for t:name,
// each once: looked up by name where the walk cannot loop or throw (as
// Authorize does), else collected by the walk itself, up to where it would
// loop or throw.
func (k *kraftAuthorizer) InScope(t ResourceType, name string) []ACL {
	ti, ok := typeIndex(t)
	if !ok {
		return nil
	}
	if ta := &k.types[ti]; name == "" || name[0] >= '*' || !ta.belowStar {
		return ta.inScope(name, true)
	}
	return k.walkScope(ti, name)
}

// walkScope is the ACLs the walk reaches for name, in its order, each once.
func (k *kraftAuthorizer) walkScope(ti int, name string) []ACL {
	acls := k.types[ti].entries
	seen := map[int]bool{}
	var out []ACL
	collect := func(i int) {
		if !seen[i] {
			seen[i] = true
			out = append(out, acls[i].ACL)
		}
	}
	r := Request{Type: ResourceType(ti), Name: name}
	var b ruleBuilder
	checkSection(acls, &r, name, PatternUnknown, &b, collect)
	checkSection(acls, &r, WildcardResource, PatternLiteral, &b, collect)
	return out
}
