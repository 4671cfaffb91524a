package syncer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// Stages are the steps of a round, bound by the command to the operator's
// options. Apply must record the round (audit) and report what it did.
// Change rounds whose scopes share nothing run beside each other, so
// ReadTargetScoped, Apply and the verify it leaves may run for several
// rounds at once; Plan runs for one at a time.
type Stages struct {
	ReadTarget func(ctx context.Context) (*snapshot.Snapshot, error)
	// ReadTargetScoped reads just the scope's entities of the target and
	// the cluster-level facts (kread.Options.Scope): what scope.Restrict
	// keeps of ReadTarget's read. Nil: ReadTarget, restricted.
	ReadTargetScoped func(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error)
	Plan             func(source, target *snapshot.Snapshot) (*plan.Plan, error)
	// Apply sends p, planned against target, and records the round. It
	// may leave checking that the target shows what it sent to
	// Outcome.Verify. It must ask round.Halt immediately before each
	// request it sends (apply.Options.Halt) and send nothing more once it
	// answers an error (sync was frozen), naming the changes it did not
	// send in Outcome.Unsent.
	Apply func(ctx context.Context, p *plan.Plan, target *snapshot.Snapshot, round Round) (Outcome, error)
	// Access, when set, is asked on every reconciliation whether the
	// target, as the round read it (before its apply), decides every
	// request as the source does (docs/access.md): access drift. What it
	// says is the round's Access.
	Access func(ctx context.Context, source, target *snapshot.Snapshot) AccessCheck
}

// AccessCheck is a reconciliation's access proof in a few words: the
// verdict (access.Equivalent, ...), the causes of differences, the request
// classes decided differently and the proof's digest; Err when no proof
// was made.
type AccessCheck struct {
	Verdict   string `json:"verdict,omitempty"`
	Causes    int    `json:"causes,omitempty"`
	Differing int64  `json:"differing,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Err       string `json:"error,omitempty"`
}

// Outcome is what applying one round's plan did.
type Outcome struct {
	Applied, Failed, Unverified int
	// FailedIDs and UnverifiedIDs name the changes counted in Failed and
	// Unverified (the state then names them as pending; a round that
	// counts more than it names leaves all its changes pending).
	FailedIDs, UnverifiedIDs []string
	// Unsent are the ids of the changes not sent because Round.Halt
	// answered an error (apply.Result.Halted): sync was frozen while the
	// round applied.
	Unsent []string
	// Verify, when Apply sets it, re-reads the target until it shows what
	// was applied, finishes the round's record and returns how many
	// changes it does not show (they count as Unverified). Run calls it
	// once, right after the apply, beside later change rounds that share
	// no resource with this one (one that does waits for it: a check must
	// not see a later round's write to the same resource). The round is
	// reported, and counts as undone when something is unverified, once
	// Verify returns; rounds are reported in order. Run clears it in the
	// Round it reports.
	Verify func(ctx context.Context) (unverified int)
	// VerifyEach, preferred to Verify when set, is Verify that calls
	// shown with each change's id as soon as every broker shows it (and
	// returns the ids of those some broker never showed): the change's
	// resource is free for the next round then, whatever the rest of the
	// round's verify does.
	VerifyEach func(ctx context.Context, shown func(id string)) (unverified []string)
}

// Phases says where a round's time went: each is zero when the phase did
// not run.
type Phases struct {
	// ReadSource: reading the source (a change round: re-reading the
	// notified entities and patching the model).
	ReadSource time.Duration
	ReadTarget time.Duration
	Plan       time.Duration
	// Wait: for the change rounds in flight whose scope meets this one's
	// to be applied and verified.
	Wait  time.Duration
	Apply time.Duration // the requests and the audit record of the plan
	// Verify: re-reading the target until it shows the round's changes
	// (a change round's beside the next round's work).
	Verify time.Duration
}

// Config says what to follow and how often to reconcile.
type Config struct {
	Source      zkread.Source  // the live ZooKeeper connection reads go through
	ReadOptions zkread.Options // as for a plan's source read
	// ReadSource reads the whole source when Source is nil (a source read
	// through its brokers' admin protocol, which has no change feed).
	ReadSource func(ctx context.Context) (*snapshot.Snapshot, error)
	Feed       <-chan zkfeed.Event // nil: no feed (poll with PollEvery)
	// PollEvery, when positive, runs a full round with reason "poll" at
	// this period: for a source without a change feed. What a poll finds
	// the source changed since the last read is a plain change, not missed.
	PollEvery time.Duration
	Stages    Stages
	// ReconcileEvery is the period of the full reconciliation (0: never).
	ReconcileEvery time.Duration
	// Freeze, when it is closed, stops all writes to the target: from then
	// on rounds only report what changed on the source.
	Freeze <-chan struct{}
	// Confirm, when set, is asked before the first round applies its plan
	// (the operator reviews it); false stops Run with ErrDeclined before
	// anything is sent. Later rounds apply without asking: following the
	// source is what sync is for.
	Confirm func(p *plan.Plan) bool
	// KeepTargetEdits leaves target-side edits of synced objects found by
	// reconciliation alone (reported); by default they are set back.
	KeepTargetEdits bool
	// BrokerIDMap is the plan's --broker-id-map: a source broker's configs
	// go to the mapped target broker, so a change round reads and covers
	// that one.
	BrokerIDMap map[int32]int32
	// Principals, when set, is the plan's --principal-map: a source user's
	// quotas and SCRAM credentials, and a literal ACL on a User resource,
	// go to the names it gives them, so a change round reads and covers
	// those on the target (and plans, with them, every source user or
	// resource the map sends to the same name).
	Principals Principals
	// Coalesce is how long a round waits for more notifications after the
	// first, so a burst becomes one round (DefaultCoalesce when 0).
	Coalesce time.Duration
	// MissedWait is how long a reconciliation waits for the notification
	// of a source change it found and no notification has announced yet,
	// before it reports the change missed (DefaultMissedWait when 0). Kafka
	// writes a change and then its notification, and the feed delivers it
	// a moment later: a change made just before the reconciliation read it
	// is not missed.
	MissedWait time.Duration
	// MaxInFlight is how many change rounds may be applying at once
	// (DefaultMaxInFlight when 0); rounds that share no resource run
	// beside each other.
	MaxInFlight int
	// Now returns the time (time.Now when nil).
	Now func() time.Time
	// Tracker, when set, is kept up to date with the sync's State.
	Tracker *Tracker

	tick <-chan struct{} // tests: a reconciliation on demand
	// tests: called when a round waits for rounds in flight before it
	waiting func()
}

// HeartbeatEvery is the longest the loop goes without turning while it
// waits (State.LastTurn).
const HeartbeatEvery = 5 * time.Second

// DefaultCoalesce gathers notifications that arrive together.
const DefaultCoalesce = 20 * time.Millisecond

// DefaultMissedWait bounds a reconciliation's wait for a notification on
// its way.
const DefaultMissedWait = 2 * time.Second

// Why a round ran.
const (
	ReasonInitial   = "initial"
	ReasonChange    = "change"
	ReasonReconcile = "reconcile"
	ReasonResync    = "resync" // the feed lost its watches: everything was read again
	ReasonRetry     = "retry"  // a round did not finish: what it left undone (or, when that is not known, everything) was read again
	ReasonPoll      = "poll"   // a source without a change feed was read again on its interval
	// ReasonSkipped is no round: it reports notifications the feed
	// skipped (Round.Skipped), with N 0; nothing was read or planned.
	ReasonSkipped = "skipped"
)

// Retry bounds: a round that failed or left changes undone is followed by
// a retry after RetryFirst, doubling up to RetryMax while it fails: a
// round for the resources of the changes it left undone (failed,
// unverified), or a full round when that is not known (a full round that
// failed, a source read through its brokers).
const (
	RetryFirst = time.Second
	RetryMax   = 30 * time.Second
)

// Round is one pass: what started it, what it planned and what it did.
type Round struct {
	N      int
	Reason string
	// Scoped: the round read and planned just Entities (a change round,
	// or a retry of what failed); otherwise it read everything.
	Scoped   bool
	Entities []zkfeed.Entity // the notified entities (change rounds)
	Zxid     int64           // the source transaction the round reflects
	Started  time.Time
	Finished time.Time
	// Seen is when the feed saw the round's first notification (change
	// rounds); Lag is from then to the round's verify ending. A round is
	// reported once every round before it is (Finished), which may be
	// well after its own verify ended.
	Seen time.Time
	Lag  time.Duration
	// WriteLag is from ZooKeeper writing the earliest notification of the
	// round (its ctime, when the feed read it) to the round's verify
	// ending: zero when the feed knows no write time.
	WriteLag time.Duration
	Changes  []plan.Change // planned and sent (or, frozen, what would be)
	Phases   Phases
	// TargetScope is what a change round read of the target (nil: all of
	// it), so that verifying its apply needs to read no more.
	TargetScope *kread.Scope
	// Plan is the round's plan holding just Changes (nil when there are
	// none), for the audit trail.
	Plan *plan.Plan
	// Missed are changes a reconciliation found that the source made
	// without a notification for their entity reaching sync: none was
	// run by a change round, queued in the feed, or arrived within
	// MissedWait (there should be none).
	Missed []plan.Change
	// Drift are the other changes a reconciliation found: the target was
	// edited, or an earlier round did not finish.
	Drift []plan.Change
	// Access is a reconciliation's access proof of the target as it read
	// it (Stages.Access; nil when not asked).
	Access   *AccessCheck
	Blockers []plan.Blocker
	Outcome  Outcome
	// Frozen: sync was frozen when the round began; it sent nothing.
	Frozen bool
	// AfterCut are the changes of a frozen round whose entities the
	// source changed after the cut (the round's read found them changed
	// since the source was last read, and no frozen round reported them
	// yet): what --exit-on-change ends sync for. A frozen round that finds
	// only differences the target had at the cut, or an entity that did
	// not change, or one outside what sync manages, has none.
	AfterCut []plan.Change
	// Unsent are the changes of a round that began before sync was frozen
	// and that it did not send because the freeze came first: the freeze
	// is checked immediately before each request.
	Unsent []plan.Change
	// Resyncs are, for a resync round, the feed's events that asked for
	// it: each with its Cause (a notification's Path) and Err.
	Resyncs []zkfeed.Event
	// Skipped (a ReasonSkipped report) are notifications the feed could
	// not make sense of and left out, each named once.
	Skipped []zkfeed.Skipped
	// Halt is set on the Round given to Stages.Apply only: it answers
	// ErrFrozen once sync is frozen (apply.Options.Halt).
	Halt func() error
	Err  error

	tracked bool // counted by Tracker.begun
}

// ErrFrozen is what Round.Halt answers once sync is frozen.
var ErrFrozen = errors.New("sync was frozen: nothing more is sent to the target")

// ErrStopped is returned by Run when its context ends.
var ErrStopped = errors.New("syncer: stopped")

// ErrDeclined is returned by Run when Confirm declined the first plan.
var ErrDeclined = errors.New("syncer: the first plan was declined")

// Run runs the first full round, then follows the feed until ctx is done,
// sending every round to rounds (which it never closes). A failed round is
// reported and the next one retries what it could not do (reconciliation
// covers it); only reading the source's first snapshot failing stops Run.
func Run(ctx context.Context, cfg Config, rounds chan<- Round) error {
	if err := checkResources(plan.ResourceTypes()); err != nil {
		return err
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = DefaultCoalesce
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MissedWait <= 0 {
		cfg.MissedWait = DefaultMissedWait
	}
	if cfg.Principals != nil {
		cfg.Principals = newPrincipalCache(cfg.Principals)
	}
	s := &state{cfg: cfg, rounds: rounds, ctx: ctx, wake: make(chan struct{}, 1)}
	if err := s.full(ctx, ReasonInitial); err != nil && (s.source == nil || errors.Is(err, ErrDeclined)) {
		return err
	}
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	backoff := RetryFirst
	var tick <-chan time.Time
	if cfg.ReconcileEvery > 0 {
		t := time.NewTicker(cfg.ReconcileEvery)
		defer t.Stop()
		tick = t.C
	}
	// The loop turns at least every HeartbeatEvery, so that
	// State.LastTurn says it is alive while nothing happens.
	beat := time.NewTicker(HeartbeatEvery)
	defer beat.Stop()
	var poll <-chan time.Time
	if cfg.PollEvery > 0 {
		t := time.NewTicker(cfg.PollEvery)
		defer t.Stop()
		poll = t.C
	}
	for {
		cfg.Tracker.turn(cfg.Now())
		if s.undone {
			retry.Reset(backoff)
			backoff = min(2*backoff, RetryMax)
			s.undone = false
		} else if s.clean && !s.retryAll && s.retryScope.Empty() {
			backoff = RetryFirst
		}
		// Notifications a reconciliation took off the feed are run at once.
		switch {
		case len(s.pending) > 0:
			s.catchUp(ctx)
			continue
		case s.feedClosed:
			s.settle()
			return fmt.Errorf("syncer: the change feed stopped")
		}
		// The oldest round still in flight is reported once it is done;
		// the held entities run once the rounds they meet are; what was
		// notified while Config.MaxInFlight rounds applied, once one has.
		if s.launchHeld(ctx) {
			continue
		}
		s.dispatch(ctx)
		select {
		case <-ctx.Done():
			s.settle()
			return ErrStopped
		case <-s.wake:
			s.reap()
		case <-retry.C:
			s.retry(ctx)
		case ev, ok := <-cfg.Feed:
			if !ok {
				s.settle()
				return fmt.Errorf("syncer: the change feed stopped")
			}
			if ev.Resync {
				s.resync(ctx, ev)
				continue
			}
			s.skipped(ev)
			b, resync := s.gather(ctx, ev)
			if resync != nil {
				s.resync(ctx, *resync)
				continue
			}
			if !b.scope.Empty() {
				s.scoped(ctx, b)
			}
		case <-beat.C:
		case <-poll:
			s.full(ctx, ReasonPoll)
		case <-tick:
			s.full(ctx, ReasonReconcile)
		case <-cfg.tick:
			s.full(ctx, ReasonReconcile)
		}
	}
}

// naming is how the scope's source names become the target's.
func (s *state) naming() naming {
	return naming{brokers: s.cfg.BrokerIDMap, principals: s.cfg.Principals}
}

type state struct {
	cfg     Config
	rounds  chan<- Round
	n       int
	source  *snapshot.Snapshot // the source as last read, patched by scoped rounds
	undone  bool               // the last round failed or left changes unapplied: retry
	brokers int                // the most brokers a read of the target listed
	clean   bool               // the last round did all it planned
	// pending are notifications a reconciliation took off the feed that its
	// read does not cover: the loop runs them before reading the feed again.
	pending    []zkfeed.Event
	feedClosed bool           // a reconciliation found the feed closed
	resyncs    []zkfeed.Event // the next resync round's causes
	// What the next retry covers: retryScope's entities, or everything.
	retryScope Scope
	retryAll   bool
	// moved are the source entities that reads made while frozen found
	// changed and that no frozen round has reported yet.
	moved decoded

	// flights are the change rounds sent and not yet reported, oldest
	// first: each reads the target, plans, applies and verifies on its own
	// goroutine, after the rounds before it that meet its scope are done.
	flights []*flight
	held    []*heldEntity   // entities waiting for rounds in flight they meet
	next    *queued         // entities read and waiting for a round to apply
	wake    chan struct{}   // a round in flight applied or is done
	planMu  sync.Mutex      // Stages.Plan runs for one round at a time
	ctx     context.Context // Run's, for a held round settle launches
}

func (s *state) frozen() bool {
	if s.cfg.Freeze == nil {
		return false
	}
	select {
	case <-s.cfg.Freeze:
		return true
	default:
		return false
	}
}

// gather takes the event and whatever follows within the coalescing
// window into one scope; a resync event among them is returned instead.
func (s *state) gather(ctx context.Context, ev zkfeed.Event) (b *batch, resync *zkfeed.Event) {
	b = &batch{scope: NewScope(ev.Entities), first: ev.Seen, written: ev.Written, zxid: ev.Zxid}
	var entities []zkfeed.Entity
	timer := time.NewTimer(s.cfg.Coalesce)
	defer timer.Stop()
	for {
		select {
		case more, ok := <-s.cfg.Feed:
			if !ok {
				s.feedClosed = true
				return b, &zkfeed.Event{Resync: true, Err: errors.New("the change feed stopped")}
			}
			if more.Resync {
				return b, &more
			}
			s.skipped(more)
			entities = append(entities, more.Entities...)
			b.zxid = max(b.zxid, more.Zxid)
			b.first, b.written = earliest(b.first, more.Seen), earliest(b.written, more.Written)
		case <-timer.C:
			for _, e := range entities {
				b.scope.Add(e)
			}
			return b, nil
		case <-ctx.Done():
			return b, nil
		}
	}
}

// resync runs one full round for the feed's resync event ev and every
// other resync already queued behind it: the round's read begins after
// them, so it covers them and every notification queued with them.
func (s *state) resync(ctx context.Context, ev zkfeed.Event) {
	evs := []zkfeed.Event{ev}
	for queued := !s.feedClosed; queued; {
		select {
		case more, ok := <-s.cfg.Feed:
			switch {
			case !ok:
				s.feedClosed, queued = true, false
			case more.Resync:
				evs = append(evs, more)
			default:
				s.skipped(more)
			}
		default:
			queued = false
		}
	}
	s.resyncs = evs
	s.full(ctx, ReasonResync)
}

// skipped reports the notifications ev says the feed skipped.
func (s *state) skipped(ev zkfeed.Event) {
	if len(ev.Skipped) > 0 {
		s.rounds <- Round{Reason: ReasonSkipped, Skipped: ev.Skipped, Started: ev.Seen, Finished: s.cfg.Now()}
	}
}

// emit reports r once every round before it is reported.
func (s *state) emit(r Round) {
	s.settle()
	s.report(r)
}

func (s *state) report(r Round) {
	r.Finished = s.cfg.Now()
	r.Outcome.Verify, r.Outcome.VerifyEach = nil, nil
	r.Halt = nil
	if r.Frozen {
		s.afterCut(&r)
	}
	s.cfg.Tracker.done(r, r.tracked, s.naming())
	r.tracked = false
	bad := r.Err != nil || r.Outcome.Failed > 0 || r.Outcome.Unverified > 0 || len(r.Unsent) > 0
	if bad && !r.Frozen && !s.frozen() {
		s.undone = true
		s.retryOf(r)
	}
	s.clean = !bad
	s.rounds <- r
}

// retryOf adds what r left undone to the next retry: its entities when a
// scoped round failed as a whole; the resources of the changes it names
// failed or unverified; everything when it cannot tell (a full round
// that failed, changes counted and not named, no ZooKeeper to re-read
// entities from).
func (s *state) retryOf(r Round) {
	if s.retryScope.Topics == nil {
		s.retryScope = NewScope(nil)
	}
	switch {
	case s.cfg.Source == nil:
		s.retryAll = true
	case r.Err != nil && r.Scoped:
		for _, e := range r.Entities {
			s.retryScope.Add(e)
		}
	case r.Err != nil || len(r.Outcome.FailedIDs) < r.Outcome.Failed || len(r.Outcome.UnverifiedIDs) < r.Outcome.Unverified:
		s.retryAll = true
	default:
		undone := append(slices.Clone(r.Outcome.FailedIDs), r.Outcome.UnverifiedIDs...)
		for _, c := range r.Changes {
			if !slices.Contains(undone, c.ID) {
				continue
			}
			es, ok := entitiesOf(c, s.naming(), s.source)
			if !ok {
				s.retryAll = true
				return
			}
			for _, e := range es {
				s.retryScope.Add(e)
			}
		}
	}
}

// retry runs the retry: a full round, or a round for what failed.
func (s *state) retry(ctx context.Context) {
	if s.retryAll || s.retryScope.Empty() {
		s.full(ctx, ReasonRetry)
		return
	}
	b := &batch{scope: s.retryScope, reason: ReasonRetry}
	s.retryScope = NewScope(nil)
	s.scoped(ctx, b)
}

// afterCut sets a frozen round's AfterCut: its changes to entities a
// frozen read found changed, which it then takes off moved (a full
// round all, a change round those of its scope: a later notification of
// them that changes nothing is not reported again).
func (s *state) afterCut(r *Round) {
	for _, c := range r.Changes {
		if s.moved.covers(c) {
			r.AfterCut = append(r.AfterCut, c)
		}
	}
	if !r.Scoped {
		s.moved = decoded{}
		return
	}
	s.moved.remove(NewScope(r.Entities).decode().target(s.naming()))
}

// noteMoved adds to moved what the source changed between two reads,
// when sync is frozen.
func (s *state) noteMoved(before, after *snapshot.Snapshot) {
	if before == nil || !s.frozen() {
		return
	}
	s.moved.add(sourceChanges(before, after).target(s.naming()))
}

func (s *state) read(ctx context.Context, scope *Scope) (*snapshot.Snapshot, error) {
	if s.cfg.Source == nil && s.cfg.ReadSource != nil {
		return s.cfg.ReadSource(ctx) // no feed, so never scoped
	}
	src := s.cfg.Source
	if scope != nil {
		src = scopedSource{Source: src, scope: *scope}
	}
	return zkread.Read(ctx, src, s.cfg.ReadOptions)
}

// full reads both sides whole, plans and applies. Changes a reconciliation
// finds are missed (the source changed, nothing announced it) or drift; a
// poll's changes the source explains are plain changes, the rest drift.
func (s *state) full(ctx context.Context, reason string) error {
	s.settle()                                      // its verify must not see this round's writes
	s.retryAll, s.retryScope = false, NewScope(nil) // it covers everything
	s.n++
	r := Round{N: s.n, Reason: reason, Started: s.cfg.Now(), Frozen: s.frozen(), tracked: true}
	s.cfg.Tracker.begun()
	if reason == ReasonResync {
		r.Resyncs, s.resyncs = s.resyncs, nil
	}
	before := s.source
	src, err := s.read(ctx, nil)
	r.Phases.ReadSource = s.since(r.Started)
	if err != nil {
		r.Err = fmt.Errorf("reading the source: %w", err)
		if stopping(ctx, before) {
			s.cfg.Tracker.ended()
			return ErrStopped
		}
		s.emit(r)
		return r.Err
	}
	if r.Frozen {
		s.noteMoved(before, src)
	}
	s.source = src
	r.Zxid = zxidOf(src)
	p, tgt, err := s.planFor(ctx, src, &r.Phases)
	if err != nil {
		r.Err = err
		if stopping(ctx, before) {
			s.cfg.Tracker.ended()
			return ErrStopped
		}
		s.emit(r)
		return err
	}
	r.Blockers = p.Blockers
	changes := p.Changes
	if reason == ReasonReconcile && s.cfg.Stages.Access != nil {
		a := s.cfg.Stages.Access(ctx, src, tgt)
		r.Access = &a
	}
	if (reason == ReasonReconcile || reason == ReasonPoll) && before != nil {
		fromSource, drift := splitDrift(p.Changes, sourceChanges(before, src).target(s.naming()))
		r.Drift = drift
		if reason == ReasonReconcile {
			r.Missed = fromSource
		}
		if s.cfg.KeepTargetEdits {
			changes = fromSource
		}
		if reason == ReasonPoll && r.Frozen {
			// Frozen, a poll reports what the source changed since the
			// last read, not again every difference since the cut.
			changes, r.Drift = fromSource, nil
		}
	}
	if reason == ReasonInitial && s.cfg.Confirm != nil && len(p.Changes) > 0 && !r.Frozen && !s.cfg.Confirm(p) {
		r.Changes = p.Changes
		r.Err = ErrDeclined
		s.emit(r)
		return ErrDeclined
	}
	verify := s.apply(ctx, &r, p, tgt, changes)
	if r.Err == nil {
		r.Err = s.brokersMissing(len(tgt.Brokers), p.Blockers)
	}
	if reason == ReasonReconcile {
		r.Missed = s.unannounced(ctx, r.Missed, src.Read.StartZxid)
	}
	if !verify.ok() {
		s.emit(r)
		return r.Err
	}
	// The verify runs beside what follows, holding each applied change's
	// resource until every broker shows it (all of them, when Apply left
	// a verify of the round as a whole); the round is reported, in order,
	// once it is done.
	f := &flight{r: r, applied: make(chan struct{}), done: make(chan struct{}), targetBrokers: -1, all: verify.each == nil}
	close(f.applied)
	if verify.each != nil {
		f.await(sentOf(r))
	}
	s.flights = append(s.flights, f)
	go func() {
		defer s.signal()
		defer close(f.done)
		t := s.cfg.Now()
		verify.run(ctx, &f.r, f.shown(s))
		f.r.Phases.Verify = s.since(t)
	}()
	return r.Err
}

// unannounced keeps the source changes a reconciliation found that no
// notification announced. A notification that reached sync but was not yet
// run by a change round (queued in the feed while the reconciliation ran,
// or arriving within MissedWait of its apply, while a change the feed has
// not announced is left) announces its entities; the loop still runs it
// (pending), unless the reconciliation's read covers it: every znode it
// tells of was written before that read began (its zxid is at most
// readZxid, the read's start zxid), so the reconciliation planned the
// entity as of a later state. Frozen, every one is run: a frozen change
// round is what reports a change after the cut (--exit-on-change). A
// resync event announces everything: the feed itself says it may have
// lost changes.
func (s *state) unannounced(ctx context.Context, changes []plan.Change, readZxid int64) []plan.Change {
	if s.cfg.Feed == nil {
		return changes
	}
	announced, all, frozen := NewScope(nil), false, s.frozen()
	take := func(ev zkfeed.Event, ok bool) {
		if !ok {
			s.feedClosed = true
			return
		}
		s.skipped(ev)
		all = all || ev.Resync
		for _, e := range ev.Entities {
			announced.Add(e)
		}
		if frozen || ev.Resync || ev.Zxid == 0 || readZxid == 0 || ev.Zxid > readZxid {
			s.pending = append(s.pending, ev)
		}
	}
	left := func() []plan.Change {
		if all {
			return nil
		}
		d := announced.decode().target(s.naming())
		var out []plan.Change
		for _, c := range changes {
			if !d.covers(c) {
				out = append(out, c)
			}
		}
		return out
	}
	for queued := true; queued && !s.feedClosed; {
		select {
		case ev, ok := <-s.cfg.Feed:
			take(ev, ok)
		default:
			queued = false
		}
	}
	out := left()
	if len(out) == 0 || s.feedClosed {
		return out
	}
	wait := time.NewTimer(s.cfg.MissedWait)
	defer wait.Stop()
	for len(out) > 0 && !s.feedClosed {
		select {
		case ev, ok := <-s.cfg.Feed:
			take(ev, ok)
			out = left()
		case <-wait.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
	return out
}

// catchUp runs the notifications a reconciliation took off the feed: a
// resync if one asked for it, else one change round for all of them.
func (s *state) catchUp(ctx context.Context) {
	evs := s.pending
	s.pending = nil
	b := &batch{scope: NewScope(nil)}
	for _, ev := range evs {
		if ev.Resync {
			s.resync(ctx, ev)
			return
		}
		for _, e := range ev.Entities {
			b.scope.Add(e)
		}
		b.first, b.written = earliest(b.first, ev.Seen), earliest(b.written, ev.Written)
		b.zxid = max(b.zxid, ev.Zxid)
	}
	if !b.scope.Empty() {
		s.scoped(ctx, b)
	}
}

func (s *state) since(t time.Time) time.Duration { return s.cfg.Now().Sub(t) }

// brokersMissing makes a round undone, so that it is tried again, when its
// plan blocked changes for want of target brokers while the target lists
// fewer brokers than it had: a broker restarting (its controller, say)
// is not yet registered, and the blocked topics must not wait for the
// next reconciliation.
func (s *state) brokersMissing(n int, blockers []plan.Blocker) error {
	s.brokers = max(s.brokers, n)
	if n >= s.brokers {
		return nil
	}
	blocked := 0
	for _, b := range blockers {
		if b.ID == catalogue.IDBlockReplicationTooHigh || b.ID == catalogue.IDBlockBrokerMissing {
			blocked++
		}
	}
	if blocked == 0 {
		return nil
	}
	return fmt.Errorf("the target lists %d of the %d brokers it had: %s blocked for want of brokers %s tried again", n, s.brokers, english.N(blocked, "change"), english.Agree(blocked, "is", "are"))
}

// readTargetScoped reads the scope's part of the target.
func (s *state) readTargetScoped(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error) {
	if s.cfg.Stages.ReadTargetScoped != nil {
		return s.cfg.Stages.ReadTargetScoped(ctx, scope)
	}
	tgt, err := s.cfg.Stages.ReadTarget(ctx)
	if err != nil {
		return nil, err
	}
	return scope.Restrict(tgt), nil
}

// stopping reports whether sync's stop (ctx done) cut a round's reads
// short, before it sent anything: the round is dropped rather than
// reported as failed, since it says nothing of whether the target is in
// step. Only the first round (no earlier source read, before nil) is
// always reported: until it is done the target was never in step.
func stopping(ctx context.Context, before *snapshot.Snapshot) bool {
	return ctx.Err() != nil && before != nil
}

func (s *state) planFor(ctx context.Context, src *snapshot.Snapshot, ph *Phases) (*plan.Plan, *snapshot.Snapshot, error) {
	t := s.cfg.Now()
	tgt, err := s.cfg.Stages.ReadTarget(ctx)
	ph.ReadTarget = s.since(t)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the target: %w", err)
	}
	t = s.cfg.Now()
	p, err := s.cfg.Stages.Plan(src, tgt)
	ph.Plan = s.since(t)
	if err != nil {
		return nil, nil, fmt.Errorf("planning: %w", err)
	}
	return p, tgt, nil
}

// apply sends changes (a subset of p's) unless frozen, and returns the
// verify Apply left (nil: none, or the apply failed). The freeze is
// looked at again just before Apply, which looks at it (Round.Halt)
// before each request: a freeze that comes while the round runs stops
// it there, and what it did not send is r.Unsent. It touches only r and
// the stages, so it may run beside the loop.
func (s *state) apply(ctx context.Context, r *Round, p *plan.Plan, target *snapshot.Snapshot, changes []plan.Change) verifier {
	r.Changes = changes
	if len(changes) == 0 {
		return verifier{}
	}
	sub := *p
	sub.Changes = changes
	r.Plan = &sub
	if r.Frozen {
		return verifier{}
	}
	if s.frozen() {
		r.Unsent = changes
		return verifier{}
	}
	t := s.cfg.Now()
	given := *r
	given.Halt = s.halt
	out, err := s.cfg.Stages.Apply(ctx, &sub, target, given)
	r.Phases.Apply = s.since(t)
	verify := verifier{each: out.VerifyEach, whole: out.Verify}
	out.Verify, out.VerifyEach = nil, nil
	r.Outcome = out
	for _, id := range out.Unsent {
		if i := slices.IndexFunc(changes, func(c plan.Change) bool { return c.ID == id }); i >= 0 {
			r.Unsent = append(r.Unsent, changes[i])
		}
	}
	if err != nil {
		r.Err = fmt.Errorf("applying: %w", err)
	}
	return verify
}

// halt is Round.Halt: ErrFrozen once sync is frozen.
func (s *state) halt() error {
	if s.frozen() {
		return ErrFrozen
	}
	return nil
}

func zxidOf(s *snapshot.Snapshot) int64 {
	return max(s.Read.StartZxid, s.Read.ZxidMax)
}
