package migration

import (
	"context"

	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// CheckRequest is what the pre-upgrade audit (check) needs.
type CheckRequest struct {
	// Source reads the source; Served, when set, reads the same cluster
	// through its brokers, to compare with (check.CrossCheck).
	Source SourceFunc
	Served SourceFunc
	Target check.Target
	// PolicyFile, CredentialsFile and PrincipalMapFile are read before
	// anything else ("" none).
	PolicyFile       string
	CredentialsFile  string
	PrincipalMapFile string
	// EncoderSecretGiven: a live ZooKeeper source was given a password
	// encoder secret (it words the finding on encrypted passwords; a
	// broker config file's secret counts too).
	EncoderSecretGiven bool
	LiveZooKeeper      bool
}

// InputScramCredentials is the SCRAM credentials file of a request.
const InputScramCredentials Input = "SCRAM credentials"

// Check is a prepared audit: its files read.
type Check struct {
	r    CheckRequest
	opts check.Options
	pm   *principalmap.Map
}

// PrepareCheck reads r's files (a bad one stops the audit before anything
// is read or recorded).
func PrepareCheck(r CheckRequest) (*Check, error) {
	c := &Check{r: r, opts: check.Options{TargetVersion: r.Target.String()}}
	creds, err := LoadCredentials(r.CredentialsFile)
	if err != nil {
		return nil, &InputError{Input: InputScramCredentials, Err: err}
	}
	if len(creds) > 0 {
		c.opts.ScramPasswords = map[check.ScramKey]bool{}
		for _, cr := range creds {
			c.opts.ScramPasswords[check.ScramKey{User: cr.User, Mechanism: cr.Mechanism}] = true
		}
	}
	if c.pm, err = LoadPrincipalMap(r.PrincipalMapFile); err != nil {
		return nil, err
	}
	if r.PolicyFile != "" {
		pol, err := policy.Load(r.PolicyFile)
		if err != nil {
			return nil, err
		}
		c.opts.Policy = existingTopics{pol}
	}
	return c, nil
}

// Run reads the source (and the brokers, to compare with) and audits it:
// the report (naming what was audited, without credentials) and its
// findings, sorted.
func (c *Check) Run(ctx context.Context) (*check.Report, error) {
	src, err := c.r.Source(ctx)
	if err != nil {
		return nil, err
	}
	// Whether a secret was given (it only words the finding; which passwords
	// stayed encrypted is read per config). A plaintext password config is
	// "known" without any secret, so it proves nothing about one.
	c.opts.EncoderSecretKnown = c.r.LiveZooKeeper && (c.r.EncoderSecretGiven || staticEncoderSecret(src))
	findings, err := check.Run(MapForCheck(c.pm, src), c.opts)
	if err != nil {
		return nil, err
	}
	name := SourceName(src)
	if c.r.Served != nil {
		served, err := c.r.Served(ctx)
		if err != nil {
			return nil, err
		}
		findings = append(findings, check.CrossCheck(src, served)...)
		check.Sort(findings)
		name += ", compared with " + SourceName(served)
	}
	return check.NewReport(name, c.r.Target, findings), nil
}

// SourceName says what was read, without credentials.
func SourceName(s *snapshot.Snapshot) string {
	switch {
	case s.Address != "" && s.Source != "":
		return s.Source + " " + s.Address
	case s.Address != "":
		return s.Address
	}
	return s.Source
}

// staticEncoderSecret reports whether a broker config file sets
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

// existingTopics lets the audit evaluate existing topics against a loaded
// TopicActionPolicy (as if each were created now, with no principal).
type existingTopics struct{ p *policy.Policy }

func (c existingTopics) CheckExisting(t *snapshot.Topic) []check.PolicyViolation {
	d := c.p.EvaluateExisting(t.Name, policy.FromTopic(t))
	if d.Allowed {
		return nil
	}
	return []check.PolicyViolation{{Rule: d.Rule, Message: d.Message}}
}
