package syncer

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// TestStateBehindWhileRoundsFail: the state is BEHIND before the first
// round is done, BEHIND naming the resource while its rounds fail (the
// target down: a change round's apply fails, and so do the retries), IN
// STEP only once a round has applied it, and FROZEN once frozen with
// nothing in flight; it is never taken from the last round alone: a
// later round that applies another resource leaves the failed one
// pending.
func TestStateBehindWhileRoundsFail(t *testing.T) {
	_, src, tgt, opts := fixtureBed(t)
	st := tgt.stages(t, opts)
	var down atomic.Bool // orders' changes fail while set
	apply0 := st.Apply
	st.Apply = func(ctx context.Context, p *plan.Plan, tg *snapshot.Snapshot, r Round) (Outcome, error) {
		if down.Load() && slices.ContainsFunc(p.Changes, func(c plan.Change) bool { return c.Resource.Name == "orders" }) {
			return Outcome{}, errors.New("dial tcp: connection refused")
		}
		return apply0(ctx, p, tg, r)
	}
	first := make(chan struct{})
	read0 := st.ReadTarget
	st.ReadTarget = func(ctx context.Context) (*snapshot.Snapshot, error) {
		<-first
		return read0(ctx)
	}
	freeze := make(chan struct{})
	tracker := NewTracker(freeze)
	feed := make(chan zkfeed.Event, 4)
	rounds := make(chan Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Run(ctx, Config{Source: src, Feed: feed, Stages: st, Freeze: freeze, Tracker: tracker, Coalesce: time.Millisecond}, rounds)
	if s := tracker.State(); s.Phase != Behind || s.Started {
		t.Fatalf("before the first round is done: %+v; want BEHIND, not started", s)
	}
	close(first)
	take := func(what string) Round {
		t.Helper()
		select {
		case r := <-rounds:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s round", what)
			return Round{}
		}
	}
	if r := take("initial"); r.Err != nil {
		t.Fatal(r.Err)
	}
	if s := tracker.State(); s.Phase != InStep || s.Pending != 0 {
		t.Fatalf("after the first round: %+v; want IN STEP", s)
	}

	down.Store(true)
	retention := func(topic, v string) {
		src.set(edit(src.tree(), "/config/topics/"+topic, str(`{"version":1,"config":{"retention.ms":"`+v+`"}}`)))
		feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/" + topic}}, Seen: time.Now()}
	}
	retention("orders", "1")
	if r := take("failing change"); r.Err == nil {
		t.Fatalf("round %d applied with the target down", r.N)
	}
	s := tracker.State()
	if s.Phase != Behind || s.Pending != 1 || s.Failed != 1 || !slices.Equal(s.Names, []string{"topic-config:orders"}) || s.Oldest.IsZero() {
		t.Fatalf("while orders' round fails: %+v; want BEHIND, 1 pending and failed, naming orders' config", s)
	}
	// Another resource's round applies: orders is still pending.
	down.Store(false)
	retention("payments", "2")
	down.Store(true)
	for {
		r := take("payments or a retry")
		if r.Reason == ReasonChange {
			break
		}
	}
	if s := tracker.State(); s.Phase != Behind || !slices.Contains(s.Names, "topic-config:orders") {
		t.Fatalf("after a round applied another resource: %+v; want orders still pending", s)
	}
	// The target is back: the retry applies it.
	down.Store(false)
	for {
		r := take("retry")
		if r.Reason == ReasonRetry && r.Err == nil {
			break
		}
	}
	if s := tracker.State(); s.Phase != InStep || s.Pending != 0 {
		t.Fatalf("after the retry applied it: %+v; want IN STEP", s)
	}
	close(freeze)
	if s := tracker.State(); s.Phase != Frozen {
		t.Fatalf("frozen with nothing in flight: %+v; want FROZEN", s)
	}
}
