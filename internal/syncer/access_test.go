package syncer

import (
	"context"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// Stages.Access is asked on reconciliations only, with the source and the
// target as the round read them, and what it says is the round's Access.
func TestAccessOnReconciliation(t *testing.T) {
	_, src, tgt, opts := fixtureBed(t)
	stages := tgt.stages(t, opts)
	asked := make(chan [2]int, 4)
	stages.Access = func(_ context.Context, source, target *snapshot.Snapshot) AccessCheck {
		asked <- [2]int{len(source.ACLs), len(target.ACLs)}
		return AccessCheck{Verdict: "differences", Causes: 2, Differing: 7, Digest: "sha256:x"}
	}
	feed, tick, rounds := make(chan zkfeed.Event, 4), make(chan struct{}), make(chan Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go Run(ctx, Config{Source: src, Feed: feed, Stages: stages, tick: tick, Coalesce: time.Millisecond, MissedWait: time.Millisecond}, rounds)
	next := func() Round {
		t.Helper()
		select {
		case r := <-rounds:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no round")
			return Round{}
		}
	}
	if r := next(); r.Reason != ReasonInitial || r.Access != nil {
		t.Fatalf("initial round: %s, access %+v; want none asked", r.Reason, r.Access)
	}
	tick <- struct{}{}
	r := next()
	if r.Reason != ReasonReconcile || r.Access == nil || r.Access.Causes != 2 || r.Access.Digest != "sha256:x" {
		t.Fatalf("reconciliation: %s, access %+v", r.Reason, r.Access)
	}
	select {
	case got := <-asked:
		if got[0] == 0 {
			t.Errorf("asked with a source of %d ACLs and a target of %d", got[0], got[1])
		}
	default:
		t.Error("Access was not asked")
	}
	if len(asked) != 0 {
		t.Errorf("Access asked %d more times", len(asked))
	}
}
