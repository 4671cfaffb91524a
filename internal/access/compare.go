package access

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
)

// Input is what Compare needs: both sides and how principals change.
type Input struct {
	Source, Target Side
	// Map gives the principal the target sees for a source principal
	// (principalmap.Map.Apply); nil is the identity. An error means the
	// client cannot authenticate there, except one that is
	// principalmap.ErrUnsupported: the principal is then not compared (a
	// gap).
	Map func(principal string) (target string, err error)
	// MapName names the map in the result (a file, with its digest).
	MapName string
	// Accept lists causes (Group.ID) the operator accepts: they are
	// reported as accepted and do not make the target not equivalent.
	Accept []string
}

// pair is a principal as each side sees it: src on the source, tgt on the
// target ("" is a principal no ACL or setting names).
type pair struct {
	src, tgt string
	unmapped bool // the map gives src no target principal
	// orphan: a target principal no source principal is known to map to
	orphan bool
}

// engine holds one comparison in progress.
type engine struct {
	in        Input
	vars      []*variant // decidable (not custom), source first
	src, tgt  []authz.ACL
	tgtSet    map[authz.ACL]bool
	srcSet    map[authz.ACL]bool
	pairs     []pair
	srcIdx    map[string]int
	srcPairs  map[string][]int // srcIdx as one-element lists (pairsOf)
	tgtIdx    map[string][]int
	unnamed   string // a principal no ACL or setting names
	otherHost string // a host no ACL names
	// scope holds, per side, an authorizer to ask which ACLs are in scope.
	scope [2][]authz.Authorizer
	// fullSuper: pairs every deciding variant lets do everything.
	fullSuper map[int]bool
	// someSuper: pairs some variant lets do everything, not all.
	someSuper []int
	hosts     map[string]bool
	names     int

	res    *Result
	groups map[string]*Group
	// cache: content decided alike on every side, with the classes it
	// stands for per name (see decideCached); masks: superMask per pair.
	cache    map[contentID]int64
	interned map[string]int32 // intern
	masks    map[int]string
	noCache  bool // tests: decide every class over all ACLs
	// colonless: an ACL's principal has no type (see cacheable).
	colonless bool
}

// Compare decides every request class of both sides and compares them
// (docs/access.md). An error is an input no authorizer can run with: an
// ACL that cannot be read (it names the ACL) or a setting the node's
// authorizer refuses at start-up (a *SettingError naming file:line).
func Compare(in Input) (*Result, error) {
	return compare(in, false)
}

func compare(in Input, noCache bool) (*Result, error) {
	e, err := newEngine(in)
	if err != nil {
		return nil, err
	}
	e.noCache = noCache
	e.run()
	return e.finish(), nil
}

func newEngine(in Input) (*engine, error) {
	e := &engine{in: in, res: &Result{PrincipalMap: in.MapName}, groups: map[string]*Group{}, cache: map[contentID]int64{}, interned: map[string]int32{}, masks: map[int]string{}, fullSuper: map[int]bool{}, hosts: map[string]bool{}}
	var err error
	if e.src, err = authz.FromSnapshotACLs(in.Source.ACLs); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if e.tgt, err = authz.FromSnapshotACLs(in.Target.ACLs); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	e.srcSet, e.tgtSet = aclSet(e.src), aclSet(e.tgt)
	for _, a := range append(slices.Clone(e.src), e.tgt...) {
		e.colonless = e.colonless || !strings.Contains(a.Principal, ":")
	}
	for i, s := range []*Side{&in.Source, &in.Target} {
		name, acls := SideSource, e.src
		if i == 1 {
			name, acls = SideTarget, e.tgt
		}
		vs, fs, err := buildVariants(name, s.Nodes, acls)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		e.res.Findings = append(e.res.Findings, s.Findings...)
		e.res.Findings = append(e.res.Findings, fs...)
		sr := SideResult{Name: s.Name, ACLs: len(s.ACLs), Nodes: s.Nodes}
		kinds := map[Kind]bool{}
		for _, v := range vs {
			sr.Authorizers = append(sr.Authorizers, Authorizer{Nodes: v.nodes, Decides: v.scope, Kind: v.kind, Class: v.class, Settings: v.settingsText()})
			switch {
			case v.kind == KindCustom:
				why := "its authorizer " + quoteOr(v.class, "") + " is not one of Kafka's: its decisions are not known"
				if v.class == "" {
					why = "its authorizer.class.name is not known"
				}
				e.res.Gaps = append(e.res.Gaps, Gap{Side: name, Nodes: v.nodes, Requests: v.scope, Why: why})
				continue
			case v.unknownSuper || v.unknownAllow:
				var keys []string
				if v.unknownSuper {
					keys = append(keys, KeySuperUsers)
				}
				if v.unknownAllow {
					keys = append(keys, KeyAllowEveryone)
				}
				e.res.Gaps = append(e.res.Gaps, Gap{Side: name, Nodes: v.nodes, Requests: v.scope,
					Why: strings.Join(keys, " and ") + " not known (a live node hides them; give its properties file): decided as if unset, so a difference they would make is not seen"})
			}
			if v.az != nil && !kinds[v.kind] {
				kinds[v.kind] = true
				e.scope[i] = append(e.scope[i], v.az)
			}
			e.vars = append(e.vars, v)
		}
		for _, gap := range s.Gaps {
			e.res.Gaps = append(e.res.Gaps, Gap{Side: name, Requests: ScopeAll, Why: gap})
		}
		if len(s.Nodes) == 0 {
			e.res.Gaps = append(e.res.Gaps, Gap{Side: name, Requests: ScopeAll, Why: "no node's authorizer configuration was given"})
		}
		if len(e.scope[i]) == 0 {
			// No node decides with ACLs; their in-scope sets still name
			// the principals and names to compare.
			def := authz.NewZK(acls, authz.Config{})
			if i == 1 {
				def = authz.NewKRaft(acls, authz.Config{})
			}
			e.scope[i] = append(e.scope[i], def)
		}
		if i == 0 {
			e.res.Source = sr
		} else {
			e.res.Target = sr
		}
	}
	e.principals()
	named := map[string]bool{}
	for _, acls := range [][]authz.ACL{e.src, e.tgt} {
		for _, a := range acls {
			named[a.Host] = true
		}
	}
	e.otherHost = "192.0.2.1" // TEST-NET-1: no client has it
	for i := 2; named[e.otherHost]; i++ {
		e.otherHost = fmt.Sprintf("192.0.2.%d", i)
	}
	return e, nil
}

func aclSet(acls []authz.ACL) map[authz.ACL]bool {
	m := make(map[authz.ACL]bool, len(acls))
	for _, a := range acls {
		m[a] = true
	}
	return m
}

// mapped is the target principal of a source principal; ok false when it
// has none (the client cannot authenticate on the target).
func (e *engine) mapped(p string) (string, bool) {
	if e.in.Map == nil {
		return p, true
	}
	t, err := e.in.Map(p)
	return t, err == nil
}

// unsupported reports whether the map cannot evaluate p exactly as Kafka
// would.
func (e *engine) unsupported(p string) bool {
	if e.in.Map == nil {
		return false
	}
	_, err := e.in.Map(p)
	return errors.Is(err, principalmap.ErrUnsupported)
}

// principals builds the principal pairs: every principal an ACL or
// super.users names on the source, with its target principal; every one
// named on the target that none of those maps to (compared as a source
// principal no ACL names, or, when the map changes it, as a target
// principal no source principal is known to reach); and the principal no
// one names.
func (e *engine) principals() {
	e.srcIdx, e.srcPairs, e.tgtIdx = map[string]int{}, map[string][]int{}, map[string][]int{}
	var srcNamed, tgtNamed []string
	add := func(list *[]string, seen map[string]bool, p string) {
		if p != authz.WildcardPrincipal && !seen[p] {
			seen[p] = true
			*list = append(*list, p)
		}
	}
	seenS, seenT := map[string]bool{}, map[string]bool{}
	for _, a := range e.src {
		add(&srcNamed, seenS, a.Principal)
	}
	for _, a := range e.tgt {
		add(&tgtNamed, seenT, a.Principal)
	}
	for _, v := range e.vars {
		for _, p := range v.cfg.SuperUsers {
			if v.side == SideSource {
				add(&srcNamed, seenS, p)
			} else {
				add(&tgtNamed, seenT, p)
			}
		}
	}
	slices.Sort(srcNamed)
	slices.Sort(tgtNamed)
	addPair := func(p pair) {
		i := len(e.pairs)
		e.pairs = append(e.pairs, p)
		if p.src != "" {
			e.srcIdx[p.src] = i
			e.srcPairs[p.src] = []int{i}
		}
		if p.tgt != "" {
			e.tgtIdx[p.tgt] = append(e.tgtIdx[p.tgt], i)
		}
	}
	for _, p := range srcNamed {
		if e.unsupported(p) {
			e.res.Gaps = append(e.res.Gaps, Gap{Side: SideSource, Requests: "the requests of " + p,
				Why: "the principal map cannot evaluate this principal exactly as Kafka would, so its target principal is not known"})
			continue
		}
		t, ok := e.mapped(p)
		if !ok {
			t = p // no target principal: its own name's target ACLs stay with it
		}
		addPair(pair{src: p, tgt: t, unmapped: !ok})
	}
	for _, q := range tgtNamed {
		if len(e.tgtIdx[q]) > 0 {
			continue
		}
		if t, ok := e.mapped(q); ok && t == q {
			if _, named := e.srcIdx[q]; !named {
				addPair(pair{src: q, tgt: q})
				continue
			}
		}
		addPair(pair{tgt: q, orphan: true})
	}
	addPair(pair{}) // the principal no one names
	// A principal no ACL or setting names, on either side.
	e.unnamed = "User:zkmigrate-unnamed"
	for i := 0; seenS[e.unnamed] || seenT[e.unnamed]; i++ {
		e.unnamed = fmt.Sprintf("User:zkmigrate-unnamed-%d", i)
	}
	for i, p := range e.pairs {
		n, deciding := 0, 0
		for _, v := range e.vars {
			deciding++
			if slices.Contains(v.cfg.SuperUsers, e.principalOn(v, i)) {
				n++
			}
		}
		switch {
		case n > 0 && n == deciding && !p.unmapped:
			e.fullSuper[i] = true
		case n > 0:
			e.someSuper = append(e.someSuper, i)
		}
	}
	e.res.Principals = len(e.pairs)
}

// principalOn is the principal variant v sees for pair i.
func (e *engine) principalOn(v *variant, i int) string {
	p := e.pairs[i]
	s := p.src
	if v.side == SideTarget {
		s = p.tgt
	}
	if s == "" {
		return e.unnamed
	}
	return s
}

// label names pair i for people.
func (e *engine) label(i int) string {
	p := e.pairs[i]
	switch {
	case p.src == "" && p.tgt == "":
		return "any other principal"
	case p.orphan:
		return p.tgt + " (on the target; no source principal is known to map to it)"
	case p.unmapped:
		return p.src + " (the principal map gives it no target principal)"
	case p.src != p.tgt:
		return p.src + " (" + p.tgt + " on the target)"
	}
	return p.src
}
