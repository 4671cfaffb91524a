package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/revert"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// RevertRequest is what ComputeRevert needs: the audit database that holds
// the run, the run, and the live target it changed.
type RevertRequest struct {
	Audit *audit.Store
	Run   int64
	Dial  DialFunc
	// DeleteCreatedTopics deletes the topics the run created (their
	// messages with them); otherwise they are kept, as blockers.
	DeleteCreatedTopics bool
	// CredentialsFile gives the passwords of SCRAM credentials the run
	// changed or deleted ("" none: they are blockers).
	CredentialsFile string
	Hooks
}

// ChainError refuses a revert when the audit trail does not verify: a
// revert is justified only by an intact record.
type ChainError struct {
	DB     string
	Broken string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("the audit trail %s does not verify (%s): a revert is justified only by an intact record; see migrate audit verify", e.DB, e.Broken)
}

// RecordChangedError refuses a revert plan whose run's record no longer
// ends where it did when the plan was made (the run recorded more since, or
// the database is another one).
type RecordChangedError struct {
	Run           int64
	Seq, NowSeq   int64
	Digest, NowAt string
}

func (e *RecordChangedError) Error() string {
	return fmt.Sprintf("the revert plan was made from run %d's record ending at position %d (%s), but the record now ends at position %d (%s): the run recorded more since, or this is another audit database; make the revert plan again",
		e.Run, e.Seq, e.Digest, e.NowSeq, e.NowAt)
}

// ComputeRevert builds the plan that undoes run r.Run (revert.Build): it
// reads the credentials, checks that the audit trail verifies, reads the
// run's record and the live target, and refuses a target other than the
// one the run changed. The plan records the run and its record digest; its
// source is the audit database. The caller closes the result.
func ComputeRevert(ctx context.Context, r RevertRequest) (*Planned, error) {
	creds, err := LoadCredentials(r.CredentialsFile)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(ctx, r.Audit, r.Run)
	if err != nil {
		return nil, err
	}
	conn, tgt, err := readRevertTarget(ctx, r.Dial, r.Hooks)
	if err != nil {
		return nil, err
	}
	p, err := buildRevert(r.Audit, rec, tgt, r.DeleteCreatedTopics, creds, nil, OwnUser(conn))
	if err != nil {
		conn.Close()
		return nil, err
	}
	r.phase("plan")
	return &Planned{Plan: p, Target: tgt, Conn: conn, Credentials: creds, Secrets: plan.SecretsOf(p)}, nil
}

// readRecord verifies the audit chain and reads run's record.
func readRecord(ctx context.Context, s *audit.Store, run int64) (*audit.RunRecord, error) {
	if s == nil {
		return nil, errors.New("a revert reads the run's audit record: no audit database")
	}
	res, err := s.Verify(ctx, "")
	if err != nil {
		return nil, err
	}
	if !res.OK {
		why := "a revert link does not hold"
		if res.Broken != nil {
			why = res.Broken.String()
		}
		return nil, &ChainError{DB: s.Path(), Broken: why}
	}
	return s.Record(ctx, run)
}

func readRevertTarget(ctx context.Context, dial DialFunc, h Hooks) (*kafkaconn.Conn, *snapshot.Snapshot, error) {
	conn, err := dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	h.progress("Reading target %s ...", strings.Join(conn.Bootstrap, ","))
	tgt, err := kread.Read(ctx, conn, kread.Options{})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	h.phase("target")
	return conn, tgt, nil
}

// buildRevert is revert.Build over an audit record.
func buildRevert(s *audit.Store, rec *audit.RunRecord, tgt *snapshot.Snapshot, deleteTopics bool, creds []plan.Credential, secrets []secret.Secret, own string) (*plan.Plan, error) {
	run := revert.Run{ID: rec.Run.ID, Seq: rec.Seq, Digest: rec.Digest, TargetClusterID: rec.Run.Target.ClusterID,
		Changes: rec.Plan.Changes, Status: make(map[string]revert.Status, len(rec.Journal)), Whole: rec.Found}
	for id, j := range rec.Journal {
		switch j {
		case audit.JournalApplied:
			run.Status[id] = revert.Applied
		case audit.JournalInFlight:
			run.Status[id] = revert.InFlight
		}
	}
	te := endpoint(tgt)
	te.Digest = snapshot.Digest(tgt)
	return revert.Build(revert.Input{Run: run, Target: tgt, TargetEndpoint: te, Source: plan.Endpoint{Kind: "audit", Address: s.Path()},
		DeleteCreatedTopics: deleteTopics, Credentials: creds, Secrets: secrets, OwnUser: own})
}

// loadRevert is LoadSaved for a revert plan: it is justified by the audit
// record of the run it reverts instead of by a source (JustifyRevert). A
// source is read only for the sensitive configs the plan sets again from
// their references.
func loadRevert(ctx context.Context, r SavedRequest, p *plan.Plan) (*Planned, error) {
	rv := p.Reverts
	if r.Audit == nil {
		return nil, fmt.Errorf("%s reverts run %d and is justified by that run's audit record: apply needs the audit database it was made from, and records the revert in it", r.PlanFile, rv.Run)
	}
	if r.PolicyFile != "" {
		return nil, fmt.Errorf("%s reverts run %d: it restores what that run's audit record holds and is checked against no topic policy; leave out the policy %s", r.PlanFile, rv.Run, r.PolicyFile)
	}
	creds, err := LoadCredentials(r.CredentialsFile)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(ctx, r.Audit, rv.Run)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.PlanFile, err)
	}
	if rec.Seq != rv.Seq || rec.Digest != rv.Digest {
		return nil, fmt.Errorf("%s: %w", r.PlanFile, &RecordChangedError{Run: rv.Run, Seq: rv.Seq, Digest: rv.Digest, NowSeq: rec.Seq, NowAt: rec.Digest})
	}
	var src *snapshot.Snapshot
	var secrets []secret.Secret
	if refs := sourceRefs(p); len(refs) > 0 {
		if r.Source == nil {
			return nil, fmt.Errorf("%s sets sensitive configs again from their references in the source (%s): give that source, to read their values again", r.PlanFile, strings.Join(refs, ", "))
		}
		if src, err = r.Source(ctx); err != nil {
			return nil, err
		}
		secrets = SourceSecrets(src)
	}
	conn, tgt, err := readRevertTarget(ctx, r.Dial, r.Hooks)
	if err != nil {
		return nil, err
	}
	fresh, err := JustifyRevert(p, r.Audit, rec, tgt, creds, secrets, OwnUser(conn))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", r.PlanFile, err)
	}
	return &Planned{Plan: p, Source: src, Target: tgt, Conn: conn, Credentials: creds, Secrets: plan.SecretsOf(fresh)}, nil
}

// JustifyRevert decides whether the saved revert plan may be applied to
// tgt now, given the record of the run it reverts (read from s, whose
// record digest the caller has matched with the plan's): it refuses a
// target other than the plan's, a plan stale on tgt (*plan.StaleError),
// and a change that the revert built again from the record (with the
// plan's own choice of deleting created topics) does not hold identically
// and tgt does not already show (*plan.UnjustifiedError). It returns the
// revert built now, whose secrets apply may resolve.
func JustifyRevert(saved *plan.Plan, s *audit.Store, rec *audit.RunRecord, tgt *snapshot.Snapshot, creds []plan.Credential, secrets []secret.Secret, own string) (*plan.Plan, error) {
	if saved.Target.ClusterID != tgt.ClusterID {
		return nil, &plan.EndpointError{Side: "target", Msg: fmt.Sprintf("the revert plan was made for target cluster %s, but the target given now (%s) is cluster %s; give the target the run changed",
			saved.Target.ClusterID, tgt.Address, tgt.ClusterID)}
	}
	if _, _, err := plan.Triage(saved, tgt); err != nil {
		return nil, err
	}
	fresh, err := buildRevert(s, rec, tgt, saved.Reverts.DeleteCreatedTopics, creds, secrets, own)
	if err != nil {
		return nil, err
	}
	by := &plan.Justifier{Name: fmt.Sprintf("run %d's audit record", rec.Run.ID), Plans: "the record gives",
		Again: "make the revert plan again (migrate audit revert) and review it"}
	if err := plan.RecheckChanges(saved, fresh, plan.NewTarget(tgt), by); err != nil {
		return nil, err
	}
	return fresh, nil
}

// sourceRefs lists the references of the sensitive configs p sets again:
// their values come from the source, read again.
func sourceRefs(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.After == nil {
			continue
		}
		for _, cf := range c.After.Configs {
			if cf.Sensitive && cf.Secret != nil {
				out = append(out, cf.Secret.Ref())
			}
		}
	}
	return out
}

// SourceSecrets lists the sensitive config values a source snapshot holds
// in memory (decrypted broker passwords), by reference.
func SourceSecrets(src *snapshot.Snapshot) []secret.Secret {
	var out []secret.Secret
	add := func(cs []snapshot.Config) {
		for _, c := range cs {
			if c.Secret != nil && c.Secret.Known() {
				out = append(out, *c.Secret)
			}
		}
	}
	for _, bc := range src.BrokerConfigs {
		add(bc.Configs)
	}
	for _, t := range src.Topics {
		add(t.Configs)
	}
	return out
}
