package syncsession

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// rounds are the stages of a session's rounds (syncer.Stages), bound to
// its request: they read the target, plan with the operator's options and
// apply through migration.Planned.Apply, as migrate apply does, each
// applied round recorded as an audit run "sync-round" in the session's
// database.
type rounds struct {
	opts    plan.Options
	creds   []plan.Credential
	pol     *policy.Policy
	pm      *principalmap.Map
	statics *migration.Statics
	topics  *regexp.Regexp
	settle  time.Duration // VerifyTimeout
	args    []string
	version string
	hooks   migration.Hooks

	target  *kafkaconn.Conn
	session *migration.Recorder
}

// newRounds reads the request's policy, SCRAM credentials and broker
// config files: a bad one stops the session before it connects.
func newRounds(req Request) (*rounds, error) {
	r := &rounds{opts: req.Options, settle: req.VerifyTimeout, args: req.Args, version: req.Version, hooks: req.Hooks}
	pol, digest, err := migration.LoadPolicy(req.PolicyFile)
	if err != nil {
		return nil, err
	}
	r.pol, r.opts.Policy = pol, digest
	if r.creds, err = migration.LoadCredentials(req.CredentialsFile); err != nil {
		return nil, err
	}
	if r.pm, err = migration.LoadPrincipalMap(req.PrincipalMapFile); err != nil {
		return nil, err
	}
	if r.statics, err = migration.LoadStatics(req.Source); err != nil {
		return nil, err
	}
	if r.topics, err = topicScope(req.Options.TopicRegex); err != nil {
		return nil, err
	}
	return r, nil
}

// bind gives the rounds the target and the session's record: the plan is
// for the principal the target sees, and --prune keeps its SCRAM
// credentials.
func (r *rounds) bind(target *kafkaconn.Conn, session *migration.Recorder) {
	r.target, r.session = target, session
	r.opts.Principal = target.Principal
	r.opts.OwnUser = migration.OwnUser(target)
}

// access proves the target a reconciliation read against the source it
// read (before the principal map: source P is compared with map(P)) and
// records the proof in the session's run.
func (r *rounds) access(ctx context.Context, s migration.AccessSettings, source, target *snapshot.Snapshot) syncer.AccessCheck {
	res, err := migration.ProveACLs(ctx, migration.AccessSourceOf(source), "target "+strings.Join(r.target.Bootstrap, ","), target.ACLs, r.target, r.pm, s)
	if err != nil {
		return syncer.AccessCheck{Err: err.Error()}
	}
	r.session.AccessProof(ctx, res, migration.ProvedTarget)
	return syncer.AccessCheck{Verdict: res.Verdict, Causes: len(res.Groups), Differing: res.Differing - res.Accepted, Digest: res.Digest}
}

func (r *rounds) readTarget(ctx context.Context) (*snapshot.Snapshot, error) {
	return kread.Read(ctx, r.target, kread.Options{Topics: r.topics})
}

// readTargetScoped reads just a change round's entities of the target.
func (r *rounds) readTargetScoped(ctx context.Context, scope kread.Scope) (*snapshot.Snapshot, error) {
	return kread.Read(ctx, r.target, kread.Options{Topics: r.topics, Scope: &scope})
}

func (r *rounds) plan(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
	r.statics.Apply(src)
	return migration.BuildPlan(src, tgt, r.creds, r.opts, r.pol, r.pm)
}

// apply sends one round's plan through migration.Planned.Apply (secrets
// from the plan built in this run, as apply's) and records it as an audit
// run "sync-round"; the verify it leaves to the loop (applied.verify)
// re-reads the round's scope of the target until it shows every change,
// and closes the run.
func (r *rounds) apply(ctx context.Context, p *plan.Plan, tgt *snapshot.Snapshot, round syncer.Round) (syncer.Outcome, error) {
	// The round's record of what it is about to send is on disk before
	// anything is sent: begun, with its endpoints, plan and note, in one
	// transaction on the session's database.
	a := &applied{r: r, scope: round.TargetScope}
	a.rec = r.begin(ctx, p, migration.Endpoint(tgt, r.target.Principal), roundNote(r.session.ID(), round))
	obs := apply.Observers{&a.sent, a.rec.Observer()}
	// A round carries a few changes of many kinds: the kinds go out
	// together (a change to a topic after the earlier kinds' changes to
	// it). A change round sends no validate-only preflight: it would
	// refuse what the real request refuses, one controller round trip
	// per kind earlier, and the round's changes are per resource, so a
	// refused one never holds the others back; full rounds keep it.
	// The freeze is a barrier: asked before every request (round.Halt),
	// it keeps what is not yet sent from being sent.
	o := apply.Options{ConcurrentKinds: true, NoPreflight: round.Scoped, Halt: round.Halt}
	res, err := migration.NewPlanned(p, nil, tgt, r.target, r.creds).Apply(ctx, p, o, obs)
	if err == nil && res.Stopped != nil {
		err = res.Stopped
	}
	a.err, a.failed = err, res.Failed
	out := syncer.Outcome{Applied: res.Succeeded, Failed: res.Failed}
	for _, f := range res.Failures {
		out.FailedIDs = append(out.FailedIDs, f.Change.ID)
	}
	if res.Halted != nil {
		out.Unsent = res.Halted.Unsent
	}
	if err != nil || r.settle <= 0 || len(a.sent.Changes()) == 0 {
		a.finish(ctx, 0)
		return out, err
	}
	out.VerifyEach = a.verify
	return out, nil
}

// applied is one applied round: its record, what the target accepted, and
// how it went, until its verify finishes the record.
type applied struct {
	r      *rounds
	rec    *migration.Recorder
	sent   migration.Applied
	scope  *kread.Scope
	err    error
	failed int
}

// verify re-reads the round's scope of the target (a change round's
// changes are all in it: read no more) through each broker until every
// one shows every change the round applied, telling shown of each change
// as every broker shows it (its resource is free for the next round
// then), finishes the round's record, and returns the changes some
// broker does not show.
func (a *applied) verify(ctx context.Context, shown func(id string)) []string {
	read := migration.EachBroker(a.r.target, kread.Options{Topics: a.r.topics, Scope: a.scope})
	unverified, err := migration.VerifyEach(ctx, read, a.sent.Changes(), a.r.settle, shown)
	if err != nil {
		a.rec.Note(ctx, "verify", err.Error())
	}
	a.finish(ctx, len(unverified))
	return unverified
}

func (a *applied) finish(ctx context.Context, unverified int) {
	_, _ = a.rec.Finish(ctx, migration.RoundOutcome(a.err, a.failed, unverified))
}

// begin begins a round's audit run "sync-round" in the session's audit
// database, which stays open for the whole session (nothing is recorded
// when the session is not): its endpoints, plan p (nil: none) and note
// are recorded as it begins, in one transaction when it has a plan. A run
// that cannot begin is reported, and the round goes on unrecorded, as
// sync's rounds always have.
func (r *rounds) begin(ctx context.Context, p *plan.Plan, target audit.Endpoint, note string) *migration.Recorder {
	ri := audit.RunInfo{Command: "sync-round", Args: r.args, ToolVersion: r.version, Target: target}
	if p != nil {
		ri.Source = audit.Endpoint{Kind: p.Source.Kind, Address: p.Source.Address, ClusterID: p.Source.ClusterID}
	}
	rec := r.session.BeginShared(ctx, ri, p, audit.Note{Kind: "sync-round", Detail: note})
	if rec.Err != nil && r.hooks.Warn != nil {
		r.hooks.Warn(fmt.Errorf("audit trail unavailable for a round: %w", rec.Err))
	}
	return rec
}

func roundNote(session int64, r syncer.Round) string {
	return fmt.Sprintf("session run %d, round %d (%s), zxid 0x%x", session, r.N, r.Reason, r.Zxid)
}

// note records every round's summary on the session run, and a frozen
// round that found differences (at the cut, or source changes after it)
// as a run "sync-round" holding the changes it did not apply.
func (r *rounds) note(ctx context.Context, rd syncer.Round) {
	if len(rd.Changes) > 0 || rd.Err != nil || len(rd.Missed)+len(rd.Drift) > 0 {
		r.session.Note(ctx, "sync-round", fmt.Sprintf("round %d (%s), zxid 0x%x: %d changes, %d applied, %d failed, %d missed, %d drift, frozen %v, error %v",
			rd.N, rd.Reason, rd.Zxid, len(rd.Changes), rd.Outcome.Applied, rd.Outcome.Failed, len(rd.Missed), len(rd.Drift), rd.Frozen, rd.Err))
	}
	if !rd.Frozen || rd.Plan == nil && (rd.Reason != syncer.ReasonChange || len(rd.Entities) == 0) {
		return
	}
	what := "frozen: differs from the source, not applied"
	if len(rd.AfterCut) > 0 {
		ids := make([]string, len(rd.AfterCut))
		for i, c := range rd.AfterCut {
			ids[i] = c.ID
		}
		what = fmt.Sprintf("frozen: the source changed after the cut (%s round): %s", rd.Reason, strings.Join(ids, ", "))
		if rd.Reason == syncer.ReasonChange {
			what += "; notified: " + entityList(rd.Entities)
		}
	}
	rec := r.begin(ctx, rd.Plan, audit.Endpoint{}, roundNote(r.session.ID(), rd)+", "+what)
	_, _ = rec.Finish(ctx, migration.RoundFrozen)
}

func entityList(es []zkfeed.Entity) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return strings.Join(out, ", ")
}
