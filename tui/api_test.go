package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

// typist writes keys to the program's input one at a time, then repeats
// the last one until stop is closed (to leave an end screen whenever it
// appears).
func typist(w *io.PipeWriter, keys string, repeat string, stop <-chan struct{}) {
	for _, b := range []byte(keys) {
		time.Sleep(20 * time.Millisecond)
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
	}
	for repeat != "" {
		select {
		case <-stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := w.Write([]byte(repeat)); err != nil {
			return
		}
	}
}

func TestSessionAPI(t *testing.T) {
	var applied *plan.Plan
	fake := fixture.FakeApply(fixture.ApplyOptions{Fail: failPayments})
	run := func(ctx context.Context, p *plan.Plan, obs applyObserver) error {
		applied = p
		return fake(ctx, p, obs)
	}
	pr, pw := io.Pipe()
	stop := make(chan struct{})
	go typist(pw, "x\ry", "\r", stop) // exclude topics, confirm, apply, then leave the end screen
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Session(ctx, fixture.Plan(), run, 5, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	close(stop)
	pw.Close()
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	left := selectable(fixture.Plan()) - selectableOf(fixture.Plan(), plan.KindTopic)
	if want := (Result{Succeeded: left - 1, Failed: 1}); res != want {
		t.Errorf("Session result %+v, want %+v", res, want)
	}
	if applied == nil || len(applied.Changes) != left {
		t.Fatalf("applied plan %v, want the %d changes left after excluding topics", applied, left)
	}
	for _, c := range applied.Changes {
		if c.Kind == plan.KindTopic {
			t.Errorf("excluded change %s was applied", c.ID)
		}
	}
}

func TestSessionQuitBeforeApply(t *testing.T) {
	called := false
	run := func(context.Context, *plan.Plan, applyObserver) error { called = true; return nil }
	pr, pw := io.Pipe()
	go typist(pw, "q", "", nil)
	res, err := Session(context.Background(), fixture.Plan(), run, 0, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	pw.Close()
	if err != nil || called || !res.Canceled {
		t.Errorf("Session after q: result %+v, err %v, apply called %v; want canceled, no error, no apply", res, err, called)
	}
}

func TestLoadingAPI(t *testing.T) {
	boom := errors.New("zkread: connect zk1:2181: connection refused")
	cases := []struct {
		name string
		err  error
	}{
		{"work succeeds", nil},
		{"work fails", boom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			steps := 0
			err := Loading(context.Background(), "Reading", func(ctx context.Context, step func(string, int, int)) error {
				for i := 0; i < 3; i++ {
					step("reading topics", i, 3)
					steps++
				}
				return tc.err
			}, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Errorf("Loading: %v, want %v", err, tc.err)
			}
			if steps != 3 {
				t.Errorf("work ran %d steps, want 3", steps)
			}
		})
	}
}

func TestLoadingCanceledByContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	err := Loading(ctx, "Reading", func(ctx context.Context, step func(string, int, int)) error {
		close(started)
		<-ctx.Done() // the work must see the cancellation
		return ctx.Err()
	}, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Loading: %v, want context.Canceled", err)
	}
}

func TestHistoryAPI(t *testing.T) {
	pr, pw := io.Pipe()
	stop := make(chan struct{})
	go typist(pw, "j\r\tq", "", stop) // move, open a run, switch to its RPCs, quit
	err := History(context.Background(), fakeHistory{}, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	close(stop)
	pw.Close()
	if err != nil {
		t.Errorf("History: %v", err)
	}
}

// TestSessionApplyPanics checks that a panicking apply function ends the
// session with an error instead of killing the process in raw mode.
func TestSessionApplyPanics(t *testing.T) {
	run := func(context.Context, *plan.Plan, applyObserver) error { panic("boom") }
	pr, pw := io.Pipe()
	stop := make(chan struct{})
	go typist(pw, "\ry", "\r", stop)
	_, err := Session(context.Background(), fixture.Plan(), run, 0, Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: io.Discard})
	close(stop)
	pw.Close()
	if err == nil || !strings.Contains(err.Error(), "panicked: boom") {
		t.Errorf("Session with a panicking apply: %v, want a panicked error", err)
	}
}
