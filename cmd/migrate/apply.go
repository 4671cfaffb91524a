package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

type applyFlags struct {
	planFlags
	planFile     string
	verifyKey    string
	yes          bool
	confirmDels  int
	askDeletes   int  // the count of deletes to type at the terminal (0: none)
	typedDeletes bool // the deletes were confirmed by typing their count
	validateOnly bool
	noPreflight  bool
	batchSize    int
	maxInFlight  int
	rate         float64
	verbose      bool
	settle       time.Duration
}

func (f *applyFlags) register(fs *pflag.FlagSet) {
	f.planFlags.Register(fs)
	fs.StringVar(&f.planFile, "plan", "", "apply a plan `FILE` saved by 'migrate plan --out'\nchecked against the source given now (otherwise the plan is computed now from the plan flags)")
	fs.StringVar(&f.verifyKey, "verify-key", "", "with --plan: apply it only if signed by this ed25519 key `FILE`\n(the public key, FILE.pub of 'migrate audit keygen'; plan --out --sign-key signs): an unsigned plan, another key's or a bad signature is refused before anything else is read")
	fs.BoolVar(&f.yes, "yes", false, "do not ask for confirmation\n(a saved plan that deletes also needs --confirm-deletes)")
	fs.IntVar(&f.confirmDels, "confirm-deletes", 0, "confirm that the plan deletes `N` resources (its \"to delete\" count)\nas typing N at the terminal does: a saved plan (--plan) that deletes is applied only so confirmed, --yes alone is refused; a wrong N is always refused")
	fs.BoolVar(&f.validateOnly, "validate-only", false, "dry run that changes nothing (only RPCs with a validate_only mode)\nsend CreateTopics, CreatePartitions, IncrementalAlterConfigs and AlterClientQuotas with validate_only set; every other change (ACLs, SCRAM users, reassignments, --prune deletes) has no such mode and is reported as \"not validated: would send <RPC>\", never sent")
	fs.BoolVar(&f.noPreflight, "no-preflight", false, "skip the validate-only request sent before each real request")
	cmdline.IntIn(fs, &f.batchSize, "batch-size", 500, 1, migration.MaxBatchSize, fmt.Sprintf("`N` resources per request (1 to %d)", migration.MaxBatchSize))
	cmdline.IntIn(fs, &f.maxInFlight, "max-in-flight", 4, 1, migration.MaxInFlight, fmt.Sprintf("`N` concurrent requests (1 to %d)", migration.MaxInFlight))
	fs.Float64Var(&f.rate, "rate", 0, "at most `N` resources per second (0 = unlimited)\n(negative, NaN and Inf are refused)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print every RPC with its broker and duration")
	fs.DurationVar(&f.settle, "verify-timeout", 60*time.Second, "wait for every broker to show the changes, while each `DURATION` shows more\nafter applying, re-read the target through each of its brokers until every broker shows every applied change (KRaft brokers learn of changes asynchronously, each on its own); the wait goes on while each DURATION shows more of them (a large apply is published in pieces) and ends after one that shows none more: changes still not shown are named and the exit code is 3; 0 skips the check")
}

var applyUsage = usageText("apply_usage")

func (c *cli) newApplyCmd() *cobra.Command {
	var f applyFlags
	cmd := c.leaf("apply", "apply a plan through the admin protocol (batched, validated, resumable, audited)", applyUsage,
		func(ctx context.Context, e *env, args []string) int { return runApply(ctx, e, &f, args) })
	f.register(cmd.Flags())
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keysPointer}
	return cmd
}

func runApply(ctx context.Context, e *env, f *applyFlags, args []string) int {
	if err := f.checkNumbers(); err != nil {
		return fail(e, "apply", err)
	}
	if f.verifyKey != "" && f.planFile == "" {
		return fail(e, "apply", errors.New("--verify-key checks the signature of a saved plan: give --plan FILE"))
	}
	if f.planFile == "" && f.TargetSnapshot != "" {
		return fail(e, "apply", errors.New("--target-snapshot is for offline review; apply needs --bootstrap-server"))
	}
	if f.TargetSnapshot == "" && strings.TrimSpace(f.Target.Bootstrap) == "" {
		// Not plan's message: it offers --target-snapshot, which apply refuses.
		return fail(e, "apply", errors.New("give the target: --bootstrap-server host:port [--command-config client.properties] (apply writes to a live cluster)"))
	}
	validate := f.Validate
	if f.planFile != "" && !f.Source.Given() {
		if !isRevertPlan(f.planFile) {
			return fail(e, "apply", fmt.Errorf("apply --plan %s needs the source it was planned from (--zookeeper, --zk-data-dir, --source-bootstrap-server or --snapshot): a saved change is applied only if that source still justifies it", f.planFile))
		}
		validate = f.ValidateNoSource // justified by the audit trail
	}
	if err := validate(); err != nil {
		return fail(e, "apply", err)
	}
	if name := f.planShaping(); f.planFile != "" && name != "" {
		return fail(e, "apply", fmt.Errorf("--%s shapes a plan, and a saved plan keeps the options it was made with: re-run plan with --%s --out, or apply without --plan", name, name))
	}
	rec := beginAuditQuiet(ctx, e, &f.Audit, "apply")
	if rec.Err != nil {
		return fail(e, "apply", auditRefusal("apply", &f.Audit, rec.Err))
	}
	// An apply whose journal cannot be written stops after the batch in flight.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rec.OnError(func(err error) {
		fmt.Fprintf(e.stderr, "migrate apply: audit journal write failed, stopping: %v\n", err)
		cancel()
	})
	code, err := f.run(ctx, e, rec)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
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
		{"include", f.Include != ""}, {"exclude", f.Exclude != ""}, {"topics", f.Topics != ""}, {"principals", f.Principals != ""},
		{"broker-id-map", f.BrokerIDMap != ""}, {"placement", f.Placement != plan.PlacementAuto}, {"reassign", f.Reassign},
		{"prune", f.Prune}, {"prune-cluster-configs", f.PruneCluster}, {"raise-to-target-minimums", f.RaiseMinimums},
		{"resend-secrets", f.ResendSecrets}, {"target-version", f.TargetVersion != "4.1"}, {"scram-resets", f.ScramResets != ""},
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
	case math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate < 0:
		return fmt.Errorf("--rate %v: want a finite number of resources per second, 0 for unlimited", f.rate)
	case f.confirmDels < 0:
		return fmt.Errorf("--confirm-deletes %d: want the number of resources the plan deletes", f.confirmDels)
	case f.settle < 0:
		return fmt.Errorf("--verify-timeout %s: want a duration of 0 (skip the check) or more", f.settle)
	}
	return nil
}

func (f *applyFlags) run(ctx context.Context, e *env, rec *migration.Recorder) (int, error) {
	pl, err := f.load(ctx, e, rec)
	if err != nil {
		return exitError, err
	}
	defer pl.Close()
	if pl.Conn == nil {
		return exitError, errors.New("apply needs --bootstrap-server")
	}
	f.showWidened(ctx, e, rec, pl)
	if err := f.checkDeletes(ctx, e, rec, pl.Plan); err != nil {
		return exitError, err
	}
	// One apply per target at a time; a killed earlier run is resumed.
	h := notices(e, "apply")
	lock, err := migration.BeginApply(ctx, rec, pl, f.validateOnly, h)
	if err != nil {
		return exitError, err
	}
	if lock != nil {
		defer lock.Release()
	}
	p := pl.Plan
	if f.Interactive {
		if !f.typeDeletes(ctx, e, rec) {
			return f.declined(ctx, e, rec)
		}
		run, last := pl.ApplyFunc(f.applyRequest(), rec.Observer())
		res, err := sessionInteractive(ctx, e, p, run, rec.ID())
		if err != nil {
			return exitError, err
		}
		r := last()
		r.Failed, r.Canceled = res.Failed, res.Canceled // the session's counts; what the apply could not validate
		return f.exit(ctx, e, rec, migration.ApplyOutcome(r, 0, f.validateOnly)), nil
	}
	if !p.Runnable() {
		_ = render.PlanTextWith(e.stdout, p, e.textOptions(f.Detail))
		finish(ctx, e, rec, migration.NothingToDo)
		return exitOK, nil
	}
	view, err := render.NewApplyView(render.Output(f.Output), e.stdout, e.textOptions(f.Detail), f.verbose, e.meterOut(f.Source.Quiet), e.tty)
	if err != nil {
		return exitError, outputError(err)
	}
	_ = view.Plan(p)
	if !f.typeDeletes(ctx, e, rec) {
		return f.declined(ctx, e, rec)
	}
	if !f.yes && !f.validateOnly && !f.typedDeletes {
		if !e.tty {
			return exitError, errors.New("refusing to apply without confirmation: not a terminal; pass --yes")
		}
		if !confirm(e, fmt.Sprintf("Apply %s to %s?", english.N(len(p.Changes), "change"), strings.Join(pl.Conn.Bootstrap, ","))) {
			fmt.Fprintln(e.stderr, "Nothing applied.")
			finish(ctx, e, rec, migration.Declined)
			return exitOK, nil
		}
	}
	var sent migration.Applied
	res, err := pl.Run(ctx, p, f.applyRequest(), view.Observer(), rec.Observer(), &sent)
	if err != nil {
		return exitError, err
	}
	var unverified []string
	if res.Stopped != nil {
		fmt.Fprintf(e.stderr, "migrate apply: stopped, the rest of the plan was not sent: %v\n", res.Stopped)
	} else {
		unverified = migration.VerifySent(ctx, rec, pl, &sent, f.settle, h)
	}
	_ = view.Summary(rec.ID(), unverified)
	if !f.validateOnly && res.Stopped == nil {
		f.proveApplied(ctx, e, rec, pl)
	}
	return f.exit(ctx, e, rec, migration.ApplyOutcome(res, len(unverified), f.validateOnly)), nil
}

// load computes the plan, or reads the saved one, behind the loading
// screen with --interactive.
func (f *applyFlags) load(ctx context.Context, e *env, rec *migration.Recorder) (pl *migration.Planned, err error) {
	err = withLoading(ctx, e, f.Interactive, f.Source.Quiet, "Reading the source and the target", func(progress io.Writer) error {
		if f.planFile != "" {
			pl, err = f.loadSaved(ctx, progress, rec.Store())
		} else {
			pl, err = f.compute(ctx, progress)
		}
		return err
	})
	return pl, err
}

// showWidened says on stderr, and records, the options of a saved plan
// that widen what apply may do (migration.Widenings): its file, not the
// operator's flags, chose them.
func (f *applyFlags) showWidened(ctx context.Context, e *env, rec *migration.Recorder, pl *migration.Planned) {
	if pl.VerifiedBy != "" {
		fmt.Fprintf(e.stderr, "migrate apply: %s is signed by key %s: verified.\n", f.planFile, pl.VerifiedBy)
		migration.NoteVerified(ctx, rec, f.planFile, pl.VerifiedBy)
	}
	if len(pl.Widened) == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "migrate apply: %s widens what apply may do:\n", f.planFile)
	for _, w := range pl.Widened {
		fmt.Fprintf(e.stderr, "  %s\n", w)
	}
	migration.NoteWidened(ctx, rec, f.planFile, pl.Widened)
}

// checkDeletes has the deletes confirmed by their count
// (migration.ConfirmDeletes): --confirm-deletes N, or N typed at the
// terminal (typeDeletes, after the plan is shown); --yes alone does not
// confirm a saved plan's.
func (f *applyFlags) checkDeletes(ctx context.Context, e *env, rec *migration.Recorder, p *plan.Plan) error {
	var err error
	f.askDeletes, err = migration.ConfirmDeletes(ctx, rec, p, migration.DeleteConfirmation{Saved: f.planFile != "", Count: f.confirmDels,
		Terminal: e.tty, DryRun: f.validateOnly})
	var de *migration.DeleteCountError
	switch {
	case errors.As(err, &de) && de.Given == 0:
		return fmt.Errorf("refusing to apply: the plan deletes %s and this is not a terminal to confirm them at; pass --confirm-deletes %d (with --yes)", english.N(de.Deletes, "resource"), de.Deletes)
	case errors.As(err, &de):
		return fmt.Errorf("--confirm-deletes %d: the plan deletes %s, not %d; nothing applied", de.Given, english.N(de.Deletes, "resource"), de.Given)
	}
	return err
}

// typeDeletes asks at the terminal for the count of deletes checkDeletes
// left to confirm, and reports whether it was typed; the typed count
// confirms the apply (no y/N question follows).
func (f *applyFlags) typeDeletes(ctx context.Context, e *env, rec *migration.Recorder) bool {
	if f.askDeletes == 0 {
		return true
	}
	fmt.Fprintf(e.stderr, "The plan deletes %s (the changes marked -). Type %d to confirm: ", english.N(f.askDeletes, "resource"), f.askDeletes)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	f.typedDeletes = migration.TypedDeletes(ctx, rec, f.askDeletes, line)
	return f.typedDeletes
}

// declined ends a run whose deletes were not confirmed at the terminal:
// nothing applied, exit 0.
func (f *applyFlags) declined(ctx context.Context, e *env, rec *migration.Recorder) (int, error) {
	fmt.Fprintln(e.stderr, "Nothing applied.")
	finish(ctx, e, rec, migration.Declined)
	return exitOK, nil
}

// proveApplied proves the target the apply left (its ACLs read again),
// records the proof and says the verdict on stderr, beside the verify
// line (the exit code stays the apply's: the proof is a report, and
// access diff's exit code is the gate).
func (f *applyFlags) proveApplied(ctx context.Context, e *env, rec *migration.Recorder, pl *migration.Planned) {
	if f.NoAccessProof || pl.Source == nil {
		return // a revert plan has no source to prove the target against
	}
	r, err := migration.ProveTarget(ctx, migration.AccessSourceOf(pl.Source), pl.Conn, pl.PrincipalMap, f.accessSettings())
	if err != nil {
		fmt.Fprintf(e.stderr, "migrate apply: access proof not made: %s\n", cliflags.ErrorText(accessError(err)))
		return
	}
	rec.AccessProof(ctx, r, migration.ProvedTarget)
	_ = render.AccessLine(e.stderr, r, "the target", f.Detail)
}

// exit records the run's outcome and returns its exit code.
func (f *applyFlags) exit(ctx context.Context, e *env, rec *migration.Recorder, o migration.Outcome) int {
	finish(ctx, e, rec, o)
	return int(o.Code)
}

// applyRequest maps the apply flags to how a plan is applied (the secrets
// and the request timeout come with the plan: migration.Planned.Apply).
func (f *applyFlags) applyRequest() migration.ApplyRequest {
	return migration.ApplyRequest{ValidateOnly: f.validateOnly, NoPreflight: f.noPreflight, BatchSize: f.batchSize,
		MaxInFlight: f.maxInFlight, Rate: f.rate}
}

// loadSaved maps the apply flags to the request that reads a saved plan
// and keeps only what the source still justifies (migration.LoadSaved),
// and names the flags in its refusals. A revert plan is justified by the
// audit trail it records into (store) instead of a source, which it reads
// only when given.
func (f *applyFlags) loadSaved(ctx context.Context, progress io.Writer, store *audit.Store) (*migration.Planned, error) {
	var src migration.SourceFunc
	if f.Source.Given() {
		src = func(ctx context.Context) (*snapshot.Snapshot, error) { return loadSource(ctx, &f.Source, progress) }
	}
	pl, err := migration.LoadSaved(ctx, migration.SavedRequest{PlanFile: f.planFile, VerifyKeyFile: f.verifyKey, Source: src,
		Dial: f.Target.Kafka().Dial, PolicyFile: f.PolicyFile, CredentialsFile: f.ScramCreds, PrincipalMapFile: f.PrincipalMap,
		Audit: store, Hooks: hooks(progress)})
	var pe *migration.PolicyError
	var me *migration.PrincipalMapError
	switch {
	case errors.As(err, &me) && me.Given == "":
		return nil, fmt.Errorf("%s was planned with a principal map (%s): give the same --principal-map, so that the source is mapped as it was", me.PlanFile, me.Planned)
	case errors.As(err, &me) && me.Planned == "":
		return nil, fmt.Errorf("%s was planned without a principal map: leave out --principal-map %s, or plan again with it", me.PlanFile, me.Given)
	case errors.As(err, &me):
		return nil, fmt.Errorf("--principal-map %s (%s) is not the map %s was planned with (%s)", me.Given, me.GivenDigest, me.PlanFile, me.Planned)
	case errors.As(err, &pe) && pe.Given == "":
		return nil, fmt.Errorf("%s was planned with a topic policy (%s): give the same --policy, so that apply checks the changes against it again", pe.PlanFile, pe.Planned)
	case errors.As(err, &pe):
		return nil, fmt.Errorf("--policy %s (%s) is not the policy %s was planned with (%s)", pe.Given, pe.GivenDigest, pe.PlanFile, pe.Planned)
	}
	return pl, err
}

// isRevertPlan reports whether path is a revert plan (migrate audit
// revert), which apply justifies by the audit trail and needs no source
// for; a file that does not read as a plan is not one.
func isRevertPlan(path string) bool {
	p, err := planfile.Read(path)
	return err == nil && p.Reverts != nil
}

func confirm(e *env, question string) bool {
	fmt.Fprintf(e.stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
