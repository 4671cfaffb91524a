package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/secret"
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
	fs.BoolVar(&f.prune, "prune", false, "also delete what the target has and the source does not (never internal topics, SCRAM users, nor cluster-level broker configs)")
	fs.BoolVar(&f.pruneCluster, "prune-cluster-configs", false, "with --prune: also delete cluster-level (<default>) broker configs the source does not have (except min.insync.replicas on 4.1+, which Kafka keeps for eligible leader replicas)")
	fs.BoolVar(&f.raiseMinimums, "raise-to-target-minimums", false, "create topics whose config values the target refuses (segment.bytes below 1 MiB on 4.1) with the nearest value it accepts; each adjustment is named in the plan")
	fs.BoolVar(&f.resendSecrets, "resend-secrets", false, "send sensitive configs and SCRAM credentials even when present on the target")
	fs.StringVar(&f.scramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations} to recreate SCRAM users")
	fs.StringVar(&f.scramResets, "scram-resets", "", "write the users whose SCRAM password must be reset (no password given) to this `FILE`")
	outputFlag(fs, &f.output, "output: text or json", "text", "json")
	fs.StringVar(&f.targetVersion, "target-version", "4.1", "Kafka `VERSION` of the target (4.0, 4.1, ...): values it would refuse become blockers")
	fs.BoolVar(&f.interactive, "interactive", false, "review the plan in the terminal UI")
	fs.BoolVar(&f.detail, "detail", false, "text output: list every change, blocker and finding (by default a kind with more than 20 changes shows its first 10 and counts the rest; -o json is always complete)")
	f.audit.register(fs)
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
			return nil, fmt.Errorf("--%s: unknown kind %q (kinds: %s)", flagName, k, kindList())
		}
		out = append(out, k)
	}
	return out, nil
}

// planned is a computed plan with what it was computed from.
type planned struct {
	plan    *plan.Plan
	source  *snapshot.Snapshot
	target  *snapshot.Snapshot
	conn    *kafkaconn.Conn // nil with --target-snapshot
	creds   []plan.Credential
	resolve *plan.Secrets // the secrets the plan built this run holds, by change and key
}

func (p *planned) close() {
	if p != nil && p.conn != nil {
		p.conn.Close()
	}
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
	if f.targetSnapshot == "" && strings.TrimSpace(f.target.bootstrap) == "" {
		return errors.New("give the target: --bootstrap-server host:port [--command-config client.properties], or --target-snapshot FILE")
	}
	if _, err := f.options(); err != nil {
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

// readOptions scopes target reads to the topics the plan may touch.
func (f *planFlags) readOptions() kread.Options {
	var o kread.Options
	if f.topics != "" {
		o.Topics, _ = regexp.Compile(f.topics) // checked by options()
	}
	return o
}

// readTarget reads the target through the admin protocol, or from a file.
func (f *planFlags) readTarget(ctx context.Context, progress io.Writer) (*snapshot.Snapshot, *kafkaconn.Conn, error) {
	if f.targetSnapshot != "" {
		s, err := snapshot.Load(f.targetSnapshot)
		return s, nil, err
	}
	conn, err := f.target.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(progress, "Reading target %s ...\n", strings.Join(conn.Bootstrap, ","))
	s, err := kread.Read(ctx, conn, f.readOptions())
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return s, conn, nil
}

// compute reads both sides and builds the plan.
func (f *planFlags) compute(ctx context.Context, progress io.Writer) (*planned, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	pol, digest, err := loadPolicy(f.policyFile)
	if err != nil {
		return nil, err
	}
	opts.Policy = digest
	creds, err := loadCredentials(f.scramCreds)
	if err != nil {
		return nil, err
	}
	src, err := f.source.load(ctx, progress)
	if err != nil {
		return nil, err
	}
	memPhase("source")
	tgt, conn, err := f.readTarget(ctx, progress)
	if err != nil {
		return nil, err
	}
	memPhase("target")
	out := &planned{source: src, target: tgt, conn: conn, creds: creds}
	opts.Principal = f.target.principal // offline (--target-snapshot) review
	if conn != nil {
		opts.Principal = conn.Principal // --principal, else who the connection authenticates as
	}
	p, err := buildPlan(src, tgt, creds, opts, pol)
	if err != nil {
		out.close()
		return nil, err
	}
	out.plan, out.resolve = p, plan.SecretsOf(p)
	memPhase("plan")
	if f.scramResets != "" {
		if err := writeScramResets(f.scramResets, p); err != nil {
			out.close()
			return nil, err
		}
	}
	return out, nil
}

// loadPolicy loads a TopicActionPolicy file and returns it with the digest
// of its bytes ("sha256:<hex>"), which a saved plan records; "" loads none.
func loadPolicy(path string) (*policy.Policy, string, error) {
	if path == "" {
		return nil, "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("policy: %w", err)
	}
	pol, err := policy.Parse(path, b)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return pol, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// buildPlan builds the plan from source and target with the given options
// and policy (nil: none).
func buildPlan(src, tgt *snapshot.Snapshot, creds []plan.Credential, opts plan.Options, pol *policy.Policy) (*plan.Plan, error) {
	in := plan.Input{Source: src, Target: tgt, Options: opts, Credentials: creds,
		SourceEndpoint: endpointOf(src), TargetEndpoint: endpointOf(tgt)}
	if pol != nil {
		in.Policy = policyAdapter{pol}
		in.PolicyNotes = pol.Notes()
	}
	return plan.Build(in)
}

func endpointOf(s *snapshot.Snapshot) plan.Endpoint {
	return plan.Endpoint{Kind: s.Source, Address: s.Address, ClusterID: s.ClusterID, Digest: snapshot.Digest(s)}
}

// policyAdapter lets the plan evaluate a loaded TopicActionPolicy.
type policyAdapter struct{ p *policy.Policy }

func (a policyAdapter) Evaluate(action, topic, principal string, pre, post *plan.TopicState) plan.Verdict {
	d := a.p.Evaluate(policy.Request{Action: policy.Action(action), Topic: topic, Principal: principal,
		Pre: (*policy.TopicState)(pre), Post: (*policy.TopicState)(post)})
	return plan.Verdict{Allowed: d.Allowed, Rule: d.Rule, Message: d.Message}
}

const planUsage = `Usage: migrate plan (--zookeeper ... | --zk-data-dir DIR | --snapshot FILE) (--bootstrap-server ... | --target-snapshot FILE) [flags]

Compute the changes that bring the target in line with the source, show them
as a diff (+ create, ~ update, - delete), and optionally save them for apply.
Exit codes: 0 nothing to do, 2 runnable changes pending, 1 error.
`

func (c *cli) newPlanCmd() *cobra.Command {
	var f planFlags
	var out string
	cmd := c.command("plan", "compute the changes that bring the target in line with the source (diff, -o json, --out plan.json)", planUsage,
		func(ctx context.Context, e *env, args []string) int { return runPlan(ctx, e, &f, out, args) })
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&out, "out", "", "save the plan (with the before-states apply checks) to this `FILE`: zstd-compressed JSON (zstd -dc FILE shows it)")
	cmd.Annotations = map[string]string{"footer": keyHelp()}
	return cmd
}

func runPlan(ctx context.Context, e *env, f *planFlags, out string, args []string) int {
	if len(args) > 0 {
		return fail(e, "plan", fmt.Errorf("unexpected argument %q", args[0]))
	}
	if err := f.validate(); err != nil {
		return fail(e, "plan", err)
	}
	rec := f.audit.begin(ctx, e, "plan")
	var pl *planned
	err := withLoading(ctx, e, f.interactive, f.source.quiet, "Reading the source and the target", func(progress io.Writer) error {
		var err error
		pl, err = f.compute(ctx, progress)
		return err
	})
	if err != nil {
		rec.finish(ctx, e, "error", exitError)
		return fail(e, "plan", err)
	}
	defer pl.close()
	rec.plan(ctx, pl)
	memPhase("audit")
	p := pl.plan
	pl.source, pl.target = nil, nil // the plan holds what is left to do: their memory goes back before it is saved
	if f.interactive {
		sel, ok, err := reviewInteractive(ctx, e, p)
		if err != nil {
			return fail(e, "plan", err)
		}
		if !ok {
			fmt.Fprintln(e.stderr, "Nothing saved.")
			rec.finish(ctx, e, "canceled", exitOK)
			return exitOK
		}
		p = sel
	}
	// -o json shows the digest the file holds; savePlan seals p itself (an
	// encoding of the whole plan each: not twice when once will do).
	if out == "" && f.output == "json" {
		if err := planfile.Seal(p); err != nil {
			return fail(e, "plan", err)
		}
	}
	if out != "" {
		for side, id := range map[string]string{"source": p.Source.ClusterID, "target": p.Target.ClusterID} {
			if id == "" {
				fmt.Fprintf(e.stderr, "migrate plan: warning: the %s has no cluster id, so apply --plan will refuse %s; apply without --plan instead\n", side, out)
			}
		}
		if err := savePlan(out, p); err != nil {
			rec.finish(ctx, e, "error", exitError)
			return fail(e, "plan", fmt.Errorf("save %s: %w", out, err))
		}
		memPhase("save")
	}
	switch f.output {
	case "json":
		err = render.PlanJSON(e.stdout, p)
	default:
		err = render.PlanTextWith(e.stdout, p, render.TextOptions{Detail: f.detail})
		if err == nil && out != "" {
			fmt.Fprintf(e.stdout, "Saved to %s. Apply it with: migrate apply --plan %s\n", out, out)
		}
	}
	if err != nil {
		return fail(e, "plan", err)
	}
	memPhase("render")
	code := exitOK
	if p.Runnable() {
		code = exitPending
	}
	rec.finish(ctx, e, "planned", code)
	return code
}

// writeScramResets writes the users whose passwords must be reset.
func writeScramResets(path string, p *plan.Plan) error {
	type reset struct {
		User      string `json:"user"`
		Mechanism string `json:"mechanism"`
	}
	list := []reset{}
	for _, b := range p.Blockers {
		if b.ID == "scram-no-password" {
			user, mech, _ := strings.Cut(strings.TrimPrefix(b.Resource, "User:"), " SCRAM-")
			list = append(list, reset{User: user, Mechanism: "SCRAM-" + mech})
		}
	}
	data, _ := json.MarshalIndent(list, "", "  ")
	return snapshot.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// secretValues returns the secret values this run holds in memory (the
// source's decrypted broker passwords, the SCRAM credentials file), for the
// audit trail to scrub should one ever reach it.
func secretValues(src *snapshot.Snapshot, creds []plan.Credential) []string {
	var out []string
	add := func(s *secret.Secret) {
		if s != nil {
			if v, ok := s.Reveal(); ok && v != "" {
				out = append(out, v)
			}
		}
	}
	if src != nil {
		for _, t := range src.Topics {
			for i := range t.Configs {
				add(t.Configs[i].Secret)
			}
		}
		for _, bc := range src.BrokerConfigs {
			for i := range bc.Configs {
				add(bc.Configs[i].Secret)
			}
		}
	}
	for i := range creds {
		add(&creds[i].Password)
	}
	return out
}
