package kread

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Scope names the entities a scoped read reads (Options.Scope), as the
// admin protocol and the snapshot spell them (not ZooKeeper's sanitized
// forms). A scoped read costs requests in proportion to the scope, not to
// the cluster: Metadata and DescribeConfigs for the named topics only, one
// DescribeClientQuotas and one DescribeACLs per named quota entity and ACL
// resource, one DescribeUserScramCredentials for the named users, the
// named brokers' configs, and the cluster-level facts a plan needs
// (brokers, racks, cluster id, controller, features: one request each).
// Its requests go out at once, the topics' DescribeConfigs as soon as
// Metadata has answered, a broker's own configs once the brokers are known.
// It holds no client-metrics subscriptions, group configs or delegation
// tokens (a scope cannot name them).
type Scope struct {
	Topics []string // topics, with their configs and reassignments in progress
	// Brokers are broker config entities: a broker id, or "" for the
	// cluster default. A broker the cluster does not list has none.
	Brokers []string
	// Quotas names quota entities by their first component in the order
	// user, client-id, ip: a user takes its own entity and its (user,
	// client-id) pairs; a client-id or an ip its entity alone.
	Quotas     []snapshot.EntityComponent
	ScramUsers []string      // users whose SCRAM credentials are read
	ACLs       []ACLResource // the ACLs bound to exactly these resource patterns
}

// ACLResource is one ACL resource pattern as the snapshot spells it:
// {"Topic", "LITERAL", "orders"}.
type ACLResource struct{ Type, Pattern, Name string }

// Restrict returns the part of s a scoped read of the same cluster holds:
// the scope's topics (with their pending deletion and reassignments),
// broker configs, quota entities, SCRAM users and ACLs, and what is not an
// entity (brokers, cluster id, controller, features, static configs,
// findings). Client-metrics subscriptions, group configs, delegation
// tokens, old consumer groups and legacy reassignments are left out. s is
// not changed; its order is kept.
func (sc Scope) Restrict(s *snapshot.Snapshot) *snapshot.Snapshot {
	m := sc.sets()
	out := *s
	out.Topics = keep(s.Topics, func(t snapshot.Topic) bool { return m.topics[t.Name] })
	out.PendingDeletes = keep(s.PendingDeletes, func(t string) bool { return m.topics[t] })
	out.Reassignments = keep(s.Reassignments, func(a snapshot.PartitionAssignment) bool { return m.topics[a.Topic] })
	out.BrokerConfigs = keep(s.BrokerConfigs, func(b snapshot.BrokerConfig) bool { return m.brokers[b.Broker] })
	out.Quotas = keep(s.Quotas, func(q snapshot.Quota) bool { return sc.HasQuota(q.Entity) })
	out.ScramUsers = keep(s.ScramUsers, func(u snapshot.ScramUser) bool { return m.scram[u.Name] })
	out.ACLs = keep(s.ACLs, func(a snapshot.ACL) bool { return m.acls[ACLResource{a.ResourceType, a.PatternType, a.ResourceName}] })
	out.ClientMetrics, out.GroupConfigs, out.DelegationTokens, out.ConsumerGroups, out.LegacyReassignments, out.PreferredElections = nil, nil, nil, nil, nil, nil
	return &out
}

// HasQuota reports whether the quota entity e (components in snapshot
// order) is the scope's: its first component is one of Quotas.
func (sc Scope) HasQuota(e snapshot.QuotaEntity) bool {
	if len(e) == 0 {
		return false
	}
	return slices.ContainsFunc(sc.Quotas, func(c snapshot.EntityComponent) bool { return sameComponent(c, e[0]) })
}

func sameComponent(a, b snapshot.EntityComponent) bool {
	return a.Type == b.Type && a.Default == b.Default && (a.Default || a.Name == b.Name)
}

type scopeSets struct {
	topics, brokers, scram map[string]bool
	acls                   map[ACLResource]bool
}

func (sc Scope) sets() scopeSets {
	set := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	acls := make(map[ACLResource]bool, len(sc.ACLs))
	for _, a := range sc.ACLs {
		acls[a] = true
	}
	return scopeSets{topics: set(sc.Topics), brokers: set(sc.Brokers), scram: set(sc.ScramUsers), acls: acls}
}

// keep returns the elements of xs that in reports, nil when none.
func keep[T any](xs []T, in func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if in(x) {
			out = append(out, x)
		}
	}
	return out
}

// uniq returns names sorted without repeats.
func uniq(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// scopedMetadata asks Metadata for the scope's topics (and the brokers). A
// topic the cluster does not have is absent; one the principal may not
// describe fails the read, since a plan would try to create it.
func (r *reader) scopedMetadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false // never create the topic asked about
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		if !r.keepTopic(t) {
			continue
		}
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, r.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return nil, r.wrap(err, "reading topics (Metadata)", "Topic:Describe")
	}
	kept := resp.Topics[:0]
	for _, mt := range resp.Topics {
		switch err := kerr.ErrorForCode(mt.ErrorCode); {
		case err == kerr.UnknownTopicOrPartition:
			continue // the target has no such topic
		case isAuth(err):
			return nil, r.wrap(err, "reading topic "+deref(mt.Topic)+" (Metadata)", "Topic:Describe")
		}
		kept = append(kept, mt)
	}
	resp.Topics = kept
	return resp, nil
}

// scopedACLs reads the ACLs of each named resource pattern, one
// DescribeACLs each. A resource type or pattern this package does not
// know cannot have ACLs in a snapshot, so it is not asked for.
func (r *reader) scopedACLs(ctx context.Context, res ACLResource) ([]snapshot.ACL, error) {
	rt, okT := lookupName(resourceTypeNames, res.Type)
	pt, okP := lookupName(patternNames, res.Pattern)
	if !okT || !okP {
		return nil, nil
	}
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType, req.ResourcePatternType, req.ResourceName = rt, pt, kmsg.StringPtr(res.Name)
	acls, err := r.describeACLs(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%w (ACLs of %s:%s:%s)", err, res.Type, res.Pattern, res.Name)
	}
	return acls, nil
}

func lookupName[K comparable](names map[K]string, name string) (K, bool) {
	for k, n := range names {
		if n == name {
			return k, true
		}
	}
	var zero K
	return zero, false
}

// scopedQuotas reads the quota entities whose first component is c.
func (r *reader) scopedQuotas(ctx context.Context, c snapshot.EntityComponent) ([]snapshot.Quota, error) {
	f := kmsg.NewDescribeClientQuotasRequestComponent()
	f.EntityType = c.Type
	if c.Default {
		f.MatchType = 1 // the default entity
	} else {
		f.MatchType, f.Match = 0, kmsg.StringPtr(c.Name) // exactly this name
	}
	qs, err := r.describeQuotas(ctx, []kmsg.DescribeClientQuotasRequestComponent{f})
	if err != nil {
		return nil, err
	}
	// Non-strict matches entities holding c anywhere: keep those it leads.
	return keep(qs, func(q snapshot.Quota) bool { return len(q.Entity) > 0 && sameComponent(q.Entity[0], c) }), nil
}

// scopedInFlight bounds the requests a scoped read has in flight: all of
// a change round's, which are small.
const scopedInFlight = 64

// scopedConfigs is what a scoped read's first phase found of configs.
type scopedConfigs struct {
	topics      topicConfigSet
	defaults    [][]snapshot.Config // the cluster default's (brokers "")
	defaultRead bool
}

// scopedEntities adds to g the requests of a scoped read's entities:
// Metadata for its topics and then their configs, the cluster default's
// broker configs, and its ACLs, quotas and SCRAM users.
func (r *reader) scopedEntities(g *errgroup.Group, ctx context.Context, s *snapshot.Snapshot, meta **kmsg.MetadataResponse) *scopedConfigs {
	sc := r.opts.Scope
	cfgs := &scopedConfigs{}
	g.Go(func() (err error) {
		if *meta, err = r.scopedMetadata(ctx, uniq(sc.Topics)); err != nil || r.opts.SkipConfigs {
			return err
		}
		r.describeTopicConfigs(g, ctx, r.topicNames(*meta), &cfgs.topics)
		return nil
	})
	if !r.opts.SkipConfigs && slices.Contains(sc.Brokers, "") {
		cfgs.defaults, cfgs.defaultRead = r.describeBrokerConfigs(g, ctx, []string{""}), true
	}
	var mu sync.Mutex
	add := func(f func()) { mu.Lock(); f(); mu.Unlock() }
	acls := slices.Clone(sc.ACLs)
	slices.SortFunc(acls, func(a, b ACLResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Name, b.Name))
	})
	for _, res := range slices.Compact(acls) {
		g.Go(func() error {
			got, err := r.scopedACLs(ctx, res)
			add(func() { s.ACLs = append(s.ACLs, got...) })
			return err
		})
	}
	quotas := slices.Clone(sc.Quotas)
	slices.SortFunc(quotas, func(a, b snapshot.EntityComponent) int {
		return cmp.Compare(snapshot.QuotaEntity{a}.String(), snapshot.QuotaEntity{b}.String())
	})
	for _, c := range slices.CompactFunc(quotas, sameComponent) {
		g.Go(func() error {
			got, err := r.scopedQuotas(ctx, c)
			add(func() { s.Quotas = append(s.Quotas, got...) })
			return err
		})
	}
	if users := uniq(sc.ScramUsers); len(users) > 0 {
		g.Go(func() (err error) {
			got, err := r.describeScram(ctx, users)
			add(func() { s.ScramUsers = got })
			return err
		})
	}
	return cfgs
}

// topicNames names the topics of a Metadata answer that the read keeps
// (r.topics makes them).
func (r *reader) topicNames(meta *kmsg.MetadataResponse) []string {
	var out []string
	for _, mt := range meta.Topics {
		if name := deref(mt.Topic); name != "" && r.keepTopic(name) && (mt.ErrorCode == 0 || len(mt.Partitions) > 0) {
			out = append(out, name)
		}
	}
	return out
}

// scopedConfigs ends a scoped read: the configs of the named brokers the
// cluster lists, then the topic and default configs the first phase read.
func (r *reader) scopedConfigs(ctx context.Context, s *snapshot.Snapshot, cfgs *scopedConfigs) error {
	brokers := slices.DeleteFunc(r.configBrokers(s), func(b string) bool { return b == "" })
	var own [][]snapshot.Config
	if len(brokers) > 0 {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(scopedInFlight)
		own = r.describeBrokerConfigs(g, gctx, brokers)
		if err := g.Wait(); err != nil {
			return err
		}
	}
	if err := r.setTopicConfigs(s, &cfgs.topics); err != nil {
		return err
	}
	if cfgs.defaultRead {
		r.setBrokerConfigs(s, []string{""}, cfgs.defaults)
	}
	r.setBrokerConfigs(s, brokers, own)
	return nil
}
