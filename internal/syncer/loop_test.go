package syncer

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// swapTree is a source whose tree the test replaces, as Kafka would change
// ZooKeeper.
type swapTree struct {
	mu sync.Mutex
	t  *zktree.Tree
}

func (s *swapTree) set(t *zktree.Tree) { s.mu.Lock(); s.t = t; s.mu.Unlock() }
func (s *swapTree) tree() *zktree.Tree { s.mu.Lock(); defer s.mu.Unlock(); return s.t }
func (s *swapTree) Get(p string) ([]byte, zktree.Stat, error) {
	return s.tree().Get(p)
}
func (s *swapTree) Children(p string) ([]string, error) { return s.tree().Children(p) }

// memTarget is a target held as a snapshot; Apply applies plans to it
// (plantest.Simulate) and counts what it was sent.
type memTarget struct {
	mu   sync.Mutex
	s    *snapshot.Snapshot
	sent []string
}

func (m *memTarget) stages(t testing.TB, opts plan.Options) Stages {
	return Stages{
		ReadTarget: func(context.Context) (*snapshot.Snapshot, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			c := *m.s
			return &c, nil
		},
		Plan: func(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: src, Target: tgt, Options: opts})
		},
		Apply: func(_ context.Context, p *plan.Plan, _ *snapshot.Snapshot, _ Round) (Outcome, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.s = plantest.Simulate(t, m.s, p.Changes)
			for _, c := range p.Changes {
				m.sent = append(m.sent, c.ID)
			}
			return Outcome{Applied: len(p.Changes)}, nil
		},
	}
}

func (m *memTarget) edit(fn func(s *snapshot.Snapshot)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *m.s
	c.Topics = slices.Clone(c.Topics)
	fn(&c)
	m.s = &c
}

// TestReconcileSortsMissedFromDrift: a source change no notification
// announced is "missed"; a target edit is "drift"; --keep-target-edits sends
// the first and leaves the second.
func TestReconcileSortsMissedFromDrift(t *testing.T) {
	for _, keep := range []bool{false, true} {
		base, err := zktree.Load(fixture)
		if err != nil {
			t.Fatal(err)
		}
		src := &swapTree{t: base}
		tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
		opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
		feed := make(chan zkfeed.Event)
		tick := make(chan struct{})
		rounds := make(chan Round, 4)
		ctx, cancel := context.WithCancel(context.Background())
		cfg := Config{Source: src, Feed: feed, Stages: tgt.stages(t, opts), KeepTargetEdits: keep, tick: tick}
		go Run(ctx, cfg, rounds)
		if r := <-rounds; r.Reason != ReasonInitial || r.Err != nil || r.Outcome.Applied == 0 {
			t.Fatalf("initial round %+v", r)
		}

		// The source changes without a notification; the target is edited.
		src.set(edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"1"}}`)))
		tgt.edit(func(s *snapshot.Snapshot) {
			for i := range s.Topics {
				if s.Topics[i].Name == "payments" {
					cs := slices.Clone(s.Topics[i].Configs)
					for j := range cs {
						if cs[j].Key == "max.message.bytes" {
							cs[j].Value = "1000"
						}
					}
					s.Topics[i].Configs = cs
				}
			}
		})
		sentBefore := len(tgt.sent)
		tick <- struct{}{}
		var r Round
		select {
		case r = <-rounds:
		case <-time.After(5 * time.Second):
			t.Fatal("no reconcile round")
		}
		name := func(cs []plan.Change) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Resource.Name)
			}
			return out
		}
		if !slices.Equal(name(r.Missed), []string{"orders"}) || !slices.Equal(name(r.Drift), []string{"payments"}) {
			t.Fatalf("keep=%v: missed %v, drift %v; want [orders] and [payments]", keep, name(r.Missed), name(r.Drift))
		}
		sent := tgt.sent[sentBefore:]
		want := 2
		if keep {
			want = 1
		}
		if len(sent) != want || r.Outcome.Applied != want {
			t.Fatalf("keep=%v: sent %v, applied %d; want %d change(s)", keep, sent, r.Outcome.Applied, want)
		}
		cancel()
	}
}
