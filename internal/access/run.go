package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
)

// typeIndex holds one resource type's ACLs of one side by pattern.
type typeIndex struct {
	literal  map[string][]authz.ACL
	prefixed map[string][]authz.ACL
}

func indexType(acls []authz.ACL, t authz.ResourceType) typeIndex {
	ix := typeIndex{literal: map[string][]authz.ACL{}, prefixed: map[string][]authz.ACL{}}
	for _, a := range acls {
		if a.Type != t {
			continue
		}
		if a.Pattern == authz.PatternPrefixed {
			ix.prefixed[a.Name] = append(ix.prefixed[a.Name], a)
		} else {
			ix.literal[a.Name] = append(ix.literal[a.Name], a)
		}
	}
	return ix
}

// aclSets are ACLs per side (source, target).
type aclSets = [2][]authz.ACL

// chain is what a class of names shares: the LITERAL "*" ACLs and the
// PREFIXED ACLs on its prefixes, of both sides.
type chain struct {
	// pairHosts: the pairs those ACLs name, each with the hosts of its
	// ACLs; wildHosts: the hosts of the User:* ones.
	pairHosts map[int]map[string]bool
	pairs     []int
	wildHosts map[string]bool
	// acls: the ACLs naming each pair; wild: the User:* ones (and those
	// whose principal has no type).
	acls map[int]*aclSets
	keys map[int]int32 // pairKey
	wild aclSets
	// others: one "*" ACL and one prefix ACL per side, of any principal:
	// what makes a side's scope non-empty for each authorizer (which
	// skips the "*" ACLs for names starting with "*" and which does not).
	others aclSets
	// anyStar, anyPrefix: a side has "*" ACLs, prefix ACLs in scope.
	anyStar, anyPrefix [2]bool
}

// nameGroup is the names of one chain whose own LITERAL ACLs (beyond the
// principals they name) are alike: the same User:* ACLs, ACLs or none on
// each side. A principal none of its own ACLs names is decided alike on
// every name of the group.
type nameGroup struct {
	ch    *chain
	names []int // indexes into the type's classes
	local map[int]int
	wild  map[string]bool // hosts of the names' User:* LITERAL ACLs
	// wildACLs: the names' User:* LITERAL ACLs (the same for all).
	wildACLs aclSets
	// key is the content of what every name of the group shares for a
	// principal none of its own ACLs names: whether the names start with
	// "*", the User:* ACLs and whether a side has ACLs in scope (interned).
	key int32
}

// run decides every request class.
func (e *engine) run() {
	for _, t := range authz.ResourceTypes {
		e.runType(t)
	}
	e.runIdempotent()
	e.res.Hosts = len(e.hosts) + 1
}

// operations are the operations of type t in either side's Kafka line.
func (e *engine) operations(t authz.ResourceType) []authz.Operation {
	sv, tv := version(e.in.Source.Version, authz.Kafka39), version(e.in.Target.Version, authz.Kafka41)
	ops := slices.Clone(authz.Operations(t, sv))
	for _, o := range authz.Operations(t, tv) {
		if !slices.Contains(ops, o) {
			ops = append(ops, o)
		}
	}
	slices.Sort(ops)
	return ops
}

func version(s string, def authz.Version) authz.Version {
	if v, err := authz.ParseVersion(s); err == nil {
		return v
	}
	return def
}

func (e *engine) runType(t authz.ResourceType) {
	ix := [2]typeIndex{indexType(e.src, t), indexType(e.tgt, t)}
	lits, pres := map[string]bool{}, map[string]bool{}
	for _, x := range ix {
		for n := range x.literal {
			lits[n] = true
		}
		for n := range x.prefixed {
			pres[n] = true
		}
		for _, l := range x.literal {
			for _, a := range l {
				e.noteHost(a.Host)
			}
		}
		for _, l := range x.prefixed {
			for _, a := range l {
				e.noteHost(a.Host)
			}
		}
	}
	classes := NameClasses(t, lits, pres)
	e.names += len(classes)
	ops := e.operations(t)
	maxPrefix := 0
	for p := range pres {
		maxPrefix = max(maxPrefix, len(p))
	}
	chains := map[string]*chain{}
	groups := map[string]*nameGroup{}
	var order []string
	for ci, c := range classes {
		// The chain: the longest prefix the name has (either side's),
		// and whether the name starts with "*" (StandardAuthorizer skips
		// the "*" ACLs for those) or is "*".
		longest := "\x00none"
		for k := min(len(c.Name), maxPrefix); k >= 0; k-- {
			if pres[c.Name[:k]] {
				longest = c.Name[:k]
				break
			}
		}
		star := "plain"
		switch {
		case c.Name == authz.WildcardResource:
			star = "wildcard"
		case strings.HasPrefix(c.Name, "*"):
			star = "star"
		}
		ck := longest + "\x00" + star
		ch := chains[ck]
		if ch == nil {
			ch = e.buildChain(ix, c.Name, longest)
			chains[ck] = ch
		}
		// The name's own LITERAL ACLs: the principals they name are
		// decided on this name alone; the User:* ones and their
		// presence make the group.
		var gk strings.Builder
		gk.WriteString(ck)
		local := map[int]map[string]bool{}
		localACLs := map[int]*aclSets{}
		wild := map[string]bool{}
		var wildACLs, own aclSets
		var anyLocal [2]bool
		for side := range 2 {
			if c.Name != authz.WildcardResource { // the "*" ACLs are the chain's
				own[side] = ix[side].literal[c.Name]
			}
			anyLocal[side] = len(own[side]) > 0
			for _, a := range own[side] {
				if isWild(a) {
					gk.WriteString("\x02" + a.String())
					wild[a.Host] = true
					wildACLs[side] = append(wildACLs[side], a)
					continue
				}
				for _, pi := range e.pairsOf(side, a.Principal) {
					if local[pi] == nil {
						local[pi] = map[string]bool{}
						localACLs[pi] = &aclSets{}
					}
					local[pi][a.Host] = true
					localACLs[pi][side] = append(localACLs[pi][side], a)
				}
			}
		}
		flags := fmt.Sprint(ch.anyStar, ch.anyPrefix, anyLocal)
		gk.WriteString(flags)
		g := groups[gk.String()]
		if g == nil {
			g = &nameGroup{ch: ch, local: map[int]int{}, wild: wild, wildACLs: wildACLs,
				key: e.intern(star + "\x03" + contentKey(wildACLs, ch.wild) + flags)}
			groups[gk.String()] = g
			order = append(order, gk.String())
		}
		g.names = append(g.names, ci)
		cacheable := e.cacheable(t, c.Name)
		for _, pi := range sortedInts(local) {
			g.local[pi]++
			if e.fullSuper[pi] {
				continue
			}
			hosts := func() []string { return unionHosts(local[pi], ch.pairHosts[pi], ch.wildHosts, wild) }
			mine := ch.pairACLs(pi)
			key := noKey
			if cacheable {
				key = contentID{t: t, a: e.intern(contentKey(*localACLs[pi], mine)), b: g.key}
			}
			e.decideCached(key, pi, t, c, hosts, ops, 1, nil, func() aclSets {
				return joinSets(*localACLs[pi], mine, wildACLs, ch.wild, ch.others, firstOf(own))
			})
		}
	}
	for _, k := range order {
		g := groups[k]
		for _, pi := range e.chainPairs(g.ch) {
			n := len(g.names) - g.local[pi]
			if n == 0 || e.fullSuper[pi] {
				continue
			}
			rep := g.names[0]
			if g.local[pi] > 0 {
				for _, ci := range g.names {
					if !e.namesLocally(ix, pi, classes[ci].Name) {
						rep = ci
						break
					}
				}
			}
			hosts := func() []string { return unionHosts(g.ch.pairHosts[pi], g.ch.wildHosts, g.wild) }
			mine := g.ch.pairACLs(pi)
			key := noKey
			if e.cacheable(t, classes[rep].Name) {
				key = contentID{t: t, a: g.ch.pairKey(e, pi), b: g.key}
			}
			all := func() []NameClass {
				out := []NameClass{classes[rep]}
				for _, ci := range g.names {
					if ci != rep && (g.local[pi] == 0 || !e.namesLocally(ix, pi, classes[ci].Name)) {
						out = append(out, classes[ci])
					}
				}
				return out
			}
			e.decideCached(key, pi, t, classes[rep], hosts, ops, int64(n), all, func() aclSets {
				var own aclSets
				for side := range 2 {
					if name := classes[rep].Name; name != authz.WildcardResource {
						own[side] = ix[side].literal[name]
					}
				}
				return joinSets(mine, g.wildACLs, g.ch.wild, g.ch.others, firstOf(own))
			})
		}
	}
}

// isWild reports whether an ACL applies to every principal: User:*, or a
// principal without a type (StandardAuthorizer throws on it for whoever
// asks).
func isWild(a authz.ACL) bool {
	return a.Principal == authz.WildcardPrincipal || !strings.Contains(a.Principal, ":")
}

// firstOf keeps the first ACL of each side.
func firstOf(s aclSets) aclSets {
	var out aclSets
	for side := range 2 {
		if len(s[side]) > 0 {
			out[side] = s[side][:1]
		}
	}
	return out
}

// joinSets is the union of the sets, per side.
func joinSets(parts ...aclSets) aclSets {
	var out aclSets
	for side := range 2 {
		for _, p := range parts {
			out[side] = append(out[side], p[side]...)
		}
	}
	return out
}

// aclContent is what of an ACL a decision depends on, its principal aside:
// permission, operation, host.
func aclContent(a authz.ACL) string {
	return string(rune('0'+int(a.Permission))) + string(rune('A'+int(a.Operation))) + a.Host
}

// contentKey joins the sides' ACL contents, each sorted.
func contentKey(parts ...aclSets) string {
	var b strings.Builder
	for side := range 2 {
		var all []string
		for _, p := range parts {
			for _, a := range p[side] {
				all = append(all, aclContent(a))
			}
		}
		slices.Sort(all)
		b.WriteString(strings.Join(all, "\x01"))
		b.WriteString("\x04")
	}
	return b.String()
}

// pairKey is the content of the chain's ACLs naming pair pi (interned).
func (ch *chain) pairKey(e *engine, pi int) int32 {
	k, ok := ch.keys[pi]
	if !ok {
		k = e.intern(contentKey(ch.pairACLs(pi)))
		ch.keys[pi] = k
	}
	return k
}

// contentID identifies a decision's content (see decideCached): the
// resource type, the pair's ACLs and what the class of names shares.
type contentID struct {
	t    authz.ResourceType
	mask int32 // superMask
	a, b int32 // interned contents
}

// noKey marks a decision that depends on more than content.
var noKey = contentID{a: -1}

// intern numbers a content string.
func (e *engine) intern(s string) int32 {
	if id, ok := e.interned[s]; ok {
		return id
	}
	id := int32(len(e.interned))
	e.interned[s] = id
	return id
}

// pairACLs are the chain's ACLs naming pair pi.
func (ch *chain) pairACLs(pi int) aclSets {
	if c := ch.acls[pi]; c != nil {
		return *c
	}
	return aclSets{}
}

// cacheable reports whether decisions on name depend on the content of
// the ACLs in scope alone (and so may be decided over those of the pair,
// User:* and one of each other kind, and reused for the same content):
// not for names starting below "*", on which StandardAuthorizer's walk
// depends on the other names it meets (it may throw or never answer), nor
// when an ACL's principal has no type (whether the walk reaches it before
// a matching DENY depends on the order).
func (e *engine) cacheable(t authz.ResourceType, name string) bool {
	return !e.noCache && !e.colonless && (t == authz.ResourceTopic || name == "" || name[0] >= '*')
}

// chainPairs are the pairs to decide on every name of a chain: those its
// ACLs name, those a super user on some side only, and the principal no
// one names.
func (e *engine) chainPairs(ch *chain) []int {
	out := slices.Clone(ch.pairs)
	for _, pi := range e.someSuper {
		if ch.pairHosts[pi] == nil {
			out = append(out, pi)
		}
	}
	unnamed := len(e.pairs) - 1
	if ch.pairHosts[unnamed] == nil && !slices.Contains(out, unnamed) {
		out = append(out, unnamed)
	}
	return out
}

// namesLocally reports whether a LITERAL ACL on name names pair pi.
func (e *engine) namesLocally(ix [2]typeIndex, pi int, name string) bool {
	for side := range 2 {
		for _, a := range ix[side].literal[name] {
			if slices.Contains(e.pairsOf(side, a.Principal), pi) {
				return true
			}
		}
	}
	return false
}

// buildChain collects the "*" and prefix ACLs of both sides in scope for
// name (whose longest prefix is longest).
func (e *engine) buildChain(ix [2]typeIndex, name, longest string) *chain {
	ch := &chain{pairHosts: map[int]map[string]bool{}, wildHosts: map[string]bool{}, acls: map[int]*aclSets{}, keys: map[int]int32{}}
	addACL := func(side int, a authz.ACL) {
		if isWild(a) {
			ch.wildHosts[a.Host] = true
			ch.wild[side] = append(ch.wild[side], a)
			return
		}
		for _, pi := range e.pairsOf(side, a.Principal) {
			if ch.pairHosts[pi] == nil {
				ch.pairHosts[pi] = map[string]bool{}
				ch.pairs = append(ch.pairs, pi)
				ch.acls[pi] = &aclSets{}
			}
			ch.pairHosts[pi][a.Host] = true
			ch.acls[pi][side] = append(ch.acls[pi][side], a)
		}
	}
	for side := range 2 {
		star := ix[side].literal[authz.WildcardResource]
		ch.anyStar[side] = len(star) > 0
		if len(star) > 0 {
			ch.others[side] = append(ch.others[side], star[0])
		}
		for _, a := range star {
			addACL(side, a)
		}
		if longest == "\x00none" {
			continue
		}
		for k := len(longest); k >= 0; k-- {
			pre := ix[side].prefixed[name[:k]]
			if len(pre) > 0 && !ch.anyPrefix[side] {
				ch.anyPrefix[side] = true
				ch.others[side] = append(ch.others[side], pre[0])
			}
			for _, a := range pre {
				addACL(side, a)
			}
		}
	}
	slices.Sort(ch.pairs)
	return ch
}

// pairsOf are the pairs whose principal on side is p.
func (e *engine) pairsOf(side int, p string) []int {
	if side == 0 {
		return e.srcPairs[p]
	}
	return e.tgtIdx[p]
}

func (e *engine) noteHost(h string) {
	if h != authz.WildcardHost {
		e.hosts[h] = true
	}
}

// unionHosts is the hosts of the sets, except "*", sorted, then one host
// no ACL names.
func unionHosts(sets ...map[string]bool) []string {
	var out []string
	for _, s := range sets {
		for h := range s {
			if h != authz.WildcardHost && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return append(out, "")
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
