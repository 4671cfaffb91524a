package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

type syncFlags struct {
	planFlags
	yes             bool
	reconcileEvery  time.Duration
	statusEvery     time.Duration
	freeze          bool
	exitOnChange    bool
	keepTargetEdits bool
	settle          time.Duration
	pollEvery       time.Duration
	pollSet         bool // --poll-every was given
}

func (f *syncFlags) register(fs *pflag.FlagSet) {
	f.planFlags.register(fs)
	fs.BoolVar(&f.yes, "yes", false, "apply the first full plan without asking (every later change the source makes is applied as it comes: that is what sync does)")
	fs.DurationVar(&f.reconcileEvery, "reconcile-every", 5*time.Minute, "full reconciliation every `DURATION` (0: never): whatever it finds that no notification announced is reported as drift and set right")
	fs.DurationVar(&f.statusEvery, "status-every", 30*time.Second, "print a status line every `DURATION` (0: never)")
	fs.BoolVar(&f.freeze, "freeze", false, "cutover alarm: write nothing to the target; report every change made to the source from now on (SIGUSR1 freezes a running sync)")
	fs.BoolVar(&f.exitOnChange, "exit-on-change", false, "with --freeze: exit 3 at the first change to the source")
	fs.BoolVar(&f.keepTargetEdits, "keep-target-edits", false, "leave edits made on the target to synced objects as they are (reported as drift) instead of setting them back")
	fs.DurationVar(&f.pollEvery, "poll-every", 10*time.Second, "with --source-bootstrap-server (no change feed): read the whole source through its brokers every `DURATION` (at least 1s) and apply what changed")
	fs.DurationVar(&f.settle, "verify-timeout", 30*time.Second, "after each applied round, re-read the target until it shows every change, at most this `DURATION`")
}

const syncUsage = `Usage: migrate sync --zookeeper ... --bootstrap-server ... [plan flags] [--yes | --freeze]

Keep the target in step with the live ZooKeeper cluster during the cutover
window. A first full plan is shown and applied (--yes, or confirm at the
terminal); then sync follows ZooKeeper's own change feed (persistent
watches on ZooKeeper 3.6+, one-shot ones on older servers, on the
notification queues Kafka writes, the topics and pending deletions): a
notification re-reads just that entity from ZooKeeper and
the target, plans for just its resources, and applies the result. Every
--reconcile-every a full plan is made as a safety net; what it finds no
notification announced (a missed change, or an edit made on the target) is
reported as drift and set back to the source's state (--keep-target-edits
leaves target edits alone). Deletes only with --prune. Blocked changes stay
blocked and are named. Lost ZooKeeper sessions are re-established and
everything read again; a failed round is retried in full (1 s, doubling to
30 s).
A source read through its brokers (--source-bootstrap-server) has no
change feed: sync says so and polls it, a full "poll" round every
--poll-every (default 10s); what changed on the source since the last
read is applied, the rest is drift.
--freeze (or SIGUSR1 to a running sync) stops all writes and turns sync
into an alarm: each change to the source is printed with what changed;
with --exit-on-change the first one ends sync with exit code 3.
Each applied (or, frozen, reported) round is an audit run "sync-round"
naming the ZooKeeper zxid it reflects; the session itself is an audit run
"sync" holding the target's lock.
Output: one line per round and a status line (--status-every), or, with
--output json, one JSON object per line ({"event":"round",...} or
{"event":"status",...}). --interactive (a terminal): the first plan in the
TUI review (the whole plan or nothing: a partial selection is refused),
then a live screen of the rounds, their lag and errors, the counts and the
frozen state; f freezes (asks first), q stops.
Ctrl-C (SIGINT/SIGTERM) stops after the round in flight.
Exit codes: 0 stopped with the target in step, 1 error (nothing changed by
this command), 3 stopped with changes not applied, or (--freeze
--exit-on-change) the source changed after the cut.`

func (c *cli) newSyncCmd() *cobra.Command {
	var f syncFlags
	var cmd *cobra.Command
	cmd = c.command("sync", "keep the target in step with the live ZooKeeper cluster until cutover; --freeze alarms on late changes", syncUsage,
		func(ctx context.Context, e *env, args []string) int {
			f.pollSet = cmd.Flags().Changed("poll-every")
			return runSync(ctx, e, &f, args)
		})
	f.register(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keyHelp()}
	return cmd
}

func (f *syncFlags) check(args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected argument %q", args[0])
	case f.source.snapshotFile != "" || f.source.disk.set():
		return errors.New("sync follows a live ZooKeeper's change feed: give --zookeeper, not --snapshot or --zk-data-dir (a fixed point in time)")
	case f.pollSet && f.source.bootstrap == "":
		return errors.New("--poll-every is for --source-bootstrap-server (a source without a change feed); --zookeeper is followed through its change feed")
	case f.source.bootstrap != "" && f.pollEvery < time.Second:
		return fmt.Errorf("--poll-every %s: want at least 1s", f.pollEvery)
	case f.targetSnapshot != "":
		return errors.New("sync writes to a live target: give --bootstrap-server, not --target-snapshot")
	case f.exitOnChange && !f.freeze:
		return errors.New("--exit-on-change needs --freeze")
	case f.reconcileEvery < 0 || f.reconcileEvery > 0 && f.reconcileEvery < time.Second:
		return fmt.Errorf("--reconcile-every %s: want 0 (never) or at least 1s", f.reconcileEvery)
	case f.statusEvery < 0:
		return fmt.Errorf("--status-every %s: want 0 (never) or a positive duration", f.statusEvery)
	case f.settle < 0:
		return fmt.Errorf("--verify-timeout %s: want 0 or a positive duration", f.settle)
	}
	return f.validate()
}

func runSync(ctx context.Context, e *env, f *syncFlags, args []string) int {
	if err := f.check(args); err != nil {
		return fail(e, "sync", err)
	}
	if f.interactive && !e.tty {
		return fail(e, "sync", errNoTerminal)
	}
	code, err := f.run(ctx, e)
	if err != nil {
		return fail(e, "sync", err)
	}
	return code
}

func (f *syncFlags) run(ctx context.Context, e *env) (int, error) {
	opts, err := f.options()
	if err != nil {
		return exitError, err
	}
	pol, digest, err := migration.LoadPolicy(f.policyFile)
	if err != nil {
		return exitError, err
	}
	opts.Policy = digest
	creds, err := migration.LoadCredentials(f.scramCreds)
	if err != nil {
		return exitError, err
	}
	statics, secrets, err := f.source.staticsAndSecrets()
	if err != nil {
		return exitError, err
	}
	var topics *regexp.Regexp
	if f.topics != "" {
		topics = regexp.MustCompile(f.topics) // checked by validate
	}

	// The source: a live ZooKeeper followed through its change feed, or
	// brokers read whole every --poll-every (the admin protocol has none).
	var (
		reads      *zkconn.Conn
		readSource func(ctx context.Context) (*snapshot.Snapshot, error)
		events     <-chan zkfeed.Event
		srcKind    = snapshot.SourceZooKeeper
		srcAddress string
		pollEvery  time.Duration
	)
	if f.source.bootstrap != "" {
		conn, err := f.source.dialKafka(ctx)
		if err != nil {
			return exitError, err
		}
		defer conn.Close()
		srcKind, srcAddress, pollEvery = snapshot.SourceKafka, strings.Join(conn.Bootstrap, ","), f.pollEvery
		readSource = func(ctx context.Context) (*snapshot.Snapshot, error) {
			s, err := kread.Read(ctx, conn, kread.Options{Source: true})
			if err != nil {
				return nil, err
			}
			s.Sort()
			return s, nil
		}
		fmt.Fprintf(e.stderr, "Polling the source through its brokers (%s) every %s: a source read through the admin protocol has no change feed.\n", srcAddress, pollEvery)
	}
	if readSource == nil {
		zo, err := f.source.zkOptions()
		if err != nil {
			return exitError, err
		}
		if reads, err = zkconn.Dial(ctx, zo); err != nil {
			return exitError, err
		}
		defer reads.Close()
		srcAddress = reads.Address()
		// The feed's own sessions: persistent watches on zkwire sessions
		// (WatchSession, with the same TLS, credentials and chroot), and a
		// go-zookeeper one for the one-shot watches of a server before 3.6.
		wo := zo
		wo.NoMultiRead, wo.Connections = true, 1
		watches, err := zkconn.Dial(ctx, wo)
		if err != nil {
			return exitError, err
		}
		defer watches.Close()
		// The feed is armed before the first read, so no change falls between.
		feedCtx, stopFeed := context.WithCancel(ctx)
		defer stopFeed()
		feed, err := zkfeed.Start(feedCtx, watches)
		if err != nil {
			return exitError, err
		}
		if persistent, why := feed.Mode(); !persistent && why != nil {
			fmt.Fprintf(e.stderr, "Following ZooKeeper at %s with one-shot watches, which re-list the notification queues on every change: %v.\n", srcAddress, why)
		}
		events = feed.Events()
	}
	target, err := f.target.connect(ctx)
	if err != nil {
		return exitError, err
	}
	defer target.Close()
	opts.Principal = target.Principal
	opts.OwnUser = migration.OwnUser(target) // --prune never deletes its SCRAM credentials

	session := f.audit.begin(ctx, e, "sync")
	if session.err != nil && !f.audit.off {
		return exitError, fmt.Errorf("refusing to sync without an audit trail (%v); fix --audit-db or pass --no-audit", session.err)
	}
	outcome, code := "stopped", exitOK
	defer func() { session.finish(context.WithoutCancel(ctx), e, outcome, code) }()

	// One apply or sync per target per audit database at a time; a sync
	// that was killed is closed as abandoned and this one resumes from a
	// full read.
	if session.ok() {
		meta, err := target.Admin.BrokerMetadata(ctx)
		if err != nil {
			outcome, code = "error", exitError
			return code, fmt.Errorf("reading the target's cluster id: %w", err)
		}
		_ = session.run.SetEndpoints(ctx, audit.Endpoint{Kind: srcKind, Address: srcAddress},
			audit.Endpoint{Kind: snapshot.SourceKafka, Address: strings.Join(target.Bootstrap, ","), ClusterID: meta.Cluster, Principal: target.Principal})
		lock, err := migration.AcquireLock(ctx, session.store, session.run, meta.Cluster)
		if err != nil {
			outcome, code = "error", exitError
			return code, err
		}
		defer lock.Release()
		for _, id := range lock.Abandoned {
			fmt.Fprintf(e.stderr, "Resuming after interrupted run %d (closed as abandoned): a full round follows.\n", id)
		}
		if lock.AbandonErr != nil {
			fmt.Fprintf(e.stderr, "migrate sync: audit: %v\n", lock.AbandonErr)
		}
	}

	freeze := make(chan struct{})
	var freezeOnce sync.Once
	doFreeze := func() { freezeOnce.Do(func() { close(freeze) }) }
	if f.freeze {
		doFreeze()
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	go func() {
		for range usr1 {
			doFreeze()
		}
	}()

	s := &syncRun{f: f, e: e, opts: opts, creds: creds, pol: pol, statics: statics, target: target, topics: topics, session: session}
	cfg := syncer.Config{
		ReadSource:      readSource,
		Feed:            events,
		PollEvery:       pollEvery,
		ReconcileEvery:  f.reconcileEvery,
		Freeze:          freeze,
		KeepTargetEdits: f.keepTargetEdits,
		BrokerIDMap:     opts.BrokerIDMap,
		Stages:          syncer.Stages{ReadTarget: s.readTarget, ReadTargetScoped: s.readTargetScoped, Plan: s.plan, Apply: s.apply},
	}
	if reads != nil {
		cfg.Source = reads
		cfg.ReadOptions = zkread.Options{EncoderSecrets: dedupe(secrets), Address: srcAddress, Workers: f.source.workers}
	}
	if !f.yes && !f.freeze {
		cfg.Confirm = s.confirm
	}
	// --interactive: the first plan in the TUI review, then the sync
	// screen, which gets every round and ends sync when it quits.
	syncCtx, stopSync := context.WithCancel(ctx)
	defer stopSync()
	var ui *syncUI
	if f.interactive {
		ui = newSyncUI(e, strings.Join(target.Bootstrap, ","), srcAddress, doFreeze)
		defer ui.close()
		if cfg.Confirm != nil {
			cfg.Confirm = func(p *plan.Plan) bool { return ui.confirm(syncCtx, p) }
		}
	}
	rounds := make(chan syncer.Round, 16)
	done := make(chan error, 1)
	go func() { done <- syncer.Run(syncCtx, cfg, rounds) }()

	status := render.SyncStatus{Since: time.Now()}
	var tick <-chan time.Time
	if f.statusEvery > 0 {
		t := time.NewTicker(f.statusEvery)
		defer t.Stop()
		tick = t.C
	}
	// inStep: the last round left the target equal to the source;
	// changedAfterCut: frozen, the source changed, and that was not applied.
	inStep, changedAfterCut := true, false
	for {
		select {
		case r := <-rounds:
			status.Add(r)
			if ui != nil {
				ui.send(r)
			} else {
				s.print(r)
			}
			s.note(ctx, r)
			if r.Reason == syncer.ReasonInitial || r.Reason == syncer.ReasonReconcile {
				memPhase("sync-" + r.Reason) // ZKM_MEMPROFILE: where a long run's memory is
			}
			inStep = r.Err == nil && r.Outcome.Failed == 0 && r.Outcome.Unverified == 0 && !(r.Frozen && len(r.Changes) > 0)
			if r.Frozen && (r.Reason == syncer.ReasonChange || r.Reason == syncer.ReasonPoll && len(r.Changes) > 0) {
				changedAfterCut = true
				if f.exitOnChange {
					outcome, code = "source changed after freeze", exitPartial
					return code, nil
				}
			}
		case <-tick:
			if ui == nil {
				s.printStatus(status)
			}
		case <-ui.started():
			ui.run(ctx)
		case <-ui.ended():
			stopSync() // q on the sync screen: stop after the round in flight
			ui.report()
			ui = nil
		case err := <-done:
			for len(rounds) > 0 {
				r := <-rounds
				status.Add(r)
				if ui == nil {
					s.print(r)
				}
				s.note(ctx, r)
			}
			if f.interactive {
				ui.close()
				s.printStatus(status) // the screen is gone: say where sync ended
			}
			switch {
			case errors.Is(err, syncer.ErrDeclined):
				outcome = "declined"
				fmt.Fprintln(e.stderr, "Nothing applied.")
				return exitOK, nil
			case errors.Is(err, syncer.ErrStopped) && changedAfterCut:
				outcome, code = "stopped frozen: the source changed after the cut", exitPartial
				return code, nil
			case errors.Is(err, syncer.ErrStopped) && inStep:
				outcome = "stopped in step"
				return exitOK, nil
			case errors.Is(err, syncer.ErrStopped):
				outcome, code = "stopped with changes not applied", exitPartial
				return code, nil
			}
			outcome, code = "error", exitError
			return code, err
		}
	}
}

// syncRun holds what the rounds of one sync share.
type syncRun struct {
	f       *syncFlags
	e       *env
	opts    plan.Options
	creds   []plan.Credential
	pol     *policy.Policy
	statics []*zkread.Static
	target  *kafkaconn.Conn
	topics  *regexp.Regexp
	session *recorder
	mu      sync.Mutex // output
}

func (s *syncRun) readTarget(ctx context.Context) (*snapshot.Snapshot, error) {
	return kread.Read(ctx, s.target, kread.Options{Topics: s.topics})
}

// readTargetScoped reads just a change round's entities of the target.
func (s *syncRun) readTargetScoped(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error) {
	return kread.Read(ctx, s.target, kread.Options{Topics: s.topics, Scope: &scope})
}

func (s *syncRun) plan(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
	applyStatic(src, s.statics)
	return migration.BuildPlan(src, tgt, s.creds, s.opts, s.pol)
}

// confirm shows the first plan and asks, at a terminal only.
func (s *syncRun) confirm(p *plan.Plan) bool {
	_ = render.PlanTextWith(s.e.stdout, p, render.TextOptions{Detail: s.f.detail})
	if !s.e.tty {
		fmt.Fprintln(s.e.stderr, "migrate sync: refusing to apply the first plan without confirmation: not a terminal; pass --yes")
		return false
	}
	return confirm(s.e, fmt.Sprintf("Apply %d change(s) to %s, then keep it in step?", len(p.Changes), strings.Join(s.target.Bootstrap, ",")))
}

// apply sends one round's plan and records it as an audit run
// "sync-round"; the verify it leaves to the loop (Outcome.Verify) re-reads
// the round's scope of the target until it shows every change applied, and
// closes the run.
func (s *syncRun) apply(ctx context.Context, p *plan.Plan, tgt *snapshot.Snapshot, r syncer.Round) (syncer.Outcome, error) {
	// The round's record of what it is about to send is on disk before
	// anything is sent: begun, with its endpoints, plan and note, in one
	// transaction on the session's database.
	rec := s.beginRound(ctx, p, auditEndpoint(tgt, s.target.Principal), roundNote(s.session.id(), r))
	var applied migration.Applied
	obs := apply.Observers{&applied, rec.observer()}
	// A round carries a few changes of many kinds: the kinds go out
	// together (a change to a topic after the earlier kinds' changes to
	// it). A change round sends no validate-only preflight: it would
	// refuse what the real request refuses, one controller round trip
	// per kind earlier, and the round's changes are per resource, so a
	// refused one never holds the others back; full rounds keep it.
	ao := apply.Options{Secrets: plan.SecretsOf(p), TimeoutMillis: int32(s.target.Config.Timeout().Milliseconds()), ConcurrentKinds: true,
		NoPreflight: r.Reason == syncer.ReasonChange}
	res, err := apply.Run(ctx, s.target.Client, p, tgt, ao, obs)
	out := syncer.Outcome{Applied: res.Succeeded, Failed: res.Failed}
	if err == nil && res.Stopped != nil {
		err = res.Stopped
	}
	finish := func(ctx context.Context, unverified int) {
		outcome, code := "applied", exitOK
		switch {
		case err != nil:
			outcome, code = "error", exitError
		case out.Failed > 0:
			outcome, code = "partial", exitPartial
		case unverified > 0:
			outcome, code = "unverified", exitPartial
		}
		s.finishQuiet(ctx, rec, outcome, code)
	}
	if err != nil || s.f.settle <= 0 || len(applied.Changes()) == 0 {
		finish(ctx, 0)
		return out, err
	}
	out.Verify = func(ctx context.Context) int {
		// A change round's changes are all in its scope: read no more.
		read := migration.EachBroker(s.target, kread.Options{Topics: s.topics, Scope: r.TargetScope})
		unverified, verr := migration.Verify(ctx, read, applied.Changes(), s.f.settle)
		if verr != nil && rec.ok() {
			_ = rec.run.Note(ctx, "verify", verr.Error())
		}
		finish(ctx, len(unverified))
		return len(unverified)
	}
	return out, nil
}

// beginRound begins a round's audit run "sync-round" in the session's
// audit database, which stays open for the whole session (nothing is
// recorded when the session is not): its endpoints, plan p (nil: none)
// and note are recorded as it begins, in one transaction when it has a
// plan. A run that cannot begin is reported, and the round goes on
// unrecorded, as sync's rounds always have.
func (s *syncRun) beginRound(ctx context.Context, p *plan.Plan, target audit.Endpoint, note string) *recorder {
	if !s.session.ok() {
		return &recorder{}
	}
	ri := audit.RunInfo{Command: "sync-round", Args: s.e.args, ToolVersion: version, Target: target}
	if p != nil {
		ri.Source = audit.Endpoint{Kind: p.Source.Kind, Address: p.Source.Address, ClusterID: p.Source.ClusterID}
	}
	if u, err := user.Current(); err == nil {
		ri.User = u.Username
	}
	rec := &recorder{store: s.session.store, shared: true}
	var err error
	if p != nil {
		rec.run, err = rec.store.BeginPlannedRun(ctx, ri, p, audit.Note{Kind: "sync-round", Detail: note})
	} else if rec.run, err = rec.store.BeginRun(ctx, ri); err == nil {
		_ = rec.run.Note(ctx, "sync-round", note)
	}
	if err != nil {
		rec.run, rec.err = nil, err
		fmt.Fprintf(s.e.stderr, "migrate sync: audit trail unavailable for a round: %v\n", err)
	}
	return rec
}

// finishQuiet closes a round's audit run without printing its receipt
// (the round line names it).
func (s *syncRun) finishQuiet(ctx context.Context, rec *recorder, outcome string, code int) {
	rec.finish(ctx, &env{stderr: io.Discard}, outcome, code)
}

func roundNote(session int64, r syncer.Round) string {
	return fmt.Sprintf("session run %d, round %d (%s), zxid 0x%x", session, r.N, r.Reason, r.Zxid)
}

// note records every round's summary on the session run, and a frozen
// round that found differences (at the cut, or source changes after it)
// as a run "sync-round" holding the changes it did not apply.
func (s *syncRun) note(ctx context.Context, r syncer.Round) {
	if s.session.ok() && (len(r.Changes) > 0 || r.Err != nil || len(r.Missed)+len(r.Drift) > 0) {
		_ = s.session.run.Note(ctx, "sync-round", fmt.Sprintf("round %d (%s), zxid 0x%x: %d changes, %d applied, %d failed, %d missed, %d drift, frozen %v, error %v",
			r.N, r.Reason, r.Zxid, len(r.Changes), r.Outcome.Applied, r.Outcome.Failed, len(r.Missed), len(r.Drift), r.Frozen, r.Err))
	}
	if !r.Frozen || r.Plan == nil && (r.Reason != syncer.ReasonChange || len(r.Entities) == 0) {
		return
	}
	what := "frozen: differs from the source, not applied"
	switch r.Reason {
	case syncer.ReasonChange:
		what = "frozen: the source changed after the cut: " + entityList(r.Entities)
	case syncer.ReasonPoll:
		what = "frozen: a poll found the source changed after the cut, not applied"
	}
	rec := s.beginRound(ctx, r.Plan, audit.Endpoint{}, roundNote(s.session.id(), r)+", "+what)
	s.finishQuiet(ctx, rec, "frozen: not applied", exitPartial)
}

func entityList(es []zkfeed.Entity) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return strings.Join(out, ", ")
}

func (s *syncRun) print(r syncer.Round) {
	if errors.Is(r.Err, syncer.ErrDeclined) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f.output == "json" {
		_ = render.SyncJSON(s.e.stdout, r)
		return
	}
	_ = render.SyncText(s.e.stdout, r)
}

func (s *syncRun) printStatus(st render.SyncStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f.output == "json" {
		_ = render.SyncStatusJSON(s.e.stdout, time.Now(), st)
		return
	}
	_ = render.SyncStatusText(s.e.stdout, time.Now(), st)
}
