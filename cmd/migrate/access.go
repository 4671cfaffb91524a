package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// accessFlags are the flags every `migrate access` command shares: both
// clusters, the files that give their nodes' authorizer settings, the
// principal map and the output.
type accessFlags struct {
	source         cliflags.Source
	target         cliflags.Target
	targetSnapshot string
	targetConfigs  cmdline.StringList
	principalMap   string
	output         string
}

func (f *accessFlags) register(fs *pflag.FlagSet, outputs ...string) {
	f.source.Register(fs)
	f.target.RegisterConn(fs)
	fs.StringVar(&f.targetSnapshot, "target-snapshot", "", "compare with a saved target snapshot `FILE` (its ACLs)\ninstead of --bootstrap-server")
	fs.Var(&f.targetConfigs, "target-config", "a target node's server.properties or controller.properties `FILE`\n(repeatable): super.users and allow.everyone.if.no.acl.found, which a live node hides, and the settings of controllers that do not answer; matched to a node by node.id")
	fs.StringVar(&f.principalMap, "principal-map", "", "principal map `FILE`: source P is compared with target map(P)\n(ssl.principal.mapping.rules, sasl.kerberos.principal.to.local.rules, zkmigrate.map pairs; docs/principal-map.md): source principal P is compared with target principal map(P)")
	cmdline.OutputFlag(fs, &f.output, "output: "+strings.Join(outputs, ", "), outputs...)
}

// request maps the flags to the use case's request.
func (f *accessFlags) request(e *env, planned *plan.Options) (migration.AccessRequest, error) {
	var r migration.AccessRequest
	if err := f.source.Validate(); err != nil {
		return r, err
	}
	switch {
	case f.targetSnapshot != "" && f.target.Bootstrap != "":
		return r, errors.New("give one target: --bootstrap-server or --target-snapshot")
	case f.targetSnapshot == "" && strings.TrimSpace(f.target.Bootstrap) == "":
		return r, errors.New("give the target: --bootstrap-server host:port [--command-config client.properties], or --target-snapshot FILE")
	}
	progress := e.progressOut(f.source.Quiet)
	r = migration.AccessRequest{
		Source:        func(ctx context.Context) (*snapshot.Snapshot, error) { return loadSource(ctx, &f.source, progress) },
		BrokerConfigs: f.source.BrokerConfigs,
		Target:        migration.Target{SnapshotFile: f.targetSnapshot, Dial: f.target.Kafka().Dial},
		TargetConfigs: f.targetConfigs,
		PrincipalMap:  f.principalMap,
		Planned:       planned,
		Hooks:         migration.Hooks{Progress: func(msg string) { fmt.Fprintln(progress, msg) }},
	}
	return r, nil
}

var accessUsage = usageText("access_usage")

func (c *cli) newAccessCmd() *cobra.Command {
	cmd := c.command("access", "prove every client keeps exactly its access: diff, explain, who", accessUsage,
		func(_ context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return fail(e, "access", fmt.Errorf("unknown subcommand %q (diff, explain, who)", args[0]))
			}
			return fail(e, "access", errors.New("give a subcommand: diff, explain or who (migrate access --help)"))
		})
	cmd.Annotations = map[string]string{"subcommands-in-text": "yes"}
	cmd.AddCommand(c.newAccessDiffCmd(), c.newAccessExplainCmd(), c.newAccessWhoCmd())
	return cmd
}

// accessDiffFlags are the flags of `migrate access diff`.
type accessDiffFlags struct {
	accessFlags
	planned    bool
	include    string
	exclude    string
	principals string
	prune      bool
	limit      int
	accept     cmdline.StringList
	audit      cliflags.Audit
}

var accessDiffUsage = usageText("access_diff_usage")

func (c *cli) newAccessDiffCmd() *cobra.Command {
	var f accessDiffFlags
	cmd := c.leaf("diff", "compare every request class's decision on both clusters: a proof or the differences", accessDiffUsage,
		func(ctx context.Context, e *env, args []string) int { return runAccessDiff(ctx, e, &f, args) })
	fs := cmd.Flags()
	f.register(fs, "text", "json", "markdown")
	fs.BoolVar(&f.planned, "planned", false, "prove the ACLs the plan would leave on the target instead of today's")
	fs.StringVar(&f.include, "include", "", "with --planned: only these change `KINDS` (comma list)\n(kinds: "+cliflags.KindList()+")")
	fs.StringVar(&f.exclude, "exclude", "", "with --planned: leave out these change `KINDS` (comma list)")
	fs.StringVar(&f.principals, "principals", "", "with --planned: only ACLs whose principal matches this `REGEXP`")
	fs.BoolVar(&f.prune, "prune", false, "with --planned: the plan also deletes the target's ACLs the source does not have")
	cmdline.IntAtLeast(fs, &f.limit, "limit", 20, 0, "show at most `N` causes (0: all)\nin text; json and markdown list all")
	fs.Var(&f.accept, "accept", "accept the cause with this `ID` (repeatable, or a comma list)\n(ACCESS-..., as a report names it; repeatable, or a comma list): listed as accepted, it does not make the target not equivalent")
	f.audit.Register(fs)
	return cmd
}

func runAccessDiff(ctx context.Context, e *env, f *accessDiffFlags, args []string) int {
	const name = "access diff"
	view, err := render.AccessView(render.Output(f.output), e.stdout, f.limit)
	if err != nil {
		return fail(e, name, outputError(err))
	}
	var planned *plan.Options
	if f.planned {
		var o plan.Options
		var err error
		if o.Include, err = cliflags.ParseKinds("include", f.include); err != nil {
			return fail(e, name, err)
		}
		if o.Exclude, err = cliflags.ParseKinds("exclude", f.exclude); err != nil {
			return fail(e, name, err)
		}
		o.PrincipalRegex, o.Prune = f.principals, f.prune
		planned = &o
	} else if f.include != "" || f.exclude != "" || f.principals != "" || f.prune {
		return fail(e, name, errors.New("--include, --exclude, --principals and --prune shape the plan: give --planned"))
	}
	req, err := f.request(e, planned)
	if err != nil {
		return fail(e, name, err)
	}
	rec := beginAudit(ctx, e, &f.audit, name)
	r, err := migration.CompareAccess(ctx, req, f.accept)
	if err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, name, accessError(err))
	}
	what := migration.ProvedTarget
	if f.planned {
		what = migration.ProvedPlanned
	}
	rec.AccessProof(ctx, r, what)
	if err := view(r); err != nil {
		finish(ctx, e, rec, migration.Failed)
		return fail(e, name, err)
	}
	o := migration.AccessOutcome(r)
	finish(ctx, e, rec, o)
	return int(o.Code)
}

// accessError words the proof's input errors with the flags that gave
// them.
func accessError(err error) error {
	var se *access.SettingError
	if errors.As(err, &se) {
		return fmt.Errorf("%w (--broker-config / --target-config)", err)
	}
	return err
}

var accessExplainUsage = usageText("access_explain_usage")

func (c *cli) newAccessExplainCmd() *cobra.Command {
	var f accessFlags
	var q access.Question
	cmd := c.leaf("explain", "one request's decision and reason on each side", accessExplainUsage,
		func(ctx context.Context, e *env, args []string) int {
			return runAccessOne(ctx, e, &f, args, "access explain", render.ExplainView, func(in access.Input) (*access.Explanation, bool, error) {
				if q.Principal == "" || q.Operation == "" || q.Resource == "" && !strings.EqualFold(q.Operation, access.InitProducerID) {
					return nil, false, errors.New("give --principal, --operation and --resource")
				}
				x, err := access.Explain(in, q)
				return x, err == nil && x.Same, err
			})
		})
	fs := cmd.Flags()
	fs.StringVar(&q.Principal, "principal", "", "the client's `PRINCIPAL` on the source (User:alice); the target's is the principal map's")
	fs.StringVar(&q.Operation, "operation", "", "the `OPERATION` checked (Read, Write, IdempotentWrite, ...)\n(Read, Write, Describe, Create, Delete, Alter, DescribeConfigs, AlterConfigs, ClusterAction, IdempotentWrite, CreateTokens, DescribeTokens; or InitProducerId: the idempotent producer's request, IdempotentWrite on the cluster or else Write on some topic)")
	fs.StringVar(&q.Resource, "resource", "", "the `TYPE:NAME` checked (Topic:orders, Group:app, ...)\n(Topic:orders, Group:app, Cluster:kafka-cluster, TransactionalId:tx, DelegationToken:id, User:User:bob)")
	fs.StringVar(&q.Host, "host", "", "the client's `IP` address (default: one no ACL names)")
	f.register(fs, "text", "json")
	return cmd
}

var accessWhoUsage = usageText("access_who_usage")

func (c *cli) newAccessWhoCmd() *cobra.Command {
	var f accessFlags
	var resource string
	cmd := c.leaf("who", "who may do what on one resource, on each side", accessWhoUsage,
		func(ctx context.Context, e *env, args []string) int {
			return runAccessOne(ctx, e, &f, args, "access who", render.WhoView, func(in access.Input) (*access.WhoResult, bool, error) {
				if resource == "" {
					return nil, false, errors.New("give --resource TYPE:NAME")
				}
				w, err := access.Who(in, resource)
				return w, err == nil && w.Same(), err
			})
		})
	fs := cmd.Flags()
	fs.StringVar(&resource, "resource", "", "the `TYPE:NAME` to list (Topic:orders, Group:app, Cluster:kafka-cluster, ...)")
	f.register(fs, "text", "json")
	return cmd
}

// runAccessOne runs explain or who: load both sides, ask, show the answer
// through view; exit 0 when every side agrees, 3 when not.
func runAccessOne[T any](ctx context.Context, e *env, f *accessFlags, args []string, name string, view func(render.Output, io.Writer) (render.View[T], error), ask func(access.Input) (T, bool, error)) int {
	req, err := f.request(e, nil)
	if err != nil {
		return fail(e, name, err)
	}
	in, err := migration.LoadAccess(ctx, req)
	if err != nil {
		return fail(e, name, accessError(err))
	}
	x, same, err := ask(in.Input)
	if err != nil {
		return fail(e, name, accessError(err))
	}
	if err := show(view, e, f.output, x); err != nil {
		return fail(e, name, err)
	}
	return int(migration.AnswerOutcome(same).Code)
}
