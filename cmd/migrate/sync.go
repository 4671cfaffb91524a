package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/memprofile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/syncsession"
	"github.com/zkmigrate/zkmigrate/tui"
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
	pollSet         bool   // --poll-every was given
	metricsAddr     string // --metrics-addr
}

func (f *syncFlags) register(fs *pflag.FlagSet) {
	f.planFlags.Register(fs)
	fs.BoolVar(&f.yes, "yes", false, "apply the first full plan without asking\n(every later change the source makes is applied as it comes: that is what sync does)")
	fs.DurationVar(&f.reconcileEvery, "reconcile-every", 5*time.Minute, "full reconciliation every `DURATION` (0: never)\nwhatever it finds that no notification announced is reported as drift and set right")
	fs.DurationVar(&f.statusEvery, "status-every", 30*time.Second, "print a status line every `DURATION` (0: never)")
	fs.BoolVar(&f.freeze, "freeze", false, "cutover alarm: write nothing to the target\nreport every change made to the source from now on (SIGUSR1 freezes a running sync)")
	fs.BoolVar(&f.exitOnChange, "exit-on-change", false, "with --freeze: exit 3 at the first change to the source")
	fs.BoolVar(&f.keepTargetEdits, "keep-target-edits", false, "leave edits made on the target to synced objects as they are\n(reported as drift) instead of setting them back")
	fs.DurationVar(&f.pollEvery, "poll-every", 10*time.Second, "read the whole source every `DURATION` (--source-bootstrap-server)\n(no change feed): read the whole source through its brokers every DURATION (at least 1s) and apply what changed")
	fs.DurationVar(&f.settle, "verify-timeout", 30*time.Second, "wait at most `DURATION` for the target to show a round\nafter each applied round, re-read the target until it shows every change, at most this DURATION")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on http://`HOST:PORT`/metrics\nwith /healthz (the loop turns) and /readyz (200 only while IN STEP)")
}

var syncUsage = usageText("sync_usage")

func (c *cli) newSyncCmd() *cobra.Command {
	var f syncFlags
	var cmd *cobra.Command
	cmd = c.leaf("sync", "keep the target in step with the live ZooKeeper cluster until cutover; --freeze alarms on late changes", syncUsage,
		func(ctx context.Context, e *env, args []string) int {
			f.pollSet = cmd.Flags().Changed("poll-every")
			return runSync(ctx, e, &f, args)
		})
	f.register(cmd.Flags())
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keysPointer}
	return cmd
}

func (f *syncFlags) check(args []string) error {
	switch {
	case f.Source.SnapshotFile != "" || f.Source.Disk.Given():
		return errors.New("sync follows a live ZooKeeper's change feed: give --zookeeper, not --snapshot or --zk-data-dir (a fixed point in time)")
	case f.pollSet && f.Source.Bootstrap == "":
		return errors.New("--poll-every is for --source-bootstrap-server (a source without a change feed); --zookeeper is followed through its change feed, with --principal-map too")
	case f.Source.Bootstrap != "" && f.pollEvery < time.Second:
		return fmt.Errorf("--poll-every %s: want at least 1s", f.pollEvery)
	case f.TargetSnapshot != "":
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
	return f.Validate()
}

func runSync(ctx context.Context, e *env, f *syncFlags, args []string) int {
	if err := f.check(args); err != nil {
		return fail(e, "sync", err)
	}
	if f.Interactive && !e.tty {
		return fail(e, "sync", errNoTerminal)
	}
	if !f.yes && !f.freeze && !e.tty {
		// Nobody can confirm the first plan: refused before anything is
		// read or recorded (before, the plan was shown, declined, exit 0).
		return fail(e, "sync", errors.New("refusing to sync without confirmation: not a terminal; pass --yes (sync applies the first plan and every later change)"))
	}
	code, err := f.run(ctx, e)
	if err != nil {
		return fail(e, "sync", err)
	}
	return code
}

// request maps the sync flags to the session's request.
func (f *syncFlags) request(e *env) (syncsession.Request, error) {
	opts, err := f.Options()
	if err != nil {
		return syncsession.Request{}, err
	}
	src, err := f.Source.Request(hooks(nil))
	if err != nil {
		return syncsession.Request{}, err
	}
	var proof *migration.AccessSettings
	if !f.NoAccessProof {
		s := f.accessSettings()
		proof = &s
	}
	return syncsession.Request{AccessProof: proof, Source: src, Target: *f.Target.Kafka(), Options: opts, PolicyFile: f.PolicyFile, CredentialsFile: f.ScramCreds,
		PrincipalMapFile: f.PrincipalMap,
		PollEvery:        f.pollEvery, ReconcileEvery: f.reconcileEvery, VerifyTimeout: f.settle,
		Freeze: f.freeze, ExitOnChange: f.exitOnChange, KeepTargetEdits: f.keepTargetEdits,
		Audit: f.Audit.Request(), Args: e.args, Version: version,
		Hooks: migration.Hooks{
			Notice: func(msg string) { fmt.Fprintln(e.stderr, msg) },
			Warn:   func(err error) { fmt.Fprintf(e.stderr, "migrate sync: %s\n", cliflags.ErrorText(err)) },
			Phase:  memprofile.Phase, // ZKM_MEMPROFILE: where a long run's memory is
		}}, nil
}

func (f *syncFlags) run(ctx context.Context, e *env) (int, error) {
	req, err := f.request(e)
	if err != nil {
		return exitError, err
	}
	sess, err := syncsession.Open(ctx, req)
	var ae *syncsession.AuditError
	if errors.As(err, &ae) {
		return exitError, auditRefusal("sync", &f.Audit, ae.Err)
	}
	if err != nil {
		return exitError, err
	}
	if !f.Audit.Off {
		e.auditDB = f.Audit.Path // hints name a database given explicitly
	}
	out, err := render.NewSyncView(render.Output(f.Output), e.stdout)
	if err != nil {
		return exitError, err
	}
	v := &syncView{e: e, out: out, state: sess.State}
	closeSession := func() { rc, aerr := sess.Close(ctx); printReceipt(e, rc, aerr) }
	if f.metricsAddr != "" {
		mctx, stopMetrics := context.WithCancel(ctx)
		defer stopMetrics()
		addr, err := sess.ServeMetrics(mctx, f.metricsAddr)
		if err != nil {
			closeSession()
			return exitError, err
		}
		fmt.Fprintf(e.stderr, "Serving metrics on http://%s/metrics (/healthz, /readyz).\n", addr)
	}
	var confirm func(context.Context, *plan.Plan) bool
	if !f.yes && !f.freeze {
		confirm = func(_ context.Context, p *plan.Plan) bool { return v.confirm(p, f.Detail, sess.Target()) }
	}
	// --interactive: the first plan in the TUI review, then the sync
	// screen, which gets every round and ends sync when it quits.
	var ui *tui.SyncFlow
	if f.Interactive {
		ui = tui.NewSyncFlow(sess.Source(), sess.Target(), sess.Freeze, sess.State,
			func(err error) { fmt.Fprintf(e.stderr, "migrate sync: %v\n", err) }, tuiOptions(e))
		defer ui.Close()
		if confirm != nil {
			confirm = ui.Confirm
		}
	}
	defer sess.FreezeOnSignal(syscall.SIGUSR1)()
	if err := sess.Start(ctx, confirm); err != nil {
		closeSession()
		return exitError, err
	}
	status := v.follow(ctx, sess, ui, f.statusEvery)
	outcome, err := sess.Outcome()
	if f.Interactive && outcome != migration.SyncExitOnChange {
		ui.Close()
		v.status(status) // the screen is gone: say where sync ended
	}
	closeSession() // says what the session left undone
	return int(outcome.Code), err
}

// follow shows the session's rounds, on the sync screen or as lines with
// a status line every statusEvery, until the session ends; it returns
// the status at the end.
func (v *syncView) follow(ctx context.Context, sess *syncsession.Session, ui *tui.SyncFlow, statusEvery time.Duration) render.SyncStatus {
	status := render.SyncStatus{Since: time.Now()}
	var tick <-chan time.Time
	if statusEvery > 0 {
		t := time.NewTicker(statusEvery)
		defer t.Stop()
		tick = t.C
	}
	for rounds := sess.Rounds(); rounds != nil; {
		select {
		case r, ok := <-rounds:
			if !ok {
				rounds = nil
				continue
			}
			status.Add(r)
			if ui != nil {
				ui.Send(r)
			} else {
				v.round(r)
			}
		case <-tick:
			if ui == nil {
				v.status(status)
			}
		case <-ui.Started():
			ui.Run(ctx)
		case <-ui.Ended():
			sess.Stop() // q on the sync screen: stop after the round in flight
			ui.Report()
			ui = nil
		}
	}
	return status
}

// syncView is sync's output: a line per round and status lines, as text
// or JSON lines.
type syncView struct {
	e     *env
	out   render.SyncView
	state func() syncsession.State // the session's, for the status line
}

// confirm shows the first plan and asks, at a terminal only.
func (v *syncView) confirm(p *plan.Plan, detail bool, target string) bool {
	_ = render.PlanTextWith(v.e.stdout, p, v.e.textOptions(detail))
	if !v.e.tty {
		fmt.Fprintln(v.e.stderr, "migrate sync: refusing to apply the first plan without confirmation: not a terminal; pass --yes")
		return false
	}
	return confirm(v.e, fmt.Sprintf("Apply %s to %s, then keep it in step?", english.N(len(p.Changes), "change"), target))
}

func (v *syncView) round(r syncsession.Round) { _ = v.out.Round(r) }

func (v *syncView) status(st render.SyncStatus) {
	if v.state != nil {
		st.State = v.state()
	}
	_ = v.out.Status(time.Now(), st)
}
