package syncer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// gate sits between the real feed and sync: it passes every event on,
// except that while hold is set it keeps back (or, with drop, throws
// away) the events naming a held topic's configs and tells of each it
// saw on seen.
type gate struct {
	mu   sync.Mutex
	hold map[string]bool // topic names whose config events are held
	drop bool
	kept []zkfeed.Event
	seen chan zkfeed.Event
	out  chan zkfeed.Event
}

func newGate(ctx context.Context, in <-chan zkfeed.Event) *gate {
	g := &gate{hold: map[string]bool{}, seen: make(chan zkfeed.Event, 64), out: make(chan zkfeed.Event, 64)}
	go func() {
		defer close(g.out)
		for ev := range in {
			g.mu.Lock()
			held := slices.ContainsFunc(ev.Entities, func(e zkfeed.Entity) bool {
				name, ok := strings.CutPrefix(e.Name, "topics/")
				return e.Kind == zkfeed.Config && ok && g.hold[name]
			})
			if held && !g.drop {
				g.kept = append(g.kept, ev)
			}
			g.mu.Unlock()
			if !held {
				select {
				case g.out <- ev:
				case <-ctx.Done():
					return
				}
			}
			select {
			case g.seen <- ev:
			default:
			}
		}
	}()
	return g
}

// release passes the held events on (into the buffered channel sync reads:
// they are queued in the feed) and holds nothing more.
func (g *gate) release() {
	g.mu.Lock()
	kept := g.kept
	g.kept, g.hold, g.drop = nil, map[string]bool{}, false
	g.mu.Unlock()
	for _, ev := range kept {
		g.out <- ev
	}
}

// waitSeen waits until the feed delivered an event naming topic's configs.
func (g *gate) waitSeen(t *testing.T, topic string) zkfeed.Event {
	t.Helper()
	want := zkfeed.Entity{Kind: zkfeed.Config, Name: "topics/" + topic}
	deadline := time.After(bound)
	for {
		select {
		case ev := <-g.seen:
			if slices.Contains(ev.Entities, want) {
				return ev
			}
		case <-deadline:
			t.Fatalf("the feed told of no config change of %s within %s", topic, bound)
		}
	}
}

// TestLiveReconcileNotMissed follows the 3.9 source's ZooKeeper into a
// kfake target and checks how a reconciliation sorts what it finds:
//   - a change whose notification is queued in the feed while the
//     reconciliation runs (made before its read, announced but not yet
//     run by a change round) is not missed; its read covers the
//     notification (zxid), so no change round runs it again;
//   - a change made after the reconciliation read the source, whose
//     notification is queued while it runs, is still run by a change
//     round afterwards: nothing the feed delivered is dropped;
//   - a change whose notification never reaches sync is reported missed;
//   - frozen, a notification the reconciliation's read covers still has
//     its (frozen) change round: that is what reports a change after the
//     cut and ends sync with --exit-on-change.
//
// Before, the first was reported missed (143 in a 10-minute soak at 20
// changes/s).
func TestLiveReconcileNotMissed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	zkAddr := testbed.ZK(t)
	c := dialLive(t, ctx, zkAddr, 0, "missed-target")
	source, reads, target := c.source, c.reads, c.target
	g := newGate(ctx, c.feed.Events())

	id := fmt.Sprintf("zkmissed-%d", time.Now().UnixNano())
	early, late := id+"-early", id+"-late"
	opts := plan.Options{TopicRegex: "^" + id, Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, Placement: plan.PlacementTarget}
	var (
		hookMu sync.Mutex
		hook   func() // run once by the next whole read of the target (a full round's)
	)
	stages := Stages{
		ReadTarget: func(ctx context.Context) (*snapshot.Snapshot, error) {
			hookMu.Lock()
			h := hook
			hook = nil
			hookMu.Unlock()
			if h != nil {
				h()
			}
			return kread.Read(ctx, target, kread.Options{})
		},
		// Change rounds read through this, so the hook runs in a full round.
		ReadTargetScoped: func(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error) {
			return kread.Read(ctx, target, kread.Options{Scope: &scope})
		},
		Plan: func(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: src, Target: tgt, Options: opts})
		},
		Apply: applyOn(target),
	}
	reconcile := make(chan struct{}, 1)
	rounds := make(chan Round, 16)
	freeze := make(chan struct{})
	cfg := Config{Source: reads, Feed: g.out, Stages: stages, ReconcileEvery: time.Hour, MissedWait: 500 * time.Millisecond, Freeze: freeze, tick: reconcile}
	go Run(ctx, cfg, rounds)
	if r := next(t, rounds); r.Reason != ReasonInitial || r.Err != nil {
		t.Fatalf("first round %+v", r)
	}
	t.Cleanup(func() { testbed.DeleteTopicsAndWait(t, source.Admin, bound, early, late) })
	for _, name := range []string{early, late} {
		if _, err := source.Admin.CreateTopic(ctx, 1, 1, nil, name); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		if r := roundWith(t, rounds, plan.KindTopic); r.Reason != ReasonChange {
			t.Fatalf("creating %s: round %+v", name, r)
		}
	}
	setRetention := func(topic, v string) {
		t.Helper()
		err := testbed.RetryUnknownTopic(bound, func() error {
			r, err := source.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: ptr(v)}}, topic)
			if err == nil {
				err = r[0].Err
			}
			return err
		})
		if err != nil {
			t.Fatalf("setting %s retention.ms: %v", topic, err)
		}
	}
	ids := func(cs []plan.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}

	// early changes; its notification is held until the reconciliation,
	// having read the source, reads the target: then it is queued. late
	// changes after that read, and its notification is queued too.
	g.mu.Lock()
	g.hold[early] = true
	g.mu.Unlock()
	setRetention(early, "3600001")
	g.waitSeen(t, early)
	hookMu.Lock()
	hook = func() {
		g.release()
		setRetention(late, "3600002")
		g.waitSeen(t, late)
	}
	hookMu.Unlock()
	reconcile <- struct{}{}
	r := next(t, rounds)
	if r.Reason != ReasonReconcile || r.Err != nil || len(r.Missed) != 0 || !slices.Contains(ids(r.Changes), "topic-config:"+early) {
		t.Fatalf("reconcile: %s round, err %v, changes %v, missed %v; want %s's config applied and nothing missed (its notification was queued)", r.Reason, r.Err, ids(r.Changes), ids(r.Missed), early)
	}
	r = next(t, rounds)
	want := []zkfeed.Entity{{Kind: zkfeed.Topic, Name: late}}
	if r.Reason != ReasonChange || r.Err != nil || !slices.Equal(r.Entities, want) || !slices.Equal(ids(r.Changes), []string{"topic-config:" + late}) || r.Outcome.Applied != 1 {
		t.Fatalf("after the reconcile: %s round for %v, err %v, changes %v; want a change round for %v alone applying its config (%s's notification is covered by the reconcile's read)", r.Reason, r.Entities, r.Err, ids(r.Changes), want, early)
	}
	for topic, v := range map[string]string{early: "3600001", late: "3600002"} {
		if got := configOf(targetTopic(t, target, topic), "retention.ms"); got != v {
			t.Errorf("%s retention.ms on the target: %q, want %s", topic, got, v)
		}
	}

	// A notification that never reaches sync: the change is missed.
	g.mu.Lock()
	g.hold[early], g.drop = true, true
	g.mu.Unlock()
	setRetention(early, "3600003")
	g.waitSeen(t, early)
	reconcile <- struct{}{}
	r = next(t, rounds)
	if r.Reason != ReasonReconcile || !slices.Equal(ids(r.Missed), []string{"topic-config:" + early}) || r.Outcome.Applied != 1 {
		t.Fatalf("reconcile after a lost notification: %s round, missed %v, applied %d; want %s's config missed and applied", r.Reason, ids(r.Missed), r.Outcome.Applied, early)
	}
	g.release()

	// Frozen: early changes after the cut, its notification is queued
	// while a reconciliation runs, and it still has its change round.
	close(freeze)
	g.mu.Lock()
	g.hold[early] = true
	g.mu.Unlock()
	setRetention(early, "3600004")
	g.waitSeen(t, early)
	hookMu.Lock()
	hook = g.release
	hookMu.Unlock()
	reconcile <- struct{}{}
	if r = next(t, rounds); r.Reason != ReasonReconcile || !r.Frozen || r.Outcome.Applied != 0 {
		t.Fatalf("frozen reconcile: %s round, frozen %v, applied %d", r.Reason, r.Frozen, r.Outcome.Applied)
	}
	r = next(t, rounds)
	want = []zkfeed.Entity{{Kind: zkfeed.Topic, Name: early}}
	if r.Reason != ReasonChange || !r.Frozen || !slices.Equal(r.Entities, want) || !slices.Equal(ids(r.Changes), []string{"topic-config:" + early}) {
		t.Fatalf("after the frozen reconcile: %s round (frozen %v) for %v, changes %v; want a frozen change round for %v reporting its config", r.Reason, r.Frozen, r.Entities, ids(r.Changes), want)
	}
	if got := configOf(targetTopic(t, target, early), "retention.ms"); got != "3600003" {
		t.Errorf("frozen sync changed the target: %s retention.ms %q, want 3600003", early, got)
	}
}

// TestReconcileWaitsForANotificationOnItsWay: a source change whose
// notification reaches sync only after the reconciliation applied it (it
// was on its way) is not missed, and the notification still has its
// change round; one that never comes is missed after MissedWait.
func TestReconcileWaitsForANotificationOnItsWay(t *testing.T) {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	src := &swapTree{t: base}
	tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
	opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
	feed := make(chan zkfeed.Event, 4)
	tick := make(chan struct{})
	rounds := make(chan Round, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stages := tgt.stages(t, opts)
	var late sync.WaitGroup
	var announce func() // run once after the next apply
	apply := stages.Apply
	stages.Apply = func(ctx context.Context, p *plan.Plan, target *snapshot.Snapshot, r Round) (Outcome, error) {
		out, err := apply(ctx, p, target, r)
		if a := announce; a != nil {
			announce = nil
			late.Add(1)
			go func() { defer late.Done(); time.Sleep(50 * time.Millisecond); a() }()
		}
		return out, err
	}
	go Run(ctx, Config{Source: src, Feed: feed, Stages: stages, tick: tick, Coalesce: time.Millisecond, MissedWait: 3 * time.Second}, rounds)
	take := taker(t, rounds, bound)
	take("initial")
	orders := zkfeed.Entity{Kind: zkfeed.Config, Name: "topics/orders"}
	src.set(edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"1"}}`)))
	announce = func() { feed <- zkfeed.Event{Entities: []zkfeed.Entity{orders}, Seen: time.Now()} }
	tick <- struct{}{}
	r := take("reconcile")
	late.Wait()
	if len(r.Missed) != 0 || len(r.Changes) != 1 || r.Changes[0].ID != "topic-config:orders" {
		t.Fatalf("reconcile: changes %d, missed %d; want orders' config applied, not missed (its notification came after the apply)", len(r.Changes), len(r.Missed))
	}
	if r = take("change"); r.Reason != ReasonChange || !slices.Equal(r.Entities, []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}) || len(r.Changes) != 0 {
		t.Fatalf("after the reconcile: %s round for %v with %d changes; want the notification's change round, nothing left to change", r.Reason, r.Entities, len(r.Changes))
	}

	src.set(edit(src.tree(), "/config/topics/payments", str(`{"version":1,"config":{"retention.ms":"2"}}`)))
	tick <- struct{}{}
	r = take("reconcile")
	if len(r.Missed) != 1 || r.Missed[0].ID != "topic-config:payments" {
		t.Fatalf("reconcile of an unannounced change: missed %v; want payments' config", r.Missed)
	}
}
