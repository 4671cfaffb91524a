package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// SyncFlow is sync --interactive: the first plan in the review, then the
// sync screen, fed every round. The screen starts once the review is
// confirmed, or with the first round when there was nothing to review.
// The command's loop selects on Started and Ended, calls Run and Send,
// and Close when sync ends. Its methods work on a nil *SyncFlow (no
// screen).
type SyncFlow struct {
	view SyncView
	o    Options
	warn func(error) // a failure of the review or the screen, for the command to print

	start     chan struct{} // closed when the screen should start
	startOnce sync.Once

	// Used by the command's loop only:
	running bool
	pending []syncer.Round // rounds before the screen started
	rounds  chan syncer.Round
	cancel  context.CancelFunc
	done    chan struct{} // closed when the screen has returned
	err     error
}

// NewSyncFlow is the flow of a sync from source to target; freeze and
// state are the session's (the screen's f key and banner), warn hears a
// failure of the review or the screen.
func NewSyncFlow(source, target string, freeze func(), state func() syncer.State, warn func(error), o Options) *SyncFlow {
	u := &SyncFlow{o: o, warn: warn, start: make(chan struct{}), rounds: make(chan syncer.Round, 64), done: make(chan struct{})}
	u.view = SyncView{Title: source + " → " + target, Rounds: u.rounds, Freeze: freeze, State: state}
	return u
}

func (u *SyncFlow) begin() { u.startOnce.Do(func() { close(u.start) }) }

// Confirm reviews the first plan (the session's confirm). Sync keeps the
// whole target equal to the source, so a selection that leaves changes
// out is refused: the next reconciliation would send them anyway.
func (u *SyncFlow) Confirm(ctx context.Context, p *plan.Plan) bool {
	sel, ok, err := ReviewApply(ctx, p, u.o)
	switch {
	case err != nil:
		u.warn(err)
		return false
	case !ok:
		return false
	case len(sel.Changes) != len(p.Changes):
		u.warn(fmt.Errorf("the review left %d of %d changes out, but sync keeps the whole target equal to the source and its next reconciliation would send them; narrow what sync manages with --topics or a --policy instead.",
			len(p.Changes)-len(sel.Changes), len(p.Changes)))
		return false
	}
	u.begin()
	return true
}

// Started is closed when the screen should start (nil once it runs).
func (u *SyncFlow) Started() <-chan struct{} {
	if u == nil || u.running {
		return nil
	}
	return u.start
}

// Ended is closed when the screen has returned (nil before it runs).
func (u *SyncFlow) Ended() <-chan struct{} {
	if u == nil || !u.running {
		return nil
	}
	return u.done
}

// Run starts the screen and hands it the rounds that came before.
func (u *SyncFlow) Run(ctx context.Context) {
	u.running = true
	uctx, cancel := context.WithCancel(ctx)
	u.cancel = cancel
	go func() {
		defer close(u.done)
		u.err = RunSyncView(uctx, u.view, u.o)
	}()
	for _, r := range u.pending {
		u.Send(r)
	}
	u.pending = nil
}

// Send gives the screen a round (kept until it starts; dropped once it
// has ended).
func (u *SyncFlow) Send(r syncer.Round) {
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

// Close ends the screen and waits for it to restore the terminal.
func (u *SyncFlow) Close() {
	if u == nil || !u.running {
		return
	}
	u.cancel()
	<-u.done
}

// Report passes on the screen's own failure, if any (quitting is none).
func (u *SyncFlow) Report() {
	if u != nil && u.err != nil && !errors.Is(u.err, context.Canceled) {
		u.warn(u.err)
	}
}
