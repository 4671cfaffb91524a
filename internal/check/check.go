package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Severities, from most to least serious. They are the snapshot package's
// spellings, so findings convert without mapping.
const (
	SeverityError   = snapshot.SeverityError
	SeverityWarning = snapshot.SeverityWarning
	SeverityInfo    = snapshot.SeverityInfo
)

// Rank orders severities: error 3, warning 2, info 1, anything else 0.
func Rank(severity string) int {
	switch severity {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 1
	}
	return 0
}

// DefaultTargetVersion is the Kafka version checked against when
// Options.TargetVersion is empty.
var DefaultTargetVersion = catalogue.DefaultTarget.String()

// Finding is one thing the audit found.
type Finding struct {
	ID       string `json:"id"`       // stable id from the Catalogue
	Severity string `json:"severity"` // error, warning or info
	Resource string `json:"resource"` // kind:name, e.g. topic:orders, broker:0, file:server.properties
	Message  string `json:"message"`  // what is wrong, for this resource
	Why      string `json:"why"`      // why it matters
	Fix      string `json:"fix"`      // what to do about it
}

// Snapshot converts the finding for the audit trail and plan findings (Why
// is dropped; the id leads back to it in the catalogue).
func (f Finding) Snapshot() snapshot.Finding {
	return snapshot.Finding{ID: f.ID, Severity: f.Severity, Resource: f.Resource, Message: f.Message, Fix: f.Fix}
}

// ToSnapshot converts findings for the audit trail.
func ToSnapshot(fs []Finding) []snapshot.Finding {
	out := make([]snapshot.Finding, len(fs))
	for i, f := range fs {
		out[i] = f.Snapshot()
	}
	return out
}

// TopicPolicy evaluates existing topics against a TopicActionPolicy. The
// command adapts internal/policy to it, so this package stays free of CEL.
type TopicPolicy interface {
	// CheckExisting returns the rules the topic, as it is now, violates.
	CheckExisting(t *snapshot.Topic) []PolicyViolation
}

// PolicyViolation is one rule an existing topic breaks.
type PolicyViolation struct {
	Rule    string // rule name in the policy file
	Message string // the rule's message
}

// Options tune the audit.
type Options struct {
	// TargetVersion is the Kafka version the cluster is moving to: "4.0",
	// "4.1", "4.2", ... (default DefaultTargetVersion). Version-dependent
	// checks follow it.
	TargetVersion string
	// Policy, when set, is evaluated against every existing topic.
	Policy TopicPolicy
	// EncoderSecretKnown says the password encoder secret was given, so
	// encrypted broker passwords could be decrypted.
	EncoderSecretKnown bool
	// ScramPasswords are the SCRAM credentials whose passwords were given
	// (--scram-credentials), as user and mechanism; they can be recreated.
	ScramPasswords map[ScramKey]bool
}

// ScramKey names one SCRAM credential: a user and a mechanism.
type ScramKey struct{ User, Mechanism string }

// Target is a parsed target version.
type Target = catalogue.Version

// ParseTarget parses a --target-version value: 4.x, optionally with a patch
// ("4.1.1").
func ParseTarget(v string) (Target, error) {
	if v == "" {
		v = DefaultTargetVersion
	}
	t, err := catalogue.ParseTarget(v)
	if err != nil {
		return Target{}, fmt.Errorf("check: target version %q: %w", v, err)
	}
	return t, nil
}

// Run audits s and returns the findings, most severe first, then by id and
// resource. It fails only on bad options.
func Run(s *snapshot.Snapshot, opts Options) ([]Finding, error) {
	target, err := ParseTarget(opts.TargetVersion)
	if err != nil {
		return nil, err
	}
	c := &run{s: s, opts: opts, target: target}
	c.index()
	for _, fn := range checks {
		fn(c)
	}
	Sort(c.out)
	return c.out, nil
}

// checks run in this order; the output is sorted afterwards.
var checks = []func(*run){
	checkReadFindings,
	checkMigrationState,
	checkPendingWork,
	checkTopicIDs,
	checkStaticConfigs,
	checkBrokerConfigs,
	checkTopicConfigs,
	checkPasswords,
	checkUncarried,
	checkACLs,
	checkAccess,
	checkTopicHealth,
	checkLegacyConsumers,
	checkPolicy,
}

// Sort orders findings most severe first, then by id, then by resource.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if d := Rank(b.Severity) - Rank(a.Severity); d != 0 {
			return d
		}
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		if c := strings.Compare(a.Resource, b.Resource); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

// AtOrAbove reports whether any finding is at least as severe as threshold
// ("error", "warning", "info"; "none" never matches).
func AtOrAbove(fs []Finding, threshold string) bool {
	r := Rank(threshold)
	if r == 0 {
		return false
	}
	for _, f := range fs {
		if Rank(f.Severity) >= r {
			return true
		}
	}
	return false
}

// Counts returns the number of findings per severity.
func Counts(fs []Finding) map[string]int {
	m := map[string]int{SeverityError: 0, SeverityWarning: 0, SeverityInfo: 0}
	for _, f := range fs {
		m[f.Severity]++
	}
	return m
}

// run is the state of one audit.
type run struct {
	s      *snapshot.Snapshot
	opts   Options
	target Target
	out    []Finding

	// clusterDefaults is the dynamic cluster-wide broker config (<default>).
	clusterDefaults map[string]string
}

func (c *run) index() {
	c.clusterDefaults = map[string]string{}
	for _, bc := range c.s.BrokerConfigs {
		if bc.Broker == "" {
			for _, cf := range bc.Configs {
				if !cf.Sensitive {
					c.clusterDefaults[cf.Key] = cf.Value
				}
			}
		}
	}
}

// add records a finding of rule id with the rule's severity, why and fix;
// fix, when not empty, replaces the rule's generic fix.
func (c *run) add(id, resource, message, fix string) {
	c.addSev(id, "", resource, message, fix)
}

// addSev is add with a severity other than the rule's default (only for
// rules whose catalogue entry documents the variation).
func (c *run) addSev(id, severity, resource, message, fix string) {
	r, ok := catalogue.LookupFinding(id)
	if !ok || r.ID != id {
		panic("check: finding with id " + id + " not in the catalogue")
	}
	if severity == "" {
		severity = r.Severity
	}
	if fix == "" {
		fix = r.Fix
	}
	c.out = append(c.out, Finding{ID: id, Severity: severity, Resource: resource, Message: message, Why: r.Why, Fix: fix})
}

// pass reports a reader's finding as it is, with the vocabulary's why and
// fix (a finding of an id the vocabulary lacks, from a snapshot file of
// another version, keeps its own words).
func (c *run) pass(f snapshot.Finding, resource string) {
	sev := f.Severity
	if Rank(sev) == 0 {
		sev = SeverityWarning
	}
	r, _ := catalogue.LookupFinding(f.ID)
	fix := f.Fix
	if fix == "" {
		fix = r.Fix
	}
	c.out = append(c.out, Finding{ID: f.ID, Severity: sev, Resource: resource, Message: f.Message, Why: r.Why, Fix: fix})
}

// brokerDefault returns the cluster-wide value of a broker config: the
// dynamic <default> first, then the server.properties files (the highest
// numeric value when files disagree, else the first file's), and where it
// came from.
func (c *run) brokerDefault(key string) (value, from string, ok bool) {
	if v, ok := c.clusterDefaults[key]; ok {
		return v, "dynamic cluster default", true
	}
	best, bestN := "", int64(0)
	for _, sc := range c.s.StaticConfigs {
		for _, cf := range sc.Configs {
			if cf.Key != key || cf.Sensitive {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(cf.Value), 10, 64)
			if !ok || (err == nil && n > bestN) {
				best, bestN, from, ok = cf.Value, n, sc.File, true
			}
		}
	}
	return best, from, ok
}

// plural returns "1 topic" / "3 topics".
// joinInts renders a broker or partition list: "1,2,3".
func joinInts[T ~int32 | ~int](xs []T) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}
