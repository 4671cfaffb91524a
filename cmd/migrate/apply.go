package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

type applyFlags struct {
	planFlags
	planFile     string
	yes          bool
	validateOnly bool
	noPreflight  bool
	batchSize    int
	maxInFlight  int
	rate         float64
	verbose      bool
	settle       time.Duration
}

func (f *applyFlags) register(fs *pflag.FlagSet) {
	f.planFlags.register(fs)
	fs.StringVar(&f.planFile, "plan", "", "apply a plan `FILE` saved by 'migrate plan --out', checked against the source given now (otherwise the plan is computed now from the plan flags)")
	fs.BoolVar(&f.yes, "yes", false, "do not ask for confirmation")
	fs.BoolVar(&f.validateOnly, "validate-only", false, "dry run that changes nothing: send CreateTopics, CreatePartitions, IncrementalAlterConfigs and AlterClientQuotas with validate_only set; every other change (ACLs, SCRAM users, reassignments, --prune deletes) has no such mode and is reported as \"not validated: would send <RPC>\", never sent")
	fs.BoolVar(&f.noPreflight, "no-preflight", false, "skip the validate-only request sent before each real request")
	fs.IntVar(&f.batchSize, "batch-size", 500, "`N` resources per request (at least 1)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 4, "`N` concurrent requests (at least 1)")
	fs.Float64Var(&f.rate, "rate", 0, "at most `N` resources per second (0 = unlimited; negative, NaN and Inf are refused)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print every RPC with its broker and duration")
	fs.DurationVar(&f.settle, "verify-timeout", 60*time.Second, "after applying, re-read the target until it shows every applied change (KRaft brokers learn of changes asynchronously), at most this `DURATION`; changes it still does not show are named and the exit code is 3; 0 skips the check")
}

const applyUsage = `Usage: migrate apply --plan plan.json (--zookeeper ... | --zk-data-dir DIR | --snapshot FILE) --bootstrap-server ... [flags]
       migrate apply (--zookeeper ... | --zk-data-dir DIR | --snapshot FILE) --bootstrap-server ... [plan flags]

Apply a plan through the admin protocol: batched, validated server-side
first, retried on retriable errors, results per resource. Re-running is
safe: the target is read again, changes already applied are skipped, and a
resource in neither its planned before- nor after-state refuses the run.
Ctrl-C finishes the batch in flight and stops.
One apply per target per audit database: a second one sharing --audit-db
is refused while the first holds the target's lock (applies with another
database are not; see docs/audit.md). Earlier applies of the target that
were killed are resumed and closed as "abandoned" in the audit trail, once.
A saved plan (--plan) applies only what its source still justifies: the
file's digest must match its content, its source and target cluster ids
those of the --zookeeper/--snapshot and --bootstrap-server given now, and
every change must be one the current source would plan (same resource,
action and after-state; the plan's own options are used, and the --policy
it was made with, which must be given again) or already done on the
target. Anything else is refused, naming the change, before anything is
sent. Secrets resolve only into the resource and key they were read from.
Flags that shape a plan (--prune, --topics, --include, ...) are refused
with --plan: the saved plan keeps the options it was made with.
--validate-only sends only the RPCs that have a validate_only mode, with it
set; every other change is reported as not validated and nothing is sent.
After a real apply the target is read again until it shows every applied
change (--verify-timeout).
A target that stops answering fails the request in flight after
request.timeout.ms (--command-config, default 30000) and its retries; the
rest of the plan is then not sent.
Exit codes: 0 success or nothing to do, 1 error (nothing changed), 3 some
resources failed or were not sent, or the target did not show every applied
change within --verify-timeout (they are named).
`

func (c *cli) newApplyCmd() *cobra.Command {
	var f applyFlags
	cmd := c.command("apply", "apply a plan through the admin protocol (batched, validated, resumable, audited)", applyUsage,
		func(ctx context.Context, e *env, args []string) int { return runApply(ctx, e, &f, args) })
	f.register(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keyHelp()}
	return cmd
}

func runApply(ctx context.Context, e *env, f *applyFlags, args []string) int {
	if len(args) > 0 {
		return fail(e, "apply", fmt.Errorf("unexpected argument %q", args[0]))
	}
	if err := f.checkNumbers(); err != nil {
		return fail(e, "apply", err)
	}
	if f.planFile == "" && f.targetSnapshot != "" {
		return fail(e, "apply", errors.New("--target-snapshot is for offline review; apply needs --bootstrap-server"))
	}
	if f.planFile != "" && f.source.zookeeper == "" && f.source.snapshotFile == "" {
		return fail(e, "apply", fmt.Errorf("apply --plan %s needs the source it was planned from (--zookeeper or --snapshot): a saved change is applied only if that source still justifies it", f.planFile))
	}
	if err := f.validate(); err != nil {
		return fail(e, "apply", err)
	}
	if name := f.planShaping(); f.planFile != "" && name != "" {
		return fail(e, "apply", fmt.Errorf("--%s shapes a plan, and a saved plan keeps the options it was made with: re-run plan with --%s --out, or apply without --plan", name, name))
	}
	rec := f.audit.begin(ctx, e, "apply")
	if rec.err != nil {
		return fail(e, "apply", fmt.Errorf("refusing to apply without an audit trail (%v); fix --audit-db or pass --no-audit", rec.err))
	}
	// An apply whose journal cannot be written stops after the batch in flight.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rec.ok() {
		rec.run.SetOnError(func(err error) {
			fmt.Fprintf(e.stderr, "migrate apply: audit journal write failed, stopping: %v\n", err)
			cancel()
		})
	}
	code, err := f.run(ctx, e, rec)
	if err != nil {
		rec.finish(ctx, e, "error", exitError)
		return fail(e, "apply", err)
	}
	return code
}

// planShaping returns the name of the first flag given that shapes a plan
// (and so means nothing with --plan), or "".
func (f *applyFlags) planShaping() string {
	for _, c := range []struct {
		name string
		set  bool
	}{
		{"include", f.include != ""}, {"exclude", f.exclude != ""}, {"topics", f.topics != ""}, {"principals", f.principals != ""},
		{"broker-id-map", f.brokerIDMap != ""}, {"placement", f.placement != plan.PlacementAuto}, {"reassign", f.reassign},
		{"prune", f.prune}, {"prune-cluster-configs", f.pruneCluster}, {"raise-to-target-minimums", f.raiseMinimums},
		{"resend-secrets", f.resendSecrets}, {"target-version", f.targetVersion != "4.1"}, {"scram-resets", f.scramResets != ""},
	} {
		if c.set {
			return c.name
		}
	}
	return ""
}

// checkNumbers refuses numeric flags that mean nothing, rather than
// replacing them with a default behind the operator's back.
func (f *applyFlags) checkNumbers() error {
	switch {
	case f.batchSize < 1:
		return fmt.Errorf("--batch-size %d: want at least 1 resource per request", f.batchSize)
	case f.maxInFlight < 1:
		return fmt.Errorf("--max-in-flight %d: want at least 1 concurrent request", f.maxInFlight)
	case math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate < 0:
		return fmt.Errorf("--rate %v: want a finite number of resources per second, 0 for unlimited", f.rate)
	case f.settle < 0:
		return fmt.Errorf("--verify-timeout %s: want a duration of 0 (skip the check) or more", f.settle)
	}
	return nil
}

func (f *applyFlags) run(ctx context.Context, e *env, rec *recorder) (int, error) {
	var pl *planned
	err := withLoading(ctx, e, f.interactive, f.source.quiet, "Reading the source and the target", func(progress io.Writer) error {
		var err error
		if f.planFile != "" {
			pl, err = f.loadSaved(ctx, progress)
		} else {
			pl, err = f.compute(ctx, progress)
		}
		return err
	})
	if err != nil {
		return exitError, err
	}
	defer pl.close()
	if pl.conn == nil {
		return exitError, errors.New("apply needs --bootstrap-server")
	}
	rec.plan(ctx, pl)
	p := pl.plan

	// One apply per target at a time; a killed earlier run is resumed.
	if rec.ok() {
		release, err := rec.store.AcquireTargetLock(ctx, targetKey(pl), rec.id())
		if err != nil {
			return exitError, err
		}
		defer release()
		// Runs left unfinished on this target (killed) are linked once and
		// closed as abandoned, so no later run lists them again.
		if prev, err := rec.store.IncompleteRuns(ctx, targetKey(pl)); err == nil {
			var ids []int64
			for _, r := range prev {
				if r.ID != rec.id() {
					ids = append(ids, r.ID)
				}
			}
			closed, err := rec.run.AbandonRuns(ctx, ids)
			if err != nil {
				fmt.Fprintf(e.stderr, "migrate apply: audit: %v\n", err)
			}
			for _, id := range closed {
				fmt.Fprintf(e.stderr, "Resuming after interrupted run %d (closed as abandoned): changes it completed are skipped.\n", id)
			}
		}
	}

	if f.interactive {
		var last apply.Result
		res, err := sessionInteractive(ctx, e, p, f.applyFunc(pl, rec.observer(), &last), rec.id())
		if err != nil {
			return exitError, err
		}
		return f.exit(ctx, e, rec, apply.Result{Failed: res.Failed, Canceled: res.Canceled, NotValidated: last.NotValidated}, 0), nil
	}
	if !p.Runnable() {
		_ = render.PlanTextWith(e.stdout, p, render.TextOptions{Detail: f.detail})
		rec.finish(ctx, e, "nothing-to-do", exitOK)
		return exitOK, nil
	}
	if f.output != "json" {
		_ = render.PlanTextWith(e.stdout, p, render.TextOptions{Detail: f.detail})
	}
	if !f.yes && !f.validateOnly {
		if !e.tty {
			return exitError, errors.New("refusing to apply without confirmation: not a terminal; pass --yes")
		}
		if !confirm(e, fmt.Sprintf("Apply %d change(s) to %s?", len(p.Changes), strings.Join(pl.conn.Bootstrap, ","))) {
			fmt.Fprintln(e.stderr, "Nothing applied.")
			rec.finish(ctx, e, "declined", exitOK)
			return exitOK, nil
		}
	}
	var obs apply.Observers
	var js *render.ApplyJSON
	if f.output == "json" {
		js = &render.ApplyJSON{}
		obs = append(obs, js)
	} else {
		obs = append(obs, withMeter(e, f.source.quiet, &render.ApplyText{W: e.stdout, Verbose: f.verbose}))
	}
	if o := rec.observer(); o != nil {
		obs = append(obs, o)
	}
	var sent appliedChanges
	obs = append(obs, &sent)
	res, err := apply.Run(ctx, pl.conn.Client, p, pl.target, f.applyOptions(pl), obs)
	if err != nil {
		return exitError, err
	}
	if res.Stopped != nil {
		fmt.Fprintf(e.stderr, "migrate apply: stopped, the rest of the plan was not sent: %v\n", res.Stopped)
	}
	var unverified []string
	if len(sent.changes) > 0 && f.settle > 0 && res.Stopped == nil {
		if unverified, err = f.verify(ctx, e, pl, sent.changes); err != nil {
			fmt.Fprintf(e.stderr, "migrate apply: %v\n", err)
			if rec.ok() {
				_ = rec.run.Note(ctx, "verify", err.Error())
			}
		}
	}
	if js != nil {
		js.Summary.AuditRun = rec.id()
		js.Summary.Unverified = unverified
		_ = js.Write(e.stdout)
	}
	return f.exit(ctx, e, rec, res, len(unverified)), nil
}

// appliedChanges collects the changes the target accepted (not the
// validate-only preflight), for verify.
type appliedChanges struct {
	mu      sync.Mutex
	changes []*plan.Change
}

func (a *appliedChanges) Observe(ev apply.Event) {
	if r, ok := ev.(apply.ResourceResult); ok && r.Err == nil && !r.ValidateOnly {
		a.mu.Lock()
		a.changes = append(a.changes, r.Change)
		a.mu.Unlock()
	}
}

// exit records the run's outcome and picks the exit code. A validate-only
// run is "validated" only when every change was validated; one with a
// change it could not validate (no validate_only mode), a failed validation
// or an interruption is "not validated". An apply whose verify did not see
// every applied change is "unverified", exit 3.
func (f *applyFlags) exit(ctx context.Context, e *env, rec *recorder, res apply.Result, unverified int) int {
	code := exitOK
	if res.Failed > 0 || res.Canceled || unverified > 0 {
		code = exitPartial
	}
	outcome := "applied"
	switch {
	case f.validateOnly && (code != exitOK || res.NotValidated > 0):
		outcome = "not validated"
	case f.validateOnly:
		outcome = "validated"
	case res.Failed > 0:
		outcome = "partial"
	case res.Canceled:
		outcome = "canceled"
	case unverified > 0:
		outcome = "unverified"
	}
	rec.finish(ctx, e, outcome, code)
	return code
}

func (f *applyFlags) applyOptions(pl *planned) apply.Options {
	// Topic RPCs wait server-side as long as the client waits for any answer.
	return apply.Options{ValidateOnly: f.validateOnly, NoPreflight: f.noPreflight, BatchSize: f.batchSize,
		MaxInFlight: f.maxInFlight, Rate: f.rate, Secrets: pl.resolve, TimeoutMillis: int32(pl.conn.Config.Timeout().Milliseconds())}
}

// applyFunc is the apply the TUI runs; the audit trail sees its events too.
// The result is kept in last.
func (f *applyFlags) applyFunc(pl *planned, audit apply.Observer, last *apply.Result) func(ctx context.Context, p *plan.Plan, obs apply.Observer) error {
	return func(ctx context.Context, p *plan.Plan, obs apply.Observer) error {
		res, err := apply.Run(ctx, pl.conn.Client, p, pl.target, f.applyOptions(pl), apply.Observers{obs, audit})
		*last = res
		return err
	}
}

// targetKey names the target for the apply lock and for finding killed
// runs to resume: its cluster id, as the audit trail records it.
func targetKey(pl *planned) string {
	if pl.target.ClusterID != "" {
		return pl.target.ClusterID
	}
	return strings.Join(pl.conn.Bootstrap, ",")
}

// loadSaved reads a saved plan, the source and the live target, and keeps
// only what the source still justifies: the plan is built again from the
// source and target read now with the saved plan's options (and --policy
// when given), and every saved change must be in that plan identically or
// already done on the target (plan.Recheck); otherwise nothing is sent.
// Secrets resolve from the plan built now, by change and key, so a saved
// reference reaches only the resource and key it was read from.
func (f *applyFlags) loadSaved(ctx context.Context, progress io.Writer) (*planned, error) {
	p, err := loadPlan(f.planFile)
	if err != nil {
		return nil, err
	}
	if err := apply.Validate(p); err != nil {
		return nil, fmt.Errorf("%s: %w", f.planFile, err)
	}
	if f.source.zookeeper == "" && f.source.snapshotFile == "" {
		return nil, fmt.Errorf("apply --plan %s needs the source it was planned from (--zookeeper or --snapshot): a saved change is applied only if that source still justifies it", f.planFile)
	}
	var topics *regexp.Regexp
	if p.Options.TopicRegex != "" {
		if topics, err = regexp.Compile(p.Options.TopicRegex); err != nil {
			return nil, fmt.Errorf("%s: field options.topics: %v", f.planFile, err)
		}
	}
	pol, digest, err := loadPolicy(f.policyFile)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Options.Policy != "" && f.policyFile == "":
		return nil, fmt.Errorf("%s was planned with a topic policy (%s): give the same --policy, so that apply checks the changes against it again", f.planFile, p.Options.Policy)
	case p.Options.Policy != "" && digest != p.Options.Policy:
		return nil, fmt.Errorf("--policy %s (%s) is not the policy %s was planned with (%s)", f.policyFile, digest, f.planFile, p.Options.Policy)
	}
	creds, err := loadCredentials(f.scramCreds)
	if err != nil {
		return nil, err
	}
	src, err := f.source.load(ctx, progress)
	if err != nil {
		return nil, err
	}
	conn, err := f.target.connect(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "Reading target %s ...\n", strings.Join(conn.Bootstrap, ","))
	tgt, err := kread.Read(ctx, conn, kread.Options{Topics: topics})
	if err != nil {
		conn.Close()
		return nil, err
	}
	if err := apply.Stale(p, tgt); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", f.planFile, err)
	}
	fresh, err := buildPlan(src, tgt, creds, p.Options, pol)
	if err == nil {
		err = plan.Recheck(p, fresh, plan.NewTarget(tgt))
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", f.planFile, err)
	}
	return &planned{plan: p, source: src, target: tgt, conn: conn, creds: creds, resolve: plan.SecretsOf(fresh)}, nil
}

func orEmpty(s *snapshot.Snapshot) *snapshot.Snapshot {
	if s == nil {
		return &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: "plan-file"}
	}
	return s
}

func confirm(e *env, question string) bool {
	fmt.Fprintf(e.stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// verify re-reads the target until it shows every applied change in its
// After state, or --verify-timeout runs out; it returns the ids of the
// changes the target never showed. KRaft brokers apply metadata
// asynchronously, so a read right after the RPCs may lag behind them: the
// target is read at once, then after 100 ms, 200 ms, ... (at most 1 s apart),
// and the wait ends with the first read that shows everything.
func (f *applyFlags) verify(ctx context.Context, e *env, pl *planned, applied []*plan.Change) ([]string, error) {
	deadline := time.Now().Add(f.settle)
	missing := make([]string, len(applied))
	for i, c := range applied {
		missing[i] = c.ID
	}
	var readErr error
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		rctx, cancel := context.WithDeadline(ctx, deadline)
		tgt, err := kread.Read(rctx, pl.conn, f.readOptions())
		cut := rctx.Err() != nil && ctx.Err() == nil // our own deadline ended the read
		cancel()
		if err != nil && !cut {
			readErr = err
		}
		if err == nil {
			readErr = nil
			ix := plan.NewTarget(tgt)
			missing = missing[:0]
			for _, c := range applied {
				if !ix.Shows(c) {
					missing = append(missing, c.ID)
				}
			}
			if len(missing) == 0 {
				fmt.Fprintf(e.stderr, "Verified: the target shows every applied change.\n")
				return nil, nil
			}
		}
		wait := min(delay, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	shown := strings.Join(missing[:min(10, len(missing))], ", ")
	if len(missing) > 10 {
		shown += fmt.Sprintf(" (and %d more)", len(missing)-10)
	}
	why := ""
	if readErr != nil {
		why = fmt.Sprintf(" (last read failed: %v)", readErr)
	}
	return missing, fmt.Errorf("verify: after %s the target still does not show %d applied change(s)%s: %s", f.settle, len(missing), why, shown)
}
