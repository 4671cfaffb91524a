package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var policyUsage = usageText("policy_usage")

func (c *cli) newPolicyCmd() *cobra.Command {
	cmd := c.command("policy", "TopicActionPolicy: convert legacy policy keys, test existing topics", policyUsage,
		func(_ context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return fail(e, "policy", fmt.Errorf("unknown subcommand %q (want convert or test)", args[0]))
			}
			fmt.Fprint(e.stderr, policyUsage)
			return exitError
		})
	cmd.Annotations = map[string]string{"subcommands-in-text": "yes"}
	cmd.AddCommand(c.newPolicyConvertCmd(), c.newPolicyTestCmd())
	return cmd
}

// policyConvertFlags are the flags of `migrate policy convert`.
type policyConvertFlags struct {
	brokerConfigs cmdline.StringList
	out           string
	controllerOut string
}

func (c *cli) newPolicyConvertCmd() *cobra.Command {
	var f policyConvertFlags
	cmd := c.leaf("convert", "legacy policy settings into a policy file and controller properties", policyUsage,
		func(ctx context.Context, e *env, args []string) int { return runPolicyConvert(ctx, e, &f, args) })
	fs := cmd.Flags()
	fs.Var(&f.brokerConfigs, "broker-config", "a broker's server.properties `FILE` (repeat for every broker)")
	fs.StringVar(&f.out, "out", "", "write the policy file to this `FILE` (default: stdout)")
	fs.StringVar(&f.controllerOut, "controller-config-out", "", "write the KRaft controllers' policy properties to this `FILE`")
	return cmd
}

func runPolicyConvert(_ context.Context, e *env, f *policyConvertFlags, args []string) int {
	const name = "policy convert"
	brokerConfigs, out, controllerOut := f.brokerConfigs, f.out, f.controllerOut
	if len(brokerConfigs) == 0 {
		return fail(e, name, errors.New("at least one --broker-config server.properties is required"))
	}
	if out != "" && out == controllerOut {
		return fail(e, name, fmt.Errorf("--out and --controller-config-out are both %s", out))
	}
	if err := migration.ConvertPolicy(migration.ConvertRequest{BrokerConfigs: brokerConfigs, Out: out, ControllerOut: controllerOut,
		Stdout: e.stdout, Hooks: notices(e, name)}); err != nil {
		return fail(e, name, err)
	}
	return exitOK
}

// policyTestFlags are the flags of `migrate policy test`.
type policyTestFlags struct {
	src        cliflags.Source
	audit      cliflags.Audit
	policyFile string
	output     string
}

func (c *cli) newPolicyTestCmd() *cobra.Command {
	var f policyTestFlags
	cmd := c.leaf("test", "evaluate every existing topic against a policy", policyUsage,
		func(ctx context.Context, e *env, args []string) int { return runPolicyTest(ctx, e, &f, args) })
	fs := cmd.Flags()
	f.src.Register(fs)
	f.audit.Register(fs)
	fs.StringVar(&f.policyFile, "policy", "", "TopicActionPolicy `FILE` (YAML)")
	cmdline.OutputFlag(fs, &f.output, "output: text or json", "text", "json")
	return cmd
}

func runPolicyTest(ctx context.Context, e *env, f *policyTestFlags, args []string) int {
	const name = "policy test"
	src, audit, policyFile, output := &f.src, &f.audit, f.policyFile, f.output
	view, err := render.PolicyTestView(render.Output(output), e.stdout)
	if err != nil {
		return fail(e, name, outputError(err))
	}
	if policyFile == "" {
		return fail(e, name, errors.New("--policy FILE is required"))
	}
	pol, err := policy.Load(policyFile)
	if err != nil {
		return fail(e, name, err)
	}
	if err := src.Validate(); err != nil {
		return fail(e, name, err)
	}
	progress := e.progressOut(src.Quiet)
	rec := beginAudit(ctx, e, audit, name)
	s, err := loadSource(ctx, src, progress)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, name, err)
	}
	r := policy.TestTopics(pol, s, migration.SourceName(s))
	rec.Findings(ctx, r.Findings())
	if err := view(r); err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, name, err)
	}
	o := migration.PolicyTestOutcome(len(r.Violations))
	finish(ctx, e, rec, o)
	return int(o.Code)
}
