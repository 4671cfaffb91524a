package apply_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// cluster is a 3-broker kfake cluster (with opts besides) and clients of it.
func cluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, *kgo.Client, *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl, kadm.NewClient(cl)
}

func source() *snapshot.Snapshot {
	parts := func(n int) []snapshot.Partition {
		var ps []snapshot.Partition
		for i := 0; i < n; i++ {
			ps = append(ps, snapshot.Partition{ID: int32(i), Replicas: []int32{int32(i % 3), int32((i + 1) % 3)}})
		}
		return ps
	}
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper,
		Topics: []snapshot.Topic{
			{Name: "a", Partitions: parts(3), Configs: []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}},
			{Name: "b", Partitions: parts(2)},
			{Name: "c", Partitions: parts(1), Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "compact"}}},
		},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "", Configs: []snapshot.Config{{Key: "log.retention.ms", Value: "7200000"}}}},
		Quotas: []snapshot.Quota{
			{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Default: true}, {Type: "client-id", Name: "app"}}, Values: map[string]float64{"consumer_byte_rate": 2048}},
		},
		ACLs: []snapshot.ACL{
			{ResourceType: "Topic", ResourceName: "a", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "pre-", PatternType: "PREFIXED", Principal: "User:bob", Host: "10.0.0.1", Operation: "Write", Permission: "Deny"},
			{ResourceType: "Group", ResourceName: "g", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
		},
		ScramUsers: []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}},
	}
	s.Sort()
	return s
}

func emptyTarget() *snapshot.Snapshot {
	return &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, Brokers: []snapshot.Broker{{ID: 0}, {ID: 1}, {ID: 2}}}
}

func build(t *testing.T, target *snapshot.Snapshot) *plan.Plan {
	t.Helper()
	p, err := plan.Build(plan.Input{Source: source(), Target: target, Credentials: []plan.Credential{
		{User: "alice", Mechanism: "SCRAM-SHA-256", Iterations: 4096, Password: secret.New("scram-credentials:alice/SCRAM-SHA-256", "alice-pw")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// events records every event.
type events struct {
	mu sync.Mutex
	es []apply.Event
}

func (e *events) Observe(ev apply.Event) {
	e.mu.Lock()
	e.es = append(e.es, ev)
	e.mu.Unlock()
}

func (e *events) results() map[string]apply.ResourceResult {
	out := map[string]apply.ResourceResult{}
	for _, ev := range e.es {
		if r, ok := ev.(apply.ResourceResult); ok && !r.ValidateOnly || ok && r.Err != nil {
			out[r.Change.ID] = r
		}
	}
	return out
}

func TestApplyEveryKindToKfake(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	p := build(t, emptyTarget())
	var ev events
	res, err := apply.Run(ctx, cl, p, emptyTarget(), apply.Options{BatchSize: 2}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || res.Succeeded != len(p.Changes) {
		t.Fatalf("result %+v for %d changes: %v", res, len(p.Changes), res.Failures)
	}
	if _, ok := ev.es[0].(apply.RunStarted); !ok {
		t.Errorf("first event %T, want RunStarted", ev.es[0])
	}
	if _, ok := ev.es[len(ev.es)-1].(apply.RunFinished); !ok {
		t.Errorf("last event %T, want RunFinished", ev.es[len(ev.es)-1])
	}
	if got := len(ev.results()); got != len(p.Changes) {
		t.Errorf("%d resource results, want one per change (%d)", got, len(p.Changes))
	}

	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"a": 3, "b": 2, "c": 1} {
		td, ok := topics[name]
		if !ok || len(td.Partitions) != n {
			t.Errorf("topic %s: exists=%v partitions=%d, want %d", name, ok, len(td.Partitions), n)
		}
	}
	rc, err := adm.DescribeTopicConfigs(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if v := configValue(rc, "retention.ms"); v != "3600000" {
		t.Errorf("a retention.ms = %q", v)
	}
	acls, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).Allow().Deny().AllowHosts().DenyHosts())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range acls {
		n += len(r.Described)
	}
	if n != 3 {
		t.Errorf("%d ACLs on the target, want 3", n)
	}
	q, err := adm.DescribeClientQuotas(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 2 {
		t.Errorf("%d quota entities, want 2: %+v", len(q), q)
	}
	users, err := adm.DescribeUserSCRAMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := users["alice"]; !ok {
		t.Errorf("SCRAM user alice missing: %+v", users)
	}
}

func configValue(rc kadm.ResourceConfigs, key string) string {
	for _, r := range rc {
		for _, c := range r.Configs {
			if c.Key == key && c.Value != nil {
				return *c.Value
			}
		}
	}
	return ""
}

// One topic rejected by the broker does not stop the others in its batch.
func TestApplyPerResourceFailure(t *testing.T) {
	ctx := context.Background()
	c, cl, adm := cluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "b", Err: kerr.PolicyViolation, Count: -1})
	p := build(t, emptyTarget())
	var ev events
	res, err := apply.Run(ctx, cl, p, emptyTarget(), apply.Options{}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || res.Succeeded != len(p.Changes)-1 {
		t.Fatalf("result %+v, want exactly topic b failed", res)
	}
	r := ev.results()["topic:b"]
	if !errors.Is(r.Err, kerr.PolicyViolation) || r.ErrorName != "POLICY_VIOLATION" {
		t.Errorf("topic b result %+v, want POLICY_VIOLATION", r)
	}
	topics, _ := adm.ListTopics(ctx)
	if topics.Has("b") || !topics.Has("a") || !topics.Has("c") {
		t.Errorf("topics after apply: %v, want a and c without b", topics.Names())
	}
}

// A retriable error is retried with backoff and then succeeds.
func TestApplyRetriesRetriable(t *testing.T) {
	ctx := context.Background()
	c, cl, adm := cluster(t)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "c", Err: kerr.ThrottlingQuotaExceeded, Count: 1})
	p := build(t, emptyTarget())
	var ev events
	res, err := apply.Run(ctx, cl, p, emptyTarget(), apply.Options{NoPreflight: true, Backoff: time.Millisecond}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Fatalf("failures: %v", res.Failures)
	}
	// Each request is a batch of its own; Attempt counts the requests for
	// topic c (1, then 2 for the retry), BatchDone repeats it, and the
	// result names the batch whose response decided it (the retry).
	var attempts []int
	sentBatch := map[int]int{} // batch → attempt, from BatchSent
	for _, e := range ev.es {
		switch b := e.(type) {
		case apply.BatchSent:
			sentBatch[b.Batch] = b.Attempt
			if slices.ContainsFunc(b.Changes, func(c *plan.Change) bool { return c.ID == "topic:c" }) {
				attempts = append(attempts, b.Attempt)
			}
		case apply.BatchDone:
			if a, ok := sentBatch[b.Batch]; !ok || a != b.Attempt {
				t.Errorf("BatchDone %d: attempt %d, its BatchSent's %d (sent: %v)", b.Batch, b.Attempt, a, ok)
			}
		}
	}
	if !slices.Equal(attempts, []int{1, 2}) {
		t.Errorf("topic c sent with attempts %v, want [1 2] (one retry)", attempts)
	}
	for id, r := range ev.results() {
		want := 1
		if id == "topic:c" {
			want = 2
		}
		if a, ok := sentBatch[r.Batch]; !ok || a != want {
			t.Errorf("%s: result names batch %d (attempt %d, sent %v), want a batch of attempt %d", id, r.Batch, a, ok, want)
		}
	}
	if topics, _ := adm.ListTopics(ctx); !topics.Has("c") {
		t.Error("topic c was not created")
	}
}

// A stale resource refuses the whole plan before anything is sent; an
// applied plan is skipped as already done.
func TestApplyStalenessRule(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	p := build(t, emptyTarget())

	drift := emptyTarget()
	drift.Topics = []snapshot.Topic{{Name: "a", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}}}
	var ev events
	_, err := apply.Run(ctx, cl, p, drift, apply.Options{}, &ev)
	var se *plan.StaleError
	if !errors.As(err, &se) || len(se.Resources) != 1 {
		t.Fatalf("Run on a drifted target: %v, want a StaleError naming topic a", err)
	}
	if len(ev.es) != 0 {
		t.Errorf("%d events for a refused plan, want none", len(ev.es))
	}
	if topics, _ := adm.ListTopics(ctx); len(topics) != 0 {
		t.Errorf("refused plan created topics: %v", topics.Names())
	}

	done := plantest.Simulate(t, emptyTarget(), p.Changes)
	res, err := apply.Run(ctx, cl, p, done, apply.Options{}, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != len(p.Changes) || res.Succeeded != 0 {
		t.Errorf("applied plan against its after-state: %+v, want all skipped", res)
	}
}

func TestApplyValidateOnlyAndCancel(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	p := build(t, emptyTarget())
	res, err := apply.Run(ctx, cl, p, emptyTarget(), apply.Options{ValidateOnly: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Errorf("validate-only failures: %v", res.Failures)
	}
	if topics, _ := adm.ListTopics(ctx); len(topics) != 0 {
		t.Errorf("validate-only created topics: %v", topics.Names())
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	res, err = apply.Run(canceled, cl, p, emptyTarget(), apply.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.Skipped != len(p.Changes) {
		t.Errorf("canceled run: %+v, want every change skipped", res)
	}
}

func TestApplyNeedsSecrets(t *testing.T) {
	p := build(t, emptyTarget())
	for i := range p.Changes {
		if p.Changes[i].After != nil && p.Changes[i].After.Password != nil {
			ref := secret.Ref(p.Changes[i].After.Password.Ref()) // as loaded from a plan file
			p.Changes[i].After.Password = &ref
		}
	}
	_, cl, _ := cluster(t)
	if _, err := apply.Run(context.Background(), cl, p, emptyTarget(), apply.Options{}, nil); err == nil {
		t.Fatal("Run with an unresolvable SCRAM password succeeded")
	}
	// The plan built again from the source resolves the reference.
	res, err := apply.Run(context.Background(), cl, p, emptyTarget(), apply.Options{Secrets: plan.SecretsOf(build(t, emptyTarget()))}, nil)
	if err != nil || res.Failed != 0 {
		t.Fatalf("Run with a resolver: %+v %v", res, err)
	}
}

// A reference resolves only into the change and key it was planned for:
// the same reference asked for by another change, or another key, is not
// resolved.
func TestSecretsResolveOnlyWhereTheyWerePlanned(t *testing.T) {
	s := plan.SecretsOf(build(t, emptyTarget()))
	const ref = "scram-credentials:alice/SCRAM-SHA-256"
	if v, ok := s.Resolve("scram-user:alice/SCRAM-SHA-256", plan.ScramKey, ref); !ok || v != "alice-pw" {
		t.Fatalf("the planned change does not resolve its own password: %q %v", v, ok)
	}
	for _, c := range []struct{ id, key, ref string }{
		{"topic-config:a", "x", ref},
		{"topic:a", "retention.ms", ref},
		{"scram-user:alice/SCRAM-SHA-512", plan.ScramKey, ref},
		{"scram-user:bob/SCRAM-SHA-256", plan.ScramKey, ref},
		{"scram-user:alice/SCRAM-SHA-256", plan.ScramKey, "scram-credentials:bob/SCRAM-SHA-256"},
		{"scram-user:alice/SCRAM-SHA-256", "password", ref},
	} {
		if v, ok := s.Resolve(c.id, c.key, c.ref); ok {
			t.Errorf("Resolve(%q, %q, %q) = %q: resolved outside its change", c.id, c.key, c.ref, v)
		}
	}
}

// A plan file someone edited is refused with the change named, never a
// panic, before anything is sent.
func TestApplyRefusesMalformedPlans(t *testing.T) {
	_, cl, _ := cluster(t)
	for name, edit := range map[string]func(c *plan.Change){
		"an action its kind has no RPC for": func(c *plan.Change) { c.Action = plan.ActionUpdate },
		"unknown kind":                      func(c *plan.Change) { c.Kind = "gadget" },
		"no after-state":                    func(c *plan.Change) { c.After = nil },
		"internal topic": func(c *plan.Change) {
			c.Resource.Name, c.ID = "__consumer_offsets", "topic:__consumer_offsets"
		},
		"id of another resource":   func(c *plan.Change) { c.ID = "topic:other" },
		"resource of another kind": func(c *plan.Change) { c.Resource.Type = "user" },
		"SCRAM reference in a topic config": func(c *plan.Change) {
			ref := secret.Ref("scram-credentials:alice/SCRAM-SHA-256")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "x", Sensitive: true, Secret: &ref})
		},
		"another key's secret": func(c *plan.Change) {
			ref := secret.Ref("zookeeper:/config/topics/" + c.Resource.Name + "#ssl.key.password")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "x", Sensitive: true, Secret: &ref})
		},
		"another topic's secret": func(c *plan.Change) {
			ref := secret.Ref("zookeeper:/config/topics/other#x")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "x", Sensitive: true, Secret: &ref})
		},
		"secret reference on a plain config": func(c *plan.Change) {
			ref := secret.Ref("zookeeper:/config/topics/" + c.Resource.Name + "#x")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "x", Value: "v", Secret: &ref})
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := build(t, emptyTarget())
			edit(&p.Changes[0])
			var ev events
			_, err := apply.Run(context.Background(), cl, p, emptyTarget(), apply.Options{}, &ev)
			if err == nil || !strings.Contains(err.Error(), p.Changes[0].ID) {
				t.Fatalf("Run = %v, want an error naming %s", err, p.Changes[0].ID)
			}
			if len(ev.es) != 0 {
				t.Errorf("%d events for a refused plan", len(ev.es))
			}
		})
	}
}

// TestRunStartedFoundDeletedTopics: an apply that deletes a topic tells
// its observers the topic's whole state before (its replica assignment and
// configs, which the change's Before leaves out), for the audit trail to
// keep; nothing for other changes, and nothing in a validate-only run.
func TestRunStartedFoundDeletedTopics(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	if _, err := adm.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": ptr("1000")}, "gone"); err != nil {
		t.Fatal(err)
	}
	tgt := emptyTarget()
	tgt.Topics = []snapshot.Topic{{Name: "gone", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{2}}, {ID: 1, Replicas: []int32{0}}},
		Configs: []snapshot.Config{{Key: "retention.ms", Value: "1000", Source: "DYNAMIC_TOPIC_CONFIG"}}}}
	p, err := plan.Build(plan.Input{Source: source(), Target: tgt, Options: plan.Options{Prune: true, Include: []plan.Kind{plan.KindTopic}}})
	if err != nil {
		t.Fatal(err)
	}
	started := func(o apply.Options) apply.RunStarted {
		var ev events
		if _, err := apply.Run(ctx, cl, p, tgt, o, &ev); err != nil {
			t.Fatal(err)
		}
		for _, e := range ev.es {
			if s, ok := e.(apply.RunStarted); ok {
				return s
			}
		}
		t.Fatal("no RunStarted")
		return apply.RunStarted{}
	}
	if f := started(apply.Options{ValidateOnly: true}).Found; f != nil {
		t.Errorf("a validate-only run found %v, want nothing", f)
	}
	found := started(apply.Options{}).Found
	want := &plan.State{Partitions: 2, ReplicationFactor: 1, Assignment: [][]int32{{2}, {0}}, Configs: []snapshot.Config{{Key: "retention.ms", Value: "1000"}}}
	if len(found) != 1 || !reflect.DeepEqual(found["topic:gone"], want) {
		t.Errorf("Found = %+v, want only topic:gone as %+v", found, want)
	}
}

func ptr[T any](v T) *T { return &v }

// TestApplyReassignmentSucceeds: a reassignment the target accepts is a
// success (AlterPartitionReassignments answers per partition; one with no
// error is done), one of a topic the target does not have fails naming it.
func TestApplyReassignmentSucceeds(t *testing.T) {
	ctx := context.Background()
	_, cl, adm := cluster(t)
	if _, err := adm.CreateTopic(ctx, 2, 2, nil, "moved"); err != nil {
		t.Fatal(err)
	}
	tgt := emptyTarget()
	tgt.Topics = []snapshot.Topic{{Name: "moved", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0, 1}}, {ID: 1, Replicas: []int32{1, 2}}}}}
	move := func(topic string) plan.Change {
		return plan.Change{ID: "reassignment:" + topic, Kind: plan.KindReassignment, Action: plan.ActionUpdate, Resource: plan.Resource{Type: "topic", Name: topic},
			Before: &plan.State{Assignment: [][]int32{{0, 1}, {1, 2}}}, After: &plan.State{Assignment: [][]int32{{1, 2}, {2, 0}}}}
	}
	p := &plan.Plan{Changes: []plan.Change{move("moved")}}
	res, err := apply.Run(ctx, cl, p, tgt, apply.Options{}, nil)
	if err != nil || res.Succeeded != 1 || res.Failed != 0 {
		t.Errorf("reassignment: %+v, %v; want it succeeded", res, err)
	}
	gone := emptyTarget()
	gone.Topics = []snapshot.Topic{{Name: "absent", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0, 1}}, {ID: 1, Replicas: []int32{1, 2}}}}}
	p = &plan.Plan{Changes: []plan.Change{move("absent")}}
	res, err = apply.Run(ctx, cl, p, gone, apply.Options{Backoff: time.Millisecond}, nil)
	if err != nil || res.Failed != 1 || !strings.Contains(res.Failures[0].Message, "partition") {
		t.Errorf("reassignment of a topic the target lacks: %+v, %v; want it failed per partition", res, err)
	}
}
