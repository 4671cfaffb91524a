// Package kread reads a live Kafka cluster through the admin protocol into
// the same snapshot model that zkread fills from ZooKeeper, so that a source
// and a target compare like for like.
//
// Only dynamic overrides count as configs: topic configs are the
// DYNAMIC_TOPIC_CONFIG entries, broker configs the DYNAMIC_BROKER_CONFIG
// entries of each broker and the DYNAMIC_DEFAULT_BROKER_CONFIG entries of the
// cluster default, so broker defaults never show up as topic configs.
// Sensitive values, which Kafka never returns, are held as secret references
// ("kafka:<topic>#<key>", "kafka:broker/<id>#<key>", "kafka:user/<name>#<mechanism>").
//
// A read that the principal is not allowed to make fails with the ACL it
// needs ("kread: reading ACLs needs Cluster:Describe for User:bob"): a
// partial snapshot would make a plan that recreates what it could not see.
package kread

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/errgroup"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Options tune a read.
type Options struct {
	// Topics, when set, keeps only the topics whose names match (their
	// configs and reassignments too).
	Topics *regexp.Regexp
	// SkipConfigs skips topic, broker, client-metrics and group configs.
	SkipConfigs bool
	// ConfigBatch is the number of topics per DescribeConfigs request
	// (default 1000).
	ConfigBatch int
	// Concurrency bounds the requests in flight (default 4).
	Concurrency int
	// Now returns the time recorded in ReadInfo; time.Now when nil.
	Now func() time.Time
	// Source reads the cluster as a migration source: delegation tokens
	// too, and findings naming what the protocol does not carry
	// (SourceFindings). Errors then name the cluster as the source.
	Source bool
	// Scope, when set, reads only the entities it names (and the
	// cluster-level facts): what Scope.Restrict keeps of a whole read.
	// Topics still applies.
	Scope *Scope
}

// role names the cluster in errors: "source" or "target".
func (o *Options) role() string {
	if o.Source {
		return "source"
	}
	return "target"
}

func (o *Options) defaults() {
	if o.ConfigBatch <= 0 {
		o.ConfigBatch = 1000
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// reader holds one read in progress.
type reader struct {
	// cl takes every request a read makes; in a read pinned to a broker
	// it is that broker. any takes the requests only one broker can
	// answer (a broker's own configs, partition reassignments), which the
	// client routes to that broker.
	cl        kmsg.Requestor
	any       kmsg.Requestor
	principal string
	addr      string // the bootstrap servers, for errors
	opts      Options

	mu       sync.Mutex
	findings []snapshot.Finding

	noAuthorizer atomic.Bool     // the no-authorizer finding was made
	scopeTopics  map[string]bool // a scoped read's topics; nil: all
}

func (r *reader) finding(f snapshot.Finding) {
	r.mu.Lock()
	r.findings = append(r.findings, f)
	r.mu.Unlock()
}

// Read reads the cluster behind conn into a sorted snapshot with Source
// "kafka". It returns an error when any part cannot be read; authorization
// failures name the ACL that is missing.
func Read(ctx context.Context, conn *kafkaconn.Conn, opts Options) (*snapshot.Snapshot, error) {
	s, err := read(ctx, conn, conn.Client, opts)
	// A request that got no answer names the cluster; a broker's own
	// answer (an error code) is clear without it.
	var ne net.Error
	noAnswer := errors.As(err, &ne) || kgo.IsRetryableBrokerErr(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kgo.ErrClientClosed)
	if addr := strings.Join(conn.Bootstrap, ","); noAnswer && !strings.Contains(err.Error(), addr) {
		err = fmt.Errorf("%w (%s %s)", err, opts.role(), addr)
	}
	return s, err
}

func read(ctx context.Context, conn *kafkaconn.Conn, via kmsg.Requestor, opts Options) (*snapshot.Snapshot, error) {
	opts.defaults()
	r := &reader{cl: via, any: conn.Client, principal: conn.Principal, opts: opts, addr: strings.Join(conn.Bootstrap, ",")}
	if r.principal == "" {
		r.principal = "User:ANONYMOUS"
	}
	if opts.Scope != nil {
		r.scopeTopics = opts.Scope.sets().topics
	}
	s := &snapshot.Snapshot{
		Format:  snapshot.FormatVersion,
		Source:  snapshot.SourceKafka,
		Address: strings.Join(conn.Bootstrap, ","),
		Read:    snapshot.ReadInfo{Started: opts.Now().UTC().Format(time.RFC3339)},
	}

	// Phase 1: everything that does not depend on another answer.
	var (
		cluster  *kmsg.DescribeClusterResponse
		meta     *kmsg.MetadataResponse
		features []snapshot.Feature
		reassign []snapshot.PartitionAssignment
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	var scoped *scopedConfigs
	if opts.Scope != nil {
		// A scoped read's requests are few and small: they all go out
		// at once, the scope's topic configs as soon as Metadata has
		// named the topics, the cluster default's configs at once.
		g.SetLimit(scopedInFlight)
		scoped = r.scopedEntities(g, gctx, s, &meta)
	}
	g.Go(func() (err error) { cluster = r.describeCluster(gctx); return nil })
	if opts.Scope != nil {
		g.Go(func() error { features = r.features(gctx); return nil })
	} else {
		g.Go(func() (err error) { meta, err = r.metadata(gctx); return err })
		g.Go(func() error { features = r.features(gctx); return nil })
		g.Go(func() (err error) { s.ACLs, err = r.acls(gctx); return err })
		g.Go(func() (err error) { s.Quotas, err = r.quotas(gctx); return err })
		g.Go(func() (err error) { s.ScramUsers, err = r.scramUsers(gctx); return err })
	}
	g.Go(func() (err error) { reassign, err = r.reassignments(gctx); return err })
	if opts.Source && opts.Scope == nil {
		g.Go(func() (err error) { s.DelegationTokens, err = r.delegationTokens(gctx); return err })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	s.Features = features

	// Controller is the id the cluster reports to clients (in KRaft a
	// broker it picks, since controllers are not reachable by clients);
	// the admin protocol does not expose a controller epoch, hence -1.
	if cluster != nil {
		s.ClusterID = cluster.ClusterID
		if cluster.ControllerID >= 0 {
			s.Controller = &snapshot.Controller{BrokerID: cluster.ControllerID, KRaftControllerEpoch: -1}
		}
		for _, b := range cluster.Brokers {
			s.Brokers = append(s.Brokers, snapshot.Broker{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: deref(b.Rack)})
		}
	} else {
		s.ClusterID = deref(meta.ClusterID)
		if meta.ControllerID >= 0 {
			s.Controller = &snapshot.Controller{BrokerID: meta.ControllerID, KRaftControllerEpoch: -1}
		}
		for _, b := range meta.Brokers {
			s.Brokers = append(s.Brokers, snapshot.Broker{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: deref(b.Rack)})
		}
	}
	s.Topics = r.topics(meta)
	s.Reassignments = r.keepAssignments(reassign)
	applyReassignments(s.Topics, s.Reassignments)

	// Phase 2: configs of the topics and brokers found (a scoped read:
	// only the brokers' own, which need the broker list).
	switch {
	case opts.SkipConfigs:
	case scoped != nil:
		if err := r.scopedConfigs(ctx, s, scoped); err != nil {
			return nil, err
		}
	default:
		if err := r.configs(ctx, s, r.configBrokers(s)); err != nil {
			return nil, err
		}
		if err := r.kraftKinds(ctx, s); err != nil {
			return nil, err
		}
	}

	s.Findings = r.findings
	if opts.Source {
		s.Findings = append(s.Findings, SourceFindings(s)...)
	}
	s.Read.Finished = opts.Now().UTC().Format(time.RFC3339)
	s.Sort()
	return s, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// describeCluster returns nil when the cluster cannot answer
// DescribeCluster; Metadata then supplies the same facts.
func (r *reader) describeCluster(ctx context.Context) *kmsg.DescribeClusterResponse {
	req := kmsg.NewPtrDescribeClusterRequest()
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil || resp.ErrorCode != 0 {
		return nil
	}
	return resp
}

func (r *reader) metadata(ctx context.Context) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest() // nil Topics: all topics
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return nil, r.wrap(err, "reading topics (Metadata)", "Topic:Describe")
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, r.wrap(err, "reading topics (Metadata)", "Topic:Describe")
	}
	return resp, nil
}

// features reads the finalized feature levels (metadata.version, ...) from
// ApiVersions; a cluster that does not report them has none.
func (r *reader) features(ctx context.Context) []snapshot.Feature {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "zkmigrate"
	req.ClientSoftwareVersion = "1"
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil || resp.ErrorCode != 0 {
		return nil
	}
	var out []snapshot.Feature
	for _, f := range resp.FinalizedFeatures {
		out = append(out, snapshot.Feature{Name: f.Name, MinLevel: f.MinVersionLevel, MaxLevel: f.MaxVersionLevel, Enabled: true})
	}
	return out
}

// keepTopic applies the Topics filter (and a scope's topics).
func (r *reader) keepTopic(name string) bool {
	if r.scopeTopics != nil && !r.scopeTopics[name] {
		return false
	}
	return r.opts.Topics == nil || r.opts.Topics.MatchString(name)
}

func (r *reader) topics(meta *kmsg.MetadataResponse) []snapshot.Topic {
	out := make([]snapshot.Topic, 0, len(meta.Topics))
	for _, mt := range meta.Topics {
		name := deref(mt.Topic)
		if name == "" || !r.keepTopic(name) {
			continue
		}
		if mt.ErrorCode != 0 && len(mt.Partitions) == 0 {
			r.finding(snapshot.Finding{
				ID: catalogue.IDKReadTopicError, Severity: snapshot.SeverityWarning, Resource: "topic " + name,
				Message: "Metadata reported " + kerr.ErrorForCode(mt.ErrorCode).Error() + " and no partitions; the topic is left out",
			})
			continue
		}
		t := snapshot.Topic{
			Name:       name,
			Internal:   mt.IsInternal || catalogue.IsInternalTopic(name),
			Partitions: make([]snapshot.Partition, 0, len(mt.Partitions)),
		}
		if mt.TopicID != [16]byte{} {
			t.ID = base64.RawURLEncoding.EncodeToString(mt.TopicID[:])
		}
		for _, p := range mt.Partitions {
			reps := p.Replicas
			if reps == nil {
				reps = []int32{}
			}
			t.Partitions = append(t.Partitions, snapshot.Partition{ID: p.Partition, Replicas: reps})
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b snapshot.Topic) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (r *reader) reassignments(ctx context.Context) ([]snapshot.PartitionAssignment, error) {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = 30000
	req.Topics = nil                         // all reassignments in progress
	resp, err := req.RequestWith(ctx, r.any) // the controller's own state
	if err == nil {
		if err = kerr.ErrorForCode(resp.ErrorCode); err != nil && !isAuth(err) {
			return nil, fmt.Errorf("kread: listing partition reassignments: %s", codeMsg(err, resp.ErrorMessage))
		}
	}
	if err != nil {
		return nil, r.wrap(err, "listing partition reassignments", "Cluster:Describe")
	}
	var out []snapshot.PartitionAssignment
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, snapshot.PartitionAssignment{
				Topic: t.Topic, Partition: p.Partition, Replicas: p.Replicas,
				Adding: p.AddingReplicas, Removing: p.RemovingReplicas,
			})
		}
	}
	return out, nil
}

func (r *reader) keepAssignments(as []snapshot.PartitionAssignment) []snapshot.PartitionAssignment {
	out := as[:0]
	for _, a := range as {
		if r.keepTopic(a.Topic) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// applyReassignments copies Adding/Removing onto the partitions (topics is
// sorted by name).
func applyReassignments(topics []snapshot.Topic, as []snapshot.PartitionAssignment) {
	for _, a := range as {
		i, ok := slices.BinarySearchFunc(topics, a.Topic, func(t snapshot.Topic, n string) int { return strings.Compare(t.Name, n) })
		if !ok {
			continue
		}
		for j := range topics[i].Partitions {
			p := &topics[i].Partitions[j]
			if p.ID == a.Partition {
				p.Adding, p.Removing = a.Adding, a.Removing
			}
		}
	}
}

// wrap turns an error into one line; authorization failures name the ACL.
func (r *reader) wrap(err error, what, acl string) error {
	if isAuth(err) {
		return fmt.Errorf("kread: %s needs %s for %s", what, acl, r.principal)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("kread: %s: %w", what, err)
	}
	var ke *kerr.Error
	if !errors.As(err, &ke) && r.addr != "" {
		// The request got no answer: name the cluster.
		return fmt.Errorf("kread: %s: %v (%s %s)", what, err, r.opts.role(), r.addr)
	}
	return fmt.Errorf("kread: %s: %v", what, err)
}

func isAuth(err error) bool {
	return errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.TopicAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed) || errors.Is(err, kerr.DelegationTokenAuthorizationFailed)
}

// brokerName is the BrokerConfig.Broker for an id.
func brokerName(id int32) string { return strconv.Itoa(int(id)) }
