package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// SavedRequest is what LoadSaved needs: the plan file and where to read
// its source and its live target now.
type SavedRequest struct {
	PlanFile string
	// VerifyKeyFile, when set, is the key (public, or private) whose
	// signature the plan file must hold (planfile.ReadVerified): an
	// unsigned plan, another key's or a bad signature is refused before
	// anything else is read.
	VerifyKeyFile string
	Source        SourceFunc
	Dial          DialFunc
	// PolicyFile must be the policy the plan was made with, when it was
	// made with one; CredentialsFile is a SCRAM credentials file ("" none).
	PolicyFile      string
	CredentialsFile string
	// PrincipalMapFile must be the principal map the plan was made with,
	// when it was made with one, and none when it was made without.
	PrincipalMapFile string
	// Audit is the audit database the apply records into: a revert plan
	// (migrate audit revert) is justified by the record of the run it
	// reverts, read from it, and needs no Source unless it sets sensitive
	// configs again (their values are read from the source).
	Audit *audit.Store
	Hooks
}

// PolicyError refuses a saved plan made with a topic policy when that
// policy is not given again (Given == "") or another one is.
type PolicyError struct {
	PlanFile    string
	Planned     string // the digest the plan records
	Given       string // the policy file given now
	GivenDigest string
}

func (e *PolicyError) Error() string {
	if e.Given == "" {
		return fmt.Sprintf("%s was planned with a topic policy (%s), and none was given to check its changes against again", e.PlanFile, e.Planned)
	}
	return fmt.Sprintf("policy %s (%s) is not the policy %s was planned with (%s)", e.Given, e.GivenDigest, e.PlanFile, e.Planned)
}

// LoadSaved reads a saved plan, the source and the live target, and keeps
// only what the source still justifies (Justify); a revert plan is
// justified by the audit record of the run it reverts instead
// (JustifyRevert). It refuses, before
// reading anything else, a plan file that is not one or not one apply can
// carry out, and a policy other than the one the plan was made with. The
// caller closes the result.
func LoadSaved(ctx context.Context, r SavedRequest) (*Planned, error) {
	p, err := ReadSaved(r.PlanFile, r.VerifyKeyFile)
	if err != nil {
		return nil, err
	}
	if err := plan.Validate(p); err != nil {
		return nil, fmt.Errorf("%s: %w", r.PlanFile, err)
	}
	if p.Reverts != nil {
		pl, err := loadRevert(ctx, r, p)
		if pl != nil {
			pl.Widened = Widenings(p, false)
			pl.VerifiedBy = verifiedBy(r, p)
		}
		return pl, err
	}
	if r.Source == nil {
		return nil, fmt.Errorf("%s: a saved change is applied only if the source it was planned from still justifies it: give that source", r.PlanFile)
	}
	topics, err := topicScope(p.Options.TopicRegex)
	if err != nil {
		return nil, fmt.Errorf("%s: field options.%v", r.PlanFile, err)
	}
	pol, digest, err := LoadPolicy(r.PolicyFile)
	if err != nil {
		return nil, err
	}
	if p.Options.Policy != "" && digest != p.Options.Policy {
		return nil, &PolicyError{PlanFile: r.PlanFile, Planned: p.Options.Policy, Given: r.PolicyFile, GivenDigest: digest}
	}
	creds, err := LoadCredentials(r.CredentialsFile)
	if err != nil {
		return nil, err
	}
	pm, err := LoadPrincipalMap(r.PrincipalMapFile)
	if err != nil {
		return nil, err
	}
	if err := checkPrincipalMap(r.PlanFile, p.Options, pm); err != nil {
		return nil, err
	}
	src, err := r.Source(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := r.Dial(ctx)
	if err != nil {
		return nil, err
	}
	r.progress("Reading target %s ...", strings.Join(conn.Bootstrap, ","))
	tgt, err := kread.Read(ctx, conn, kread.Options{Topics: topics})
	if err != nil {
		conn.Close()
		return nil, err
	}
	secrets, err := Justify(p, src, tgt, creds, pol, OwnUser(conn), pm)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", r.PlanFile, err)
	}
	return &Planned{Plan: p, Source: src, Target: tgt, Conn: conn, Credentials: creds, Secrets: secrets, PrincipalMap: pm,
		Widened: Widenings(p, pol != nil), VerifiedBy: verifiedBy(r, p)}, nil
}

// ReadSaved reads a saved plan file and checks it (planfile.Read), and
// with a verification key (keyFile, "" none) its signature by that key
// (planfile.ReadVerified) before anything else: the key is read first.
func ReadSaved(path, keyFile string) (*plan.Plan, error) {
	if keyFile == "" {
		return planfile.Read(path)
	}
	key, err := LoadVerifyKey(keyFile)
	if err != nil {
		return nil, err
	}
	return planfile.ReadVerified(path, key)
}

// verifiedBy is the key id of p's signature when r asked for it to be
// verified (ReadSaved did), else "".
func verifiedBy(r SavedRequest, p *plan.Plan) string {
	if r.VerifyKeyFile == "" || p.Signature == nil {
		return ""
	}
	return p.Signature.KeyID
}

// Justify decides whether saved may be applied to tgt now, and returns the
// secrets apply may resolve for it. It refuses a plan stale on tgt (a
// resource in neither its before- nor its after-state: *plan.StaleError),
// then builds the plan again from src and tgt with saved's own options and
// pol, and refuses a saved change that plan does not hold identically and
// tgt does not already show, or cluster ids other than src's and tgt's
// (plan.Recheck). Secrets come from the plan built now, by change and key,
// so a saved reference reaches only the resource and key it was read from.
// own is the SASL user apply authenticates as now (OwnUser): the plan built
// now protects that user's SCRAM credentials, whoever made the saved plan,
// so a saved --prune delete of them is refused ("blocked now"). pm is the
// principal map the plan was made with (nil: none); another is refused.
func Justify(saved *plan.Plan, src, tgt *snapshot.Snapshot, creds []plan.Credential, pol *policy.Policy, own string, pm *principalmap.Map) (*plan.Secrets, error) {
	if saved.Options.Policy != "" && pol == nil {
		return nil, errors.New("the plan was made with a topic policy, and none was given")
	}
	if err := checkPrincipalMap("the plan", saved.Options, pm); err != nil {
		return nil, err
	}
	if _, _, err := plan.Triage(saved, tgt); err != nil {
		return nil, err
	}
	opts := saved.Options
	opts.OwnUser = own
	fresh, err := BuildPlan(src, tgt, creds, opts, pol, pm)
	if err == nil {
		err = plan.Recheck(saved, fresh, plan.NewTarget(tgt))
	}
	if err != nil {
		return nil, err
	}
	return plan.SecretsOf(fresh), nil
}
