package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

var syncT0 = time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)

// syncRounds is a sync's first rounds: the initial one, two change rounds
// (one failed), a reconciliation that found drift and a missed change.
func syncRounds() []syncer.Round {
	p := fixture.Plan()
	at := func(s int) time.Time { return syncT0.Add(time.Duration(s) * time.Second) }
	return []syncer.Round{
		{N: 1, Reason: syncer.ReasonInitial, Zxid: 0x100, Finished: at(2), Changes: p.Changes, Outcome: syncer.Outcome{Applied: len(p.Changes)}},
		{N: 2, Reason: syncer.ReasonChange, Zxid: 0x104, Finished: at(10), Lag: 182 * time.Millisecond,
			Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}, Changes: p.Changes[:1], Outcome: syncer.Outcome{Applied: 1}},
		{N: 3, Reason: syncer.ReasonChange, Zxid: 0x109, Finished: at(20), Lag: 2400 * time.Millisecond,
			Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/payments"}, {Kind: zkfeed.ACL, Name: "Topic:LITERAL:payments"}, {Kind: zkfeed.Topic, Name: "payments"}},
			Changes:  p.Changes[1:3], Outcome: syncer.Outcome{Failed: 2},
			Err: errors.New("applying: IncrementalAlterConfigs to broker 1: dial tcp kraft1:9092: connection refused")},
		{N: 4, Reason: syncer.ReasonRetry, Zxid: 0x109, Finished: at(22), Changes: p.Changes[1:3], Outcome: syncer.Outcome{Applied: 2}},
		{N: 5, Reason: syncer.ReasonReconcile, Zxid: 0x10c, Finished: at(300), Missed: p.Changes[3:4], Drift: p.Changes[4:6],
			Changes: p.Changes[3:6], Outcome: syncer.Outcome{Applied: 3}},
	}
}

// frozenRounds follow syncRounds after a freeze: one quiet, one that saw
// the source change.
func frozenRounds() []syncer.Round {
	p := fixture.Plan()
	return []syncer.Round{
		{N: 6, Reason: syncer.ReasonReconcile, Zxid: 0x10c, Finished: syncT0.Add(600 * time.Second), Frozen: true},
		{N: 7, Reason: syncer.ReasonChange, Zxid: 0x111, Finished: syncT0.Add(605 * time.Second), Lag: 35 * time.Millisecond, Frozen: true,
			Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "late-topic"}}, Changes: p.Changes[:5], AfterCut: p.Changes[:5]},
	}
}

// newSyncRoot is a sync screen at w×h, up for 10 minutes, fed rs; freeze
// counts its calls in *froze.
func newSyncRoot(w, h int, froze *int, rs ...syncer.Round) *root {
	c := newCommon(true, w, h)
	s := newSyncScreen(c, "zk1:2181 → kraft1:9092", nil, func() { *froze++ })
	s.since = syncT0
	s.now = func() time.Time { return syncT0.Add(10 * time.Minute) }
	m := &root{c: c, state: stateSync, sync: s}
	send(m, syncRoundsMsg{rounds: rs})
	return m
}

func TestSyncScreens(t *testing.T) {
	cases := []struct {
		name   string
		rounds []syncer.Round
		keys   []string
	}{
		{"waiting", nil, nil},
		{"stream", syncRounds(), nil},
		{"scrolled", syncRounds(), []string{"jjj"}},
		{"freeze-question", syncRounds(), []string{"f"}},
		{"freezing", syncRounds(), []string{"f", "y"}},
		{"frozen-change", append(syncRounds(), frozenRounds()...), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forSizes(t, func(t *testing.T, w, h int) {
				var froze int
				m := newSyncRoot(w, h, &froze, tc.rounds...)
				drive(t, m, tc.keys...)
				requireGolden(t, view(m))
			})
		})
	}
}

// TestSyncCounts: the counts line sums every round, not only those shown.
func TestSyncCounts(t *testing.T) {
	var froze int
	rs := syncRounds()
	m := newSyncRoot(80, 24, &froze, rs...)
	c := m.sync.counts
	want := syncCounts{rounds: 5, failed: 2, errors: 1, missed: 1, drift: 2, lastZxid: 0x10c,
		lastLag: 2400 * time.Millisecond, maxLag: 2400 * time.Millisecond}
	want.applied = len(fixture.Plan().Changes) + 1 + 2 + 3
	if c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	got := ansi.Strip(view(m))
	for _, s := range []string{"rounds 5", fmt.Sprintf("applied %d", want.applied), "failed 2", "missed 1", "drift 2", "zxid 0x10c", "max 2.4s"} {
		if !strings.Contains(got, s) {
			t.Errorf("view lacks %q:\n%s", s, got)
		}
	}
}

// TestSyncFreezeKey: f asks; only yes freezes, once; once frozen f does
// nothing more.
func TestSyncFreezeKey(t *testing.T) {
	cases := []struct {
		name      string
		keys      []string
		wantCalls int
		asking    bool
	}{
		{"f asks, nothing yet", []string{"f"}, 0, true},
		{"f then n", []string{"f", "n"}, 0, false},
		{"f then esc", []string{"f", "esc"}, 0, false},
		{"f then q closes the question only", []string{"f", "q"}, 0, false},
		{"f then y", []string{"f", "y"}, 1, false},
		{"f then enter", []string{"f", "enter"}, 1, false},
		{"twice", []string{"f", "y", "f", "y"}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var froze int
			m := newSyncRoot(80, 24, &froze, syncRounds()...)
			drive(t, m, tc.keys...)
			if froze != tc.wantCalls || m.sync.askingFz != tc.asking {
				t.Errorf("freeze called %d times, asking %v; want %d, %v", froze, m.sync.askingFz, tc.wantCalls, tc.asking)
			}
			if m.quit {
				t.Errorf("keys %v quit the screen", tc.keys)
			}
		})
	}
	var froze int
	m := newSyncRoot(80, 24, &froze, append(syncRounds(), frozenRounds()...)...)
	drive(t, m, "f")
	if m.sync.askingFz {
		t.Error("frozen: f still asks to freeze")
	}
}

func TestSyncQuitKey(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		var froze int
		m := newSyncRoot(80, 24, &froze, syncRounds()...)
		drive(t, m, k)
		if !m.quit || froze != 0 {
			t.Errorf("%s: quit %v, freeze calls %d; want quit, no freeze", k, m.quit, froze)
		}
	}
}

// TestSyncKeepsBoundedRounds: a long sync keeps the newest syncKeep rounds
// while the counts cover all of them.
func TestSyncKeepsBoundedRounds(t *testing.T) {
	var froze int
	m := newSyncRoot(80, 24, &froze)
	n := syncKeep*2 + 7
	for i := 1; i <= n; i++ {
		send(m, syncRoundsMsg{rounds: []syncer.Round{{N: i, Reason: syncer.ReasonChange, Outcome: syncer.Outcome{Applied: 1}}}})
	}
	s := m.sync
	if len(s.rounds) != syncKeep || s.rounds[0].N != n-syncKeep+1 || s.rounds[syncKeep-1].N != n {
		t.Errorf("kept %d rounds (%d..%d), want the newest %d", len(s.rounds), s.rounds[0].N, s.rounds[len(s.rounds)-1].N, syncKeep)
	}
	if s.counts.rounds != n || s.counts.applied != n {
		t.Errorf("counts %+v, want %d rounds and applied", s.counts, n)
	}
}

// TestRunSyncAPI drives the program: rounds arrive, f y freezes, q ends it.
func TestRunSyncAPI(t *testing.T) {
	rounds := make(chan syncer.Round)
	froze := make(chan struct{}, 4)
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		done <- RunSync(context.Background(), "zk → kraft", rounds, func() { froze <- struct{}{} },
			Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	}()
	for _, r := range syncRounds() {
		rounds <- r // RunSync reads them while it runs
	}
	go typist(pw, "fyq", "", nil)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunSync: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunSync did not return after q")
	}
	if len(froze) != 1 {
		t.Errorf("freeze called %d times, want 1", len(froze))
	}
}

// TestRunSyncEnds: RunSync returns when the rounds channel is closed, and
// when its context ends.
func TestRunSyncEnds(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rounds := make(chan syncer.Round, 1)
	rounds <- syncRounds()[0]
	close(rounds)
	if err := RunSync(context.Background(), "t", rounds, nil, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard}); err != nil {
		t.Errorf("RunSync after close: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	err := RunSync(ctx, "t", make(chan syncer.Round), nil, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RunSync after cancel: %v, want context.Canceled", err)
	}
}

// TestSyncStateNamesHowItFollows: in step, the banner says whether sync
// follows ZooKeeper's change feed or polls a source read through its brokers.
func TestSyncStateNamesHowItFollows(t *testing.T) {
	for reason, want := range map[string]string{
		syncer.ReasonChange: "following ZooKeeper's change feed",
		syncer.ReasonPoll:   "polling the source through its brokers",
	} {
		var froze int
		m := newSyncRoot(100, 24, &froze, syncer.Round{N: 1, Reason: reason, Finished: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)})
		if got := ansi.Strip(view(m)); !strings.Contains(got, "in step · "+want) {
			t.Errorf("a %s round: the view lacks %q:\n%s", reason, want, got)
		}
	}
}

// TestSyncBannerFromState: given the sync's state, the banner says what
// the status line and /readyz say (BEHIND with what is pending, though
// the last round went well; IN STEP; FREEZING), not what the last round
// alone suggests.
func TestSyncBannerFromState(t *testing.T) {
	for _, tc := range []struct {
		state syncer.State
		want  string
	}{
		{syncer.State{Phase: syncer.Behind, Started: true, Pending: 2, Failed: 1, Oldest: syncT0.Add(9 * time.Minute)}, "BEHIND: 2 pending, 1 failed, oldest 1m0s"},
		{syncer.State{Phase: syncer.Behind}, "BEHIND (the first round is not done)"},
		{syncer.State{Phase: syncer.InStep, Started: true}, "IN STEP"},
		{syncer.State{Phase: syncer.Freezing, Started: true}, "FREEZING"},
	} {
		var froze int
		rs := syncRounds()[:1] // the last round shown went well
		m := newSyncRoot(100, 30, &froze, rs...)
		m.sync.state = func() syncer.State { return tc.state }
		if got := ansi.Strip(view(m)); !strings.Contains(got, tc.want) {
			t.Errorf("state %s: the view lacks %q:\n%s", tc.state.Phase, tc.want, got)
		}
	}
}
