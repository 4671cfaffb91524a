package policy

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Violation is one existing topic a policy denies.
type Violation struct {
	Topic   string `json:"topic"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// TestReport is what testing a policy against a cluster's existing topics
// found (`migrate policy test`).
type TestReport struct {
	Policy          string      `json:"policy"`
	PolicyDigest    string      `json:"policy_digest"`
	Source          string      `json:"source"`
	Topics          int         `json:"topics"`
	InternalSkipped int         `json:"internal_skipped"`
	Violations      []Violation `json:"violations"`
	Notes           []string    `json:"notes,omitempty"`
}

// TestTopics evaluates every topic of s that is not Kafka-internal as a
// CREATE made now; source names s in the report.
func TestTopics(p *Policy, s *snapshot.Snapshot, source string) *TestReport {
	r := &TestReport{Policy: p.Source(), PolicyDigest: p.Digest(), Source: source, Violations: []Violation{}, Notes: p.Notes()}
	for i := range s.Topics {
		t := &s.Topics[i]
		if t.Internal || catalogue.IsInternalTopic(t.Name) {
			r.InternalSkipped++
			continue
		}
		r.Topics++
		if d := p.EvaluateExisting(t.Name, FromTopic(t)); !d.Allowed {
			r.Violations = append(r.Violations, Violation{Topic: t.Name, Rule: d.Rule, Message: d.Message})
		}
	}
	return r
}

// Findings are the violations as findings, for the audit trail.
func (r *TestReport) Findings() []snapshot.Finding {
	var out []snapshot.Finding
	for _, v := range r.Violations {
		out = append(out, snapshot.Finding{ID: catalogue.IDPolicyViolation, Severity: snapshot.SeverityError, Resource: "topic " + v.Topic,
			Message: fmt.Sprintf("rule %q: %s", v.Rule, v.Message)})
	}
	return out
}

// LoadConverting reads brokers' server.properties files and converts
// their legacy policy settings (Convert).
func LoadConverting(paths []string) (*Conversion, error) {
	var files []*props.File
	for _, p := range paths {
		f, err := props.Load(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return Convert(files)
}
