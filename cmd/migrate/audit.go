package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var auditUsage = usageText("audit_usage")

func (c *cli) newAuditCmd() *cobra.Command {
	var db string
	usage := fmt.Sprintf(auditUsage, audit.DefaultPath())
	cmd := c.command("audit", "the audit trail: log, show, export, verify (tamper evidence), keygen, revert", usage,
		func(ctx context.Context, e *env, args []string) int { return runAudit(ctx, e, db, usage, args) })
	cmd.Flags().StringVar(&db, "audit-db", "", "audit database `PATH` to browse (default "+audit.DefaultPath()+")")
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"subcommands-in-text": "yes"}
	cmd.AddCommand(c.newAuditLogCmd(), c.newAuditShowCmd(), c.newAuditExportCmd(), c.newAuditVerifyCmd(), c.newAuditKeygenCmd(), c.newAuditRevertCmd())
	return cmd
}

// runAudit is `migrate audit` without a subcommand.
func runAudit(ctx context.Context, e *env, db, usage string, args []string) int {
	if len(args) > 0 {
		subs := []string{"log", "show", "export", "verify", "keygen", "revert"}
		return fail(e, "audit", fmt.Errorf("unknown subcommand %q%s (%s)", args[0], cmdline.DidYouMean(args[0], subs, ""), strings.Join(subs, ", ")))
	}
	if e.tty {
		return auditBrowse(ctx, e, db) // on a terminal, plain `migrate audit` browses the history
	}
	fmt.Fprint(e.stderr, usage)
	return exitError
}

// auditCmdFlags are the flags every audit subcommand takes.
type auditCmdFlags struct {
	db     string
	output string
}

// auditSub builds an audit subcommand with --audit-db and -o (outputs[0]
// is the default); run gets the flags and the positional arguments.
func (c *cli) auditSub(name, short, usage string, run func(ctx context.Context, e *env, f *auditCmdFlags, args []string) int, outputs ...string) (*cobra.Command, *pflag.FlagSet) {
	f := &auditCmdFlags{}
	cmd := c.command(name, short, usage, func(ctx context.Context, e *env, args []string) int { return run(ctx, e, f, args) })
	fs := cmd.Flags()
	fs.StringVar(&f.db, "audit-db", "", "audit database `PATH` (default "+audit.DefaultPath()+")")
	cmdline.OutputFlag(fs, &f.output, "output: "+strings.Join(outputs, "|"), outputs...)
	return cmd, fs
}

// auditRead opens the audit database of f for reading, reads from it and
// shows what it read through view (made first: a bad -o reads nothing).
func auditRead[T any](ctx context.Context, e *env, name string, f *auditCmdFlags, view render.View[T], err error, read func(*audit.Store) (T, error)) int {
	if err != nil {
		return fail(e, name, outputError(err))
	}
	s, err := migration.OpenTrail(ctx, f.db)
	if err != nil {
		return fail(e, name, err)
	}
	defer s.Close()
	x, err := read(s)
	if err == nil {
		err = view(x)
	}
	if err != nil {
		return fail(e, name, err)
	}
	return exitOK
}

func parseRunID(pos []string, sub string) (int64, error) {
	if len(pos) != 1 {
		return 0, fmt.Errorf("want exactly one RUN id (see 'migrate audit log'), got %d arguments", len(pos))
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(pos[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("RUN %q is not a run id (a positive number from 'migrate audit log')", pos[0])
	}
	return id, nil
}

func (c *cli) newAuditLogCmd() *cobra.Command {
	var limit int
	cmd, fs := c.auditSub("log", "runs, newest first", "Usage: migrate audit log [--limit N] [--audit-db PATH] [-o text|wide|json]\n\nList runs, newest first. The text fits 120 columns; -o wide adds who ran\neach run, the target's cluster id, the runs it resumed and its receipt.\n",
		func(ctx context.Context, e *env, f *auditCmdFlags, pos []string) int {
			return auditLog(ctx, e, f, limit, pos)
		}, "text", "wide", "json")
	cmdline.IntAtLeast(fs, &limit, "limit", 50, 0, "show at most `N` runs (0: all)")
	return cmd
}

func auditLog(ctx context.Context, e *env, f *auditCmdFlags, limit int, pos []string) int {
	if len(pos) > 0 {
		return fail(e, "audit log", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	view, err := render.AuditRunsView(render.Output(f.output), e.stdout)
	return auditRead(ctx, e, "audit log", f, view, err, func(s *audit.Store) (render.AuditRunsShown, error) {
		runs, err := s.Runs(ctx, limit)
		return render.AuditRunsShown{DB: s.Path(), Runs: runs}, err
	})
}

func (c *cli) newAuditShowCmd() *cobra.Command {
	var kind, status string
	cmd, fs := c.auditSub("show", "a run's changes and RPCs", "Usage: migrate audit show RUN [--kind K] [--status S] [--audit-db PATH] [-o text|json]\n\nShow a run: its changes with their latest status and every RPC.\n",
		func(ctx context.Context, e *env, f *auditCmdFlags, pos []string) int {
			return auditShow(ctx, e, f, kind, status, pos)
		}, "text", "json")
	fs.StringVar(&kind, "kind", "", "only changes of this `KIND` ("+strings.ReplaceAll(cliflags.KindList(), ",", ", ")+")")
	fs.StringVar(&status, "status", "", "only changes whose latest status is this `STATUS`\n(planned, sent, validated, succeeded, failed, skipped, excluded: left out in review)")
	return cmd
}

func auditShow(ctx context.Context, e *env, f *auditCmdFlags, kind, status string, pos []string) int {
	id, err := parseRunID(pos, "show")
	if err != nil {
		return fail(e, "audit show", err)
	}
	view, err := render.AuditRunView(render.Output(f.output), e.stdout)
	statuses := []string{"planned", "sent", "validated", "succeeded", "failed", "skipped", "excluded"}
	if known := status == "" || slices.Contains(statuses, status); err == nil && !known {
		return fail(e, "audit show", fmt.Errorf("--status %q: want planned, sent, validated, succeeded, failed, skipped or excluded%s", status, cmdline.DidYouMean(status, statuses, "")))
	}
	if ks, kerr := cliflags.ParseKinds("kind", kind); err == nil && (kerr != nil || len(ks) > 1) {
		if kerr == nil {
			kerr = fmt.Errorf("--kind %q: one kind at a time", kind)
		}
		return fail(e, "audit show", kerr)
	}
	return auditRead(ctx, e, "audit show", f, view, err, func(s *audit.Store) (render.AuditRunShown, error) {
		d, err := migration.ShowRun(ctx, s, id, audit.ChangeFilter{Kind: kind, Status: status, NoStates: !render.AuditRunStates(render.Output(f.output))})
		return render.AuditRunShown{Run: d.Run, Changes: d.Changes, RPCs: d.RPCs, AccessProofs: d.AccessProofs, Filter: render.AuditFilter{Kind: kind, Status: status}}, err
	})
}

func (c *cli) newAuditExportCmd() *cobra.Command {
	cmd, _ := c.auditSub("export", "everything about a run", usageText("audit_export_usage"), auditExport, "json", "csv")
	return cmd
}

func auditExport(ctx context.Context, e *env, f *auditCmdFlags, pos []string) int {
	id, err := parseRunID(pos, "export")
	if err != nil {
		return fail(e, "audit export", err)
	}
	view, err := render.AuditExportView(render.Output(f.output), e.stdout)
	return auditRead(ctx, e, "audit export", f, view, err, func(s *audit.Store) (*audit.RunExport, error) { return s.Export(ctx, id) })
}

// auditVerifyFlags are the flags of `migrate audit verify` besides
// --audit-db and -o.
type auditVerifyFlags struct {
	anchor      string
	keyFile     string
	receiptFile string
}

func (c *cli) newAuditVerifyCmd() *cobra.Command {
	var v auditVerifyFlags
	cmd, fs := c.auditSub("verify", "check the hash chain, signatures, receipts", usageText("audit_verify_usage"), func(ctx context.Context, e *env, f *auditCmdFlags, pos []string) int {
		return auditVerify(ctx, e, f, &v, pos)
	}, "text", "json")
	fs.StringVar(&v.anchor, "anchor", "", "a receipt (chain head `HASH`) the chain must still contain")
	fs.StringVar(&v.keyFile, "audit-key", "", "ed25519 key `FILE` (public or private, PEM) the receipts were signed with")
	fs.StringVar(&v.receiptFile, "receipt-file", "", "receipt `FILE` (JSON lines from --receipt-file) whose receipts the chain must hold")
	return cmd
}

func auditVerify(ctx context.Context, e *env, f *auditCmdFlags, v *auditVerifyFlags, pos []string) int {
	if len(pos) > 0 {
		return fail(e, "audit verify", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	view, err := render.AuditVerifyView(render.Output(f.output), e.stdout)
	if err != nil {
		return fail(e, "audit verify", outputError(err))
	}
	opts, err := migration.VerifyRequest{Anchor: v.anchor, KeyFile: v.keyFile, ReceiptFile: v.receiptFile}.Options()
	if err != nil {
		return fail(e, "audit verify", err)
	}
	if v.receiptFile != "" && len(opts.Receipts) == 0 {
		return fail(e, "audit verify", fmt.Errorf("--receipt-file %s holds no receipts", v.receiptFile))
	}
	o := migration.TrailOutcome(true)
	if rc := auditRead(ctx, e, "audit verify", f, view, nil, func(s *audit.Store) (render.AuditVerified, error) {
		res, err := s.VerifyWith(ctx, opts)
		o = migration.TrailOutcome(err != nil || res.OK)
		return render.AuditVerified{Result: res, Input: render.AuditVerifyInput{DB: s.Path(), ReceiptFile: v.receiptFile, Receipts: len(opts.Receipts)}}, err
	}); rc != exitOK {
		return rc
	}
	return int(o.Code)
}

var auditKeygenUsage = usageText("audit_keygen_usage")

func (c *cli) newAuditKeygenCmd() *cobra.Command {
	var out string
	cmd := c.command("keygen", "make an ed25519 key to sign receipts", auditKeygenUsage,
		func(_ context.Context, e *env, args []string) int { return auditKeygen(e, out, args) })
	cmd.Flags().StringVar(&out, "out", "", "write the private key to `FILE` (mode 0600) and the public key to FILE.pub")
	return cmd
}

func auditKeygen(e *env, outFile string, args []string) int {
	out := &outFile
	if *out == "" || len(args) > 0 {
		fmt.Fprint(e.stderr, auditKeygenUsage)
		return exitError
	}
	k, err := audit.GenerateKey(*out)
	if err != nil {
		return fail(e, "audit keygen", err)
	}
	fmt.Fprintf(e.stdout, "Wrote private key %s and public key %s.pub (key %s).\n", *out, *out, k.ID())
	return exitOK
}
