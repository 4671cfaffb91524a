package syncsession

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/syncmetrics"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// Round is one round of the session, as the loop reports it (syncer.Round).
type Round = syncer.Round

// State is where the session stands (syncer.State).
type State = syncer.State

// Request is what a sync session needs.
type Request struct {
	// Source is a live ZooKeeper, followed through its change feed, or
	// brokers (Kafka) read whole every PollEvery; its BrokerConfigs and
	// EncoderSecret apply to every read.
	Source migration.SourceRequest
	Target migration.KafkaTarget
	// Options shape every round's plan (Policy and Principal are filled
	// in); TopicRegex must compile.
	Options         plan.Options
	PolicyFile      string
	CredentialsFile string
	// PrincipalMapFile is a principal map ("" none) every round's source is
	// mapped with; a change round reads and covers the target's users and
	// User ACL resources by the names the map gives them
	// (syncer.Config.Principals).
	PrincipalMapFile string
	// AccessProof, when set, proves on every reconciliation that the
	// target decides every request as the source does (docs/access.md),
	// each node's settings from these files and the target's nodes; the
	// round reports it and the session's run records it.
	AccessProof *migration.AccessSettings
	// PollEvery is the period of a polled source's full rounds.
	PollEvery time.Duration
	// ReconcileEvery is the period of the full reconciliation (0: never).
	ReconcileEvery time.Duration
	// VerifyTimeout bounds each applied round's wait for the target to
	// show its changes (0: no verify).
	VerifyTimeout time.Duration
	// Freeze starts the session frozen: nothing is written to the target,
	// and changes to the source are reported.
	Freeze bool
	// ExitOnChange ends a frozen session at the source's first change.
	ExitOnChange    bool
	KeepTargetEdits bool
	// Audit is where the session and its rounds are recorded; Args (as
	// typed after the command's name) and Version describe the runs.
	Audit   migration.AuditRequest
	Args    []string
	Version string
	// Hooks: Notice for lines the operator must see, Warn for audit
	// failures that do not stop sync, Phase for the memory profile
	// ("sync-initial", "sync-reconcile").
	Hooks migration.Hooks
	// LockHeartbeat is how often the session run refreshes the heartbeat
	// of the target lock it holds (0: DefaultLockHeartbeat), for as long
	// as the session runs: a sync between rounds sends nothing, and its
	// lock must not go stale.
	LockHeartbeat time.Duration
}

// DefaultLockHeartbeat is how often a session refreshes its lock's
// heartbeat.
const DefaultLockHeartbeat = time.Minute

// Session is one sync: the source followed, the target connection, the
// session's audit run and lock, and the loop (syncer.Run) over stages
// bound to the request. Open it, Start it, read its Rounds until the
// channel closes, then Close it.
type Session struct {
	req    Request
	hooks  migration.Hooks
	rounds *rounds

	reads, watches *zkconn.Conn // a live ZooKeeper source
	stopFeed       context.CancelFunc
	events         <-chan zkfeed.Event
	kafkaSource    *kafkaconn.Conn // a source read through its brokers
	readSource     func(ctx context.Context) (*snapshot.Snapshot, error)
	source         string // the source's address
	target         *kafkaconn.Conn
	rec            *migration.Recorder
	lock           *migration.Lock

	freeze     chan struct{}
	freezeOnce sync.Once
	tracker    *syncer.Tracker      // the session's state, from its rounds
	metrics    *syncmetrics.Metrics // ServeMetrics: every round is observed
	pending    []string             // what was not on the target when it stopped
	stop       context.CancelFunc
	out        chan syncer.Round
	done       chan struct{} // closed when the loop has returned
	outcome    migration.Outcome
	err        error
}

// Open reads the request's files, connects to the source (arming the
// change feed before anything is read, so no change falls between) and
// to the target, and begins the session's audit run. A session that
// cannot be recorded is refused unless the audit is off. Nothing is read
// or sent yet.
func Open(ctx context.Context, req Request) (*Session, error) {
	s := &Session{req: req, hooks: req.Hooks, outcome: migration.SyncStopped, freeze: make(chan struct{})}
	s.tracker = syncer.NewTracker(s.freeze)
	if err := s.open(ctx); err != nil {
		s.closeConns()
		return nil, err
	}
	return s, nil
}

func (s *Session) open(ctx context.Context) error {
	var err error
	if s.rounds, err = newRounds(s.req); err != nil {
		return err
	}
	if err := s.openSource(ctx); err != nil {
		return err
	}
	if s.target, err = s.req.Target.Dial(ctx); err != nil {
		return err
	}
	s.rec = migration.BeginRun(ctx, s.req.Audit, "sync", s.req.Args, s.req.Version)
	if s.rec.Err != nil {
		_, _ = s.rec.Finish(ctx, migration.Failed) // closes what it opened
		return &AuditError{Err: s.rec.Err}
	}
	s.rounds.bind(s.target, s.rec)
	return nil
}

// AuditError refuses a session that cannot be recorded.
type AuditError struct{ Err error }

func (e *AuditError) Error() string {
	return fmt.Sprintf("refusing to sync without an audit trail (%v)", e.Err)
}

func (e *AuditError) Unwrap() error { return e.Err }

// openSource connects to the source: brokers to poll, or a ZooKeeper
// session to read over and one for its change feed.
func (s *Session) openSource(ctx context.Context) error {
	src := s.req.Source
	if src.Kafka != nil {
		conn, err := src.Kafka.Dial(ctx)
		if err != nil {
			return err
		}
		s.kafkaSource, s.source = conn, strings.Join(conn.Bootstrap, ",")
		s.readSource = func(ctx context.Context) (*snapshot.Snapshot, error) {
			snap, err := kread.Read(ctx, conn, kread.Options{Source: true})
			if err != nil {
				return nil, err
			}
			snap.Sort()
			return snap, nil
		}
		s.notice("Polling the source through its brokers (%s) every %s: a source read through the admin protocol has no change feed.", s.source, s.req.PollEvery)
		return nil
	}
	if src.ZooKeeper == nil {
		return errors.New("sync follows a live ZooKeeper or polls brokers: give one")
	}
	zo, err := src.ZooKeeper.ConnOptions()
	if err != nil {
		return err
	}
	if s.reads, err = zkconn.Dial(ctx, zo); err != nil {
		return err
	}
	s.source = s.reads.Address()
	// The feed's own sessions: persistent watches on zkwire sessions
	// (WatchSession, with the same TLS, credentials and chroot), and a
	// go-zookeeper one for the one-shot watches of a server before 3.6.
	wo := zo
	wo.NoMultiRead, wo.Connections = true, 1
	if s.watches, err = zkconn.Dial(ctx, wo); err != nil {
		return err
	}
	// The feed is armed before the first read, so no change falls between.
	feedCtx, stopFeed := context.WithCancel(ctx)
	s.stopFeed = stopFeed
	feed, err := zkfeed.Start(feedCtx, s.watches)
	if err != nil {
		return err
	}
	if persistent, why := feed.Mode(); !persistent && why != nil {
		s.notice("Following ZooKeeper at %s with one-shot watches, which re-list the notification queues on every change: %v.", s.source, why)
	}
	s.events = feed.Events()
	return nil
}

// Source is the address of the source followed.
func (s *Session) Source() string { return s.source }

// Target is the target's bootstrap address.
func (s *Session) Target() string { return strings.Join(s.target.Bootstrap, ",") }

// Start takes the target's lock (one apply or sync per target per audit
// database; a sync that was killed is closed as abandoned and this one
// resumes from a full read) and starts following the source. confirm,
// when set, is asked before the first plan is applied (false ends the
// session as declined, nothing applied); later rounds apply without
// asking. An error ends the session: Close it.
func (s *Session) Start(ctx context.Context, confirm func(ctx context.Context, p *plan.Plan) bool) error {
	if s.rec.OK() {
		meta, err := s.target.Admin.BrokerMetadata(ctx)
		if err != nil {
			s.outcome = migration.Failed
			return fmt.Errorf("reading the target's cluster id: %w", err)
		}
		s.rec.SetEndpoints(ctx, audit.Endpoint{Kind: s.sourceKind(), Address: s.source},
			audit.Endpoint{Kind: snapshot.SourceKafka, Address: s.Target(), ClusterID: meta.Cluster, Principal: s.target.Principal})
		if s.lock, err = s.rec.Lock(ctx, meta.Cluster); err != nil {
			s.outcome = migration.Failed
			return err
		}
		for _, id := range s.lock.Abandoned {
			s.notice("Resuming after interrupted run %d (closed as abandoned): a full round follows.", id)
		}
		if s.lock.AbandonErr != nil {
			s.warn(fmt.Errorf("audit: %w", s.lock.AbandonErr))
		}
	}
	if s.req.Freeze {
		s.Freeze()
	}
	runCtx, stop := context.WithCancel(ctx)
	s.stop = stop
	if s.lock != nil {
		go s.keepLock(runCtx)
	}
	cfg := s.config()
	if confirm != nil && !s.req.Freeze {
		cfg.Confirm = func(p *plan.Plan) bool { return confirm(runCtx, p) }
	}
	s.out = make(chan syncer.Round)
	s.done = make(chan struct{})
	go s.follow(ctx, runCtx, cfg)
	return nil
}

func (s *Session) sourceKind() string {
	if s.kafkaSource != nil {
		return snapshot.SourceKafka
	}
	return snapshot.SourceZooKeeper
}

// config is the loop's configuration: the source, the feed or the poll,
// and the stages bound to the request.
func (s *Session) config() syncer.Config {
	r := s.rounds
	cfg := syncer.Config{
		ReadSource:      s.readSource,
		Feed:            s.events,
		ReconcileEvery:  s.req.ReconcileEvery,
		Freeze:          s.freeze,
		KeepTargetEdits: s.req.KeepTargetEdits,
		BrokerIDMap:     r.opts.BrokerIDMap,
		Tracker:         s.tracker,
		Stages:          syncer.Stages{ReadTarget: r.readTarget, ReadTargetScoped: r.readTargetScoped, Plan: r.plan, Apply: r.apply},
	}
	if s.req.AccessProof != nil {
		settings := *s.req.AccessProof
		cfg.Stages.Access = func(ctx context.Context, source, target *snapshot.Snapshot) syncer.AccessCheck {
			return r.access(ctx, settings, source, target)
		}
	}
	if s.kafkaSource != nil {
		cfg.PollEvery = s.req.PollEvery
	}
	if r.pm != nil {
		cfg.Principals = r.pm
	}
	if s.reads != nil {
		cfg.Source = s.reads
		cfg.ReadOptions = zkread.Options{EncoderSecrets: r.statics.Secrets, Address: s.source, Workers: s.req.Source.ZooKeeper.Workers}
	}
	return cfg
}

// keepLock refreshes the session run's lock heartbeat every
// LockHeartbeat until ctx ends.
func (s *Session) keepLock(ctx context.Context) {
	every := s.req.LockHeartbeat
	if every <= 0 {
		every = DefaultLockHeartbeat
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.rec.Run().Heartbeat(ctx); err != nil && ctx.Err() == nil {
				s.warn(err)
			}
		}
	}
}

// State is the session's state now: IN STEP, BEHIND (what is pending),
// FREEZING or FROZEN, from its rounds (syncer.Tracker).
func (s *Session) State() syncer.State { return s.tracker.State() }

// ServeMetrics serves the session's rounds and state as Prometheus series
// on addr (syncmetrics: /metrics, /healthz, /readyz) until ctx ends, and
// returns the address it listens on. Call it before Start.
func (s *Session) ServeMetrics(ctx context.Context, addr string) (string, error) {
	s.metrics = syncmetrics.New(s.tracker)
	return s.metrics.Serve(ctx, addr)
}

// FreezeOnSignal freezes the session when the process receives sig
// (sync: SIGUSR1), until the returned stop is called.
func (s *Session) FreezeOnSignal(sig os.Signal) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	go func() {
		for range ch {
			s.Freeze()
		}
	}()
	return func() { signal.Stop(ch) }
}

// Tracker keeps the session's state (for metrics and health endpoints).
func (s *Session) Tracker() *syncer.Tracker { return s.tracker }

// Pending names what was not on the target when the session stopped
// (once Rounds is closed): the changes taken from the source and not
// applied and verified, those a freeze kept back included.
func (s *Session) Pending() []string { return s.pending }

// Rounds yields every round as the loop reports it, each already
// recorded; it is closed when the session has ended (Outcome says how).
func (s *Session) Rounds() <-chan syncer.Round { return s.out }

// Freeze stops all writes to the target from now on: rounds only report
// what changed on the source (SIGUSR1, f on the sync screen).
func (s *Session) Freeze() { s.freezeOnce.Do(func() { close(s.freeze) }) }

// Stop ends the session after the round in flight.
func (s *Session) Stop() {
	if s.stop != nil {
		s.stop()
	}
}

// Outcome is how the session ended and the error that ended it (nil for
// a stop, a decline or --exit-on-change), once Rounds is closed.
func (s *Session) Outcome() (migration.Outcome, error) { return s.outcome, s.err }

// follow runs the loop and passes its rounds on, recording each, until it
// ends, or, frozen with ExitOnChange, the source changes.
func (s *Session) follow(ctx, runCtx context.Context, cfg syncer.Config) {
	defer close(s.done)
	defer close(s.out)
	in := make(chan syncer.Round, 16)
	done := make(chan error, 1)
	go func() { done <- syncer.Run(runCtx, cfg, in) }()
	// changedAfterCut: frozen, a round of any kind found the source
	// changed, and that was not applied. Whether the target is in step
	// is the tracker's, over every round, not the last round's.
	changedAfterCut := false
	for {
		select {
		case r := <-in:
			s.rounds.note(ctx, r)
			if s.metrics != nil {
				s.metrics.Observe(r)
			}
			if r.Reason == syncer.ReasonInitial || r.Reason == syncer.ReasonReconcile {
				s.phase("sync-" + r.Reason)
			}
			frozenChange := len(r.AfterCut) > 0
			changedAfterCut = changedAfterCut || frozenChange
			s.out <- r
			if frozenChange && s.req.ExitOnChange {
				s.outcome = migration.SyncExitOnChange
				s.stop()
				for {
					select {
					case <-in:
					case <-done:
						return
					}
				}
			}
		case err := <-done:
			for len(in) > 0 {
				r := <-in
				s.rounds.note(ctx, r)
				s.out <- r
			}
			st := s.tracker.State()
			s.outcome, s.err = ended(err, st, changedAfterCut)
			if s.outcome != migration.SyncInStep {
				s.pending = st.Names
			}
			if len(s.pending) > 0 {
				s.rec.Note(ctx, "sync-pending", "not on the target when sync stopped: "+strings.Join(s.pending, ", "))
			}
			return
		}
	}
}

// ended is the session's outcome when the loop returned err, with the
// state its rounds left: in step only when every change taken from the
// source was applied and verified (blocked ones are reported, not
// pending), whatever the last round did.
func ended(err error, st syncer.State, changedAfterCut bool) (migration.Outcome, error) {
	switch {
	case errors.Is(err, syncer.ErrDeclined):
		return migration.Declined, nil
	case errors.Is(err, syncer.ErrStopped) && changedAfterCut:
		return migration.SyncChangedAfterCut, nil
	case errors.Is(err, syncer.ErrStopped) && st.Started && st.Pending == 0:
		return migration.SyncInStep, nil
	case errors.Is(err, syncer.ErrStopped):
		return migration.SyncBehind, nil
	}
	return migration.Failed, err
}

// Close ends the session (after the round in flight), says what it left
// undone (Notice: "Nothing applied." after a decline; Warn: the changes
// not on the target, Pending), releases the lock, finishes the session's
// audit run with its outcome and closes the connections. It returns the
// run's receipt.
func (s *Session) Close(ctx context.Context) (migration.Receipt, error) {
	s.Stop()
	if s.done != nil {
		for range s.out { // nobody reads them any more
		}
		<-s.done
	}
	if s.outcome == migration.Declined {
		s.notice("Nothing applied.")
	}
	if p := s.pending; len(p) > 0 {
		what := fmt.Sprintf("%d changes", len(p))
		if len(p) == 1 {
			what = "1 change"
		}
		s.warn(fmt.Errorf("stopped with %s not on the target: %s", what, strings.Join(p, ", ")))
	}
	if s.lock != nil {
		s.lock.Release()
	}
	rc, err := s.rec.Finish(context.WithoutCancel(ctx), s.outcome)
	s.closeConns()
	return rc, err
}

func (s *Session) closeConns() {
	if s.target != nil {
		s.target.Close()
	}
	if s.stopFeed != nil {
		s.stopFeed()
	}
	for _, c := range []*zkconn.Conn{s.watches, s.reads} {
		if c != nil {
			c.Close()
		}
	}
	if s.kafkaSource != nil {
		s.kafkaSource.Close()
	}
}

func (s *Session) notice(format string, args ...any) {
	if s.hooks.Notice != nil {
		s.hooks.Notice(fmt.Sprintf(format, args...))
	}
}

func (s *Session) warn(err error) {
	if s.hooks.Warn != nil {
		s.hooks.Warn(err)
	}
}

func (s *Session) phase(name string) {
	if s.hooks.Phase != nil {
		s.hooks.Phase(name)
	}
}

// topicScope compiles the plan's topic regexp ("" every topic).
func topicScope(re string) (*regexp.Regexp, error) {
	if re == "" {
		return nil, nil
	}
	return regexp.Compile(re)
}
