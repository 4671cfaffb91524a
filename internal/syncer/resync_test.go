package syncer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// TestResyncRoundNamesItsCauses: a resync round names why the feed asked
// for it; resyncs queued together cost one full round, which names each;
// notifications the feed skipped are reported once each and start no
// round.
func TestResyncRoundNamesItsCauses(t *testing.T) {
	_, src, tgt, opts := fixtureBed(t)
	feed := make(chan zkfeed.Event, 8)
	rounds := make(chan Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Two resyncs queued together (the session ended, then a notification
	// was gone before it was read) while the first round runs: one round.
	feed <- zkfeed.Event{Resync: true, Cause: zkfeed.CauseReconnected, Err: errors.New("watch session ended"), Seen: time.Now()}
	feed <- zkfeed.Event{Resync: true, Cause: zkfeed.CauseUnreadable, Path: "/config/changes/config_change_0000000007", Err: errors.New("deleted before it was read"), Seen: time.Now()}
	go Run(ctx, Config{Source: src, Feed: feed, Stages: tgt.stages(t, opts), Coalesce: time.Millisecond}, rounds)
	take := taker(t, rounds, 10*time.Second)
	take("initial")
	r := take("resync")
	if r.Reason != ReasonResync || len(r.Resyncs) != 2 || r.Resyncs[0].Cause != zkfeed.CauseReconnected ||
		r.Resyncs[1].Cause != zkfeed.CauseUnreadable || r.Resyncs[1].Path != "/config/changes/config_change_0000000007" {
		t.Fatalf("a %s round naming %+v; want one resync round naming both causes", r.Reason, r.Resyncs)
	}

	// Junk notifications: reported, no round.
	feed <- zkfeed.Event{Skipped: []zkfeed.Skipped{{Path: "/config/changes/config_change_0000000008", Err: errors.New("not JSON")}}, Seen: time.Now()}
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}}, Seen: time.Now()}
	r = take("skipped")
	if r.Reason != ReasonSkipped || r.N != 0 || len(r.Skipped) != 1 {
		t.Fatalf("after a skipped notification: %+v; want it reported, not as a round", r)
	}
	if r = take("change"); r.Reason != ReasonChange || r.N != 3 {
		t.Fatalf("a %s round %d; want change round 3 (no round for the skipped notification)", r.Reason, r.N)
	}
}
