package syncer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// bound is how long the test waits for a round: a hang bound, not a
// speed claim.
const bound = 30 * time.Second

// TestLiveSync follows the 3.9 source's ZooKeeper while Kafka itself
// changes it (through its brokers' admin API) and keeps a kfake target in
// step: each change arrives as one round that applies just it; an edit
// made on the target is found by reconciliation as drift and set back;
// frozen, a change is reported and the target left alone.
func TestLiveSync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	zkAddr := testbed.ZK(t)
	c := dialLive(t, ctx, zkAddr, 0, "sync-target")
	source, reads, feed, target := c.source, c.reads, c.feed, c.target

	id := fmt.Sprintf("zksync-%d", time.Now().UnixNano())
	topic, user := id+"-t", id+"-u"
	opts := plan.Options{TopicRegex: "^" + id, PrincipalRegex: "^User:" + id, Include: []plan.Kind{plan.KindTopic, plan.KindPartitions, plan.KindTopicConfig, plan.KindQuota, plan.KindACL}, Placement: plan.PlacementTarget}
	stages := Stages{
		ReadTarget: func(ctx context.Context) (*snapshot.Snapshot, error) { return kread.Read(ctx, target, kread.Options{}) },
		Plan: func(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: src, Target: tgt, Options: opts,
				SourceEndpoint: plan.Endpoint{Kind: "zookeeper", ClusterID: src.ClusterID}, TargetEndpoint: plan.Endpoint{Kind: "kafka", ClusterID: tgt.ClusterID}})
		},
		Apply: applyOn(target),
	}
	freeze := make(chan struct{})
	reconcile := make(chan struct{}, 1)
	cfg := Config{Source: reads, Feed: feed.Events(), Stages: stages, Freeze: freeze, ReconcileEvery: time.Hour}
	rounds := make(chan Round, 16)
	go func() {
		// A reconciliation on demand: the test's own ticker.
		cfg.tick = reconcile
		Run(ctx, cfg, rounds)
	}()
	if r := next(t, rounds); r.Reason != ReasonInitial || r.Err != nil {
		t.Fatalf("first round %+v", r)
	}
	t.Cleanup(func() { // before the connections close, which Cleanup runs after this
		testbed.DeleteACLs(t, source.Admin, kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpRead))
		testbed.RemoveUserQuota(t, source.Admin, user, "consumer_byte_rate")
		testbed.DeleteTopicsAndWait(t, source.Admin, bound, topic)
	})

	// Each change made on the source arrives as a round that applies it.
	steps := []struct {
		name string
		do   func() error
		kind plan.Kind
	}{
		{"create topic", func() error {
			_, err := source.Admin.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": ptr("7200000")}, topic)
			return err
		}, plan.KindTopic},
		{"alter topic config", func() error {
			r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "cleanup.policy", Value: ptr("compact")}}, topic)
			if err == nil {
				err = r[0].Err
			}
			return err
		}, plan.KindTopicConfig},
		{"add partitions", func() error {
			r, err := source.Admin.CreatePartitions(ctx, 1, topic)
			return errors.Join(err, r.Error())
		}, plan.KindPartitions},
		{"ACL", func() error {
			r, err := source.Admin.CreateACLs(ctx, kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:"+user).AllowHosts().Operations(kadm.OpRead))
			if err == nil {
				err = r[0].Err
			}
			return err
		}, plan.KindACL},
		{"quota", func() error {
			r, err := source.Admin.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}}, Ops: []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Value: 2048}}}})
			if err == nil {
				err = r[0].Err
			}
			return err
		}, plan.KindQuota},
	}
	for _, s := range steps {
		if err := testbed.RetryUnknownTopic(bound, s.do); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		r := roundWith(t, rounds, s.kind)
		if r.Reason != ReasonChange || r.Outcome.Applied == 0 || r.Outcome.Failed != 0 || r.Err != nil {
			t.Fatalf("%s: round %+v", s.name, r)
		}
		for _, c := range r.Changes {
			if !strings.Contains(c.ID, id) {
				t.Errorf("%s: round applied %s, which no notification named", s.name, c.ID)
			}
		}
		t.Logf("%s: round %d applied %d change(s) for %v, lag %s", s.name, r.N, r.Outcome.Applied, r.Entities, r.Lag)
	}
	got := targetTopic(t, target, topic)
	if got == nil || len(got.Partitions) != 3 || configOf(got, "cleanup.policy") != "compact" || configOf(got, "retention.ms") != "7200000" {
		t.Fatalf("target topic after sync: %+v", got)
	}

	// An edit on the target is drift: the reconciliation finds it and sets it back.
	if r, err := target.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "cleanup.policy", Value: ptr("delete")}}, topic); err != nil || r[0].Err != nil {
		t.Fatalf("editing the target: %v %v", err, r)
	}
	reconcile <- struct{}{}
	r := next(t, rounds)
	if r.Reason != ReasonReconcile || len(r.Missed) != 0 || !slices.ContainsFunc(r.Drift, func(c plan.Change) bool { return c.Kind == plan.KindTopicConfig && c.Resource.Name == topic }) || r.Outcome.Applied == 0 {
		t.Fatalf("reconcile round %+v, want the target edit as drift, set back", r)
	}
	if got := targetTopic(t, target, topic); configOf(got, "cleanup.policy") != "compact" {
		t.Fatalf("cleanup.policy on the target after reconcile: %q", configOf(got, "cleanup.policy"))
	}

	// Frozen: a change on the source is reported, the target left alone.
	close(freeze)
	if r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: ptr("60000")}}, topic); err != nil || r[0].Err != nil {
		t.Fatalf("altering the source: %v %v", err, r)
	}
	r = roundWith(t, rounds, plan.KindTopicConfig)
	if !r.Frozen || r.Outcome.Applied != 0 || !slices.Contains(r.Entities, zkfeed.Entity{Kind: zkfeed.Topic, Name: topic}) {
		t.Fatalf("frozen round %+v", r)
	}
	if got := targetTopic(t, target, topic); configOf(got, "retention.ms") != "7200000" {
		t.Fatalf("frozen sync changed the target: retention.ms %q", configOf(got, "retention.ms"))
	}
}

func ptr(s string) *string { return &s }

func next(t *testing.T, rounds <-chan Round) Round {
	t.Helper()
	select {
	case r := <-rounds:
		return r
	case <-time.After(bound):
		t.Fatalf("no round within %s", bound)
	}
	return Round{}
}

// roundWith waits for a round that planned a change of kind k.
func roundWith(t *testing.T, rounds <-chan Round, k plan.Kind) Round {
	t.Helper()
	deadline := time.After(bound)
	for {
		select {
		case r := <-rounds:
			if r.Err != nil {
				t.Fatalf("round %d (%s): %v", r.N, r.Reason, r.Err)
			}
			if slices.ContainsFunc(r.Changes, func(c plan.Change) bool { return c.Kind == k }) {
				return r
			}
		case <-deadline:
			t.Fatalf("no round planning a %s change within %s", k, bound)
		}
	}
}

func targetTopic(t *testing.T, c *kafkaconn.Conn, name string) *snapshot.Topic {
	t.Helper()
	s, err := kread.Read(context.Background(), c, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Topics {
		if s.Topics[i].Name == name {
			return &s.Topics[i]
		}
	}
	return nil
}

func configOf(t *snapshot.Topic, key string) string {
	if t == nil {
		return ""
	}
	for _, c := range t.Configs {
		if c.Key == key {
			return c.Value
		}
	}
	return ""
}
