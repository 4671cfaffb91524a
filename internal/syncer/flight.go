package syncer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// Change rounds: launched by the loop, each on its own goroutine, beside
// the others that share no resource with it; reported in order.

// DefaultMaxInFlight is how many change rounds may be applying at once
// unless Config.MaxInFlight says otherwise: one. What is notified meanwhile
// is read from the source and gathered for the round that follows; rounds
// being verified, and held entities, run beside it. More than one made
// rounds smaller and the test bed's 4.1 brokers, which pass writes to
// the controller a few at a time, slower (docs/benchmarks.md).
const DefaultMaxInFlight = 1

// batch is what a change round is for: the entities notified.
type batch struct {
	scope Scope
	first time.Time // the first notification seen
	// written is when ZooKeeper wrote the earliest of its notifications,
	// when the feed knows it (zero otherwise).
	written time.Time
	zxid    int64
	reason  string // ReasonChange, or ReasonRetry for a retry of what failed
}

// flight is a change round on its way: launched by the loop with its part
// of the source, run on its own goroutine, reported by the loop in order.
type flight struct {
	r             Round // the goroutine's until done is closed
	first         time.Time
	written       time.Time
	scope         decoded       // every resource the round may change
	applied       chan struct{} // closed once the round has applied (or failed)
	done          chan struct{} // closed once it has also been verified
	targetBrokers int           // how many brokers its read of the target listed (-1: no read)
	dropped       bool          // sync's stop cut its reads short: not reported

	// What it holds: its scope until it has applied, then the resources
	// of the changes it applied that some broker does not show yet
	// (released one by one as they show), nothing once done. all: a full
	// round's verify that holds everything until done.
	mu      sync.Mutex
	all     bool
	waiting map[string]plan.Change // nil: the scope (or all)
}

// meets reports whether the flight still holds a resource of d.
func (f *flight) meets(d decoded) bool {
	select {
	case <-f.done:
		return false
	default:
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.all:
		return true
	case f.waiting == nil:
		return f.scope.meets(d)
	}
	for _, c := range f.waiting {
		if decodedOf(c).meets(d) {
			return true
		}
	}
	return false
}

// await sets what the flight holds once it has applied: the resources
// of changes, until each shows (shown).
func (f *flight) await(changes []plan.Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.all = false
	f.waiting = map[string]plan.Change{}
	for _, c := range changes {
		f.waiting[c.ID] = c
	}
}

// shown releases a change's resource (once no other change of the
// flight waiting on it is left) and wakes the loop.
func (f *flight) shown(s *state) func(id string) {
	return func(id string) {
		f.mu.Lock()
		delete(f.waiting, id)
		f.mu.Unlock()
		s.signal()
	}
}

// scoped re-reads the scope's entities, patches the source and queues the
// entities for a round: dispatch launches one (a flight) for those that
// share nothing with a round in flight, once fewer than Config.MaxInFlight
// are applying; each of the others is held until the rounds it meets are done
// (launchHeld runs those ready together, as the source is then).
//
// A round plans the scope's part of the source against the scope's part
// of the target (read for just those entities) and applies that plan.
// Every kind plans a resource from that resource alone on each side plus
// the cluster-level facts both reads keep (the target's brokers and
// racks), so the plan's changes are those of a whole plan that touch the
// scope (TestScopedPlanEqualsFullPlan). One difference: a plan error that
// stops a whole plan (a topic --placement source cannot place, or one
// --broker-id-map does not cover) stops a change round only when the
// round's topics meet it.
//
// Holding an entity until the rounds in flight that meet it are applied
// and verified makes its round's target read show their changes on every
// broker (a broker behind would have them planned again, or hide an ACL a
// round created from the revoke that follows), and keeps their verify
// from seeing a later write to what it checks.
func (s *state) scoped(ctx context.Context, b *batch) {
	started := s.cfg.Now()
	scope := b.scope
	part, err := s.read(ctx, &scope)
	if err != nil {
		s.n++
		reason := b.reason
		if reason == "" {
			reason = ReasonChange
		}
		r := Round{N: s.n, Reason: reason, Scoped: true, Started: started, Frozen: s.frozen(), Zxid: b.zxid, Entities: scope.Entities()}
		r.Phases.ReadSource = s.since(started)
		r.Err = fmt.Errorf("re-reading %d changed entities: %w", scope.Size(), err)
		if stopping(ctx, s.source) {
			return
		}
		s.emit(r)
		return
	}
	if s.frozen() {
		srcScope, _ := scope.decode().reads()
		s.noteMoved(srcScope.Restrict(s.source), part)
	}
	s.source = Patch(s.source, scope, part)
	s.cfg.Tracker.take(scope.Entities(), b.first, s.naming())
	q := s.next
	if q == nil {
		q = &queued{b: batch{scope: NewScope(nil), first: b.first, written: b.written, reason: b.reason}}
		s.next = q
	}
	for _, e := range scope.Entities() {
		q.b.scope.Add(e)
	}
	q.b.first, q.b.written = earliest(q.b.first, b.first), earliest(q.b.written, b.written)
	q.b.zxid = max(q.b.zxid, b.zxid, zxidOf(part))
	q.readFor += s.since(started)
	s.dispatch(ctx)
}

// queued are the notified entities read from the source and not yet in a
// round: while Config.MaxInFlight rounds are applying they gather, and become one
// round (or a few held entities) once one has applied.
type queued struct {
	b       batch
	readFor time.Duration // the source reads of its entities
}

// dispatch, unless Config.MaxInFlight rounds are applying, launches a round for
// the queued entities that share nothing with a round in flight and holds
// each of the others until the rounds it meets are done.
func (s *state) dispatch(ctx context.Context) {
	q := s.next
	if q == nil || s.atCapacity() {
		return
	}
	s.next = nil
	free := NewScope(nil)
	for _, e := range q.b.scope.Entities() {
		d := NewScope([]zkfeed.Entity{e}).decode().target(s.naming())
		met := s.meeting(d)
		k := slices.IndexFunc(s.held, func(h *heldEntity) bool { return h.d.meets(d) })
		switch {
		case k >= 0: // held already: its round will read it as it is then
			h := s.held[k]
			h.zxid = max(h.zxid, q.b.zxid)
			for _, f := range met {
				if !slices.Contains(h.after, f) {
					h.after = append(h.after, f)
				}
			}
		case len(met) > 0:
			s.held = append(s.held, &heldEntity{e: e, d: d, after: met, first: q.b.first, written: q.b.written, since: s.cfg.Now(), zxid: q.b.zxid, readFor: q.readFor})
			if s.cfg.waiting != nil {
				s.cfg.waiting()
			}
		default:
			free.Add(e)
		}
	}
	if !free.Empty() {
		s.launch(ctx, &batch{scope: free, first: q.b.first, written: q.b.written, zxid: q.b.zxid, reason: q.b.reason}, q.readFor, 0)
	}
}

// heldEntity is a notified entity that meets rounds in flight: it runs
// once those are done, in one round with the other held entities ready
// then. Held entities share no resource: a later notification of one
// joins it.
type heldEntity struct {
	e       zkfeed.Entity
	d       decoded
	after   []*flight // the rounds in flight it meets
	first   time.Time // its first notification
	written time.Time
	since   time.Time // when it was held
	zxid    int64
	readFor time.Duration
}

// ready reports whether no round h waits for holds its resource any
// more: each has released it (its change shows on every broker) or is
// done.
func (h *heldEntity) ready() bool {
	for _, f := range h.after {
		if f.meets(h.d) {
			return false
		}
	}
	return true
}

// launchHeld launches one round for the held entities whose rounds are
// done, and reports whether it did.
func (s *state) launchHeld(ctx context.Context) bool {
	var ready []*heldEntity
	s.held = slices.DeleteFunc(s.held, func(h *heldEntity) bool {
		if h.ready() {
			ready = append(ready, h)
			return true
		}
		return false
	})
	if len(ready) == 0 {
		return false
	}
	b := &batch{scope: NewScope(nil)}
	var since time.Time
	var readFor time.Duration
	for _, h := range ready {
		b.scope.Add(h.e)
		b.zxid = max(b.zxid, h.zxid)
		b.first, b.written = earliest(b.first, h.first), earliest(b.written, h.written)
		if since.IsZero() || h.since.Before(since) {
			since = h.since
		}
		readFor = max(readFor, h.readFor)
	}
	s.launch(ctx, b, readFor, s.since(since))
	return true
}

// meeting returns the rounds in flight whose scope meets d.
func (s *state) meeting(d decoded) []*flight {
	var out []*flight
	for _, f := range s.flights {
		if f.meets(d) {
			out = append(out, f)
		}
	}
	return out
}

// launch starts a change round for b, whose source side is read: it runs
// on its own goroutine (fly), beside the rounds in flight, none of which
// meets it.
func (s *state) launch(ctx context.Context, b *batch, readFor, waited time.Duration) {
	s.n++
	reason := b.reason
	if reason == "" {
		reason = ReasonChange
	}
	r := Round{N: s.n, Reason: reason, Scoped: true, Started: s.cfg.Now(), Frozen: s.frozen(), Zxid: b.zxid, Entities: b.scope.Entities(), tracked: true}
	s.cfg.Tracker.begun()
	r.Phases.ReadSource, r.Phases.Wait = readFor, waited
	n := s.naming()
	d := b.scope.decode().target(n).merged(n, s.source)
	srcScope, tgtScope := d.reads()
	r.TargetScope = &tgtScope
	src := srcScope.Restrict(s.source)
	// The plan stage may add to these (static configs, findings): the
	// round's own copies, not the model's.
	src.StaticConfigs, src.Findings = slices.Clone(src.StaticConfigs), slices.Clone(src.Findings)
	f := &flight{r: r, first: b.first, written: b.written, scope: d, applied: make(chan struct{}), done: make(chan struct{}), targetBrokers: -1}
	s.flights = append(s.flights, f)
	go s.fly(ctx, f, src, tgtScope)
}

// fly runs a launched round (which meets no round in flight: dispatch and
// launchHeld see to that): it reads its part of the target, plans,
// applies and verifies. It touches only f and the stages.
func (s *state) fly(ctx context.Context, f *flight, src *snapshot.Snapshot, tgtScope kread.Scope) {
	defer s.signal()
	defer close(f.done)
	applied := sync.OnceFunc(func() { close(f.applied); s.signal() })
	defer applied()
	r := &f.r
	t := s.cfg.Now()
	tgt, err := s.readTargetScoped(ctx, tgtScope)
	r.Phases.ReadTarget = s.since(t)
	if err != nil {
		r.Err = fmt.Errorf("reading the target: %w", err)
		f.dropped = ctx.Err() != nil
		return
	}
	f.targetBrokers = len(tgt.Brokers)
	t = s.cfg.Now()
	s.planMu.Lock()
	p, err := s.cfg.Stages.Plan(src, tgt)
	s.planMu.Unlock()
	r.Phases.Plan = s.since(t)
	if err != nil {
		r.Err = fmt.Errorf("planning: %w", err)
		return
	}
	// Both sides hold only the scope, so every change and blocker is the
	// scope's; the filter only guards that.
	var changes []plan.Change
	for _, c := range p.Changes {
		if f.scope.covers(c) {
			changes = append(changes, c)
		}
	}
	r.Blockers = p.Blockers
	verify := s.apply(ctx, r, p, tgt, changes)
	if verify.each != nil {
		f.await(sentOf(*r))
	}
	applied()
	if verify.ok() {
		t = s.cfg.Now()
		verify.run(ctx, r, f.shown(s))
		r.Phases.Verify = s.since(t)
	}
	if !f.first.IsZero() {
		r.Seen, r.Lag = f.first, s.since(f.first)
	}
	if !f.written.IsZero() {
		r.WriteLag = s.since(f.written)
	}
}

// settle runs the held entities' round, waits for every round in flight
// and reports each in order.
func (s *state) settle() {
	ctx := context.Background() // the held round's, if its rounds are done: sync's stop lets it finish
	if s.ctx != nil {
		ctx = s.ctx
	}
	for len(s.flights) > 0 || len(s.held) > 0 || s.next != nil {
		if s.launchHeld(ctx) {
			continue
		}
		if s.next != nil && !s.atCapacity() {
			s.dispatch(ctx)
			continue
		}
		if len(s.flights) > 0 {
			<-s.flights[0].done
			s.reap()
		}
	}
}

// reap reports the rounds in flight that are done, oldest first, up to
// the first that is not.
func (s *state) reap() {
	for len(s.flights) > 0 {
		f := s.flights[0]
		select {
		case <-f.done:
		default:
			return
		}
		s.flights = s.flights[1:]
		if f.dropped {
			s.cfg.Tracker.ended()
			continue
		}
		if f.r.Err == nil && f.targetBrokers >= 0 {
			f.r.Err = s.brokersMissing(f.targetBrokers, f.r.Blockers)
		}
		s.report(f.r)
	}
}

// atCapacity reports whether as many rounds in flight as may apply at
// once have not applied yet (no round is launched until one has).
func (s *state) atCapacity() bool {
	most := s.cfg.MaxInFlight
	if most <= 0 {
		most = DefaultMaxInFlight
	}
	n := 0
	for _, f := range s.flights {
		select {
		case <-f.applied:
		default:
			n++
		}
	}
	return n >= most
}

// meets reports whether d and o name a resource in common on the target:
// a round over d may change what a round over o changes.
func (d decoded) meets(o decoded) bool {
	common := func(a, b map[string]bool) bool {
		if len(a) > len(b) {
			a, b = b, a
		}
		for k := range a {
			if b[k] {
				return true
			}
		}
		return false
	}
	if common(d.topics, o.topics) || common(d.targetUsers(), o.targetUsers()) || common(d.clients, o.clients) || common(d.ips, o.ips) || common(d.targetBrokers(), o.targetBrokers()) {
		return true
	}
	theirs := o.targetACLs()
	for a := range d.targetACLs() {
		if theirs[a] {
			return true
		}
	}
	return false
}

// earliest is the earlier of two times, a zero one counting as none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// signal wakes the loop: a round applied, released a resource or is done.
func (s *state) signal() {
	select {
	case s.wake <- struct{}{}:
	default: // the loop has a wake-up pending: it looks at every round
	}
}

// sentOf are the changes of r the target was sent and accepted: not
// failed, not held back by a freeze.
func sentOf(r Round) []plan.Change {
	var out []plan.Change
	for _, c := range r.Changes {
		if !slices.Contains(r.Outcome.FailedIDs, c.ID) && !slices.ContainsFunc(r.Unsent, func(u plan.Change) bool { return u.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out
}

// verifier is the verify an Apply left: per change (Outcome.VerifyEach)
// or for the round as a whole (Outcome.Verify).
type verifier struct {
	each  func(ctx context.Context, shown func(id string)) []string
	whole func(ctx context.Context) int
}

func (v verifier) ok() bool { return v.each != nil || v.whole != nil }

// run verifies and sets r's unverified count and ids.
func (v verifier) run(ctx context.Context, r *Round, shown func(string)) {
	if v.each != nil {
		ids := v.each(ctx, shown)
		r.Outcome.Unverified, r.Outcome.UnverifiedIDs = len(ids), ids
		return
	}
	r.Outcome.Unverified = v.whole(ctx)
}
