package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/memprofile"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// planFlags are the flags that shape a plan, shared by plan and apply.
type planFlags struct {
	source         sourceFlags
	target         targetFlags
	targetSnapshot string
	policyFile     string
	include        string
	exclude        string
	topics         string
	principals     string
	brokerIDMap    string
	placement      string
	reassign       bool
	prune          bool
	pruneCluster   bool
	raiseMinimums  bool
	resendSecrets  bool
	scramCreds     string
	scramResets    string
	principalMap   string
	targetConfigs  cmdline.StringList
	noAccessProof  bool
	output         string
	targetVersion  string
	interactive    bool
	detail         bool
	audit          auditFlags
}

func (f *planFlags) register(fs *pflag.FlagSet) {
	f.source.register(fs)
	f.target.register(fs)
	fs.StringVar(&f.targetSnapshot, "target-snapshot", "", "plan against a saved target snapshot `FILE` instead of --bootstrap-server (offline review)")
	fs.StringVar(&f.policyFile, "policy", "", "TopicActionPolicy `FILE` (YAML) evaluated on every topic change")
	fs.StringVar(&f.include, "include", "", "only these change `KINDS` (comma list: "+kindList()+")")
	fs.StringVar(&f.exclude, "exclude", "", "leave out these change `KINDS` (comma list)")
	fs.StringVar(&f.topics, "topics", "", "only topics whose name matches this `REGEXP`")
	fs.StringVar(&f.principals, "principals", "", "only ACLs, quotas and SCRAM users whose principal (User:alice) matches this `REGEXP`")
	fs.StringVar(&f.brokerIDMap, "broker-id-map", "", "place replicas explicitly, mapping source to target broker ids: `MAP` like 1=101,2=102")
	fs.StringVar(&f.placement, "placement", plan.PlacementAuto, "`HOW` replicas of new topics and partitions are placed: auto (the source's exact replica lists when the target has every broker they name, else the target places them, with a finding), source (require the source's lists), target (the target places them)")
	fs.BoolVar(&f.reassign, "reassign", false, "move replicas of existing target topics to the source's (or --broker-id-map's) layout")
	fs.BoolVar(&f.prune, "prune", false, "also delete what the target has and the source does not (never internal topics, the SCRAM credentials of the user this tool signs in as, nor cluster-level broker configs)")
	fs.BoolVar(&f.pruneCluster, "prune-cluster-configs", false, "with --prune: also delete cluster-level (<default>) broker configs the source does not have (except min.insync.replicas on 4.1+, which Kafka keeps for eligible leader replicas)")
	fs.BoolVar(&f.raiseMinimums, "raise-to-target-minimums", false, "create topics whose config values the target refuses (segment.bytes below 1 MiB on 4.1) with the nearest value it accepts; each adjustment is named in the plan")
	fs.BoolVar(&f.resendSecrets, "resend-secrets", false, "send sensitive configs and SCRAM credentials even when present on the target")
	fs.StringVar(&f.scramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations} to recreate SCRAM users")
	fs.Var(&f.targetConfigs, "target-config", "a target node's server.properties or controller.properties `FILE` (repeatable), for the access proof: super.users and allow.everyone.if.no.acl.found, which a live node hides, and the settings of controllers that do not answer (docs/access.md)")
	fs.BoolVar(&f.noAccessProof, "no-access-proof", false, "skip the access proof (docs/access.md): plan's of the target the plan would leave, apply's of the target it left, sync's on every reconciliation (access drift); at 100,000 ACLs one takes seconds")
	fs.StringVar(&f.principalMap, "principal-map", "", "map source principals to the target's (`FILE`: Kafka's ssl.principal.mapping.rules and sasl.kerberos.principal.to.local.rules, zkmigrate.map pairs; docs/principal-map.md) in ACLs, quotas and SCRAM users")
	fs.StringVar(&f.scramResets, "scram-resets", "", "write the users whose SCRAM password must be reset (no password given) to this `FILE`")
	cmdline.OutputFlag(fs, &f.output, "output: text or json", "text", "json")
	fs.StringVar(&f.targetVersion, "target-version", "4.1", "Kafka `VERSION` of the target (4.0, 4.1, ...): values it would refuse become blockers")
	fs.BoolVar(&f.interactive, "interactive", false, "review the plan in the terminal UI")
	fs.BoolVar(&f.detail, "detail", false, "text output: list every change, blocker and finding (by default a kind with more than 20 changes shows its first 10 and counts the rest; -o json is always complete)")
	f.audit.register(fs)
}

// targetVersion parses --target-version as plan, apply, sync and check all
// do (catalogue.ParseTarget): a Kafka 4.x version, never "".
func targetVersion(v string) (catalogue.Version, error) {
	t, err := catalogue.ParseTarget(v)
	if err != nil {
		return t, fmt.Errorf("--target-version %q: %v", v, err)
	}
	return t, nil
}

func kindList() string {
	var ks []string
	for _, k := range plan.Kinds {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ",")
}

func parseKinds(flagName, s string) ([]plan.Kind, error) {
	if s == "" {
		return nil, nil
	}
	var out []plan.Kind
	for _, part := range strings.Split(s, ",") {
		k := plan.Kind(strings.TrimSpace(part))
		if !slices.Contains(plan.Kinds, k) {
			return nil, fmt.Errorf("--%s: unknown kind %q%s (kinds: %s)", flagName, k, cmdline.DidYouMean(string(k), strings.Split(kindList(), ","), ""), kindList())
		}
		out = append(out, k)
	}
	return out, nil
}

// options turns the flags into plan.Options.
func (f *planFlags) options() (plan.Options, error) {
	var o plan.Options
	var err error
	if o.Include, err = parseKinds("include", f.include); err != nil {
		return o, err
	}
	if o.Exclude, err = parseKinds("exclude", f.exclude); err != nil {
		return o, err
	}
	if o.BrokerIDMap, err = parseBrokerIDMap(f.brokerIDMap); err != nil {
		return o, err
	}
	switch f.placement {
	case plan.PlacementAuto, plan.PlacementSource, plan.PlacementTarget:
		o.Placement = f.placement
	default:
		return o, fmt.Errorf("--placement %q: want auto, source or target", f.placement)
	}
	if f.reassign && o.BrokerIDMap == nil && o.Placement == plan.PlacementTarget {
		return o, errors.New("--reassign needs a layout to move replicas to: --broker-id-map, or --placement auto or source")
	}
	if f.pruneCluster && !f.prune {
		return o, errors.New("--prune-cluster-configs needs --prune")
	}
	o.TopicRegex, o.PrincipalRegex = f.topics, f.principals
	o.Reassign, o.Prune, o.ResendSecrets = f.reassign, f.prune, f.resendSecrets
	o.PruneClusterConfigs, o.RaiseToTargetMinimums = f.pruneCluster, f.raiseMinimums
	o.TargetVersion = f.targetVersion
	return o, nil
}

// validate checks the plan flags without reading anything: a usage error
// stops plan and apply before the audit trail records a run.
func (f *planFlags) validate() error {
	if err := f.source.validate(); err != nil {
		return err
	}
	return f.validateNoSource()
}

// validateNoSource is validate without the source flags (apply --plan of a
// revert plan needs no source).
func (f *planFlags) validateNoSource() error {
	if f.targetSnapshot == "" && strings.TrimSpace(f.target.bootstrap) == "" {
		return errors.New("give the target: --bootstrap-server host:port [--command-config client.properties], or --target-snapshot FILE")
	}
	if _, err := f.options(); err != nil {
		return err
	}
	if _, err := targetVersion(f.targetVersion); err != nil {
		return err
	}
	if err := f.target.kafka().Validate(); err != nil {
		return err
	}
	for _, re := range []struct{ flag, value string }{{"topics", f.topics}, {"principals", f.principals}} {
		if _, err := regexp.Compile(re.value); err != nil {
			return fmt.Errorf("--%s %q: %v", re.flag, re.value, err)
		}
	}
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("-o %q: want text or json", f.output)
	}
	return nil
}

// request maps the plan flags to the request that computes the plan;
// progress lines go to progress.
func (f *planFlags) request(progress io.Writer) (migration.PlanRequest, error) {
	opts, err := f.options()
	if err != nil {
		return migration.PlanRequest{}, err
	}
	if f.targetSnapshot != "" && f.target.commandConfig != "" {
		// Offline review: the user --command-config signs in as is the
		// one whose SCRAM credentials --prune keeps (live, the connection's).
		if opts.OwnUser, err = f.target.kafka().OwnUser(); err != nil {
			return migration.PlanRequest{}, err
		}
	}
	return migration.PlanRequest{
		Source: func(ctx context.Context) (*snapshot.Snapshot, error) { return f.source.load(ctx, progress) },
		Target: migration.Target{SnapshotFile: f.targetSnapshot, Dial: f.target.kafka().Dial,
			Principal: f.target.principal}, // --principal for offline (--target-snapshot) review
		Options: opts, PolicyFile: f.policyFile, CredentialsFile: f.scramCreds, ScramResetsFile: f.scramResets,
		PrincipalMapFile: f.principalMap,
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
	if f.noAccessProof {
		return nil
	}
	r, err := migration.ProvePlanned(ctx, pl, f.accessSettings())
	if err != nil {
		fmt.Fprintf(e.stderr, "migrate %s: access proof not made: %s\n", cmd, errorText(accessError(err)))
		return nil
	}
	rec.AccessProof(ctx, r, migration.ProvedPlanned)
	return r
}

// accessSettings are where the access proof takes each node's settings.
func (f *planFlags) accessSettings() migration.AccessSettings {
	return migration.AccessSettings{BrokerConfigs: f.source.brokerConfigs, TargetConfigs: f.targetConfigs}
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
	f.register(fs)
	fs.StringVar(&out, "out", "", "save the plan (with the before-states apply checks) to this `FILE`: plain JSON when it ends in .json, else zstd-compressed JSON (.zst; zstd -dc FILE shows it)")
	sign.register(fs)
	c.colorFlag(cmd.Flags())
	cmd.Annotations = map[string]string{"footer": keysPointer}
	return cmd
}

func runPlan(ctx context.Context, e *env, f *planFlags, out string, sign *signFlag, args []string, hint string) int {
	if err := f.validate(); err != nil {
		return fail(e, "plan", err)
	}
	key, err := sign.load(out)
	if err != nil {
		return fail(e, "plan", err)
	}
	view, err := render.PlanView(render.Output(f.output), e.stdout, e.textOptions(f.detail))
	if err != nil {
		return fail(e, "plan", outputError(err))
	}
	rec := f.audit.begin(ctx, e, "plan")
	var pl *migration.Planned
	err = withLoading(ctx, e, f.interactive, f.source.quiet, "Reading the source and the target", func(progress io.Writer) error {
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
	return finishPlan(ctx, e, rec, p, view, planOutput{cmd: "plan", out: out, sign: key, interactive: f.interactive, access: proof, applyWith: hint})
}

// signFlag is --sign-key: the private key that signs the plan file --out
// saves.
type signFlag struct{ file string }

func (s *signFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.file, "sign-key", "", "sign the plan file --out saves with the ed25519 private key in `FILE` (from 'migrate audit keygen --out FILE'); apply --plan --verify-key FILE.pub then refuses it unless so signed (docs/plan-file.md)")
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
