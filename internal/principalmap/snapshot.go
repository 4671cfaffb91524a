package principalmap

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Rename is one source principal the map changed.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
	How  How    `json:"how"`
}

// Result is what mapping a snapshot did and found.
type Result struct {
	// Renames lists every principal the map changed, sorted by From.
	Renames []Rename
	// Findings are principal-map-unmapped and principal-map-merge, also
	// appended to the mapped snapshot's Findings (so a plan carries them).
	Findings []snapshot.Finding
	// Collisions are principal-map-collision blockers: target SCRAM users
	// that two source users map onto (set from neither), and target user
	// quota entities that source entities with different values map onto
	// (set from none). The caller makes them plan blockers; Kind tells
	// which change kind each blocks.
	Collisions []Collision
}

// Collision is one principal-map-collision: the target resource no source
// resource is carried to.
type Collision struct {
	Finding snapshot.Finding
	Scram   bool // a SCRAM user (else a quota entity)
}

// ApplySnapshot returns a copy of s with its principals mapped: ACL
// principals (and the names of literal ACLs on User resources, which are
// principals), the user part of user and user/client-id quota entities
// (<default> untouched), and SCRAM user names. s is not changed.
//
// A principal of a mapped kind that the map cannot map is carried
// unchanged, with a principal-map-unmapped warning naming it and why: the
// rights it held are kept under the name that may still be right (a target
// that keeps that authentication), and the operator is told it may reach
// nobody; refusing it would block nothing the operator could fix other than
// by changing the map, which the warning says. Principals merged into one
// target principal are a principal-map-merge warning naming all of them.
//
// A SCRAM credential survives a rename: Kafka's stored credential (salt,
// StoredKey, ServerKey, iterations) does not depend on the user name.
// ScramFormatter (apache/kafka@1eb7644349c, clients/src/main/java/org/apache/
// kafka/common/security/scram/internals/ScramFormatter.java) derives
// SaltedPassword = Hi(password, salt, iterations) (L93-95), ClientKey =
// HMAC(SaltedPassword, "Client Key") and StoredKey = H(ClientKey) (L97-103),
// ServerKey = HMAC(SaltedPassword, "Server Key") (L144-146); the user name
// enters only each exchange's AuthMessage. So a renamed user logs in with
// the same password. Two source SCRAM users mapped onto one target user
// cannot both keep theirs: a Collision, and neither is carried.
func (m *Map) ApplySnapshot(s *snapshot.Snapshot) (*snapshot.Snapshot, Result) {
	out := *s
	a := &applier{m: m, sources: map[string]map[string]bool{}, unmapped: map[string]*unmapped{}, renames: map[string]Rename{}}
	out.ACLs = make([]snapshot.ACL, 0, len(s.ACLs))
	for _, acl := range s.ACLs {
		acl.Principal = a.principal(acl.Principal, "ACL", false)
		if acl.ResourceType == "User" && acl.PatternType == "LITERAL" {
			acl.ResourceName = a.principal(acl.ResourceName, "ACL resource", false)
		}
		out.ACLs = append(out.ACLs, acl)
	}
	out.Quotas = a.quotas(s.Quotas)
	out.ScramUsers = a.scram(s.ScramUsers)
	out.Findings = slices.Clone(s.Findings)
	res := a.result()
	out.Findings = append(out.Findings, res.Findings...)
	out.Sort() // mapped names change the order; merged ACLs become one
	return &out, res
}

type applier struct {
	m *Map
	// sources: target principal → the source principals that became it.
	sources    map[string]map[string]bool
	unmapped   map[string]*unmapped
	renames    map[string]Rename
	collisions []Collision
}

type unmapped struct {
	err  error
	uses map[string]int // "ACL", "quota", "SCRAM user" → count
}

// target is what ApplySnapshot makes of source principal p: the mapped
// principal, or p itself with the reason it is not mapped. With user set
// the result must be a User (a SCRAM user or a quota entity's user cannot
// become another principal type).
func (m *Map) target(p string, user bool) (string, How, error) {
	to, how, err := m.Apply(p)
	if err == nil && user && !strings.HasPrefix(to, "User:") {
		err = fmt.Errorf("%s is mapped to %s, which is not a User", p, to)
	}
	if err != nil {
		return p, how, err
	}
	return to, how, nil
}

// TargetPrincipal is the principal ApplySnapshot gives source ACL
// principal p (or the name of a literal ACL on a User resource): mapped,
// or p itself when the map does not map it.
func (m *Map) TargetPrincipal(p string) string {
	to, _, _ := m.target(p, false)
	return to
}

// TargetUser is the name ApplySnapshot gives a source SCRAM user or quota
// entity's user (a name without "User:"): mapped, or name itself when the
// map does not map it to a User.
func (m *Map) TargetUser(name string) string {
	to, _, _ := m.target("User:"+name, true)
	return strings.TrimPrefix(to, "User:")
}

// principal maps one source principal, noting what it found; use names
// where it was met. With user set the result must be a User (a SCRAM user
// or a quota entity's user cannot become another principal type).
func (a *applier) principal(p, use string, user bool) string {
	to, how, err := a.m.target(p, user)
	if err != nil {
		u := a.unmapped[p]
		if u == nil {
			u = &unmapped{err: err, uses: map[string]int{}}
			a.unmapped[p] = u
		}
		u.uses[use]++
	} else if to != p {
		a.renames[p] = Rename{From: p, To: to, How: how}
	}
	if a.sources[to] == nil {
		a.sources[to] = map[string]bool{}
	}
	a.sources[to][p] = true
	return to
}

// user maps a user name (no "User:").
func (a *applier) user(name, use string) string {
	return strings.TrimPrefix(a.principal("User:"+name, use, true), "User:")
}

func (a *applier) quotas(qs []snapshot.Quota) []snapshot.Quota {
	type entry struct {
		q    snapshot.Quota
		from []string
	}
	byEntity := map[string]*entry{}
	var order []string
	for _, q := range qs {
		e := slices.Clone(q.Entity)
		for i := range e {
			if e[i].Type == snapshot.EntityUser && !e[i].Default {
				e[i].Name = a.user(e[i].Name, "quota")
			}
		}
		key := e.String()
		if have, ok := byEntity[key]; ok {
			have.from = append(have.from, q.Entity.String())
			if !maps.Equal(have.q.Values, q.Values) {
				have.q.Values = nil // differing values: a collision
			}
			continue
		}
		byEntity[key] = &entry{q: snapshot.Quota{Entity: e, Values: q.Values}, from: []string{q.Entity.String()}}
		order = append(order, key)
	}
	out := make([]snapshot.Quota, 0, len(order))
	for _, key := range order {
		e := byEntity[key]
		if e.q.Values == nil && len(e.from) > 1 {
			a.collisions = append(a.collisions, Collision{Finding: snapshot.Finding{ID: catalogue.IDBlockPrincipalMapClash, Severity: snapshot.SeverityError,
				Resource: key,
				Message:  fmt.Sprintf("the principal map maps quota entities %s onto %s with different values; none is set", strings.Join(e.from, " and "), key),
				Fix:      "give the users distinct target names (zkmigrate.map pairs), or set the target's quota by hand"}})
			continue
		}
		out = append(out, e.q)
	}
	return out
}

func (a *applier) scram(us []snapshot.ScramUser) []snapshot.ScramUser {
	from := map[string][]string{}
	var order []string
	byName := map[string]snapshot.ScramUser{}
	for _, u := range us {
		to := a.user(u.Name, "SCRAM user")
		if _, ok := from[to]; !ok {
			order = append(order, to)
		}
		from[to] = append(from[to], u.Name)
		u.Name = to
		byName[to] = u
	}
	out := make([]snapshot.ScramUser, 0, len(order))
	for _, to := range order {
		if len(from[to]) > 1 {
			a.collisions = append(a.collisions, Collision{Scram: true, Finding: snapshot.Finding{ID: catalogue.IDBlockPrincipalMapClash, Severity: snapshot.SeverityError,
				Resource: "User:" + to,
				Message:  fmt.Sprintf("the principal map maps SCRAM users %s onto User:%s: one user cannot keep two passwords, so none is set", quoteUsers(from[to]), to),
				Fix:      "give the source users distinct target names (zkmigrate.map pairs), or set the target user's password by hand"}})
			continue
		}
		out = append(out, byName[to])
	}
	return out
}

func quoteUsers(us []string) string {
	q := make([]string, len(us))
	for i, u := range us {
		q[i] = "User:" + u
	}
	return strings.Join(q, " and ")
}

func (a *applier) result() Result {
	var res Result
	for _, p := range slices.Sorted(maps.Keys(a.renames)) {
		res.Renames = append(res.Renames, a.renames[p])
	}
	for _, p := range slices.Sorted(maps.Keys(a.unmapped)) {
		u := a.unmapped[p]
		var uses []string
		for _, k := range slices.Sorted(maps.Keys(u.uses)) {
			uses = append(uses, fmt.Sprintf("%d %s", u.uses[k], k))
		}
		res.Findings = append(res.Findings, snapshot.Finding{ID: catalogue.IDPrincipalMapUnmapped, Severity: snapshot.SeverityWarning,
			Resource: p,
			Message:  fmt.Sprintf("%v; carried unchanged (%s)", u.err, strings.Join(uses, ", ")),
			Fix:      "add a rule that covers it, or a zkmigrate.map pair in " + a.m.Path()})
	}
	for _, to := range slices.Sorted(maps.Keys(a.sources)) {
		srcs := a.sources[to]
		if len(srcs) < 2 {
			continue
		}
		names := slices.Sorted(maps.Keys(srcs))
		res.Findings = append(res.Findings, snapshot.Finding{ID: catalogue.IDPrincipalMapMerge, Severity: snapshot.SeverityWarning,
			Resource: to,
			Message:  fmt.Sprintf("%s all map to %s: their ACLs and quotas merge", strings.Join(names, ", "), to),
			Fix:      "nothing, if they are one client; else map them apart with zkmigrate.map pairs"})
	}
	sort.SliceStable(a.collisions, func(i, j int) bool { return a.collisions[i].Finding.Resource < a.collisions[j].Finding.Resource })
	res.Collisions = a.collisions
	return res
}
