package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var auditRevertUsage = usageText("audit_revert_usage")

// auditRevertFlags are the flags of migrate audit revert.
type auditRevertFlags struct {
	target       cliflags.Target
	audit        cliflags.Audit
	out          string
	sign         signFlag
	deleteTopics bool
	scramCreds   string
	output       string
	interactive  bool
	detail       bool
	carried      []string // the flags the apply hint repeats (set when the command runs)
}

func (c *cli) newAuditRevertCmd() *cobra.Command {
	var f auditRevertFlags
	var cmd *cobra.Command
	cmd = c.command("revert", "plan the undoing of an applied run (a plan restoring what it changed)", auditRevertUsage,
		func(ctx context.Context, e *env, args []string) int {
			f.carried = cmdline.Carry(cmd.Flags(), "bootstrap-server", "command-config", "principal", "scram-credentials", "audit-db", "audit-key", "receipt-file")
			return runAuditRevert(ctx, e, &f, args)
		})
	fs := cmd.Flags()
	f.target.Register(fs)
	f.audit.Register(fs)
	fs.StringVar(&f.out, "out", "", "save the revert plan to `FILE` for migrate apply --plan\n(plain JSON when it ends in .json, else zstd-compressed)")
	f.sign.register(fs)
	fs.BoolVar(&f.deleteTopics, "delete-created-topics", false, "delete the topics the run created, with their messages\n(every message written to them since; without it they are kept)")
	fs.StringVar(&f.scramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations}\nthe passwords of SCRAM credentials the run changed or deleted")
	cmdline.OutputFlag(fs, &f.output, "output: text or json", "text", "json")
	fs.BoolVar(&f.interactive, "interactive", false, "review the revert plan in the terminal UI\n(and save the selection with --out)")
	fs.BoolVar(&f.detail, "detail", false, "text output: list every change, blocker and finding")
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keysPointer}
	return cmd
}

// runAuditRevert is migrate audit revert: flags to a revert request, the
// plan it gives recorded, reviewed, saved and rendered as plan does.
func runAuditRevert(ctx context.Context, e *env, f *auditRevertFlags, args []string) int {
	const cmdName = "audit revert"
	run, err := parseRunID(args, "revert")
	if err != nil {
		return fail(e, cmdName, err)
	}
	if strings.TrimSpace(f.target.Bootstrap) == "" {
		return fail(e, cmdName, errors.New("give the target the run changed: --bootstrap-server host:port [--command-config client.properties]"))
	}
	view, err := render.PlanView(render.Output(f.output), e.stdout, e.textOptions(f.detail))
	if err != nil {
		return fail(e, cmdName, outputError(err))
	}
	key, err := f.sign.load(f.out)
	if err != nil {
		return fail(e, cmdName, err)
	}
	// The run is read from the database: a missing one is a usage error.
	path, err := migration.TrailPath(f.audit.Path)
	if err != nil {
		return fail(e, cmdName, fmt.Errorf("%s: the run to revert is read from it", cliflags.ErrorText(err)))
	}
	rec := beginAudit(ctx, e, &f.audit, "revert")
	store := rec.Store()
	if f.audit.Off {
		if store, err = migration.OpenTrail(ctx, path); err != nil {
			return fail(e, cmdName, err)
		}
		defer store.Close()
	} else if rec.Err != nil {
		return fail(e, cmdName, rec.Err)
	}
	var pl *migration.Planned
	err = withLoading(ctx, e, f.interactive, false, "Reading the audit trail and the target", func(progress io.Writer) error {
		var err error
		pl, err = migration.ComputeRevert(ctx, migration.RevertRequest{Audit: store, Run: run, Dial: f.target.Kafka().Dial,
			DeleteCreatedTopics: f.deleteTopics, CredentialsFile: f.scramCreds, Hooks: hooks(progress)})
		return err
	})
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, cmdName, err)
	}
	defer pl.Close()
	rec.Reads(ctx, pl, "", pl.Plan.Target.Digest)
	rv := pl.Plan.Reverts
	rec.Note(ctx, "revert-plan", fmt.Sprintf("plans the revert of run %d (its record ends at position %d, %s)", rv.Run, rv.Seq, rv.Digest))
	// The hint applies the file as this command was given the target,
	// the passwords and the audit trail: ready to paste.
	parts := []string{e.prog, "apply", "--plan", shellQuote(f.out)}
	for _, a := range f.carried {
		parts = append(parts, shellQuote(a))
	}
	apply := strings.Join(parts, " ")
	return finishPlan(ctx, e, rec, pl.Plan, view, planOutput{cmd: cmdName, out: f.out, sign: key, interactive: f.interactive, applyWith: apply})
}
