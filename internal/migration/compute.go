package migration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Planned is a plan with what it was computed from. Close releases the
// target connection.
type Planned struct {
	Plan   *plan.Plan
	Source *snapshot.Snapshot
	Target *snapshot.Snapshot
	// Conn is the live target; nil when the target was a saved snapshot.
	Conn        *kafkaconn.Conn
	Credentials []plan.Credential
	// Secrets are the secrets the plan built in this run holds, by change
	// and key: apply resolves a secret reference only from these, never
	// from a plan file.
	Secrets *plan.Secrets
	// PrincipalMap is the principal map the source was mapped with before
	// planning (nil: none); Source is the source as read, unmapped.
	PrincipalMap *principalmap.Map
	// Widened lists a saved plan's options that widen what apply may do
	// (Widenings), for the command to show and record; LoadSaved sets it.
	Widened []Widening
	// VerifiedBy is the id of the key whose signature of the saved plan
	// LoadSaved verified ("" none was asked for).
	VerifiedBy string
}

// NewPlanned is p, built in this run from src and tgt, with what it was
// built from and the secrets it holds (plan.SecretsOf): apply resolves a
// secret reference only from these. conn is the live target (nil: none).
func NewPlanned(p *plan.Plan, src, tgt *snapshot.Snapshot, conn *kafkaconn.Conn, creds []plan.Credential) *Planned {
	return &Planned{Plan: p, Source: src, Target: tgt, Conn: conn, Credentials: creds, Secrets: plan.SecretsOf(p)}
}

// Close closes the target connection, if any.
func (p *Planned) Close() {
	if p != nil && p.Conn != nil {
		p.Conn.Close()
	}
}

// SourceFunc reads the source snapshot.
type SourceFunc func(ctx context.Context) (*snapshot.Snapshot, error)

// DialFunc connects to the live target; the caller closes the connection.
type DialFunc func(ctx context.Context) (*kafkaconn.Conn, error)

// Target says where the target is read from: a saved snapshot file
// (offline review) or, without one, the cluster Dial connects to.
type Target struct {
	SnapshotFile string
	Dial         DialFunc
	// Principal is who the plan is for when the target is a file; a live
	// target's connection knows its own principal.
	Principal string
}

// Hooks report progress; a nil hook is not called.
type Hooks struct {
	// Progress announces a step ("Reading target host:9092 ...").
	Progress func(msg string)
	// Phase marks the end of a phase: "source", "target", "plan".
	Phase func(name string)
	// Notice tells the operator something they must see, progress shown
	// or not ("Resuming after interrupted run 4 ...").
	Notice func(msg string)
	// Warn reports a failure that does not stop the use case (an audit
	// record that could not be written).
	Warn func(err error)
}

func (h Hooks) progress(format string, args ...any) {
	if h.Progress != nil {
		h.Progress(fmt.Sprintf(format, args...))
	}
}

func (h Hooks) notice(format string, args ...any) {
	if h.Notice != nil {
		h.Notice(fmt.Sprintf(format, args...))
	}
}

func (h Hooks) warn(err error) {
	if h.Warn != nil && err != nil {
		h.Warn(err)
	}
}

func (h Hooks) phase(name string) {
	if h.Phase != nil {
		h.Phase(name)
	}
}

// PlanRequest is what Compute needs.
type PlanRequest struct {
	Source  SourceFunc
	Target  Target
	Options plan.Options // Policy and Principal are filled in by Compute
	// PolicyFile is a TopicActionPolicy file ("" none); CredentialsFile a
	// SCRAM credentials JSON list ("" none).
	PolicyFile      string
	CredentialsFile string
	// ScramResetsFile, when set, receives the SCRAM users whose password
	// must be reset (WriteScramResets).
	ScramResetsFile string
	// PrincipalMapFile is a principal map ("" none): the source's
	// principals are mapped with it before the plan is built
	// (docs/principal-map.md), and the plan records its digest.
	PrincipalMapFile string
	Hooks
}

// Compute reads the policy, the credentials, the source and the target, in
// that order (a bad file stops it before anything is read; a target
// snapshot file is decoded while the source is read, and the source's error
// comes first), and builds the plan. The caller closes the result.
func Compute(ctx context.Context, r PlanRequest) (*Planned, error) {
	opts := r.Options
	pol, digest, err := LoadPolicy(r.PolicyFile)
	if err != nil {
		return nil, err
	}
	opts.Policy = digest
	creds, err := LoadCredentials(r.CredentialsFile)
	if err != nil {
		return nil, err
	}
	pm, err := LoadPrincipalMap(r.PrincipalMapFile)
	if err != nil {
		return nil, err
	}
	topics, err := topicScope(opts.TopicRegex)
	if err != nil {
		return nil, err
	}
	// A target snapshot file is decoded while the source is read (both are
	// needed; a source that fails makes it wasted work, nothing more).
	var tgtFile chan loaded
	if r.Target.SnapshotFile != "" {
		tgtFile = make(chan loaded, 1)
		go func() {
			s, err := snapshot.Load(r.Target.SnapshotFile)
			tgtFile <- loaded{s, err}
		}()
	}
	src, err := r.Source(ctx)
	if err != nil {
		if tgtFile != nil {
			<-tgtFile
		}
		return nil, err
	}
	r.phase("source")
	var tgt *snapshot.Snapshot
	var conn *kafkaconn.Conn
	if tgtFile != nil {
		l := <-tgtFile
		tgt, err = l.s, l.err
	} else {
		tgt, conn, err = readTarget(ctx, r.Target, topics, r.Hooks)
	}
	if err != nil {
		return nil, err
	}
	r.phase("target")
	opts.Principal = r.Target.Principal
	if conn != nil {
		opts.Principal = conn.Principal // who the connection authenticates as
		opts.OwnUser = OwnUser(conn)
	}
	p, err := BuildPlan(src, tgt, creds, opts, pol, pm)
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, err
	}
	out := NewPlanned(p, src, tgt, conn, creds)
	out.PrincipalMap = pm
	r.phase("plan")
	if r.ScramResetsFile != "" {
		if err := WriteScramResets(r.ScramResetsFile, p); err != nil {
			out.Close()
			return nil, err
		}
	}
	return out, nil
}

// topicScope compiles a plan's topic regexp ("" = every topic).
func topicScope(re string) (*regexp.Regexp, error) {
	if re == "" {
		return nil, nil
	}
	c, err := regexp.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("topics %q: %v", re, err)
	}
	return c, nil
}

// loaded is a snapshot file read, or why not.
type loaded struct {
	s   *snapshot.Snapshot
	err error
}

// readTarget reads the live target through the admin protocol, scoped to
// the topics the plan may touch.
func readTarget(ctx context.Context, t Target, topics *regexp.Regexp, h Hooks) (*snapshot.Snapshot, *kafkaconn.Conn, error) {
	conn, err := t.Dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	h.progress("Reading target %s ...", strings.Join(conn.Bootstrap, ","))
	s, err := kread.Read(ctx, conn, kread.Options{Topics: topics})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return s, conn, nil
}

// LoadPolicy loads a TopicActionPolicy file and returns it with the digest
// of its bytes ("sha256:<hex>"), which a saved plan records; "" loads none.
func LoadPolicy(path string) (*policy.Policy, string, error) {
	if path == "" {
		return nil, "", nil
	}
	b, err := infile.ReadAll(path, infile.Policy)
	if err != nil {
		return nil, "", err
	}
	pol, err := policy.Parse(path, b)
	if err != nil {
		return nil, "", infile.Wrap(path, infile.Policy, err)
	}
	sum := sha256.Sum256(b)
	return pol, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// BuildPlan builds the plan from source and target with the given options,
// policy (nil: none) and principal map (nil: none). With a map the plan is
// built from the source with its principals mapped (principalmap.
// ApplySnapshot: its findings are the plan's, its collisions blockers) and
// records the map's digest in Options.PrincipalMap; Source.Digest is the
// digest of the source as read. The snapshots' digests (a whole encoding
// of each) are computed on another goroutine while the plan is built,
// which only reads the snapshots.
func BuildPlan(src, tgt *snapshot.Snapshot, creds []plan.Credential, opts plan.Options, pol *policy.Policy, pm *principalmap.Map) (*plan.Plan, error) {
	digests := make(chan [2]string, 1)
	go func() { digests <- [2]string{snapshot.Digest(src), snapshot.Digest(tgt)} }()
	mapped, blockers := MapSource(pm, src)
	opts.PrincipalMap = ""
	if pm != nil {
		opts.PrincipalMap = pm.Digest()
	}
	in := plan.Input{Source: mapped, Target: tgt, Options: opts, Credentials: creds, Blockers: blockers,
		SourceEndpoint: endpoint(src), TargetEndpoint: endpoint(tgt)}
	if pol != nil {
		in.Policy = policyAdapter{pol}
		in.PolicyNotes = pol.Notes()
	}
	p, err := plan.Build(in)
	d := <-digests
	if err != nil {
		return nil, err
	}
	p.Source.Digest, p.Target.Digest = d[0], d[1]
	return p, nil
}

// endpoint is the plan's record of a snapshot's cluster, without its
// digest.
func endpoint(s *snapshot.Snapshot) plan.Endpoint {
	return plan.Endpoint{Kind: s.Source, Address: s.Address, ClusterID: s.ClusterID}
}

// policyAdapter lets the plan evaluate a loaded TopicActionPolicy.
type policyAdapter struct{ p *policy.Policy }

func (a policyAdapter) Evaluate(action, topic, principal string, pre, post *plan.TopicState) plan.Verdict {
	d := a.p.Evaluate(policy.Request{Action: policy.Action(action), Topic: topic, Principal: principal,
		Pre: (*policy.TopicState)(pre), Post: (*policy.TopicState)(post)})
	return plan.Verdict{Allowed: d.Allowed, Rule: d.Rule, Message: d.Message}
}

// OwnUser is the SASL user conn authenticates to the target as, "" without
// SASL or with a delegation token: the user whose SCRAM credentials
// --prune must not delete (plan.Options.OwnUser).
func OwnUser(conn *kafkaconn.Conn) string {
	if conn == nil || conn.Config == nil || conn.Config.Token {
		return ""
	}
	return conn.Config.User
}
