package syncer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// Scope is the set of source entities one round re-reads and plans for.
// Names are as ZooKeeper spells them (sanitized entity names).
type Scope struct {
	Topics  map[string]bool // topic names (assignment, configs, pending deletion)
	Brokers map[string]bool // /config/brokers children: an id or <default>
	Users   map[string]bool // /config/users children: quotas, their clients' quotas, SCRAM
	Clients map[string]bool // /config/clients children
	IPs     map[string]bool // /config/ips children
	ACLs    map[aclResource]bool
}

type aclResource struct{ Type, Pattern, Name string }

// NewScope gathers entities into a scope.
func NewScope(entities []zkfeed.Entity) Scope {
	s := Scope{Topics: map[string]bool{}, Brokers: map[string]bool{}, Users: map[string]bool{}, Clients: map[string]bool{}, IPs: map[string]bool{}, ACLs: map[aclResource]bool{}}
	for _, e := range entities {
		s.Add(e)
	}
	return s
}

// Add puts one entity in the scope.
func (s Scope) Add(e zkfeed.Entity) {
	switch e.Kind {
	case zkfeed.Topic, zkfeed.Deletion:
		s.Topics[e.Name] = true
	case zkfeed.Config:
		typ, rest, _ := strings.Cut(e.Name, "/")
		name, _, _ := strings.Cut(rest, "/") // users/<u>/clients/<c>: all of <u> is read again
		switch typ {
		case "topics":
			s.Topics[name] = true
		case "brokers":
			s.Brokers[name] = true
		case "users":
			s.Users[name] = true
		case "clients":
			s.Clients[name] = true
		case "ips":
			s.IPs[name] = true
		}
	case zkfeed.ACL:
		parts := strings.SplitN(e.Name, ":", 3)
		if len(parts) == 3 {
			s.ACLs[aclResource{parts[0], parts[1], parts[2]}] = true
		}
	}
}

// Empty reports whether the scope names nothing.
func (s Scope) Empty() bool {
	return len(s.Topics)+len(s.Brokers)+len(s.Users)+len(s.Clients)+len(s.IPs)+len(s.ACLs) == 0
}

// Size is how many entities the scope names.
func (s Scope) Size() int {
	return len(s.Topics) + len(s.Brokers) + len(s.Users) + len(s.Clients) + len(s.IPs) + len(s.ACLs)
}

// scopedSource lets zkread read only the scope's entities: it names the
// scope's children of the directories that enumerate entities (so they
// are read without listing those directories, whose listings hold every
// entity of the cluster) and passes everything else through (the brokers,
// the cluster id, the features), so zkread.Read over it returns a
// snapshot holding exactly the scope's entities as they are now: a name
// ZooKeeper lacks reads as absent.
type scopedSource struct {
	zkread.Source
	scope Scope
}

// aclRoots are where ACLs live, by pattern type.
var aclRoots = []struct{ dir, pattern string }{{"/kafka-acl", zkread.PatternLiteral}, {"/kafka-acl-extended/prefixed", zkread.PatternPrefixed}}

// Wanted names the scope's children of dir when dir enumerates entities.
func (s scopedSource) Wanted(dir string) ([]string, bool) {
	names := func(m map[string]bool) ([]string, bool) { return slices.Sorted(maps.Keys(m)), true }
	switch dir {
	case "/brokers/topics", "/config/topics", "/admin/delete_topics":
		return names(s.scope.Topics)
	case "/config/brokers":
		return names(s.scope.Brokers)
	case "/config/users":
		return names(s.scope.Users)
	case "/config/clients":
		return names(s.scope.Clients)
	case "/config/ips":
		return names(s.scope.IPs)
	case "/delegation_token/tokens", "/consumers":
		return nil, true
	}
	for _, root := range aclRoots {
		if dir == root.dir {
			// the resource types' directories, either spelling
			types := map[string]bool{}
			for a := range s.scope.ACLs {
				if a.Pattern == root.pattern {
					for _, t := range zkread.ResourceTypeSpellings(a.Type) {
						types[t] = true
					}
				}
			}
			return names(types)
		}
		if typ, ok := strings.CutPrefix(dir, root.dir+"/"); ok && !strings.Contains(typ, "/") {
			rt, _ := zkread.CanonicalResourceType(typ)
			in := map[string]bool{}
			for a := range s.scope.ACLs {
				if a.Type == rt && a.Pattern == root.pattern {
					in[a.Name] = true
				}
			}
			return names(in)
		}
	}
	return nil, false
}

// LastZxid passes the source's, when it has one, so the scoped read
// records the zxid it reflects.
func (s scopedSource) LastZxid() int64 {
	if z, ok := s.Source.(zkread.ZxidSource); ok {
		return z.LastZxid()
	}
	return 0
}

// InFlight passes the source's hint.
func (s scopedSource) InFlight() int {
	if h, ok := s.Source.(zkread.InFlightHint); ok {
		return h.InFlight()
	}
	return 0
}

var (
	_ zkread.ZxidSource   = scopedSource{}
	_ zkread.InFlightHint = scopedSource{}
	_ zkread.WantedSource = scopedSource{}
)

// decoded is the scope with entity names decoded as the snapshot holds them.
type decoded struct {
	topics, brokers, users, clients, ips map[string]bool
	acls                                 map[aclResource]bool
	// onTarget are the target broker config entities of brokers, mapped
	// through a broker-id map (nil: the same names).
	onTarget map[string]bool
	// onUsers and onACLs are the target's users and ACL resources of
	// users and acls, renamed by a principal map (nil: the same names).
	onUsers map[string]bool
	onACLs  map[aclResource]bool
}

// Principals renames users and User principals as a principal map
// (--principal-map) does when it maps the source: a change round reads,
// covers and holds the target's entities by the names they have there.
type Principals interface {
	// TargetUser is a source SCRAM or quota user's name on the target.
	TargetUser(name string) string
	// TargetPrincipal is a source ACL principal (the name of a literal ACL
	// on a User resource) on the target.
	TargetPrincipal(p string) string
}

// naming is how a scope's source names become the target's: a broker-id
// map's broker ids and a principal map's users and User principals.
type naming struct {
	brokers    map[int32]int32
	principals Principals
}

// target returns d with the target entities its source entities' changes
// go to.
func (d decoded) target(n naming) decoded {
	d = d.mapBrokers(n.brokers)
	d.onUsers, d.onACLs = nil, nil
	if n.principals == nil {
		return d
	}
	d.onUsers = make(map[string]bool, len(d.users))
	for u := range d.users {
		d.onUsers[targetUser(n.principals, u)] = true
	}
	d.onACLs = make(map[aclResource]bool, len(d.acls))
	for a := range d.acls {
		d.onACLs[a.target(n.principals)] = true
	}
	return d
}

// targetUser is a decoded user's name on the target (<default> is not
// renamed).
func targetUser(p Principals, u string) string {
	if u == defaultMark {
		return u
	}
	return p.TargetUser(u)
}

// target is the ACL resource a on the target: the name of a literal ACL
// on a User resource is a principal, which a principal map renames.
func (a aclResource) target(p Principals) aclResource {
	if a.Type == "User" && a.Pattern == zkread.PatternLiteral {
		a.Name = p.TargetPrincipal(a.Name)
	}
	return a
}

// merged returns d with every other source user and User ACL resource of
// model that the principal map sends to one of d's target users or ACL
// resources: the map merges them there (or finds their collision), so a
// round plans them together, as a whole plan does. Without a principal
// map it is d.
func (d decoded) merged(n naming, model *snapshot.Snapshot) decoded {
	if n.principals == nil || model == nil {
		return d
	}
	users := maps.Clone(d.users)
	addUser := func(u string) {
		if !users[u] && d.onUsers[targetUser(n.principals, u)] {
			users[u] = true
		}
	}
	for _, q := range model.Quotas {
		if len(q.Entity) > 0 && q.Entity[0].Type == snapshot.EntityUser && !q.Entity[0].Default {
			addUser(q.Entity[0].Name)
		}
	}
	for _, u := range model.ScramUsers {
		addUser(u.Name)
	}
	acls := maps.Clone(d.acls)
	for _, a := range model.ACLs {
		if a.ResourceType != "User" || a.PatternType != zkread.PatternLiteral {
			continue
		}
		r := aclResource{a.ResourceType, a.PatternType, a.ResourceName}
		if !acls[r] && d.onACLs[r.target(n.principals)] {
			acls[r] = true
		}
	}
	d.users, d.acls = users, acls
	return d
}

// targetUsers are the target's users the scope's changes touch.
func (d decoded) targetUsers() map[string]bool {
	if d.onUsers != nil {
		return d.onUsers
	}
	return d.users
}

// targetACLs are the target's ACL resources the scope's changes touch.
func (d decoded) targetACLs() map[aclResource]bool {
	if d.onACLs != nil {
		return d.onACLs
	}
	return d.acls
}

// mapBrokers returns d with the target broker config entities its source
// brokers' configs go to under a broker-id map (as plan maps them: a
// numeric id through the map, "" the cluster default as is; an id the map
// lacks goes nowhere).
func (d decoded) mapBrokers(m map[int32]int32) decoded {
	if len(m) == 0 {
		d.onTarget = nil
		return d
	}
	d.onTarget = map[string]bool{}
	for n := range d.brokers {
		if n == "" {
			d.onTarget[""] = true
			continue
		}
		if id, err := strconv.ParseInt(n, 10, 32); err == nil {
			if to, ok := m[int32(id)]; ok {
				d.onTarget[strconv.Itoa(int(to))] = true
			}
		}
	}
	return d
}

// targetBrokers are the target broker config entities the scope's changes
// touch.
func (d decoded) targetBrokers() map[string]bool {
	if d.onTarget != nil {
		return d.onTarget
	}
	return d.brokers
}

// reads are the kread scopes of the scope's part of the source (broker
// configs by source broker, users and User ACL resources by their source
// names) and of the target (by the brokers, users and resources they go
// to).
func (d decoded) reads() (source, target kread.Scope) {
	scope := func(brokers, users map[string]bool, acls map[aclResource]bool) kread.Scope {
		var sc kread.Scope
		sc.Topics = slices.Sorted(maps.Keys(d.topics))
		sc.Brokers = slices.Sorted(maps.Keys(brokers))
		quota := func(typ string, names map[string]bool) {
			for _, n := range slices.Sorted(maps.Keys(names)) {
				if n == defaultMark {
					sc.Quotas = append(sc.Quotas, snapshot.EntityComponent{Type: typ, Default: true})
				} else {
					sc.Quotas = append(sc.Quotas, snapshot.EntityComponent{Type: typ, Name: n})
				}
			}
		}
		quota(snapshot.EntityUser, users)
		quota(snapshot.EntityClientID, d.clients)
		quota(snapshot.EntityIP, d.ips)
		for _, n := range slices.Sorted(maps.Keys(users)) {
			if n != defaultMark {
				sc.ScramUsers = append(sc.ScramUsers, n)
			}
		}
		for a := range acls {
			sc.ACLs = append(sc.ACLs, kread.ACLResource{Type: a.Type, Pattern: a.Pattern, Name: a.Name})
		}
		slices.SortFunc(sc.ACLs, func(a, b kread.ACLResource) int {
			return strings.Compare(a.Type+":"+a.Pattern+":"+a.Name, b.Type+":"+b.Pattern+":"+b.Name)
		})
		return sc
	}
	return scope(d.brokers, d.users, d.acls), scope(d.targetBrokers(), d.targetUsers(), d.targetACLs())
}

func (s Scope) decode() decoded {
	dec := func(m map[string]bool, defaultAs string) map[string]bool {
		out := map[string]bool{}
		for n := range m {
			switch {
			case n == zkread.DefaultEntity:
				out[defaultAs] = true
			default:
				if d, err := zkread.Desanitize(n); err == nil {
					out[d] = true
				}
				out[n] = true
			}
		}
		return out
	}
	topics := map[string]bool{}
	for n := range s.Topics {
		topics[n] = true
	}
	return decoded{topics: topics, brokers: dec(s.Brokers, ""), users: dec(s.Users, defaultMark), clients: dec(s.Clients, defaultMark), ips: dec(s.IPs, defaultMark), acls: s.ACLs}
}

// add puts o's entities in d.
func (d *decoded) add(o decoded) {
	into := func(m *map[string]bool, from map[string]bool) {
		if len(from) == 0 {
			return
		}
		if *m == nil {
			*m = map[string]bool{}
		}
		for k := range from {
			(*m)[k] = true
		}
	}
	into(&d.topics, o.topics)
	into(&d.brokers, o.brokers)
	into(&d.users, o.users)
	into(&d.clients, o.clients)
	into(&d.ips, o.ips)
	into(&d.onTarget, o.onTarget)
	into(&d.onUsers, o.onUsers)
	intoACLs := func(m *map[aclResource]bool, from map[aclResource]bool) {
		if len(from) > 0 && *m == nil {
			*m = map[aclResource]bool{}
		}
		for a := range from {
			(*m)[a] = true
		}
	}
	intoACLs(&d.acls, o.acls)
	intoACLs(&d.onACLs, o.onACLs)
}

// remove takes o's entities out of d.
func (d *decoded) remove(o decoded) {
	for _, p := range [][2]map[string]bool{{d.topics, o.topics}, {d.brokers, o.brokers}, {d.users, o.users}, {d.clients, o.clients}, {d.ips, o.ips}, {d.onTarget, o.targetBrokers()}, {d.onUsers, o.targetUsers()}} {
		for k := range p[1] {
			delete(p[0], k)
		}
	}
	for a := range o.acls {
		delete(d.acls, a)
	}
	for a := range o.targetACLs() {
		delete(d.onACLs, a)
	}
}

// defaultMark stands for a <default> quota entity component in decoded names.
const defaultMark = "\x00default"

func componentName(c snapshot.EntityComponent) string {
	if c.Default {
		return defaultMark
	}
	return c.Name
}

// inQuota reports whether a source quota entity belongs to the scope: a
// user entity (alone or with a client) by its user, a client or IP entity
// alone by its name.
func (d decoded) inQuota(e snapshot.QuotaEntity) bool {
	return d.quotaIn(d.users, e)
}

// inTargetQuota is inQuota for a quota entity of the target.
func (d decoded) inTargetQuota(e snapshot.QuotaEntity) bool {
	return d.quotaIn(d.targetUsers(), e)
}

func (d decoded) quotaIn(users map[string]bool, e snapshot.QuotaEntity) bool {
	if len(e) == 0 {
		return false
	}
	switch e[0].Type {
	case snapshot.EntityUser:
		return users[componentName(e[0])]
	case snapshot.EntityClientID:
		return d.clients[componentName(e[0])]
	case snapshot.EntityIP:
		return d.ips[componentName(e[0])]
	}
	return false
}

// Patch returns full with the scope's entities replaced by those of part,
// a scoped read of the same source: entities part lacks are gone now. Both
// are in snapshot.Sort's order, and so is the result: part's entities are
// merged in, so a patch costs a copy of full's lists, not a sort of them.
func Patch(full *snapshot.Snapshot, scope Scope, part *snapshot.Snapshot) *snapshot.Snapshot {
	d := scope.decode()
	out := *full
	out.Topics = patchRuns(full.Topics, part.Topics, slices.Sorted(maps.Keys(d.topics)),
		func(t snapshot.Topic, name string) int { return strings.Compare(t.Name, name) },
		func(a, b snapshot.Topic) int { return strings.Compare(a.Name, b.Name) })
	out.PendingDeletes = patchRuns(full.PendingDeletes, part.PendingDeletes, slices.Sorted(maps.Keys(d.topics)), strings.Compare, strings.Compare)
	// A quota entity's user and its user's client entities need not be
	// next to each other in the order: these are looked at one by one.
	if len(d.users)+len(d.clients)+len(d.ips) > 0 {
		out.Quotas = merge(full.Quotas, part.Quotas, func(q snapshot.Quota) bool { return d.inQuota(q.Entity) },
			func(a, b snapshot.Quota) int { return strings.Compare(a.Entity.String(), b.Entity.String()) })
	}
	out.ScramUsers = patchRuns(full.ScramUsers, part.ScramUsers, slices.Sorted(maps.Keys(d.users)),
		func(u snapshot.ScramUser, name string) int { return strings.Compare(u.Name, name) },
		func(a, b snapshot.ScramUser) int { return strings.Compare(a.Name, b.Name) })
	// ACLs field by field, as snapshot.Sort orders them; equal bindings
	// are one, as Sort leaves them.
	resources := slices.SortedFunc(maps.Keys(d.acls), func(a, b aclResource) int {
		return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Pattern, b.Pattern), strings.Compare(a.Name, b.Name))
	})
	out.ACLs = slices.Compact(patchRuns(full.ACLs, part.ACLs, resources, func(a snapshot.ACL, r aclResource) int {
		return snapshot.CompareACLResource(a, r.Type, r.Pattern, r.Name)
	}, snapshot.CompareACLs))
	// A few broker config entities: sorted as Sort sorts them.
	brokers := snapshot.Snapshot{BrokerConfigs: append(slices.DeleteFunc(slices.Clone(full.BrokerConfigs), func(b snapshot.BrokerConfig) bool { return d.brokers[b.Broker] }), part.BrokerConfigs...)}
	brokers.Sort()
	out.BrokerConfigs = brokers.BrokerConfigs
	out.Brokers = part.Brokers
	out.Read = part.Read
	// Findings of the scoped read join the full read's (a finding about an
	// entity fixed since stays until the next full read).
	findings := snapshot.Snapshot{Findings: slices.Clone(full.Findings)}
	for _, f := range part.Findings {
		if !slices.ContainsFunc(findings.Findings, func(g snapshot.Finding) bool { return g.ID == f.ID && g.Resource == f.Resource }) {
			findings.Findings = append(findings.Findings, f)
		}
	}
	if len(findings.Findings) > len(full.Findings) {
		findings.Sort()
	}
	out.Findings = findings.Findings
	return &out
}

// patchRuns returns a new list: kept without the elements of keys, with
// add merged in. kept and add are sorted by order, whose leading fields
// are an element's key (so a key's elements are next to each other), and
// keys are sorted as those fields are; so is the result. It finds each
// key's elements and each added element by binary search and copies what
// lies between: a patch of a few entities costs a copy of kept, not a
// look at each of its elements.
func patchRuns[T, K any](kept, add []T, keys []K, key func(T, K) int, order func(a, b T) int) []T {
	var runs [][]T // kept without the keys' elements
	rest := kept
	for _, k := range keys {
		i, found := slices.BinarySearchFunc(rest, k, key)
		if !found {
			continue
		}
		j := i
		for j < len(rest) && key(rest[j], k) == 0 {
			j++
		}
		runs = append(runs, rest[:i])
		rest = rest[j:]
	}
	if len(runs) == 0 && len(add) == 0 {
		return kept // untouched: shared, as Patch shares the lists it does not patch
	}
	runs = append(runs, rest)
	out := make([]T, 0, len(kept)+len(add))
	for _, r := range runs {
		for len(add) > 0 {
			i, _ := slices.BinarySearchFunc(r, add[0], order)
			if i == len(r) {
				break // after this run
			}
			out = append(append(out, r[:i]...), add[0])
			add, r = add[1:], r[i:]
		}
		out = append(out, r...)
	}
	out = append(out, add...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// merge returns a new list: kept's elements that are not replaced, with
// add's merged in; both are sorted by order, and so is the result. It
// copies kept once and compares only to find where add's elements go.
func merge[T any](kept, add []T, replaced func(T) bool, order func(a, b T) int) []T {
	out := make([]T, 0, len(kept)+len(add))
	keep := func(xs []T) {
		for _, x := range xs {
			if !replaced(x) {
				out = append(out, x)
			}
		}
	}
	rest := kept
	for _, a := range add {
		i, _ := slices.BinarySearchFunc(rest, a, order)
		keep(rest[:i])
		out = append(out, a)
		rest = rest[i:]
	}
	keep(rest)
	if len(out) == 0 {
		return nil
	}
	return out
}

// scoped says, for every resource type a change can touch
// (plan.ResourceTypes), whether a scope can hold it: the ZooKeeper
// entities a notification names (true), or nothing, as for the resources
// only a KRaft source read through its brokers has, which only full
// rounds plan (false). A new resource type must be added here, and to
// NewScope, decode, covers and entityOf where scoped, before sync runs.
var scoped = map[string]bool{
	"topic": true, "broker": true, "quota": true, "acl": true, "user": true,
	"client-metrics": false, "group": false,
}

// UnknownResourceError is a resource type a change can touch that the
// scope does not know: sync would silently leave its changes out of every
// change round, so it does not start.
type UnknownResourceError struct{ Type string }

func (e *UnknownResourceError) Error() string {
	return fmt.Sprintf("syncer: changes can touch resource type %q, which sync does not know how to scope", e.Type)
}

// checkResources returns an *UnknownResourceError for the first of types
// the scope does not know.
func checkResources(types []string) error {
	for _, t := range types {
		if _, ok := scoped[t]; !ok {
			return &UnknownResourceError{Type: t}
		}
	}
	return nil
}

// decodedOf is the scope a change's resource is in, by its names on the
// target (which a broker-id or principal map may have given it).
func decodedOf(c plan.Change) decoded {
	d := decoded{topics: map[string]bool{}, brokers: map[string]bool{}, users: map[string]bool{}, clients: map[string]bool{}, ips: map[string]bool{}, acls: map[aclResource]bool{}}
	r := c.Resource
	switch r.Type {
	case "topic":
		d.topics[r.Name] = true
	case "broker":
		d.brokers[r.Name] = true
	case "user":
		d.users[r.Name] = true
	case "quota":
		if len(r.Entity) > 0 {
			n := componentName(r.Entity[0])
			switch r.Entity[0].Type {
			case "user":
				d.users[n] = true
			case "client-id":
				d.clients[n] = true
			case "ip":
				d.ips[n] = true
			}
		}
	case "acl":
		if r.ACL != nil {
			d.acls[aclResource{r.ACL.ResourceType, r.ACL.PatternType, r.ACL.ResourceName}] = true
		}
	}
	return d
}

// covers reports whether a change touches an entity in the scope.
func (d decoded) covers(c plan.Change) bool {
	r := c.Resource
	switch r.Type {
	case "topic":
		return d.topics[r.Name]
	case "broker":
		return d.targetBrokers()[r.Name]
	case "quota":
		return d.inTargetQuota(r.Entity)
	case "acl":
		return r.ACL != nil && d.targetACLs()[aclResource{r.ACL.ResourceType, r.ACL.PatternType, r.ACL.ResourceName}]
	case "user":
		return d.targetUsers()[r.Name]
	}
	return false
}

// Entities lists the scope's entities, sorted, as the feed names them.
func (s Scope) Entities() []zkfeed.Entity {
	var out []zkfeed.Entity
	add := func(k zkfeed.Kind, prefix string, m map[string]bool) {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			out = append(out, zkfeed.Entity{Kind: k, Name: prefix + n})
		}
	}
	add(zkfeed.Topic, "", s.Topics)
	add(zkfeed.Config, "brokers/", s.Brokers)
	add(zkfeed.Config, "users/", s.Users)
	add(zkfeed.Config, "clients/", s.Clients)
	add(zkfeed.Config, "ips/", s.IPs)
	acls := slices.SortedFunc(maps.Keys(s.ACLs), func(a, b aclResource) int {
		return strings.Compare(a.Type+":"+a.Pattern+":"+a.Name, b.Type+":"+b.Pattern+":"+b.Name)
	})
	for _, a := range acls {
		out = append(out, zkfeed.Entity{Kind: zkfeed.ACL, Name: a.Type + ":" + a.Pattern + ":" + a.Name})
	}
	return out
}

// entitiesOf are the source entities whose notifications a change
// answers, as the feed names them (ZooKeeper's sanitized names), so that a
// retry can re-read them; false for a change no entity names. A target
// broker's configs come from the source broker the broker-id map sends
// there; with a principal map, a target user's quotas and credentials (a
// literal ACL on a User resource) from every source user (resource) of
// model the map renames so.
func entitiesOf(c plan.Change, n naming, model *snapshot.Snapshot) ([]zkfeed.Entity, bool) {
	e, ok := entityOf(c, n.brokers)
	if !ok || n.principals == nil {
		return []zkfeed.Entity{e}, ok
	}
	r := c.Resource
	var user string
	switch {
	case r.Type == "user":
		user = r.Name
	case r.Type == "quota" && len(r.Entity) > 0 && r.Entity[0].Type == snapshot.EntityUser && !r.Entity[0].Default:
		user = r.Entity[0].Name
	case r.Type == "acl" && r.ACL != nil && r.ACL.ResourceType == "User" && r.ACL.PatternType == zkread.PatternLiteral:
		var out []zkfeed.Entity
		seen := map[string]bool{}
		if model != nil {
			for _, a := range model.ACLs {
				res := aclResource{a.ResourceType, a.PatternType, a.ResourceName}
				if res.Type == "User" && res.Pattern == zkread.PatternLiteral && !seen[res.Name] && res.target(n.principals).Name == r.ACL.ResourceName {
					seen[res.Name] = true
					out = append(out, zkfeed.Entity{Kind: zkfeed.ACL, Name: res.Type + ":" + res.Pattern + ":" + res.Name})
				}
			}
		}
		return out, len(out) > 0
	default:
		return []zkfeed.Entity{e}, true
	}
	var out []zkfeed.Entity
	seen := map[string]bool{}
	add := func(u string) {
		if !seen[u] && n.principals.TargetUser(u) == user {
			seen[u] = true
			out = append(out, zkfeed.Entity{Kind: zkfeed.Config, Name: "users/" + zkread.Sanitize(u)})
		}
	}
	if model != nil {
		for _, q := range model.Quotas {
			if len(q.Entity) > 0 && q.Entity[0].Type == snapshot.EntityUser && !q.Entity[0].Default {
				add(q.Entity[0].Name)
			}
		}
		for _, u := range model.ScramUsers {
			add(u.Name)
		}
	}
	return out, len(out) > 0
}

// entityOf is the source entity whose notification a change answers, as
// the feed names it (ZooKeeper's sanitized names), so that a retry can
// re-read it; false for a change no entity names. A target broker's
// configs come from the source broker the broker-id map sends there.
func entityOf(c plan.Change, brokers map[int32]int32) (zkfeed.Entity, bool) {
	r := c.Resource
	config := func(typ, name string) (zkfeed.Entity, bool) {
		return zkfeed.Entity{Kind: zkfeed.Config, Name: typ + "/" + name}, true
	}
	switch r.Type {
	case "topic":
		return zkfeed.Entity{Kind: zkfeed.Topic, Name: r.Name}, true
	case "user":
		return config("users", zkread.Sanitize(r.Name))
	case "quota":
		if len(r.Entity) == 0 {
			return zkfeed.Entity{}, false
		}
		e := r.Entity[0]
		name := zkread.DefaultEntity
		if !e.Default {
			name = zkread.Sanitize(e.Name)
		}
		switch e.Type {
		case snapshot.EntityUser:
			return config("users", name)
		case snapshot.EntityClientID:
			return config("clients", name)
		case snapshot.EntityIP:
			if !e.Default {
				name = e.Name
			}
			return config("ips", name)
		}
	case "acl":
		if r.ACL != nil {
			return zkfeed.Entity{Kind: zkfeed.ACL, Name: r.ACL.ResourceType + ":" + r.ACL.PatternType + ":" + r.ACL.ResourceName}, true
		}
	case "broker":
		if r.Name == "" {
			return config("brokers", zkread.DefaultEntity)
		}
		if len(brokers) == 0 {
			return config("brokers", r.Name)
		}
		for from, to := range brokers {
			if strconv.Itoa(int(to)) == r.Name {
				return config("brokers", strconv.Itoa(int(from)))
			}
		}
	}
	return zkfeed.Entity{}, false
}
