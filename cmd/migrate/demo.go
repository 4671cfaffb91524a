package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/demo"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var demoUsage = usageText("demo_usage")

// demoFlags are the flags of `migrate demo`.
type demoFlags struct {
	noTUI   bool
	brokers int
	detail  bool
	quiet   bool
	audit   cliflags.Audit
}

func (f *demoFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.noTUI, "no-tui", false, "plain text output even on a terminal")
	cmdline.IntIn(fs, &f.brokers, "brokers", 3, 1, demo.MaxBrokers, fmt.Sprintf("`N` brokers in the in-process target cluster (1 to %d)", demo.MaxBrokers))
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr\n(there is none either when stderr is not a terminal)")
	fs.BoolVar(&f.detail, "detail", false, "list every change, blocker and finding of the plans\n(as plan --detail)")
	f.audit.Register(fs)
	if fl := fs.Lookup("audit-db"); fl != nil {
		fl.Usage = "the demo's audit database `PATH` (default " + demo.AuditDirPattern + ": one per run)\n(in a directory of yours; never your real audit trail)"
	}
}

func (c *cli) newDemoCmd() *cobra.Command {
	var f demoFlags
	cmd := c.leaf("demo", "the whole flow on a bundled legacy cluster and an in-process Kafka, no servers needed", demoUsage,
		func(ctx context.Context, e *env, args []string) int { return runDemo(ctx, e, &f, args) })
	f.register(cmd.Flags())
	c.colorFlag(cmd.Flags())
	// The audit trail flags in full: the demo's own database, not the operator's.
	cmd.Annotations = map[string]string{"footer": keysPointer, cmdline.AnnotationGroupsInFull: groupAudit}
	return cmd
}

func runDemo(ctx context.Context, e *env, f *demoFlags, args []string) int {
	af, noTUI, brokers := &f.audit, &f.noTUI, &f.brokers
	if af.Path == "" && !af.Off {
		// The demo keeps its audit trail out of the operator's real one,
		// and out of every other user's and run's.
		path, err := demo.AuditPath()
		if err != nil {
			return fail(e, "demo", err)
		}
		af.Path = path
	}
	rec := beginAudit(ctx, e, af, "demo")
	switch {
	case af.Off:
		fmt.Fprintln(e.stdout, "Audit trail: off (--no-audit).")
	case rec.OK():
		fmt.Fprintf(e.stdout, "Audit trail: %s (the demo's own database; your real one is not touched).\n", af.Path)
	}
	code, err := runTheDemo(ctx, e, *brokers, e.tty && !*noTUI, e.textOptions(f.detail), f.quiet, rec)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "demo", err)
	}
	return code
}

func runTheDemo(ctx context.Context, e *env, brokers int, interactive bool, text render.TextOptions, quiet bool, rec *migration.Recorder) (int, error) {
	w := e.stdout
	d, err := demo.Start(ctx, brokers)
	if err != nil {
		return exitError, err
	}
	defer d.Close()
	src := d.Source
	fmt.Fprintf(w, "Source: %s (cluster %s): %d topics, %d ACLs, %d quota entities, %d SCRAM users\n",
		src.Address, src.ClusterID, len(src.Topics), len(src.ACLs), len(src.Quotas), len(src.ScramUsers))
	fmt.Fprintf(w, "Target: in-process Kafka (kfake) with %d brokers at %s\n", brokers, strings.Join(d.Target, ","))
	for _, n := range d.Notes {
		fmt.Fprintf(w, "(%s)\n", n)
	}
	fmt.Fprintln(w)
	pl, err := d.Plan(ctx)
	if err != nil {
		return exitError, err
	}
	p := pl.Plan
	var outcome migration.Outcome
	rec.Planned(ctx, pl)
	if interactive {
		run, last := pl.ApplyFunc(migration.ApplyRequest{}, rec.Observer())
		res, err := sessionInteractive(ctx, e, p, run, rec.ID(), d.Notes...)
		if err != nil {
			return exitError, err
		}
		r := last()
		r.Succeeded, r.Failed, r.Canceled = res.Succeeded, res.Failed, res.Canceled
		outcome = migration.DemoOutcome(r)
	} else {
		fmt.Fprintln(w, "== Plan ==")
		if err := render.PlanTextWith(w, p, text); err != nil {
			return exitError, err
		}
		fmt.Fprintln(w, "\n== Apply ==")
		res, err := pl.Run(ctx, p, migration.ApplyRequest{}, render.WithMeter(e.meterOut(quiet), e.tty, &render.ApplyText{W: w}), rec.Observer())
		if err != nil {
			return exitError, err
		}
		res.Succeeded, res.Canceled = 0, false // the demo ran: only failures make it partial
		outcome = migration.DemoOutcome(res)
	}
	again, err := d.Plan(ctx)
	if err != nil {
		return exitError, err
	}
	fmt.Fprintln(w, "\n== Plan again ==")
	if err := render.PlanTextWith(w, again.Plan, text); err != nil {
		return exitError, err
	}
	if again.Plan.Runnable() && outcome.Code == migration.ExitOK {
		fmt.Fprintf(w, "(%s left: those you excluded or did not apply. The demo ends normally; a real 'migrate plan' exits 2 here.)\n", english.N(len(again.Plan.Changes), "change"))
	}
	id := rec.ID()
	if receipt := finish(ctx, e, rec, outcome); receipt != "" {
		fmt.Fprintf(w, "\nWhat the demo recorded, and the check that nobody changed it since:\n  %s\n  %s\n",
			e.auditCmd("show", strconv.FormatInt(id, 10)), e.auditCmd("verify", "--anchor", receipt))
	}
	return int(outcome.Code), nil
}
