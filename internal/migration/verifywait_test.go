package migration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// A large apply is published by a KRaft broker in pieces, minutes apart:
// verify waits while each --verify-timeout window shows more of the
// applied changes, and gives up, naming what is still missing, after a
// window that shows none more (or when no read succeeds). One window of
// 500 ms has at most 5 reads (at once, then 20, 40, 80 and 160 ms after
// the read before), so a target that shows one more topic per read cannot
// show all 7 in one: the old single wait gave up with some missing.
func TestVerifyWaitsWhileTargetShowsMore(t *testing.T) {
	const n = 7
	src := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Brokers: []snapshot.Broker{{ID: 1}}}
	for i := range n {
		src.Topics = append(src.Topics, snapshot.Topic{Name: fmt.Sprintf("t%d", i), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}})
	}
	empty := func() *snapshot.Snapshot {
		return &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, Brokers: []snapshot.Broker{{ID: 1}}}
	}
	p, err := plan.Build(plan.Input{Source: src, Target: empty(), Options: plan.Options{Include: []plan.Kind{plan.KindTopic}}})
	if err != nil {
		t.Fatal(err)
	}
	var applied []*plan.Change
	for i := range p.Changes {
		applied = append(applied, &p.Changes[i])
	}
	if len(applied) != n {
		t.Fatalf("%d changes, want %d", len(applied), n)
	}
	tests := []struct {
		name    string
		upTo    int  // the target shows at most this many topics
		fail    bool // every read fails
		missing []string
		shown   string // a progress line on stderr
	}{
		{name: "published in pieces", upTo: n, shown: "applied changes after"},
		{name: "stops after two", upTo: 2, missing: []string{"topic:t2", "topic:t3", "topic:t4", "topic:t5", "topic:t6"}, shown: "showed none more in the last 500ms (2 of 7 after"},
		{name: "nothing shown", upTo: 0, missing: []string{"topic:t0", "topic:t1", "topic:t2", "topic:t3", "topic:t4", "topic:t5", "topic:t6"}},
		{name: "reads fail", fail: true, missing: []string{"topic:t0", "topic:t1", "topic:t2", "topic:t3", "topic:t4", "topic:t5", "topic:t6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shown := 0
			read := Reads{
				List: func(context.Context) ([]kread.BrokerRead, error) {
					return []kread.BrokerRead{{Broker: 1, Addr: "b1:9092"}}, nil
				},
				Read: func(ctx context.Context, b kread.BrokerRead) kread.BrokerRead {
					switch {
					case tt.fail:
						b.Err = errors.New("broker gone")
						return b
					case ctx.Err() != nil:
						b.Err = ctx.Err() // a read cut by the window's end shows nothing
						return b
					}
					shown = min(shown+1, tt.upTo) // one more topic published per read
					b.Snapshot = empty()
					b.Snapshot.Topics = slices.Clone(src.Topics[:shown])
					return b
				},
			}
			var stderr bytes.Buffer
			notice := Hooks{Notice: func(msg string) { fmt.Fprintln(&stderr, msg) }}
			missing, err := VerifyApplied(context.Background(), read, applied, 500*time.Millisecond, notice)
			if !slices.Equal(missing, tt.missing) {
				t.Errorf("missing %v, want %v\n%s", missing, tt.missing, stderr.String())
			}
			if (err == nil) != (tt.missing == nil) {
				t.Errorf("err %v, want one only when changes are missing", err)
			}
			if err != nil && !strings.Contains(err.Error(), "does not show "+english.N(len(tt.missing), "applied change")) {
				t.Errorf("err %v does not name the %d missing changes", err, len(tt.missing))
			}
			if got := stderr.String(); tt.shown != "" && !strings.Contains(got, tt.shown) || tt.shown == "" && got != "" {
				t.Errorf("stderr %q, want a line with %q", got, tt.shown)
			}
		})
	}
}
