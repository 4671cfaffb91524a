package syncer

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// haltingApplyOn is the Apply stage as sync binds it: apply.Run asking
// the round's Halt before each request, one change a request, one
// request at a time; what it did not send is Outcome.Unsent.
func haltingApplyOn(target *kafkaconn.Conn) func(context.Context, *plan.Plan, *snapshot.Snapshot, Round) (Outcome, error) {
	return func(ctx context.Context, p *plan.Plan, tgt *snapshot.Snapshot, r Round) (Outcome, error) {
		res, err := apply.Run(ctx, target.Client, p, tgt, apply.Options{BatchSize: 1, MaxInFlight: 1, NoPreflight: true, Halt: r.Halt}, nil)
		out := Outcome{Applied: res.Succeeded, Failed: res.Failed}
		if res.Halted != nil {
			out.Unsent = res.Halted.Unsent
		}
		return out, err
	}
}

// TestFreezeStopsARoundInFlight: a freeze that comes while a change
// round waits on a slow target (a request stalled) sends nothing after
// it: the request in flight is answered, the round's other change is not
// sent and is reported as such, and the round is not retried.
func TestFreezeStopsARoundInFlight(t *testing.T) {
	base, src, _, opts := fixtureBed(t)
	fake, target := kfakeTarget(t, "freeze-target", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stages := kafkaStages(target, opts, haltingApplyOn(target))
	feed := make(chan zkfeed.Event, 1)
	freeze := make(chan struct{})
	rounds := make(chan Round, 4)
	go Run(ctx, Config{Source: src, Feed: feed, Stages: stages, Freeze: freeze, Coalesce: time.Millisecond}, rounds)
	take := taker(t, rounds, 30*time.Second)
	if r := take("initial"); r.Outcome.Applied == 0 {
		t.Fatalf("initial round applied nothing: %+v", r)
	}

	// The target stalls the first config request; the freeze comes then.
	var armed, frozen atomic.Bool
	var afterFreeze atomic.Int32
	stalled, release := make(chan struct{}), make(chan struct{})
	armed.Store(true)
	fake.ControlKey(int16(kmsg.IncrementalAlterConfigs), func(kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		if frozen.Load() {
			afterFreeze.Add(1)
		}
		if armed.CompareAndSwap(true, false) {
			close(stalled)
			fake.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	tr := edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"7777"}}`))
	src.set(edit(tr, "/config/topics/payments", str(`{"version":1,"config":{"retention.ms":"8888"}}`)))
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}, {Kind: zkfeed.Config, Name: "topics/payments"}}, Seen: time.Now()}
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		t.Fatal("the round sent no config request")
	}
	frozen.Store(true)
	close(freeze)
	close(release)
	r := take("the round the freeze came into")
	if r.Frozen || r.Outcome.Applied != 1 || len(r.Unsent) != 1 || len(r.Outcome.Unsent) != 1 {
		t.Fatalf("round %d: frozen %v, %+v, changes %v, unsent %d; want the request in flight applied and the other change not sent", r.N, r.Frozen, r.Outcome, ids(r.Changes), len(r.Unsent))
	}
	if n := afterFreeze.Load(); n != 0 {
		t.Errorf("%d config request(s) reached the target after the freeze", n)
	}
	set := 0
	for _, topic := range []string{"orders", "payments"} {
		if v := configOf(targetTopic(t, target, topic), "retention.ms"); v == "7777" || v == "8888" {
			set++
		}
	}
	if set != 1 {
		t.Errorf("%d of the two topics carry their new retention.ms; want only the one whose request was in flight", set)
	}
	// Frozen, no retry follows; a stop ends it.
	select {
	case r := <-rounds:
		t.Fatalf("a %s round followed a round the freeze stopped", r.Reason)
	case <-time.After(1500 * time.Millisecond): // past RetryFirst: a retry would have come (not a speed claim)
	}
}

// frozenBed is a sync of the fixture's orders and payments topics
// (topics and their configs) on an in-memory target, frozen after its
// first round.
type frozenBed struct {
	t      *testing.T
	base   *zktree.Tree
	src    *swapTree
	tgt    *memTarget
	feed   chan zkfeed.Event
	tick   chan struct{}
	rounds chan Round
}

func newFrozenBed(t *testing.T) *frozenBed {
	base, src, tgt, opts := fixtureBed(t)
	b := &frozenBed{t: t, base: base, src: src, tgt: tgt, feed: make(chan zkfeed.Event, 4), tick: make(chan struct{}), rounds: make(chan Round, 8)}
	freeze := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go Run(ctx, Config{Source: b.src, Feed: b.feed, Stages: b.tgt.stages(t, opts), Freeze: freeze, tick: b.tick, Coalesce: time.Millisecond, MissedWait: time.Millisecond}, b.rounds)
	if r := b.next("initial"); r.Outcome.Applied == 0 {
		t.Fatalf("initial round %+v", r)
	}
	close(freeze)
	return b
}

func (b *frozenBed) next(what string) Round {
	b.t.Helper()
	select {
	case r := <-b.rounds:
		if r.Err != nil {
			b.t.Fatalf("%s: round %d: %v", what, r.N, r.Err)
		}
		return r
	case <-time.After(10 * time.Second):
		b.t.Fatalf("no %s round", what)
		return Round{}
	}
}

func (b *frozenBed) notify(es ...zkfeed.Entity) {
	b.feed <- zkfeed.Event{Entities: es, Seen: time.Now()}
}

func ids(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	slices.Sort(out)
	return out
}

// TestAfterCutEveryRoundKind: frozen, every kind of round that finds a
// source change after the cut names it in AfterCut (what ends sync with
// --exit-on-change): a change round, a resync (the change made while
// watches were lost) and a reconciliation (a change no notification
// announced); a notification that changes nothing, an entity outside
// the scope, and a difference the target already had at the cut name
// none — each round is told apart only by AfterCut, not by its kind.
func TestAfterCutEveryRoundKind(t *testing.T) {
	b := newFrozenBed(t)
	cfg := func(topic, v string) {
		b.src.set(edit(b.src.tree(), "/config/topics/"+topic, str(`{"version":1,"config":{"retention.ms":"`+v+`"}}`)))
	}
	orders := zkfeed.Entity{Kind: zkfeed.Config, Name: "topics/orders"}

	// A notification that changes nothing (kafka-configs --alter with the
	// value the topic has).
	b.notify(orders)
	if r := b.next("no-op change"); !r.Frozen || len(r.AfterCut)+len(r.Changes) != 0 {
		t.Errorf("a no-op notification: changes %v, after the cut %v; want none", ids(r.Changes), ids(r.AfterCut))
	}
	// A topic outside --topics, created and notified.
	b.src.set(edit(b.src.tree(), "/brokers/topics/elsewhere", str(`{"version":3,"partitions":{"0":[1]}}`)))
	b.notify(zkfeed.Entity{Kind: zkfeed.Topic, Name: "elsewhere"})
	if r := b.next("out of scope"); len(r.AfterCut) != 0 {
		t.Errorf("a topic outside the scope: after the cut %v; want none", ids(r.AfterCut))
	}
	// A change, notified.
	cfg("orders", "1")
	b.notify(orders)
	if r := b.next("change"); !slices.Equal(ids(r.AfterCut), []string{"topic-config:orders"}) {
		t.Errorf("a change round: after the cut %v; want orders' config", ids(r.AfterCut))
	}
	// orders notified again, unchanged since: the difference is still
	// there, but it was reported already.
	b.notify(orders)
	if r := b.next("repeat"); len(r.AfterCut) != 0 || len(r.Changes) != 1 {
		t.Errorf("orders notified again, unchanged: changes %v, after the cut %v; want the difference, none after the cut", ids(r.Changes), ids(r.AfterCut))
	}
	// A change made while the watches were lost: the resync finds it.
	cfg("payments", "2")
	b.feed <- zkfeed.Event{Resync: true, Err: errors.New("session expired"), Seen: time.Now()}
	if r := b.next("resync"); r.Reason != ReasonResync || !slices.Equal(ids(r.AfterCut), []string{"topic-config:payments"}) || len(r.Changes) != 2 {
		t.Errorf("a %s round: changes %v, after the cut %v; want both differences, payments' after the cut", r.Reason, ids(r.Changes), ids(r.AfterCut))
	}
	// A change no notification announces: the reconciliation finds it.
	cfg("orders", "3")
	b.tick <- struct{}{}
	if r := b.next("reconcile"); r.Reason != ReasonReconcile || !slices.Equal(ids(r.AfterCut), []string{"topic-config:orders"}) {
		t.Errorf("a %s round: after the cut %v; want orders' config", r.Reason, ids(r.AfterCut))
	}
	// Nothing changed since: a reconciliation finds the differences, none
	// after the cut.
	b.tick <- struct{}{}
	if r := b.next("quiet reconcile"); len(r.AfterCut) != 0 || len(r.Changes) != 2 {
		t.Errorf("a quiet reconciliation: changes %v, after the cut %v; want both differences, none after the cut", ids(r.Changes), ids(r.AfterCut))
	}
	if n := len(b.tgt.sent); n != 2 {
		t.Errorf("%d changes sent; want the initial round's 2 only", n)
	}
}
