package access

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// record adds one counterexample (weight request classes) to the group of
// its cause.
func (e *engine) record(pi int, host, op string, t authz.ResourceType, nc NameClass, cells []cell, weight int64, all func() []NameClass) {
	key, kind := e.causeKey(pi, nc, cells)
	g := e.groups[key]
	if g == nil {
		g = &Group{key: key, Kind: kind, principals: map[string]bool{}, resources: map[string]bool{}, ops: map[string]bool{}}
		g.Cause = e.causeText(pi, kind, nc, cells)
		g.Example = e.example(pi, host, op, resourceText(t, nc), nc, cells)
		g.srcACL, g.tgtACL = e.oneSided(kind, cells)
		g.NotProved = notProved(kind, cells)
		e.groups[key] = g
	}
	g.Classes += weight
	e.res.Differing += weight
	g.principals[e.label(pi)] = true
	if all == nil {
		g.resources[resourceText(t, nc)] = true
	} else {
		for _, c := range all() {
			g.resources[resourceText(t, c)] = true
		}
	}
	g.ops[op] = true
}

// resourceText names a class of resources for people: "Topic:orders",
// "Topic:(any name ...)".
func resourceText(t authz.ResourceType, nc NameClass) string {
	switch nc.Kind {
	case "idempotent":
		return "Cluster:kafka-cluster, or Write on any Topic"
	case "beyond", "unnamed":
		return t.String() + ":(" + nc.Desc() + ")"
	}
	return t.String() + ":" + nc.Name
}

// causeKey is what groups counterexamples: a super user on some sides
// only; a side without an authorizer; a principal without a target
// principal; else each side's decision and the ACL or default behind it.
func (e *engine) causeKey(pi int, nc NameClass, cells []cell) (key, kind string) {
	var super, none []string
	for i := range cells {
		c := &cells[i]
		switch c.norm() {
		case "super":
			super = append(super, c.v.slot)
		case "none":
			none = append(none, c.v.slot)
		case "unmapped":
			return "unmapped\x00" + e.pairs[pi].src, "unmapped"
		}
	}
	p := e.pairs[pi]
	switch {
	case len(super) > 0 && len(super) < len(cells):
		return "super\x00" + p.src + "\x00" + p.tgt + "\x00" + strings.Join(super, "\x00"), "super-user"
	case len(none) > 0 && len(none) < len(cells):
		return "none\x00" + strings.Join(none, "\x00"), "no-authorizer"
	}
	// The same ACL on both sides, applied by one authorizer and not the
	// other: the authorizers differ, not the data. One group per pattern
	// the quirk meets and kind of name.
	// Every deciding ACL exists on the other side too (the rest decided by
	// a default): the authorizers differ, not the data.
	var shared *authz.ACL
	quirk := true
	for i := range cells {
		c := &cells[i]
		switch n := c.norm(); {
		case n == "no-allow" || n == "allow-everyone":
		case (c.d.Reason == authz.AllowACL || c.d.Reason == authz.DenyACL) && c.d.ACL != nil && e.onOtherSide(c.v.side, *c.d.ACL):
			if shared == nil {
				shared = c.d.ACL
			}
		default:
			quirk = false
		}
	}
	if quirk && shared != nil {
		a := shared
		var outs []string
		for j := range cells {
			outs = append(outs, cells[j].v.slot+"="+cells[j].outcome())
		}
		return "authorizer\x00" + a.Type.String() + "\x00" + a.Pattern.String() + "\x00" + a.Name + "\x00" + nameShape(nc.Name) + "\x00" + strings.Join(outs, "\x00"), "authorizer"
	}
	kind = "allow-everyone"
	var parts []string
	for i := range cells {
		c := &cells[i]
		n := c.norm()
		switch {
		case strings.HasPrefix(n, "broken:"):
			kind = "broken"
		case n != "allow-everyone" && n != "no-allow" && kind != "broken":
			kind = "acl"
		}
		parts = append(parts, c.v.slot+"="+c.outcome()+"/"+n)
	}
	return "decide\x00" + strings.Join(parts, "\x00"), kind
}

// nameShape is what of a name the authorizers' quirks look at: whether it
// starts with "*", or with a character below "*".
func nameShape(n string) string {
	switch {
	case strings.HasPrefix(n, "*"):
		return "star"
	case n != "" && n[0] < '*':
		return "low"
	}
	return "plain"
}

// causeText words a group's cause in one line.
func (e *engine) causeText(pi int, kind string, nc NameClass, cells []cell) string {
	p := e.pairs[pi]
	var with, without []string
	for i := range cells {
		c := &cells[i]
		if c.norm() == "super" || c.norm() == "none" {
			with = append(with, c.v.label())
		} else {
			without = append(without, c.v.label())
		}
	}
	switch kind {
	case "super-user":
		who := p.src
		if who == "" || p.src != p.tgt && !strings.HasPrefix(with[0], SideSource) {
			who = p.tgt
		}
		return fmt.Sprintf("%s is a super user on %s and not on %s", who, strings.Join(with, ", "), strings.Join(without, ", "))
	case "no-authorizer":
		return fmt.Sprintf("%s run no authorizer (every request is allowed) and %s do", strings.Join(with, ", "), strings.Join(without, ", "))
	case "unmapped":
		return p.src + " has no principal on the target: the principal map maps it to nothing, so it cannot authenticate there"
	case "authorizer":
		var parts []string
		for i := range cells {
			c := &cells[i]
			parts = append(parts, c.v.label()+": "+c.outcome())
		}
		s := "the same ACLs, decided differently by the two authorizers (" + strings.Join(parts, "; ") + ")"
		for i := range cells {
			c := &cells[i]
			if a := c.d.ACL; a != nil && a.Name == authz.WildcardResource && a.Pattern == authz.PatternLiteral && nameShape(nc.Name) == "star" {
				return s + ": StandardAuthorizer does not apply LITERAL " + a.Type.String() + ":* ACLs to names that start with \"*\", AclAuthorizer does"
			}
		}
		for i := range cells {
			c := &cells[i]
			if c.d.ACL != nil {
				return s + ", e.g. " + c.d.ACL.String() + " on " + c.v.label()
			}
		}
		return s
	}
	var parts []string
	for i := range cells {
		c := &cells[i]
		s := c.v.label() + ": " + c.reason()
		if kind == "allow-everyone" {
			s += " [allow.everyone.if.no.acl.found " + quoteOr(c.v.allow, "unset") + "]"
		}
		if c.d.ACL != nil && (c.d.Reason == authz.AllowACL || c.d.Reason == authz.DenyACL) && e.onOtherSide(c.v.side, *c.d.ACL) {
			s += " (the other side has this ACL too; its authorizer does not apply it here)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// onOtherSide reports whether the ACL a (of side) exists on the other side,
// its principal mapped.
func (e *engine) onOtherSide(side string, a authz.ACL) bool {
	if side == SideTarget {
		for _, pi := range e.pairsOf(1, a.Principal) {
			if s := e.pairs[pi].src; s != "" {
				b := a
				b.Principal = s
				if e.srcSet[b] {
					return true
				}
			}
		}
		return a.Principal == authz.WildcardPrincipal && e.srcSet[a]
	}
	if a.Principal != authz.WildcardPrincipal {
		t, ok := e.mapped(a.Principal)
		if !ok {
			return false
		}
		a.Principal = t
	}
	return e.tgtSet[a]
}

// oneSided returns, for a group of kind acl with two sides, the ACL that
// decides on one side while nothing allows or denies on the other and
// that the other side lacks: the halves of a principal that changed form.
func (e *engine) oneSided(kind string, cells []cell) (src, tgt *snapshot.ACL) {
	if kind != "acl" || len(cells) != 2 {
		return nil, nil
	}
	a, b := &cells[0], &cells[1]
	if a.d.ACL != nil && b.norm() == "no-allow" && !e.onOtherSide(a.v.side, *a.d.ACL) {
		s := toSnapshot(*a.d.ACL)
		return &s, nil
	}
	if b.d.ACL != nil && a.norm() == "no-allow" && !e.onOtherSide(b.v.side, *b.d.ACL) {
		s := toSnapshot(*b.d.ACL)
		return nil, &s
	}
	return nil, nil
}

// notProved reports whether a counterexample may be none: a side denied
// where its super.users is not known (the principal may be a super user
// there), or allow.everyone.if.no.acl.found decided where it is not known.
func notProved(kind string, cells []cell) bool {
	for i := range cells {
		c := &cells[i]
		if c.v.unknownSuper && c.outcome() != "ALLOWED" {
			return true
		}
		if c.v.unknownAllow && (kind == "allow-everyone" || c.norm() == "allow-everyone" || c.norm() == "no-allow") {
			return true
		}
	}
	return false
}

// example is a group's counterexample for people.
func (e *engine) example(pi int, host, op, resource string, nc NameClass, cells []cell) Counterexample {
	p := e.pairs[pi]
	ce := Counterexample{Principal: p.src, Host: host, Operation: op, Resource: resource}
	if p.src == "" {
		ce.Principal = "(any other principal: " + e.unnamed + ")"
	}
	if p.tgt != p.src {
		ce.TargetPrincipal = p.tgt
		if p.tgt == "" && !p.unmapped {
			ce.TargetPrincipal = "(any other principal: " + e.unnamed + ")"
		}
	}
	if host == "" {
		ce.Host = "(any other host: " + e.otherHost + ")"
	}
	if nc.Kind == "beyond" || nc.Kind == "unnamed" {
		ce.Names = nc.Desc()
	}
	for i := range cells {
		c := &cells[i]
		sd := SideDecision{Side: c.v.side, Nodes: c.v.nodes, Outcome: c.outcome(), Reason: c.reason()}
		if c.v.scope != ScopeAll {
			sd.Decides = c.v.scope
		}
		if c.d.ACL != nil {
			a := toSnapshot(*c.d.ACL)
			sd.ACL = &a
		}
		ce.Decisions = append(ce.Decisions, sd)
	}
	return ce
}

// toSnapshot is the snapshot form of an ACL (Kafka's PascalCase names).
func toSnapshot(a authz.ACL) snapshot.ACL {
	perm := "Allow"
	if a.Permission == authz.Deny {
		perm = "Deny"
	}
	return snapshot.ACL{ResourceType: a.Type.String(), ResourceName: a.Name, PatternType: a.Pattern.String(), Principal: a.Principal,
		Host: a.Host, Operation: a.Operation.String(), Permission: perm}
}

// finish merges the halves of principals that changed form, orders the
// groups, gives the verdict and the digest.
func (e *engine) finish() *Result {
	r := e.res
	e.pairForms()
	for _, g := range e.groups {
		g.ID = "ACCESS-" + shortHash(g.key)
		g.Principals, g.PrincipalCount = capped(g.principals)
		g.Resources, g.ResourceCount = capped(g.resources)
		g.Operations, _ = capped(g.ops)
		r.Groups = append(r.Groups, *g)
	}
	for _, id := range e.in.Accept {
		found := false
		for i := range r.Groups {
			if r.Groups[i].ID == id {
				r.Groups[i].Accepted, found = true, true
			}
		}
		if !found && !slices.Contains(r.UnusedAccepts, id) {
			r.UnusedAccepts = append(r.UnusedAccepts, id)
		}
	}
	slices.SortFunc(r.Groups, func(a, b Group) int {
		switch {
		case a.Accepted != b.Accepted:
			if a.Accepted {
				return 1
			}
			return -1
		case a.NotProved != b.NotProved:
			if a.NotProved {
				return 1
			}
			return -1
		case a.Classes != b.Classes:
			if a.Classes > b.Classes {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Cause, b.Cause)
	})
	r.Names = e.names
	r.Verdict = Equivalent
	open := 0
	for _, g := range r.Groups {
		switch {
		case g.Accepted:
			r.Accepted += g.Classes
		case !g.NotProved:
			r.Verdict = Differences
		default:
			open++
		}
	}
	if r.Verdict == Equivalent && (open > 0 || len(r.Gaps) > 0) {
		r.Verdict = NotProved
	}
	r.Digest = e.digest()
	return r
}

// pairForms merges each ACL that decides on the source only with the same
// ACL deciding on the target only under another principal: one principal
// that changed form (an mTLS DN that became a SCRAM name) is one group.
func (e *engine) pairForms() {
	type half struct {
		key string
		g   *Group
	}
	bare := func(a snapshot.ACL) string {
		a.Principal = ""
		return a.Key()
	}
	tgtHalves := map[string][]half{}
	for k, g := range e.groups {
		if g.tgtACL != nil {
			tgtHalves[bare(*g.tgtACL)] = append(tgtHalves[bare(*g.tgtACL)], half{k, g})
		}
	}
	merged := map[string]*Group{}
	for _, k := range sortedKeysOf(e.groups) {
		g := e.groups[k]
		if g == nil || g.srcACL == nil {
			continue
		}
		hs := tgtHalves[bare(*g.srcACL)]
		if len(hs) == 0 {
			continue
		}
		slices.SortFunc(hs, func(a, b half) int { return strings.Compare(a.key, b.key) })
		var t *half
		for i := range hs {
			if e.groups[hs[i].key] != nil && hs[i].g.tgtACL.Principal != g.srcACL.Principal {
				t = &hs[i]
				break
			}
		}
		if t == nil {
			continue
		}
		from, to := g.srcACL.Principal, t.g.tgtACL.Principal
		mk := "form\x00" + from + "\x00" + to
		m := merged[mk]
		if m == nil {
			m = &Group{key: mk, Kind: "principal-form", principals: map[string]bool{}, resources: map[string]bool{}, ops: map[string]bool{},
				Example: g.Example, NotProved: g.NotProved && t.g.NotProved,
				Cause: fmt.Sprintf("%s on the source appears as %s on the target: the same ACLs under another principal (give --principal-map with %s=%s if it is the same client)", from, to, from, to)}
			merged[mk] = m
		}
		for _, x := range []*Group{g, t.g} {
			m.Classes += x.Classes
			for p := range x.principals {
				m.principals[p] = true
			}
			for r := range x.resources {
				m.resources[r] = true
			}
			for o := range x.ops {
				m.ops[o] = true
			}
		}
		delete(e.groups, k)
		delete(e.groups, t.key)
	}
	for k, m := range merged {
		e.groups[k] = m
	}
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// capped is the sorted set, at most ListMax of it, and its size.
func capped(m map[string]bool) ([]string, int) {
	out := sortedKeysOf(m)
	n := len(out)
	if n > ListMax {
		out = out[:ListMax]
	}
	return out, n
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return strings.ToUpper(hex.EncodeToString(h[:5]))
}

// digest hashes both inputs (ACLs, each node's settings, the principal
// map) with the verdict, the counts and the groups: the same inputs give
// the same digest, and a different proof a different one.
func (e *engine) digest() string {
	h := sha256.New()
	line := func(s string) { h.Write([]byte(s)); h.Write([]byte{'\n'}) }
	line("zkmigrate access proof 1")
	for i, acls := range [][]authz.ACL{e.src, e.tgt} {
		keys := make([]string, 0, len(acls))
		for _, a := range acls {
			keys = append(keys, a.String())
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		line([]string{SideSource, SideTarget}[i] + " acls " + strconv.Itoa(len(keys)))
		for _, k := range keys {
			line(k)
		}
	}
	for _, v := range e.vars {
		line(v.side + " " + v.scope + " " + v.settingsText())
	}
	for _, g := range e.res.Gaps {
		line("gap " + g.Side + " " + g.Requests + " " + g.Why)
	}
	line("map " + e.in.MapName)
	for _, id := range e.in.Accept {
		line("accept " + id)
	}
	line(fmt.Sprintf("verdict %s classes %d differing %d", e.res.Verdict, e.res.Classes, e.res.Differing))
	for _, g := range e.res.Groups {
		line(fmt.Sprintf("group %s %d", g.ID, g.Classes))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
