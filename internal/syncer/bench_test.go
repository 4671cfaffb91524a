package syncer

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// overlay is a source whose one znode the benchmark rewrites in place (a
// copy of a 50,000-topic tree per round would cost more than the round).
type overlay struct {
	*zktree.Tree
	path string
	data atomic.Pointer[[]byte]
}

func (o *overlay) Get(p string) ([]byte, zktree.Stat, error) {
	d, st, err := o.Tree.Get(p)
	if p == o.path && err == nil {
		d = *o.data.Load()
	}
	return d, st, err
}

// scopedStage sets the stage that reads a change round's part of the
// target (bench_scoped_test.go); nil, every round reads the whole target,
// as sync did before scoped reads (and as this file runs on that code).
var scopedStage func(st *Stages, target *kafkaconn.Conn)

// BenchmarkChangeRound times one change round of sync: a topic's config
// changed, so the round re-reads that topic from ZooKeeper, patches the
// source model, reads the target, plans and applies the one change (a real
// IncrementalAlterConfigs to kfake). The source is a generated tree of
// ZKM_BENCH_ROUND_TOPICS topics (default 2,000; docs/benchmarks.md has
// 50,000) without topic configs, and the target a 3-broker kfake cluster
// holding the same topics, so the target is in step but for the change.
// "scoped" reads only the round's part of the target; "whole-read" reads
// the whole target and keeps the round's part (what the round plans is the
// same).
func BenchmarkChangeRound(b *testing.B) {
	n := 2000
	if v := os.Getenv("ZKM_BENCH_ROUND_TOPICS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			b.Fatalf("ZKM_BENCH_ROUND_TOPICS=%q: want a number of topics, at least 100", v)
		}
	}
	ctx := context.Background()
	w := zkgen.NewTreeWriter()
	if _, err := zkgen.Generate(ctx, zkgen.Config{Topics: n, PartitionsPerTopic: 1, Brokers: 3, Seed: 18}, w, zkgen.Options{}); err != nil {
		b.Fatal(err)
	}
	tree := w.Tree()
	full, err := zkread.Read(ctx, tree, zkread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// The changed topic keeps its config znode; the others lose theirs, so
	// the kfake target (seeded without configs) is in step with them.
	var changed string
	seeds := map[int32][]string{}
	for _, t := range full.Topics {
		if t.Internal {
			continue
		}
		if changed == "" {
			changed = t.Name
		}
		seeds[int32(len(t.Partitions))] = append(seeds[int32(len(t.Partitions))], t.Name)
	}
	keep := tree.Nodes[:0]
	for _, nd := range tree.Nodes {
		if name, ok := strings.CutPrefix(nd.Path, "/config/topics/"); ok && name != changed {
			continue
		}
		keep = append(keep, nd)
	}
	tree.Nodes = keep
	if _, _, err := tree.Get("/config/topics/" + changed); err != nil {
		tree.Nodes = append(tree.Nodes, zktree.Node{Path: "/config/topics/" + changed, Data: []byte(`{"version":1,"config":{}}`)})
		tree.Sort()
	}
	src := &overlay{Tree: tree, path: "/config/topics/" + changed}
	setRetention := func(i int) {
		d := []byte(fmt.Sprintf(`{"version":1,"config":{"retention.ms":"%d"}}`, 3600000+i))
		src.data.Store(&d)
	}
	setRetention(0)

	opts := []kfake.Opt{kfake.NumBrokers(3), kfake.ClusterID("bench-target")}
	for parts, names := range seeds {
		opts = append(opts, kfake.SeedTopics(parts, names...))
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer fake.Close()
	target, err := kafkaconn.Dial(ctx, fake.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		b.Fatal(err)
	}
	defer target.Close()
	po := plan.Options{Placement: plan.PlacementTarget}

	run := func(b *testing.B, scoped bool) {
		stages := Stages{
			ReadTarget: func(ctx context.Context) (*snapshot.Snapshot, error) { return kread.Read(ctx, target, kread.Options{}) },
			Plan: func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
				return plan.Build(plan.Input{Source: s, Target: tg, Options: po})
			},
			Apply: func(ctx context.Context, p *plan.Plan, tg *snapshot.Snapshot, _ Round) (Outcome, error) {
				res, err := apply.Run(ctx, target.Client, p, tg, apply.Options{NoPreflight: true}, nil)
				return Outcome{Applied: res.Succeeded, Failed: res.Failed}, err
			},
		}
		if scoped {
			scopedStage(&stages, target)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		feed := make(chan zkfeed.Event)
		out := make(chan Round)
		go Run(ctx, Config{Source: src, Feed: feed, Stages: stages, Coalesce: time.Microsecond}, out)
		take := taker(b, out, 5*time.Minute)
		take("initial")
		entity := zkfeed.Entity{Kind: zkfeed.Config, Name: "topics/" + changed}
		i := 0
		for b.Loop() {
			i++
			setRetention(int(time.Now().UnixNano()%1e9) + i) // differs from the last round's, whichever ran it
			feed <- zkfeed.Event{Entities: []zkfeed.Entity{entity}, Seen: time.Now()}
			if r := take("change"); r.Outcome.Applied != 1 {
				b.Fatalf("change round %d applied %d changes, want 1: %+v", i, r.Outcome.Applied, r.Changes)
			}
		}
	}
	if scopedStage != nil {
		b.Run("scoped", func(b *testing.B) { run(b, true) })
	}
	b.Run("whole-read", func(b *testing.B) { run(b, false) })
}
