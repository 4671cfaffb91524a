package migration

import (
	"context"
	"fmt"
	"io"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// AuditRequest says where a command records its run: the audit database
// (Path, "" the default), or nowhere (Off, an explicit choice), with the
// key that signs the run's receipt and a file every receipt is appended to.
type AuditRequest struct {
	Path        string
	Off         bool
	KeyFile     string
	ReceiptFile string
}

// The inputs of an AuditRequest errors blame.
const (
	InputAuditKey    Input = "audit key"
	InputReceiptFile Input = "receipt file"
)

// OpenAudit opens r's audit database (nil, nil when Off). The key and the
// receipt file come first: a bad one is reported before anything is read
// or changed.
func OpenAudit(ctx context.Context, r AuditRequest) (*audit.Store, error) {
	if r.Off {
		return nil, nil
	}
	path := r.Path
	if path == "" {
		path = audit.DefaultPath()
	}
	var key *audit.Key
	if r.KeyFile != "" {
		k, err := audit.LoadKey(r.KeyFile)
		if err != nil {
			return nil, &InputError{Input: InputAuditKey, Err: err}
		}
		key = k
	}
	s, err := audit.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if key != nil {
		if err := s.SetSigner(key); err != nil {
			s.Close()
			return nil, &InputError{Input: InputAuditKey, Err: err}
		}
	}
	if r.ReceiptFile != "" {
		if err := s.SetReceiptFile(r.ReceiptFile); err != nil {
			s.Close()
			return nil, &InputError{Input: InputReceiptFile, Err: err}
		}
	}
	return s, nil
}

// Recorder records one run. One without a run (the audit is off, or
// unavailable: Err says why) records nothing, so callers use it
// unconditionally; a command that must not run unaudited refuses on Err.
type Recorder struct {
	store *audit.Store
	run   *audit.Run
	// Err is why the run could not begin (nil when it did, or audit is off).
	Err error
	// shared: the store is another recorder's (a sync round's is its
	// session's), so Finish leaves it open.
	shared bool
}

// BeginRun opens r's database and begins a run of command with args (as
// typed, redacted by the audit trail) and the tool's version.
func BeginRun(ctx context.Context, r AuditRequest, command string, args []string, version string) *Recorder {
	rec := &Recorder{}
	if r.Off {
		return rec
	}
	store, err := OpenAudit(ctx, r)
	if err != nil {
		rec.Err = err
		return rec
	}
	rec.store = store
	run, err := store.BeginRun(ctx, audit.RunInfo{Command: command, Args: args, ToolVersion: version})
	if err != nil {
		rec.Err = err
		return rec
	}
	rec.run = run
	return rec
}

// BeginShared begins another run in r's open database (a sync round in
// its session's), recording p (nil: none) and note as it begins, in one
// transaction when there is a plan. Finishing it leaves the database open.
// Without a run of its own, r begins none (the result records nothing).
func (r *Recorder) BeginShared(ctx context.Context, ri audit.RunInfo, p *plan.Plan, note audit.Note) *Recorder {
	if !r.OK() {
		return &Recorder{}
	}
	rec := &Recorder{store: r.store, shared: true}
	var err error
	if p != nil {
		rec.run, err = rec.store.BeginPlannedRun(ctx, ri, p, note)
	} else if rec.run, err = rec.store.BeginRun(ctx, ri); err == nil {
		_ = rec.run.Note(ctx, note.Kind, note.Detail)
	}
	if err != nil {
		rec.run, rec.Err = nil, err
	}
	return rec
}

// OK reports whether the run is being recorded.
func (r *Recorder) OK() bool { return r != nil && r.run != nil }

// ID is the run's id (0 when none is recorded).
func (r *Recorder) ID() int64 {
	if !r.OK() {
		return 0
	}
	return r.run.ID()
}

// Run is the audit run (nil when none is recorded), for records only its
// command knows (bootstrap's checkpoints).
func (r *Recorder) Run() *audit.Run {
	if !r.OK() {
		return nil
	}
	return r.run
}

// Lock takes the database's apply lock on target for the run
// (AcquireLock); nil, nil when nothing is recorded.
func (r *Recorder) Lock(ctx context.Context, target string) (*Lock, error) {
	if !r.OK() {
		return nil, nil
	}
	return AcquireLock(ctx, r.store, r.run, target)
}

// OnError stops what fn stops when a record cannot be written (an
// apply's journal).
func (r *Recorder) OnError(fn func(error)) {
	if r.OK() {
		r.run.SetOnError(fn)
	}
}

// Planned records both snapshots and the plan.
func (r *Recorder) Planned(ctx context.Context, pl *Planned) {
	if !r.OK() || pl == nil {
		return
	}
	r.Reads(ctx, pl, "", "")
	r.Plan(ctx, pl.Plan)
}

// Reads records the endpoints and both snapshots of a plan, and gives the
// run the secret values the snapshots hold to scrub: after it, the
// snapshots are not needed for the record (plan drops them before the
// plan is recorded). srcDigest and tgtDigest are the snapshots'
// snapshot.Digest when the caller knows them ("": computed here).
func (r *Recorder) Reads(ctx context.Context, pl *Planned, srcDigest, tgtDigest string) {
	if !r.OK() || pl == nil {
		return
	}
	if tgtDigest == "" {
		tgtDigest = snapshot.Digest(pl.Target)
	}
	principal := ""
	if pl.Conn != nil {
		principal = pl.Conn.Principal
	}
	// A revert plan's source is the audit trail: no snapshot of it.
	src := audit.Endpoint{Kind: pl.Plan.Source.Kind, Address: pl.Plan.Source.Address}
	if pl.Source != nil {
		if srcDigest == "" {
			srcDigest = snapshot.Digest(pl.Source)
		}
		src = Endpoint(pl.Source, "")
	}
	_ = r.run.SetEndpoints(ctx, src, Endpoint(pl.Target, principal))
	if pl.Source != nil {
		_ = r.run.RecordSnapshot(ctx, "source", srcDigest, counts(pl.Source))
	}
	_ = r.run.RecordSnapshot(ctx, "target", tgtDigest, counts(pl.Target))
	if pm := pl.PrincipalMap; pm != nil {
		// The map itself, so the trail shows how principals were renamed
		// (the plan records its digest; the renames are its findings).
		_ = r.run.Note(ctx, "principal-map", fmt.Sprintf("%s (%s)\n%s", pm.Path(), pm.Digest(), pm.Canonical()))
	}
	for _, v := range pl.SecretValues() {
		r.run.AddSecrets(v) // belt and braces: the audit scrubs these if they ever reach it
	}
}

// Reverts links the run to the run it reverts when p is a revert plan
// (an apply of it): an apply that cannot record the link must not apply
// it. Nothing is recorded for another plan, or without a run.
func (r *Recorder) Reverts(ctx context.Context, p *plan.Plan) error {
	rv := p.Reverts
	if !r.OK() || rv == nil {
		return nil
	}
	if err := r.run.RecordReverts(ctx, rv.Run, rv.Seq, rv.Digest); err != nil {
		return fmt.Errorf("record that this run reverts run %d: %w", rv.Run, err)
	}
	return nil
}

// Store is the open audit database (nil when none is), for a use case
// that reads it: a revert reads the record of the run it reverts.
func (r *Recorder) Store() *audit.Store {
	if r == nil {
		return nil
	}
	return r.store
}

// SetEndpoints records the run's source and target.
func (r *Recorder) SetEndpoints(ctx context.Context, source, target audit.Endpoint) {
	if r.OK() {
		_ = r.run.SetEndpoints(ctx, source, target)
	}
}

// Plan records the plan.
func (r *Recorder) Plan(ctx context.Context, p *plan.Plan) {
	if r.OK() && p != nil {
		_ = r.run.RecordPlan(ctx, p)
	}
}

// PlanFile records the plan and encodes it as its plan file once for
// both (audit.Run.RecordPlanEncoded): the file's bytes are returned for
// planfile's Save, nil when the plan was not recorded (no audit trail), and
// the caller writes the file with planfile.WriteSigned. key signs the
// file (nil: unsigned).
func (r *Recorder) PlanFile(ctx context.Context, p *plan.Plan, key *plansign.Key) *planfile.Encoded {
	if !r.OK() || p == nil {
		return nil
	}
	var file *planfile.Encoded
	_ = r.run.RecordPlanEncoded(ctx, p, func(tap io.Writer) ([]byte, error) {
		var err error
		if file, err = planfile.EncodeSigned(p, tap, key); err != nil {
			return nil, err
		}
		return file.Data, nil
	})
	return file
}

// Findings records findings.
func (r *Recorder) Findings(ctx context.Context, fs []snapshot.Finding) {
	if r.OK() {
		_ = r.run.RecordFindings(ctx, fs)
	}
}

// Note records an event of the run.
func (r *Recorder) Note(ctx context.Context, kind, detail string) {
	if r.OK() {
		_ = r.run.Note(ctx, kind, detail)
	}
}

// Observer records an apply's events (nil when nothing is recorded).
func (r *Recorder) Observer() apply.Observer {
	if !r.OK() {
		return nil
	}
	return r.run.Observer()
}

// Receipt is what a finished run leaves: its id, the chain head after it,
// and the key that signed it ("" unsigned).
type Receipt struct {
	Run      int64
	Head     string
	SignedBy string
}

// Finish closes the run with its outcome and closes the database unless
// it is shared. The receipt's Head is "" when nothing was recorded; an
// error is a record of the run that could not be completed.
func (r *Recorder) Finish(ctx context.Context, o Outcome) (Receipt, error) {
	if !r.OK() {
		if r != nil && r.store != nil && !r.shared {
			r.store.Close()
		}
		return Receipt{}, nil
	}
	rc := Receipt{Run: r.run.ID()}
	head, err := r.run.Finish(ctx, o.Result, int(o.Code))
	if head != "" {
		rc.Head = head
		if signed, id := r.run.Signed(); signed {
			rc.SignedBy = id
		}
	}
	if !r.shared {
		r.store.Close()
	}
	r.run = nil
	return rc, err
}

// Endpoint is the audit trail's record of the cluster s was read from.
func Endpoint(s *snapshot.Snapshot, principal string) audit.Endpoint {
	return audit.Endpoint{Kind: s.Source, Address: s.Address, ClusterID: s.ClusterID, Principal: principal}
}

// counts are what the audit trail records of a snapshot's size.
func counts(s *snapshot.Snapshot) map[string]int {
	parts := 0
	for _, t := range s.Topics {
		parts += len(t.Partitions)
	}
	return map[string]int{
		"topics": len(s.Topics), "partitions": parts, "broker_configs": len(s.BrokerConfigs),
		"quotas": len(s.Quotas), "acls": len(s.ACLs), "scram_users": len(s.ScramUsers),
		"delegation_tokens": len(s.DelegationTokens), "findings": len(s.Findings),
	}
}
