package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/user"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// auditFlags choose the audit database. Auditing is on unless --no-audit.
type auditFlags struct {
	path     string
	off      bool
	key      string // --audit-key: private key that signs the run's receipt
	receipts string // --receipt-file: every receipt is appended here
}

func (f *auditFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "audit-db", "", "audit database `PATH` (default "+audit.DefaultPath()+")")
	fs.BoolVar(&f.off, "no-audit", false, "do not record this run in the audit trail (an explicit choice)")
	fs.StringVar(&f.key, "audit-key", "", "ed25519 private key `FILE` (PEM, from 'migrate audit keygen') that signs this run's receipt; the database never holds it")
	fs.StringVar(&f.receipts, "receipt-file", "", "append this run's receipt (run, chain head, signature, time) as a JSON line to `FILE`, to keep elsewhere")
}

// recorder records one run; a nil or failed recorder does nothing, so
// commands call it unconditionally. An audit database that cannot be opened
// is reported once; read-only commands go on, apply refuses to run
// unaudited unless --no-audit.
type recorder struct {
	store *audit.Store
	run   *audit.Run
	err   error
	// shared: the store is another recorder's (a sync round's is the
	// session's), so finish leaves it open.
	shared bool
}

func (f *auditFlags) open(ctx context.Context) (*audit.Store, error) {
	if f.off {
		return nil, nil
	}
	path := f.path
	if path == "" {
		path = audit.DefaultPath()
	}
	// The key and the receipt file first: a bad one is reported before
	// anything is read or changed.
	var key *audit.Key
	if f.key != "" {
		k, err := audit.LoadKey(f.key)
		if err != nil {
			return nil, fmt.Errorf("--audit-key: %v", err)
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
			return nil, fmt.Errorf("--audit-key: %v", err)
		}
	}
	if f.receipts != "" {
		if err := s.SetReceiptFile(f.receipts); err != nil {
			s.Close()
			return nil, fmt.Errorf("--receipt-file: %v", err)
		}
	}
	return s, nil
}

// begin opens the database and starts a run for cmd.
func (f *auditFlags) begin(ctx context.Context, e *env, cmd string) *recorder {
	r := &recorder{}
	if f.off {
		return r
	}
	store, err := f.open(ctx)
	if err != nil {
		r.err = err
		fmt.Fprintf(e.stderr, "migrate %s: audit trail unavailable: %v\n", cmd, err)
		return r
	}
	r.store = store
	e.auditDB = f.path // hints name a database given explicitly
	ri := audit.RunInfo{Command: cmd, Args: e.args, ToolVersion: version}
	if u, err := user.Current(); err == nil {
		ri.User = u.Username
	}
	ri.Host, _ = os.Hostname()
	run, err := store.BeginRun(ctx, ri)
	if err != nil {
		r.err = err
		fmt.Fprintf(e.stderr, "migrate %s: audit trail unavailable: %v\n", cmd, err)
		return r
	}
	r.run = run
	return r
}

func (r *recorder) ok() bool { return r != nil && r.run != nil }

func (r *recorder) id() int64 {
	if !r.ok() {
		return 0
	}
	return r.run.ID()
}

// plan records both snapshots and the plan.
func (r *recorder) plan(ctx context.Context, pl *migration.Planned) {
	if !r.ok() || pl == nil {
		return
	}
	r.reads(ctx, pl, "", "")
	r.recordPlan(ctx, pl.Plan)
}

// reads records the endpoints and both snapshots of a plan, and gives the
// run the secret values the snapshots hold to scrub: after it, the
// snapshots are not needed for the record (plan drops them before the
// plan is recorded). srcDigest and tgtDigest are the snapshots'
// snapshot.Digest when the caller knows them ("": computed here).
func (r *recorder) reads(ctx context.Context, pl *migration.Planned, srcDigest, tgtDigest string) {
	if !r.ok() || pl == nil {
		return
	}
	if srcDigest == "" {
		srcDigest = snapshot.Digest(pl.Source)
	}
	if tgtDigest == "" {
		tgtDigest = snapshot.Digest(pl.Target)
	}
	_ = r.run.SetEndpoints(ctx, auditEndpoint(pl.Source, ""), auditEndpoint(pl.Target, principalOf(pl)))
	_ = r.run.RecordSnapshot(ctx, "source", srcDigest, counts(pl.Source))
	_ = r.run.RecordSnapshot(ctx, "target", tgtDigest, counts(pl.Target))
	for _, v := range pl.SecretValues() {
		r.run.AddSecrets(v) // belt and braces: the audit scrubs these if they ever reach it
	}
}

// recordPlan records the plan.
func (r *recorder) recordPlan(ctx context.Context, p *plan.Plan) {
	if r.ok() && p != nil {
		_ = r.run.RecordPlan(ctx, p)
	}
}

// recordPlanFile records the plan and encodes it as its plan file once for
// both (audit.Run.RecordPlanEncoded): the file's bytes are returned for
// planfile's Save, nil when the plan was not recorded (no audit trail), and
// the caller writes the file with planfile.Write.
func (r *recorder) recordPlanFile(ctx context.Context, p *plan.Plan) *planfile.Encoded {
	if !r.ok() || p == nil {
		return nil
	}
	var file *planfile.Encoded
	_ = r.run.RecordPlanEncoded(ctx, p, func(tap io.Writer) ([]byte, error) {
		var err error
		if file, err = planfile.Encode(p, tap); err != nil {
			return nil, err
		}
		return file.Data, nil
	})
	return file
}

func principalOf(pl *migration.Planned) string {
	if pl.Conn != nil {
		return pl.Conn.Principal
	}
	return ""
}

func auditEndpoint(s *snapshot.Snapshot, principal string) audit.Endpoint {
	return audit.Endpoint{Kind: s.Source, Address: s.Address, ClusterID: s.ClusterID, Principal: principal}
}

func (r *recorder) findings(ctx context.Context, fs []snapshot.Finding) {
	if r.ok() {
		_ = r.run.RecordFindings(ctx, fs)
	}
}

func (r *recorder) observer() apply.Observer {
	if !r.ok() {
		return nil
	}
	return r.run.Observer()
}

// finish closes the run, prints its receipt (the chain head) and returns
// it ("" when nothing was recorded).
func (r *recorder) finish(ctx context.Context, e *env, outcome string, code int) string {
	if !r.ok() {
		if r != nil && r.store != nil && !r.shared {
			r.store.Close()
		}
		return ""
	}
	head, err := r.run.Finish(ctx, outcome, code)
	if head != "" {
		msg := fmt.Sprintf("Audit run %d recorded; receipt %s", r.run.ID(), head)
		if signed, id := r.run.Signed(); signed {
			msg += " (signed by key " + id + ")"
		}
		fmt.Fprintln(e.stderr, msg)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "migrate: audit: %v\n", err)
	}
	if !r.shared {
		r.store.Close()
	}
	r.run = nil
	return head
}

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
