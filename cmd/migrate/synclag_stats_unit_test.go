package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSyncLagStats checks the lag benchmark's measuring: which target
// state settles which change, the book's matching of observations to the
// changes awaited, nearest-rank percentiles, matching changes to sync's
// rounds, and the per-kind sums.
func TestSyncLagStats(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	t.Run("settles", func(t *testing.T) {
		for _, c := range []struct {
			kind string
			want int64
			st   lagState
			ok   bool
		}{
			{lagCreate, 0, lagState{}, false},
			{lagCreate, 0, lagState{Present: true}, true},
			{lagGrant, 0, lagState{Present: true}, true},
			{lagSCRAM, 0, lagState{}, false},
			{lagRevoke, 0, lagState{Present: true}, false},
			{lagRevoke, 0, lagState{}, true},
			{lagPartitions, 3, lagState{Present: true, Value: 2}, false},
			{lagPartitions, 3, lagState{Present: true, Value: 3}, true},
			{lagPartitions, 3, lagState{Present: true, Value: 4}, true}, // a later increase carried it
			{lagConfig, 7, lagState{Value: 9}, false},                   // absent: not arrived
			{lagQuota, 7, lagState{Present: true, Value: 6}, false},
			{lagQuota, 7, lagState{Present: true, Value: 7}, true},
		} {
			op := &lagOp{Kind: c.kind, Want: c.want}
			if got := op.settles(c.st); got != c.ok {
				t.Errorf("%s want %d, target %+v: settles %v, want %v", c.kind, c.want, c.st, got, c.ok)
			}
		}
	})

	t.Run("book", func(t *testing.T) {
		b := newLagBook()
		c1 := &lagOp{N: 1, Kind: lagConfig, Resource: "t", Want: 10}
		c2 := &lagOp{N: 2, Kind: lagConfig, Resource: "t", Want: 20}
		other := &lagOp{N: 3, Kind: lagQuota, Resource: "t", Want: 1} // same name, other kind
		rev := &lagOp{N: 4, Kind: lagRevoke, Resource: "r"}
		failed := &lagOp{N: 5, Kind: lagCreate, Resource: "x"}
		for _, op := range []*lagOp{c1, c2, other, rev, failed} {
			b.add(op)
		}
		failed.Err = errors.New("refused")
		b.drop(failed)
		if got := strings.Join(b.awaited(lagConfig), ","); got != "t" {
			t.Fatalf("awaited configs %q, want t", got)
		}
		if got := b.awaited(lagCreate); len(got) != 0 {
			t.Fatalf("a dropped change is still awaited: %v", got)
		}
		steps := []struct {
			kind, res string
			st        lagState
			at        int
			left      int
		}{
			{lagConfig, "t", lagState{Present: true, Value: 5}, 10, 4}, // older value: nothing arrives
			{lagConfig, "t", lagState{Present: true, Value: 15}, 20, 3},
			{lagRevoke, "r", lagState{Present: true}, 30, 3},
			{lagConfig, "t", lagState{Present: true, Value: 25}, 40, 2},
			{lagConfig, "t", lagState{Present: true, Value: 30}, 50, 2}, // settled once only
			{lagRevoke, "r", lagState{}, 60, 1},
		}
		for _, s := range steps {
			b.observe(s.kind, s.res, s.st, at(s.at))
			if got := b.left(); got != s.left {
				t.Fatalf("after %s %s %+v: %d left, want %d", s.kind, s.res, s.st, got, s.left)
			}
		}
		for _, c := range []struct {
			op *lagOp
			ms int // 0: not arrived
		}{{c1, 20}, {c2, 40}, {rev, 60}, {other, 0}, {failed, 0}} {
			want := time.Time{}
			if c.ms > 0 {
				want = at(c.ms)
			}
			if !c.op.Visible.Equal(want) {
				t.Errorf("change %d visible at %v, want %v", c.op.N, c.op.Visible, want)
			}
		}
		if n := len(b.ops()); n != 5 {
			t.Errorf("%d changes kept, want 5 (the failed one too)", n)
		}
	})

	t.Run("percentile", func(t *testing.T) {
		d := func(ms ...int) []time.Duration {
			var out []time.Duration
			for _, m := range ms {
				out = append(out, time.Duration(m)*time.Millisecond)
			}
			return out
		}
		hundred := make([]int, 100)
		for i := range hundred {
			hundred[i] = i + 1
		}
		for _, c := range []struct {
			sorted []time.Duration
			p      float64
			want   time.Duration
		}{
			{nil, 0.5, 0},
			{d(7), 0.99, 7 * time.Millisecond},
			{d(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
			{d(1, 2, 3, 4, 5), 0.5, 3 * time.Millisecond},
			{d(hundred...), 0.99, 99 * time.Millisecond},
			{d(hundred...), 1, 100 * time.Millisecond},
			{d(hundred...), 0, time.Millisecond},
		} {
			if got := percentile(c.sorted, c.p); got != c.want {
				t.Errorf("percentile(%d values, %v) = %v, want %v", len(c.sorted), c.p, got, c.want)
			}
		}
		if got := distOf(d(30, 10, 20)); got.N != 3 || got.P50 != 20*time.Millisecond || got.Max != 30*time.Millisecond {
			t.Errorf("distOf unsorted input: %+v", got)
		}
	})

	t.Run("rounds", func(t *testing.T) {
		op := &lagOp{Kind: lagConfig, Entities: []string{"topic a", "config topics/a"}, Written: at(100)}
		unwritten := &lagOp{Kind: lagCreate, Entities: []string{"topic b"}}
		rounds := []lagRound{
			{Seen: at(130), Started: at(150), Finished: at(300), Entities: []string{"topic x", "config topics/a"}},
			{Seen: at(50), Started: at(70), Finished: at(90), Entities: []string{"topic a"}},    // before the write
			{Seen: at(120), Started: at(140), Finished: at(200), Entities: []string{"topic c"}}, // another entity
			{Seen: at(400), Started: at(420), Finished: at(500), Entities: []string{"topic a", "topic b"}},
		}
		matchRounds([]*lagOp{op, unwritten}, rounds, time.Millisecond)
		if !op.Seen.Equal(at(130)) || !op.RoundStart.Equal(at(150)) || !op.RoundEnd.Equal(at(300)) {
			t.Errorf("matched to the round seen at %v, started %v, ended %v; want 130, 150, 300 ms", op.Seen, op.RoundStart, op.RoundEnd)
		}
		if !unwritten.Seen.IsZero() {
			t.Errorf("a change with no ZooKeeper time was matched to a round")
		}
	})

	t.Run("rows", func(t *testing.T) {
		ops := []*lagOp{
			{Kind: lagCreate, Issued: at(-30), Returned: at(5), Written: at(0), WrittenFrom: "ctime", Visible: at(100), Seen: at(10), RoundStart: at(30), RoundEnd: at(90)},
			{Kind: lagCreate, Written: at(20), WrittenFrom: "ctime", Visible: at(300), Seen: at(10), RoundStart: at(30), RoundEnd: at(50)}, // joined the round: no feed figure
			{Kind: lagCreate, Written: at(0), WrittenFrom: "ctime"}, // lost
			{Kind: lagCreate, Err: errors.New("refused")},
			{Kind: lagQuota, Written: at(0), WrittenFrom: "admin return", Visible: at(50)},
		}
		rows := lagRows(ops)
		if len(rows) != 3 || rows[0].Kind != lagCreate || rows[1].Kind != lagQuota || rows[2].Kind != "all" {
			t.Fatalf("rows %+v", rows)
		}
		c, q, all := rows[0], rows[1], rows[2]
		if c.Written != 3 || c.Failed != 1 || c.Arrived != 2 || c.Lost != 1 || c.From != "ctime" || c.Admin != 0 {
			t.Errorf("create row %+v", c)
		}
		if c.Lag.P50 != 100*time.Millisecond || c.Lag.Max != 280*time.Millisecond {
			t.Errorf("create lag %+v, want p50 100ms max 280ms", c.Lag)
		}
		if c.Matched != 2 || c.Feed.N != 1 || c.Feed.P50 != 10*time.Millisecond || c.ToStart.Max != 30*time.Millisecond || c.Round.Max != 60*time.Millisecond || c.After.Max != 250*time.Millisecond {
			t.Errorf("create breakdown %+v", c)
		}
		if c.Call.N != 3 || c.Call.Max != 35*time.Millisecond {
			t.Errorf("create admin calls %+v, want 3 timed, the longest 35ms", c.Call)
		}
		if q.Admin != 1 || q.From != "" {
			t.Errorf("quota row %+v: want its one change timed from the admin return", q)
		}
		if all.Written != 4 || all.Lost != 1 || all.Arrived != 3 || all.Lag.Max != 280*time.Millisecond {
			t.Errorf("all row %+v", all)
		}
		var out strings.Builder
		printLagTables(&out, rows)
		for _, want := range []string{"topic-create", "(1: admin return)", "where the time goes"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("table lacks %q:\n%s", want, out.String())
			}
		}
	})
}
