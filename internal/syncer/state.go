package syncer

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// Phase is where a sync stands: what its status line, JSON status
// events, TUI banner and readiness endpoint all say.
type Phase string

// The phases.
const (
	// InStep: every change taken from the source was applied and shown
	// by every target broker (or is blocked, and was reported).
	InStep Phase = "IN STEP"
	// Behind: a change taken from the source is not on the target yet:
	// on its way, failed, unverified, or the first round is not done.
	Behind Phase = "BEHIND"
	// Freezing: frozen, and a round begun before the freeze is still
	// running (it sends nothing more).
	Freezing Phase = "FREEZING"
	// Frozen: frozen, nothing in flight; nothing is sent.
	Frozen Phase = "FROZEN"
)

// State is a sync's state at one moment.
type State struct {
	Phase Phase
	// Pending counts the resources taken from the source that the target
	// does not show yet: on their way, failed, unverified, or not sent (a
	// freeze came first, or came before).
	Pending int
	// Failed counts those of Pending whose last attempt failed (an error,
	// a refusal, a verify that never saw it).
	Failed int
	// Oldest is when the oldest pending resource was first seen (zero
	// when none is pending).
	Oldest time.Time
	// Names are the pending resources (a change id, an entity, or
	// "everything" when a full round failed), sorted.
	Names []string
	// Started: the first round has finished.
	Started bool
	// InFlight is how many rounds are running.
	InFlight int
	// LastTurn is when the loop last turned (took an event, a tick, a
	// round's end): the process is alive and following.
	LastTurn time.Time
}

// OldestAge is how long the oldest pending resource has waited.
func (s State) OldestAge(now time.Time) time.Duration {
	if s.Oldest.IsZero() {
		return 0
	}
	return max(now.Sub(s.Oldest), 0)
}

// Describe is the state in words: the phase and, when something is
// pending, how much and for how long ("BEHIND: 2 pending, 1 failed,
// oldest 4.2s").
func (s State) Describe(now time.Time) string {
	out := string(s.Phase)
	if !s.Started {
		out += " (the first round is not done)"
	}
	if s.Pending > 0 {
		out += fmt.Sprintf(": %d pending, %d failed, oldest %s", s.Pending, s.Failed, s.OldestAge(now).Round(time.Millisecond))
	}
	return out
}

// Tracker keeps a sync's State from the rounds Run launches and
// reports; it is safe to read while Run updates it. Give one to Run in
// Config.Tracker.
type Tracker struct {
	mu       sync.Mutex
	freeze   <-chan struct{}
	started  bool
	inFlight int
	lastTurn time.Time
	pending  map[string]*pending
}

// pending is one resource not yet on the target.
type pending struct {
	scope  *decoded // what clears it: a round over this scope (nil: any full round)
	since  time.Time
	failed bool
}

// NewTracker returns a Tracker; freeze is sync's freeze channel.
func NewTracker(freeze <-chan struct{}) *Tracker {
	return &Tracker{freeze: freeze, pending: map[string]*pending{}}
}

// State returns the state now.
func (t *Tracker) State() State {
	if t == nil {
		return State{Phase: InStep}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st := State{Started: t.started, InFlight: t.inFlight, LastTurn: t.lastTurn, Pending: len(t.pending)}
	for name, p := range t.pending {
		st.Names = append(st.Names, name)
		if p.failed {
			st.Failed++
		}
		if st.Oldest.IsZero() || p.since.Before(st.Oldest) {
			st.Oldest = p.since
		}
	}
	slices.Sort(st.Names)
	frozen := false
	if t.freeze != nil {
		select {
		case <-t.freeze:
			frozen = true
		default:
		}
	}
	switch {
	case frozen && t.inFlight > 0:
		st.Phase = Freezing
	case frozen:
		st.Phase = Frozen
	case !t.started || st.Pending > 0 || t.inFlight > 0:
		st.Phase = Behind
	default:
		st.Phase = InStep
	}
	return st
}

// turn notes that the loop turned.
func (t *Tracker) turn(now time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.lastTurn = now
	t.mu.Unlock()
}

// begun notes a round begun (ended, or the round's report, ends it).
func (t *Tracker) begun() {
	if t != nil {
		t.mu.Lock()
		t.inFlight++
		t.mu.Unlock()
	}
}

// ended notes a round begun and dropped unreported (sync's stop cut its
// reads short).
func (t *Tracker) ended() {
	if t != nil {
		t.mu.Lock()
		t.inFlight--
		t.mu.Unlock()
	}
}

// take marks entities read from the source, first notified at since,
// as pending until a round covers them.
func (t *Tracker) take(taken []zkfeed.Entity, since time.Time, n naming) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range taken {
		name := e.String()
		if _, ok := t.pending[name]; ok {
			continue
		}
		d := NewScope([]zkfeed.Entity{e}).decode().target(n)
		t.pending[name] = &pending{scope: &d, since: since}
	}
}

// done applies a reported round: what it covers is cleared (a full
// round: everything), and what it left undone is pending again (since it
// was first seen). launched: it was counted by begun.
func (t *Tracker) done(r Round, launched bool, n naming) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if launched {
		t.inFlight--
	}
	if r.Reason == ReasonSkipped {
		return
	}
	since := func(name string, at time.Time) time.Time {
		if p, ok := t.pending[name]; ok && p.since.Before(at) {
			return p.since
		}
		return at
	}
	oldest := r.Started
	full := !r.Scoped
	var scope decoded
	if !full {
		scope = NewScope(r.Entities).decode().target(n)
	}
	// What this round covers is cleared, then what it left undone added.
	kept := map[string]*pending{}
	for name, p := range t.pending {
		if !full && (p.scope == nil || !scope.meets(*p.scope)) {
			kept[name] = p
			continue
		}
		if p.since.Before(oldest) {
			oldest = p.since
		}
	}
	undone := map[string]*pending{}
	add := func(name string, c *plan.Change, failed bool) {
		var d *decoded
		if c != nil {
			dd := decodedOf(*c)
			d = &dd
		}
		undone[name] = &pending{scope: d, since: since(name, oldest), failed: failed}
	}
	switch {
	case r.Err != nil && len(r.Changes) == 0 && full:
		add(fmt.Sprintf("everything (the %s round failed)", r.Reason), nil, true)
	case r.Err != nil && len(r.Changes) == 0:
		for _, e := range r.Entities {
			name := e.String()
			d := NewScope([]zkfeed.Entity{e}).decode().target(n)
			undone[name] = &pending{scope: &d, since: since(name, oldest), failed: true}
		}
	case r.Frozen:
		for i := range r.Changes {
			add(r.Changes[i].ID, &r.Changes[i], false)
		}
	default:
		failed := map[string]bool{}
		for _, id := range r.Outcome.FailedIDs {
			failed[id] = true
		}
		for _, id := range r.Outcome.UnverifiedIDs {
			failed[id] = true
		}
		guess := r.Err != nil || len(r.Outcome.FailedIDs) < r.Outcome.Failed || len(r.Outcome.UnverifiedIDs) < r.Outcome.Unverified
		for i := range r.Changes {
			c := &r.Changes[i]
			switch {
			case slices.ContainsFunc(r.Unsent, func(u plan.Change) bool { return u.ID == c.ID }):
				add(c.ID, c, false)
			case failed[c.ID] || guess:
				// A round that failed without naming which changes
				// did: every one of them may be undone.
				add(c.ID, c, true)
			}
		}
	}
	t.pending = kept
	maps.Copy(t.pending, undone)
	if r.N > 0 {
		t.started = true
	}
}
