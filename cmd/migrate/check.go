package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// checkFlags are the flags of `migrate check`.
type checkFlags struct {
	source     cliflags.Source
	policyFile string
	scramCreds string
	// principalMap is --principal-map: the source is checked as it will
	// be planned, its principals mapped.
	principalMap string
	target       string
	output       string
	failOn       string
	limit        int
	catalogue    bool
	audit        cliflags.Audit
}

func (f *checkFlags) register(fs *pflag.FlagSet) {
	f.source.Register(fs)
	// check compares ZooKeeper with what the brokers serve when given both.
	f.source.CrossCheck = true
	// An audit reads everything: partition state, old /consumers groups.
	f.source.Full = true
	if fl := fs.Lookup("full"); fl != nil {
		fl.DefValue = "true"
	}
	fs.StringVar(&f.policyFile, "policy", "", "TopicActionPolicy `FILE` (YAML): report existing topics that violate it")
	fs.StringVar(&f.principalMap, "principal-map", "", "`FILE`: map source principals as plan does and report\n(docs/principal-map.md) what the map leaves unmapped, merges or collides (ACL-PRINCIPAL-MAP)")
	fs.StringVar(&f.scramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations}\nas plan takes it: users whose passwords are given are not reported as lost")
	fs.StringVar(&f.target, "target-version", check.DefaultTargetVersion, "Kafka `VERSION` the cluster moves to (4.0, 4.1, ...)\nversion-dependent checks follow it")
	cmdline.OutputFlag(fs, &f.output, "output: text, json or markdown (for a change ticket)", "text", "json", "markdown")
	fs.StringVar(&f.failOn, "fail-on", check.SeverityError, "exit 3 on a finding at or above `SEVERITY`: error, warning, info, none")
	cmdline.IntAtLeast(fs, &f.limit, "max-per-check", 20, 0, "list at most `N` findings per check id (0: all)\nin text and markdown; json lists all")
	fs.BoolVar(&f.catalogue, "catalogue", false, "print the catalogue of checks (ids, severities, fixes) and exit")
	f.audit.Register(fs)
}

var checkUsage = usageText("check_usage")

func (c *cli) newCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := c.leaf("check", "pre-upgrade audit: what breaks on KRaft/Kafka 4, what cannot move, ACL hygiene, policy", checkUsage,
		func(ctx context.Context, e *env, args []string) int { return runCheck(ctx, e, &f, args) })
	f.register(cmd.Flags())
	return cmd
}

func runCheck(ctx context.Context, e *env, f *checkFlags, args []string) int {
	view, err := render.CheckView(render.Output(f.output), e.stdout, f.limit)
	if err != nil {
		return fail(e, "check", outputError(err))
	}
	if f.catalogue {
		return printCatalogue(e, f.output)
	}
	if check.Rank(f.failOn) == 0 && f.failOn != "none" {
		return fail(e, "check", fmt.Errorf("--fail-on %q: want error, warning, info or none", f.failOn))
	}
	target, err := cliflags.ParseTargetVersion(f.target)
	if err != nil {
		return fail(e, "check", err)
	}
	progress := e.progressOut(f.source.Quiet)
	req := migration.CheckRequest{Target: target, PolicyFile: f.policyFile, CredentialsFile: f.scramCreds, PrincipalMapFile: f.principalMap,
		EncoderSecretGiven: f.source.EncoderSecretFile != "", LiveZooKeeper: f.source.ZooKeeper != "",
		Source: func(ctx context.Context) (*snapshot.Snapshot, error) { return loadSource(ctx, &f.source, progress) }}
	if f.source.ZooKeeper != "" && f.source.Bootstrap != "" {
		req.Served = func(ctx context.Context) (*snapshot.Snapshot, error) {
			return readKafkaSource(ctx, &f.source, progress)
		}
	}
	audit, err := migration.PrepareCheck(req)
	if err != nil {
		return fail(e, "check", err)
	}
	if err := f.source.Validate(); err != nil {
		return fail(e, "check", err)
	}
	rec := beginAudit(ctx, e, &f.audit, "check")
	report, err := audit.Run(ctx)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "check", err)
	}
	rec.Findings(ctx, check.ToSnapshot(report.Findings))
	if err := view(report); err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "check", err)
	}
	findings := report.Findings
	o := migration.CheckOutcome(check.AtOrAbove(findings, f.failOn), f.failOn)
	finish(ctx, e, rec, o)
	return int(o.Code)
}

func printCatalogue(e *env, output string) int {
	view, err := render.CatalogueView(render.Output(output), e.stdout)
	if err == nil {
		err = view(struct{}{})
	}
	if err != nil {
		return fail(e, "check", err)
	}
	return exitOK
}
