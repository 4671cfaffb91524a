package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// checkFlags are the flags of `migrate check`.
type checkFlags struct {
	source     sourceFlags
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
	audit        auditFlags
}

func (f *checkFlags) register(fs *pflag.FlagSet) {
	f.source.register(fs)
	// check compares ZooKeeper with what the brokers serve when given both.
	f.source.crossCheck = true
	// An audit reads everything: partition state, old /consumers groups.
	f.source.full = true
	if fl := fs.Lookup("full"); fl != nil {
		fl.DefValue = "true"
	}
	fs.StringVar(&f.policyFile, "policy", "", "TopicActionPolicy `FILE` (YAML): report existing topics that violate it")
	fs.StringVar(&f.principalMap, "principal-map", "", "`FILE`: map source principals as plan does (docs/principal-map.md) and report what the map leaves unmapped, merges or collides (ACL-PRINCIPAL-MAP)")
	fs.StringVar(&f.scramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations}, as plan takes it: users whose passwords are given are not reported as lost")
	fs.StringVar(&f.target, "target-version", check.DefaultTargetVersion, "Kafka `VERSION` the cluster moves to (4.0, 4.1, ...); version-dependent checks follow it")
	outputFlag(fs, &f.output, "output: text, json or markdown (for a change ticket)", "text", "json", "markdown")
	fs.StringVar(&f.failOn, "fail-on", check.SeverityError, "exit 3 when a finding at or above this `SEVERITY` exists: error, warning, info or none")
	fs.IntVar(&f.limit, "max-per-check", 20, "text and markdown: list at most `N` findings per check id (0: all); json lists all")
	fs.BoolVar(&f.catalogue, "catalogue", false, "print the catalogue of checks (ids, severities, fixes) and exit")
	f.audit.register(fs)
}

var checkUsage = usageText("check_usage")

func (c *cli) newCheckCmd() *cobra.Command {
	var f checkFlags
	cmd := c.command("check", "pre-upgrade audit: what breaks on KRaft/Kafka 4, what cannot move, ACL hygiene, policy", checkUsage,
		func(ctx context.Context, e *env, args []string) int { return runCheck(ctx, e, &f, args) })
	f.register(cmd.Flags())
	return cmd
}

func runCheck(ctx context.Context, e *env, f *checkFlags, args []string) int {
	if len(args) > 0 {
		return fail(e, "check", fmt.Errorf("unexpected argument %q", args[0]))
	}
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
	target, err := check.ParseTarget(f.target)
	if err != nil {
		return fail(e, "check", err)
	}
	opts := check.Options{TargetVersion: target.String()}
	creds, err := migration.LoadCredentials(f.scramCreds)
	if err != nil {
		return fail(e, "check", fmt.Errorf("--scram-credentials: %w", err))
	}
	if len(creds) > 0 {
		opts.ScramPasswords = map[check.ScramKey]bool{}
		for _, c := range creds {
			opts.ScramPasswords[check.ScramKey{User: c.User, Mechanism: c.Mechanism}] = true
		}
	}
	pm, err := migration.LoadPrincipalMap(f.principalMap)
	if err != nil {
		return fail(e, "check", err)
	}
	if f.policyFile != "" {
		pol, err := policy.Load(f.policyFile)
		if err != nil {
			return fail(e, "check", err)
		}
		opts.Policy = checkPolicy{pol}
	}
	if err := f.source.validate(); err != nil {
		return fail(e, "check", err)
	}
	progress := e.progressOut(f.source.quiet)
	rec := f.audit.begin(ctx, e, "check")
	src, err := f.source.load(ctx, progress)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "check", err)
	}
	// Whether a secret was given (it only words the finding; which passwords
	// stayed encrypted is read per config). A plaintext password config is
	// "known" without any secret, so it proves nothing about one.
	opts.EncoderSecretKnown = f.source.zookeeper != "" && (f.source.encoderSecretFile != "" || staticEncoderSecret(src))
	findings, err := check.Run(migration.MapForCheck(pm, src), opts)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "check", err)
	}
	name := sourceName(src)
	if f.source.zookeeper != "" && f.source.bootstrap != "" {
		served, err := f.source.readKafka(ctx, progress)
		if err != nil {
			finish(ctx, e, rec, migration.Failed)
			return fail(e, "check", err)
		}
		findings = append(findings, check.CrossCheck(src, served)...)
		check.Sort(findings)
		name += ", compared with " + sourceName(served)
	}
	rec.Findings(ctx, check.ToSnapshot(findings))
	if err := view(check.NewReport(name, target, findings)); err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, "check", err)
	}
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

// sourceName says what was audited, without credentials.
func sourceName(s *snapshot.Snapshot) string {
	switch {
	case s.Address != "" && s.Source != "":
		return s.Source + " " + s.Address
	case s.Address != "":
		return s.Address
	}
	return s.Source
}

// staticEncoderSecret reports whether a --broker-config file sets
// password.encoder.secret (which the live read tries on broker passwords).
func staticEncoderSecret(s *snapshot.Snapshot) bool {
	for _, sc := range s.StaticConfigs {
		for _, c := range sc.Configs {
			if c.Key == "password.encoder.secret" {
				return true
			}
		}
	}
	return false
}

// checkPolicy lets the audit evaluate existing topics against a loaded
// TopicActionPolicy (as if each were created now, with no principal).
type checkPolicy struct{ p *policy.Policy }

func (c checkPolicy) CheckExisting(t *snapshot.Topic) []check.PolicyViolation {
	d := c.p.EvaluateExisting(t.Name, policy.FromTopic(t))
	if d.Allowed {
		return nil
	}
	return []check.PolicyViolation{{Rule: d.Rule, Message: d.Message}}
}
