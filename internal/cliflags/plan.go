package cliflags

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Plan are the flags that shape a plan, shared by plan, apply and sync.
type Plan struct {
	Source         Source
	Target         Target
	TargetSnapshot string
	PolicyFile     string
	Include        string
	Exclude        string
	Topics         string
	Principals     string
	BrokerIDMap    string
	Placement      string
	Reassign       bool
	Prune          bool
	PruneCluster   bool
	RaiseMinimums  bool
	ResendSecrets  bool
	ScramCreds     string
	ScramResets    string
	PrincipalMap   string
	TargetConfigs  cmdline.StringList
	NoAccessProof  bool
	Output         string
	TargetVersion  string
	Interactive    bool
	Detail         bool
	Audit          Audit
}

func (f *Plan) Register(fs *pflag.FlagSet) {
	f.Source.Register(fs)
	f.Target.Register(fs)
	fs.StringVar(&f.TargetSnapshot, "target-snapshot", "", "plan against a saved target snapshot `FILE` (offline review)\ninstead of --bootstrap-server")
	fs.StringVar(&f.PolicyFile, "policy", "", "TopicActionPolicy `FILE` (YAML) evaluated on every topic change")
	fs.StringVar(&f.Include, "include", "", "only these change `KINDS` (comma list)\n(kinds: "+KindList()+")")
	fs.StringVar(&f.Exclude, "exclude", "", "leave out these change `KINDS` (comma list)")
	fs.StringVar(&f.Topics, "topics", "", "only topics whose name matches this `REGEXP`")
	fs.StringVar(&f.Principals, "principals", "", "only ACLs, quotas and SCRAM users whose principal matches `REGEXP`\n(User:alice)")
	fs.StringVar(&f.BrokerIDMap, "broker-id-map", "", "source to target broker ids, to place replicas: `MAP` like 1=101,2=102")
	fs.StringVar(&f.Placement, "placement", plan.PlacementAuto, "`HOW` replicas of new topics and partitions are placed\nauto (the source's exact replica lists when the target has every broker they name, else the target places them, with a finding), source (require the source's lists), target (the target places them)")
	fs.BoolVar(&f.Reassign, "reassign", false, "move replicas of existing target topics to the source's layout\n(or --broker-id-map's)")
	fs.BoolVar(&f.Prune, "prune", false, "also delete what the target has and the source does not\n(never internal topics, the SCRAM credentials of the user this tool signs in as, nor cluster-level broker configs)")
	fs.BoolVar(&f.PruneCluster, "prune-cluster-configs", false, "with --prune: also delete cluster-level broker configs\n(<default>) that the source does not have (except min.insync.replicas on 4.1+, which Kafka keeps for eligible leader replicas)")
	fs.BoolVar(&f.RaiseMinimums, "raise-to-target-minimums", false, "create topics whose values the target refuses with the nearest it takes\n(segment.bytes below 1 MiB on 4.1); each adjustment is named in the plan")
	fs.BoolVar(&f.ResendSecrets, "resend-secrets", false, "send sensitive configs and SCRAM credentials again\neven when present on the target")
	fs.StringVar(&f.ScramCreds, "scram-credentials", "", "`FILE`: a JSON list of {user, mechanism, password, iterations}\nto recreate SCRAM users")
	fs.Var(&f.TargetConfigs, "target-config", "a target node's server.properties or controller.properties `FILE`\n(repeatable), for the access proof: super.users and allow.everyone.if.no.acl.found, which a live node hides, and the settings of controllers that do not answer (docs/access.md)")
	fs.BoolVar(&f.NoAccessProof, "no-access-proof", false, "skip the access proof (docs/access.md)\nplan's of the target the plan would leave, apply's of the target it left, sync's on every reconciliation (access drift); at 100,000 ACLs one takes seconds")
	fs.StringVar(&f.PrincipalMap, "principal-map", "", "map source principals to the target's in ACLs, quotas, SCRAM users\n(`FILE`: Kafka's ssl.principal.mapping.rules and sasl.kerberos.principal.to.local.rules, zkmigrate.map pairs; docs/principal-map.md)")
	fs.StringVar(&f.ScramResets, "scram-resets", "", "write the SCRAM users whose password must be reset to `FILE`\n(no password given)")
	cmdline.OutputFlag(fs, &f.Output, "output: text or json", "text", "json")
	fs.StringVar(&f.TargetVersion, "target-version", "4.1", "Kafka `VERSION` of the target (4.0, 4.1, ...)\nvalues it would refuse become blockers")
	fs.BoolVar(&f.Interactive, "interactive", false, "review the plan in the terminal UI")
	fs.BoolVar(&f.Detail, "detail", false, "text output: list every change, blocker and finding\n(by default a kind with more than 20 changes shows its first 10 and counts the rest; -o json is always complete)")
	f.Audit.Register(fs)
}

// ParseTargetVersion parses --target-version as plan, apply, sync and check all
// do (catalogue.ParseTarget): a Kafka 4.x version, never "".
func ParseTargetVersion(v string) (catalogue.Version, error) {
	t, err := catalogue.ParseTarget(v)
	if err != nil {
		return t, fmt.Errorf("--target-version %q: %v", v, err)
	}
	return t, nil
}

func KindList() string {
	var ks []string
	for _, k := range plan.Kinds {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ",")
}

func ParseKinds(flagName, s string) ([]plan.Kind, error) {
	if s == "" {
		return nil, nil
	}
	var out []plan.Kind
	for _, part := range strings.Split(s, ",") {
		k := plan.Kind(strings.TrimSpace(part))
		if !slices.Contains(plan.Kinds, k) {
			return nil, fmt.Errorf("--%s: unknown kind %q%s (kinds: %s)", flagName, k, cmdline.DidYouMean(string(k), strings.Split(KindList(), ","), ""), KindList())
		}
		out = append(out, k)
	}
	return out, nil
}

// Options turns the flags into plan.Options.
func (f *Plan) Options() (plan.Options, error) {
	var o plan.Options
	var err error
	if o.Include, err = ParseKinds("include", f.Include); err != nil {
		return o, err
	}
	if o.Exclude, err = ParseKinds("exclude", f.Exclude); err != nil {
		return o, err
	}
	if o.BrokerIDMap, err = ParseBrokerIDMap(f.BrokerIDMap); err != nil {
		return o, err
	}
	switch f.Placement {
	case plan.PlacementAuto, plan.PlacementSource, plan.PlacementTarget:
		o.Placement = f.Placement
	default:
		return o, fmt.Errorf("--placement %q: want auto, source or target", f.Placement)
	}
	if f.Reassign && o.BrokerIDMap == nil && o.Placement == plan.PlacementTarget {
		return o, errors.New("--reassign needs a layout to move replicas to: --broker-id-map, or --placement auto or source")
	}
	if f.PruneCluster && !f.Prune {
		return o, errors.New("--prune-cluster-configs needs --prune")
	}
	o.TopicRegex, o.PrincipalRegex = f.Topics, f.Principals
	o.Reassign, o.Prune, o.ResendSecrets = f.Reassign, f.Prune, f.ResendSecrets
	o.PruneClusterConfigs, o.RaiseToTargetMinimums = f.PruneCluster, f.RaiseMinimums
	o.TargetVersion = f.TargetVersion
	return o, nil
}

// Validate checks the plan flags without reading anything: a usage error
// stops plan and apply before the audit trail records a run.
func (f *Plan) Validate() error {
	if err := f.Source.Validate(); err != nil {
		return err
	}
	return f.ValidateNoSource()
}

// ValidateNoSource is validate without the source flags (apply --plan of a
// revert plan needs no source).
func (f *Plan) ValidateNoSource() error {
	if f.TargetSnapshot == "" && strings.TrimSpace(f.Target.Bootstrap) == "" {
		return errors.New("give the target: --bootstrap-server host:port [--command-config client.properties], or --target-snapshot FILE")
	}
	if _, err := f.Options(); err != nil {
		return err
	}
	if _, err := ParseTargetVersion(f.TargetVersion); err != nil {
		return err
	}
	if err := f.Target.Kafka().Validate(); err != nil {
		return err
	}
	for _, re := range []struct{ flag, value string }{{"topics", f.Topics}, {"principals", f.Principals}} {
		if _, err := regexp.Compile(re.value); err != nil {
			return fmt.Errorf("--%s %q: %v", re.flag, re.value, err)
		}
	}
	if f.Output != "text" && f.Output != "json" {
		return fmt.Errorf("-o %q: want text or json", f.Output)
	}
	return nil
}
