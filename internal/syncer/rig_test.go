package syncer

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// liveConns are what a live sync test runs on: the 3.9 source's brokers
// (for making changes through Kafka's own admin API), ZooKeeper sessions
// for sync's reads and its feed, and a kfake target.
type liveConns struct {
	source *kafkaconn.Conn
	reads  *zkconn.Conn
	feed   *zkfeed.Feed
	target *kafkaconn.Conn
}

// dialLive dials ZooKeeper at connect (watchSession sets the watch
// session's timeout when non-zero), starts the feed, and dials the source
// and a new kfake target named clusterID; all close when the test ends.
func dialLive(t *testing.T, ctx context.Context, connect string, watchSession time.Duration, clusterID string) liveConns {
	t.Helper()
	srcCfg, err := kafkaconn.Load(testbed.SourceClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	source, err := kafkaconn.Dial(ctx, []string{testbed.SourceBootstrap(t)}, srcCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(source.Close)
	reads, err := zkconn.Dial(ctx, zkconn.Options{Connect: connect})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reads.Close() })
	watches, err := zkconn.Dial(ctx, zkconn.Options{Connect: connect, NoMultiRead: true, Connections: 1, SessionTimeout: watchSession})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watches.Close() })
	feed, err := zkfeed.Start(ctx, watches)
	if err != nil {
		t.Fatal(err)
	}
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID(clusterID))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	target, err := kafkaconn.Dial(ctx, fake.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Close)
	return liveConns{source: source, reads: reads, feed: feed, target: target}
}

// applyOn is the tests' Apply stage: the round's plan sent to target by
// apply.Run (no audit trail, no verify).
func applyOn(target *kafkaconn.Conn) func(context.Context, *plan.Plan, *snapshot.Snapshot, Round) (Outcome, error) {
	return func(ctx context.Context, p *plan.Plan, tgt *snapshot.Snapshot, _ Round) (Outcome, error) {
		res, err := apply.Run(ctx, target.Client, p, tgt, apply.Options{}, nil)
		return Outcome{Applied: res.Succeeded, Failed: res.Failed}, err
	}
}

// taker returns a function that takes the next round from rounds, failing
// tb (named by what) when that round has an error or none comes within
// bound (a hang bound, not a speed claim).
func taker(tb testing.TB, rounds <-chan Round, bound time.Duration) func(what string) Round {
	return func(what string) Round {
		tb.Helper()
		select {
		case r := <-rounds:
			if r.Err != nil {
				tb.Fatalf("%s: round %d (%s): %v", what, r.N, r.Reason, r.Err)
			}
			return r
		case <-time.After(bound):
			tb.Fatalf("%s: no round within %s", what, bound)
		}
		return Round{}
	}
}

// kfakeTarget is a kfake cluster of n brokers named id and a connection
// to it (with opts), both closed when the test ends.
func kfakeTarget(t testing.TB, id string, n int, opts ...kgo.Opt) (*kfake.Cluster, *kafkaconn.Conn) {
	t.Helper()
	fake, err := kfake.NewCluster(kfake.NumBrokers(n), kfake.ClusterID(id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	target, err := kafkaconn.Dial(context.Background(), fake.ListenAddrs(), kafkaconn.Default(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Close)
	return fake, target
}

// kafkaStages are the stages of a sync to target: a whole read (and a
// scoped one), plan.Build with opts, and apply.
func kafkaStages(target *kafkaconn.Conn, opts plan.Options, apply func(context.Context, *plan.Plan, *snapshot.Snapshot, Round) (Outcome, error)) Stages {
	return Stages{
		ReadTarget: func(ctx context.Context) (*snapshot.Snapshot, error) { return kread.Read(ctx, target, kread.Options{}) },
		ReadTargetScoped: func(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error) {
			return kread.Read(ctx, target, kread.Options{Scope: &scope})
		},
		Plan: func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: s, Target: tg, Options: opts})
		},
		Apply: apply,
	}
}

// fixtureBed is the fixture's tree as a source the test changes, an
// in-memory target, and the options of a sync of the orders and payments
// topics and their configs.
func fixtureBed(t testing.TB) (*zktree.Tree, *swapTree, *memTarget, plan.Options) {
	t.Helper()
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return base, &swapTree{t: base}, &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}},
		plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
}
