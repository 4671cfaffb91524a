package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncsession"
	"github.com/zkmigrate/zkmigrate/tui"
)

// syncUI is sync --interactive: the first plan in the TUI review, then the
// sync screen, fed every round. The screen starts once the review is
// confirmed, or with the first round when there was nothing to review.
// Its methods work on a nil *syncUI (no screen).
type syncUI struct {
	e      *env
	title  string
	freeze func()
	state  func() syncsession.State

	start     chan struct{} // closed when the screen should start
	startOnce sync.Once

	// Used by the command's loop only:
	running bool
	pending []syncsession.Round // rounds before the screen started
	rounds  chan syncsession.Round
	cancel  context.CancelFunc
	done    chan struct{} // closed when the screen has returned
	err     error
}

func newSyncUI(e *env, target, source string, freeze func(), state func() syncsession.State) *syncUI {
	return &syncUI{e: e, title: source + " → " + target, freeze: freeze, state: state, start: make(chan struct{}),
		rounds: make(chan syncsession.Round, 64), done: make(chan struct{})}
}

func (u *syncUI) begin() { u.startOnce.Do(func() { close(u.start) }) }

// confirm reviews the first plan (the session's confirm). Sync keeps the
// whole target equal to the source, so a selection that leaves changes
// out is refused: the next reconciliation would send them anyway.
func (u *syncUI) confirm(ctx context.Context, p *plan.Plan) bool {
	sel, ok, err := tui.ReviewApply(ctx, p, tuiOptions(u.e))
	switch {
	case err != nil:
		fmt.Fprintf(u.e.stderr, "migrate sync: %v\n", err)
		return false
	case !ok:
		return false
	case len(sel.Changes) != len(p.Changes):
		fmt.Fprintf(u.e.stderr, "migrate sync: the review left %d of %d changes out, but sync keeps the whole target equal to the source and its next reconciliation would send them; narrow what sync manages with --topics or a --policy instead.\n",
			len(p.Changes)-len(sel.Changes), len(p.Changes))
		return false
	}
	u.begin()
	return true
}

// started is closed when the screen should start (nil once it runs).
func (u *syncUI) started() <-chan struct{} {
	if u == nil || u.running {
		return nil
	}
	return u.start
}

// ended is closed when the screen has returned (nil before it runs).
func (u *syncUI) ended() <-chan struct{} {
	if u == nil || !u.running {
		return nil
	}
	return u.done
}

// run starts the screen and hands it the rounds that came before.
func (u *syncUI) run(ctx context.Context) {
	u.running = true
	uctx, cancel := context.WithCancel(ctx)
	u.cancel = cancel
	go func() {
		defer close(u.done)
		u.err = tui.RunSyncView(uctx, tui.SyncView{Title: u.title, Rounds: u.rounds, Freeze: u.freeze, State: u.state}, tuiOptions(u.e))
	}()
	for _, r := range u.pending {
		u.send(r)
	}
	u.pending = nil
}

// send gives the screen a round (kept until it starts; dropped once it
// has ended).
func (u *syncUI) send(r syncsession.Round) {
	if !u.running {
		u.pending = append(u.pending, r)
		u.begin()
		return
	}
	select {
	case u.rounds <- r:
	case <-u.done:
	}
}

// close ends the screen and waits for it to restore the terminal.
func (u *syncUI) close() {
	if u == nil || !u.running {
		return
	}
	u.cancel()
	<-u.done
}

// report prints the screen's own failure, if any (quitting is none).
func (u *syncUI) report() {
	if u != nil && u.err != nil && !errors.Is(u.err, context.Canceled) {
		fmt.Fprintf(u.e.stderr, "migrate sync: %v\n", u.err)
	}
}
