package syncer

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// TestUnverifiableChangeHoldsOnlyItsResource: the first round's verify
// never sees payments' changes (as kfake never shows a <default> broker
// config, or a target that normalises a value): a change to orders made
// meanwhile is applied and verified while that verify still waits (it
// used to wait for the whole of it, up to --verify-timeout); the first
// round is reported unverified naming payments' changes, and the retry
// that follows re-reads payments alone, not the world.
func TestUnverifiableChangeHoldsOnlyItsResource(t *testing.T) {
	base, src, tgt, opts := fixtureBed(t)
	st := tgt.stages(t, opts)
	release := make(chan struct{}) // ends the first round's verify
	applied2 := make(chan struct{})
	apply0 := st.Apply
	st.Apply = func(ctx context.Context, p *plan.Plan, tg *snapshot.Snapshot, r Round) (Outcome, error) {
		out, err := apply0(ctx, p, tg, r)
		changes := slices.Clone(p.Changes)
		switch r.N {
		case 1:
			out.VerifyEach = func(ctx context.Context, shown func(string)) []string {
				var never []string
				for _, c := range changes {
					if c.Resource.Name == "payments" {
						never = append(never, c.ID)
					} else {
						shown(c.ID)
					}
				}
				<-release // the verify times out only when the test says so
				return never
			}
		case 2:
			close(applied2)
			fallthrough
		default:
			out.VerifyEach = func(_ context.Context, shown func(string)) []string {
				for _, c := range changes {
					shown(c.ID)
				}
				return nil
			}
		}
		return out, err
	}
	feed := make(chan zkfeed.Event, 4)
	rounds := make(chan Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Run(ctx, Config{Source: src, Feed: feed, Stages: st, Coalesce: time.Millisecond}, rounds)

	// The first round applied (its verify still waits): orders changes.
	deadline := time.After(10 * time.Second)
	for {
		tgt.mu.Lock()
		n := len(tgt.sent)
		tgt.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("the first round applied nothing")
		case <-time.After(time.Millisecond):
		}
	}
	src.set(edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"11"}}`)))
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}}, Seen: time.Now()}
	select {
	case <-applied2:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("orders' round waited for the first round's verify of payments")
	}
	close(release)
	take := taker(t, rounds, 10*time.Second)
	r1 := <-rounds
	if r1.N != 1 || r1.Outcome.Unverified == 0 || slices.ContainsFunc(r1.Outcome.UnverifiedIDs, func(id string) bool { return !slices.Contains([]string{"topic:payments", "topic-config:payments"}, id) }) {
		t.Fatalf("round %d: %+v; want the first round unverified, naming payments' changes only", r1.N, r1.Outcome)
	}
	if r2 := take("orders"); r2.N != 2 || r2.Outcome.Applied != 1 || r2.Outcome.Unverified != 0 {
		t.Fatalf("round %d: %+v; want orders applied and verified", r2.N, r2.Outcome)
	}
	r3 := take("retry")
	if r3.Reason != ReasonRetry || !r3.Scoped || len(r3.Entities) != 1 || r3.Entities[0] != (zkfeed.Entity{Kind: zkfeed.Topic, Name: "payments"}) {
		t.Fatalf("after the unverified round: a %s round (scoped %v) over %v; want a retry of payments alone", r3.Reason, r3.Scoped, r3.Entities)
	}
}
