package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/memprofile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// planFlags are the flags that shape a plan, shared by plan, apply and
// sync, with what the commands do with them.
type planFlags struct{ cliflags.Plan }

// request maps the plan flags to the request that computes the plan;
// progress lines go to progress.
func (f *planFlags) request(progress io.Writer) (migration.PlanRequest, error) {
	opts, err := f.Options()
	if err != nil {
		return migration.PlanRequest{}, err
	}
	if f.TargetSnapshot != "" && f.Target.CommandConfig != "" {
		// Offline review: the user --command-config signs in as is the
		// one whose SCRAM credentials --prune keeps (live, the connection's).
		if opts.OwnUser, err = f.Target.Kafka().OwnUser(); err != nil {
			return migration.PlanRequest{}, err
		}
	}
	return migration.PlanRequest{
		Source: func(ctx context.Context) (*snapshot.Snapshot, error) { return loadSource(ctx, &f.Source, progress) },
		Target: migration.Target{SnapshotFile: f.TargetSnapshot, Dial: f.Target.Kafka().Dial,
			Principal: f.Target.Principal}, // --principal for offline (--target-snapshot) review
		Options: opts, PolicyFile: f.PolicyFile, CredentialsFile: f.ScramCreds, ScramResetsFile: f.ScramResets,
		PrincipalMapFile: f.PrincipalMap,
		Hooks:            hooks(progress),
	}, nil
}

// hooks writes a use case's progress lines to progress and marks its
// phases for the memory profile.
func hooks(progress io.Writer) migration.Hooks {
	h := migration.Hooks{Phase: memprofile.Phase}
	if progress != nil {
		h.Progress = func(msg string) { fmt.Fprintln(progress, msg) }
	}
	return h
}

// notices writes what a use case must tell the operator to stderr, and
// the failures it goes on after as "migrate CMD: ..." lines.
func notices(e *env, cmd string) migration.Hooks {
	return migration.Hooks{Notice: func(msg string) { fmt.Fprintln(e.stderr, msg) }, Phase: memprofile.Phase,
		Warn: func(err error) { fmt.Fprintf(e.stderr, "migrate %s: %v\n", cmd, err) }}
}

// compute reads both sides and builds the plan.
// proveAccess proves the target as the plan would leave it (unless
// --no-access-proof) and records the proof; a proof that cannot be made
// (a settings file refused) is said on stderr and the plan goes on.
func (f *planFlags) proveAccess(ctx context.Context, e *env, cmd string, rec *migration.Recorder, pl *migration.Planned) *access.Result {
	if f.NoAccessProof {
		return nil
	}
	r, err := migration.ProvePlanned(ctx, pl, f.accessSettings())
	if err != nil {
		fmt.Fprintf(e.stderr, "migrate %s: access proof not made: %s\n", cmd, cliflags.ErrorText(accessError(err)))
		return nil
	}
	rec.AccessProof(ctx, r, migration.ProvedPlanned)
	return r
}

// accessSettings are where the access proof takes each node's settings.
func (f *planFlags) accessSettings() migration.AccessSettings {
	return migration.AccessSettings{BrokerConfigs: f.Source.BrokerConfigs, TargetConfigs: f.TargetConfigs}
}

func (f *planFlags) compute(ctx context.Context, progress io.Writer) (*migration.Planned, error) {
	r, err := f.request(progress)
	if err != nil {
		return nil, err
	}
	return migration.Compute(ctx, r)
}

var planUsage = usageText("plan_usage")

func (c *cli) newPlanCmd() *cobra.Command {
	var f planFlags
	var out string
	var sign signFlag
	var cmd *cobra.Command
	cmd = c.leaf("plan", "compute the changes that bring the target in line with the source (diff, -o json, --out plan.zst)", planUsage,
		func(ctx context.Context, e *env, args []string) int {
			return runPlan(ctx, e, &f, out, &sign, args, applyHint(e, cmd.Flags(), out, sign.file))
		})
	fs := cmd.Flags()
	f.Register(fs)
	fs.StringVar(&out, "out", "", "save the plan to `FILE`: .json plain, else zstd-compressed\n(with the before-states apply checks): plain JSON when it ends in .json, else zstd-compressed JSON (.zst; zstd -dc FILE shows it)")
	sign.register(fs)
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keysPointer}
	return cmd
}

func runPlan(ctx context.Context, e *env, f *planFlags, out string, sign *signFlag, args []string, hint string) int {
	if err := f.Validate(); err != nil {
		return fail(e, "plan", err)
	}
	key, err := sign.load(out)
	if err != nil {
		return fail(e, "plan", err)
	}
	view, err := render.PlanView(render.Output(f.Output), e.stdout, e.textOptions(f.Detail))
	if err != nil {
		return fail(e, "plan", outputError(err))
	}
	rec := beginAudit(ctx, e, &f.Audit, "plan")
	var pl *migration.Planned
	err = withLoading(ctx, e, f.Interactive, f.Source.Quiet, "Reading the source and the target", func(progress io.Writer) error {
		var err error
		pl, err = f.compute(ctx, progress)
		return err
	})
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "plan", err)
	}
	defer pl.Close()
	// The plan was just built from these snapshots: its endpoints hold
	// their digests (each a whole encoding of a snapshot to compute).
	rec.Reads(ctx, pl, pl.Plan.Source.Digest, pl.Plan.Target.Digest)
	proof := f.proveAccess(ctx, e, "plan", rec, pl)
	p := pl.Plan
	pl.Source, pl.Target = nil, nil // the plan holds what is left to do: their memory goes back before it is recorded and saved
	return finishPlan(ctx, e, rec, p, view, planOutput{cmd: "plan", out: out, sign: key, interactive: f.Interactive, access: proof, applyWith: hint})
}

// signFlag is --sign-key: the private key that signs the plan file --out
// saves.
type signFlag struct{ file string }

func (s *signFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.file, "sign-key", "", "sign the plan --out saves with the ed25519 private key in `FILE`\n(from 'migrate audit keygen --out FILE'); apply --plan --verify-key FILE.pub then refuses it unless so signed (docs/plan-file.md)")
}

// load reads the key, for the file out (a key without --out is refused:
// nothing would be signed); nil without --sign-key.
func (s *signFlag) load(out string) (*plansign.Key, error) {
	if s.file == "" {
		return nil, nil
	}
	if out == "" {
		return nil, errors.New("--sign-key signs the plan file --out saves: give --out FILE")
	}
	return migration.LoadSignKey(s.file)
}

// planOutput is what a command that computes a plan (plan, audit revert)
// does with it, by its flags.
type planOutput struct {
	cmd         string        // in messages: "plan"
	out         string        // --out
	sign        *plansign.Key // --sign-key: signs the file (nil: unsigned)
	interactive bool
	access      *access.Result // the proof shown with it (nil: none)
	applyWith   string         // how to apply the saved file ("": migrate apply --plan FILE)
}

// finishPlan records the plan p (and its file, encoded once for both),
// reviews it in the TUI with --interactive, saves it with --out, shows it
// through view, and ends the run: exit 2 while it holds runnable changes.
func finishPlan(ctx context.Context, e *env, rec *migration.Recorder, p *plan.Plan, view render.View[render.PlanShown], o planOutput) int {
	var file *planfile.Encoded
	if o.out != "" && !o.interactive {
		file = rec.PlanFile(ctx, p, o.sign)
	} else {
		rec.Plan(ctx, p) // the file, if any, holds the changes picked in review
	}
	memprofile.Phase("audit")
	if o.interactive {
		sel, ok, err := reviewInteractive(ctx, e, p, accessNotes(o.access)...)
		if err != nil {
			return fail(e, o.cmd, err)
		}
		if !ok {
			fmt.Fprintln(e.stderr, "Nothing saved.")
			finish(ctx, e, rec, migration.ReviewCanceled)
			return exitOK
		}
		p = sel
	}
	if o.out != "" {
		if err := migration.SavePlan(o.out, p, file, o.sign, notices(e, o.cmd)); err != nil {
			finish(ctx, e, rec, migration.Failed)
			return fail(e, o.cmd, err)
		}
	}
	// -o json shows the digest the file holds: planfile.Write sealed p, or
	// the view seals it (an encoding of the whole plan each: not twice when
	// once will do).
	if err := view(render.PlanShown{Plan: p, Saved: o.out, Access: o.access, ApplyWith: o.applyWith}); err != nil {
		return fail(e, o.cmd, err)
	}
	memprofile.Phase("render")
	oc := migration.PlanOutcome(p.Runnable())
	finish(ctx, e, rec, oc)
	return int(oc.Code)
}

// accessNotes is the access proof of the plan as notes for the review
// (the lines plan --detail prints): the operator decides with it on screen.
func accessNotes(r *access.Result) []string {
	if r == nil {
		return nil
	}
	var b strings.Builder
	_ = render.AccessLine(&b, r, "the target as the plan would leave it", true)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// carriedToApply are the flags of plan that apply --plan needs again, in
// the order a hint gives them: the source (as read), the target, and the
// inputs apply checks against the plan's (policy, principal map) or needs
// to resolve secrets and record the run. The flags that shape a plan are
// not among them: apply --plan refuses them.
var carriedToApply = []string{
	"zookeeper", "zk-auth", "zk-tls-config-file", "zk-data-dir", "zk-data-log-dir", "zk-chroot", "zk-zxid", "zk-time",
	"source-bootstrap-server", "source-command-config", "snapshot", "full", "zk-requests-in-flight", "zk-connections",
	"zk-no-multi-read", "zk-timeout", "broker-config", "password-encoder-secret-file", "scram-credentials",
	"bootstrap-server", "command-config", "principal", "target-config",
	"policy", "principal-map", "audit-db", "no-audit", "audit-key", "receipt-file",
}

// applyHint is the command that applies the plan file out as plan's
// flags fs made it, ready to paste: apply --plan with the source, the
// target and the inputs apply needs again (carriedToApply), and
// --verify-key KEY.pub when the file was signed and the public key is
// beside the private one. A plan against a --target-snapshot is applied
// to the live target, which the hint asks for. "" without --out.
func applyHint(e *env, fs *pflag.FlagSet, out, signKey string) string {
	if out == "" {
		return ""
	}
	parts := []string{e.prog, "apply", "--plan", shellQuote(out)}
	for _, a := range cmdline.Carry(fs, carriedToApply...) {
		parts = append(parts, shellQuote(a))
	}
	if signKey != "" {
		if _, err := os.Stat(signKey + ".pub"); err == nil {
			parts = append(parts, "--verify-key", shellQuote(signKey+".pub"))
		}
	}
	hint := strings.Join(parts, " ")
	if f := fs.Lookup("target-snapshot"); f != nil && f.Changed && !fs.Lookup("bootstrap-server").Changed {
		hint += " --bootstrap-server HOST:PORT [--command-config FILE] (the live target: a --target-snapshot is only reviewed)"
	}
	return hint
}
