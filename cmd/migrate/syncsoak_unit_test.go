package main

import (
	"slices"
	"testing"
	"time"
)

// The arithmetic of BenchmarkSyncSoak's report, on made-up samples.

func TestReadRSS(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   string
		rss, hwm int64
		ok       bool
	}{
		{"both", "Name:\tmigrate\nVmHWM:\t  81234 kB\nVmRSS:\t   70000 kB\nThreads:\t9\n", 70000, 81234, true},
		{"no VmHWM", "VmRSS:\t70000 kB\n", 70000, 0, false},
		{"a kernel thread", "Name:\tkthreadd\nThreads:\t1\n", 0, 0, false},
		{"garbage", "VmRSS:\tlots kB\nVmHWM:\t1 kB\n", 0, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rss, hwm, ok := readRSS([]byte(tc.status))
			if rss != tc.rss || hwm != tc.hwm || ok != tc.ok {
				t.Errorf("readRSS = %d, %d, %v; want %d, %d, %v", rss, hwm, ok, tc.rss, tc.hwm, tc.ok)
			}
		})
	}
}

func TestSummarizeRSS(t *testing.T) {
	// s makes a sample every second from from to to (seconds since the
	// writer started) with RSS f(second).
	s := func(from, to int, f func(int) int64) []rssSample {
		var out []rssSample
		for i := from; i <= to; i++ {
			out = append(out, rssSample{At: time.Duration(i) * time.Second, RSS: f(i), HWM: f(i) + 10})
		}
		return out
	}
	flat := func(int) int64 { return 50_000 }
	for _, tc := range []struct {
		name        string
		samples     []rssSample
		run         time.Duration
		first, last int64
		perHour     float64
		peak        int64
		window      time.Duration
	}{
		{"flat ten minutes", s(-5, 610, flat), 10 * time.Minute, 50_000, 50_000, 0, 50_010, time.Minute},
		// 1 kB a second: the first minute's median is at 30 s, the last's at
		// 570 s; the midpoints are 540 s apart and so are the medians in kB.
		{"steady growth", s(0, 600, func(i int) int64 { return 40_000 + int64(i) }), 10 * time.Minute, 40_030, 40_570, 3600, 40_610, time.Minute},
		// A spike in the middle moves the peak, not the medians; samples
		// after the run (the drain) are not in the last window.
		{"a spike and a drain", append(append(s(0, 299, flat), rssSample{At: 300 * time.Second, RSS: 90_000, HWM: 90_000}), s(301, 700, func(i int) int64 {
			if i > 600 {
				return 99_000
			}
			return 50_000
		})...), 10 * time.Minute, 50_000, 50_000, 0, 99_010, time.Minute},
		// Windows of 3 s: 0,0,0,1000 and 2000,2000,2000,3000 (lower middles).
		{"a short run uses thirds", s(0, 9, func(i int) int64 { return int64(1000 * (i / 3)) }), 9 * time.Second, 0, 2000, 2000 / (6.0 / 3600), 3010, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := summarizeRSS(tc.samples, tc.run)
			if m.First != tc.first || m.Last != tc.last || m.Peak != tc.peak || m.Window != tc.window {
				t.Errorf("first %d last %d peak %d window %s; want %d %d %d %s", m.First, m.Last, m.Peak, m.Window, tc.first, tc.last, tc.peak, tc.window)
			}
			if d := m.GrowthPerHour - tc.perHour; d > 1e-6 || d < -1e-6 {
				t.Errorf("growth %.3f kB/h, want %.3f", m.GrowthPerHour, tc.perHour)
			}
		})
	}
}

func TestCountRounds(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type id = struct{ ID string }
	rounds := []roundLine{
		{Reason: "initial", Error: "ignored: the first round", Started: at},
		{Reason: "change", Started: at.Add(time.Second), Entities: []string{"topic t-1"}},
		{Reason: "change", Started: at.Add(2 * time.Second), Failed: 2, Error: "apply failed"},
		// Three missed: the quota's and the ACL's notifications come in
		// the change rounds after it; t-1's came before it, and t-10's
		// only after the next reconciliation.
		{Reason: "reconcile", Started: at.Add(30 * time.Second),
			Missed: []id{{"quota:user=u-1"}, {"acl:Allow User:p Read on Topic:LITERAL:r-1 from *"}, {"topic-config:t-1"}, {"partitions:t-10"}},
			Drift:  []id{{"acl b"}, {"acl c"}}},
		{Reason: "change", Started: at.Add(31 * time.Second), Entities: []string{"config users/u-1", "topic t-100"}},
		{Reason: "resync", Started: at.Add(32 * time.Second), Entities: []string{"topic t-10"}},
		{Reason: "change", Started: at.Add(33 * time.Second), Entities: []string{"acl Topic:LITERAL:r-1"}},
		{Reason: "reconcile", Started: at.Add(60 * time.Second)},
		{Reason: "change", Started: at.Add(61 * time.Second), Entities: []string{"topic t-10"}},
	}
	c := countRounds(rounds)
	want := map[string]int{"initial": 1, "change": 5, "reconcile": 2, "resync": 1}
	if len(c.ByReason) != len(want) {
		t.Errorf("reasons %v, want %v", c.ByReason, want)
	}
	for k, n := range want {
		if c.ByReason[k] != n {
			t.Errorf("%s rounds %d, want %d", k, c.ByReason[k], n)
		}
	}
	if c.Errors != 1 || c.Failed != 2 || c.Missed != 4 || c.Announced != 2 || c.Drift != 2 || !c.LastReconcile.Equal(at.Add(60*time.Second)) {
		t.Errorf("errors %d failed %d missed %d announced %d drift %d last reconcile %s; want 1 2 4 2 2 %s", c.Errors, c.Failed, c.Missed, c.Announced, c.Drift, c.LastReconcile, at.Add(60*time.Second))
	}
}

func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		id, entity string
		want       bool
	}{
		{"topic:t-1", "topic t-1", true},
		{"topic-config:t-1", "config topics/t-1", true},
		{"partitions:t-1", "topic t-1", true},
		{"partitions:t-10", "topic t-1", false},
		{"topic:xt-1", "topic t-1", false},
		{"quota:user=u-1", "config users/u-1", true},
		{"quota:user=u-1,client-id=c", "config users/u-1", false},
		{"scram-user:u-1/SCRAM-SHA-256", "config users/u-1", true},
		{"acl:Allow User:p Read on Topic:LITERAL:r-1 from *", "acl Topic:LITERAL:r-1", true},
		{"acl:Allow User:p Read on Topic:LITERAL:r-10 from *", "acl Topic:LITERAL:r-1", false},
		{"acl:Allow User:p Read on Topic:PREFIXED:r-1 from *", "acl Topic:LITERAL:r-1", false},
		{"topic:t-1", "", false},
	} {
		if got := mentions(tc.id, entityName(tc.entity)); got != tc.want {
			t.Errorf("mentions(%q, entityName(%q) = %q) = %v, want %v", tc.id, tc.entity, entityName(tc.entity), got, tc.want)
		}
	}
}

// TestBalancedWriterUndoes: the balanced soak's writer deletes, revokes,
// clears and deletes (SCRAM) only what it added and the target showed,
// oldest first, never a resource with a change in flight, and skips the
// tick when there is none; so the synced set stays the same size.
func TestBalancedWriterUndoes(t *testing.T) {
	w := newLagWriter(&lagBed{prefix: "soak"}, 10)
	w.balance()
	// add makes a change of kind, as run and do would: picked, written,
	// kept for undoing, done; visible says whether the target showed it.
	add := func(kind string, visible bool) *lagOp {
		t.Helper()
		op := w.pick(kind, 0)
		if op == nil {
			t.Fatalf("no %s picked", kind)
		}
		w.book.add(op)
		w.added(op)
		w.release(op)
		if visible {
			w.book.observe(op.Kind, op.Resource, lagState{Present: true, Value: op.Want}, time.Now())
		}
		return op
	}
	for _, tc := range []struct{ add, undo string }{
		{lagCreate, lagDelete},
		{lagGrant, lagRevoke},
		{lagSCRAM, lagSCRAMDelete},
		{lagQuota, lagQuotaClear},
	} {
		if op := w.pick(tc.undo, 0); op != nil {
			t.Fatalf("%s picked %s before any %s", tc.undo, op.Resource, tc.add)
		}
		a1 := add(tc.add, false)
		if op := w.pick(tc.undo, 0); op != nil {
			t.Fatalf("%s picked %s before the target showed it", tc.undo, op.Resource)
		}
		w.book.observe(a1.Kind, a1.Resource, lagState{Present: true, Value: a1.Want}, time.Now())
		a2 := add(tc.add, true)
		u1 := w.pick(tc.undo, 0)
		if u1 == nil || u1.Resource != a1.Resource {
			t.Fatalf("%s picked %v, want the oldest %s, %s", tc.undo, u1, tc.add, a1.Resource)
		}
		if a2.Resource != a1.Resource { // (a quota set may reuse a pool user)
			u2 := w.pick(tc.undo, 0)
			if u2 == nil || u2.Resource != a2.Resource {
				t.Fatalf("%s picked %v, want %s", tc.undo, u2, a2.Resource)
			}
			w.release(u2)
		}
		if op := w.pick(tc.undo, 0); op != nil {
			t.Fatalf("%s picked %s with every %s undone", tc.undo, op.Resource, tc.add)
		}
		w.release(u1)
	}
	if slices.Contains(w.kinds, lagPartitions) {
		t.Errorf("the balanced writer increases partitions, which cannot be undone: %v", w.kinds)
	}
}
