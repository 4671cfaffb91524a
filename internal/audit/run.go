package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"slices"
	"sort"
	"sync"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Endpoint describes a source or target, without credentials.
type Endpoint struct {
	Kind      string `json:"kind,omitempty"`    // zookeeper, snapshot, kafka
	Address   string `json:"address,omitempty"` // connect string or bootstrap; credentials are stripped
	ClusterID string `json:"cluster_id,omitempty"`
	Principal string `json:"principal,omitempty"` // who the tool authenticates as
}

// RunInfo describes a run as it begins.
type RunInfo struct {
	Command string   // plan, apply, check, ...
	Args    []string // command-line arguments; redacted again by BeginRun
	// User and Host default to the OS user and host name.
	User, Host  string
	ToolVersion string
	Source      Endpoint
	Target      Endpoint
	// Options are the choices that shaped the run (e.g. plan.Options); they
	// are stored as JSON with sensitive keys redacted.
	Options any
}

// ErrIncomplete is returned (wrapped) by Finish when some events of the run
// could not be recorded.
var ErrIncomplete = errors.New("audit: the run's record is incomplete")

// Run is one run being recorded. Its methods are safe for concurrent use;
// the Observer is meant to be called from one goroutine in event order.
type Run struct {
	s  *Store
	id int64
	ri RunInfo

	mu       sync.Mutex
	sc       scrubber
	planned  bool
	pending  []pendingRow
	batches  map[int]*batchState
	inflight map[string]int // change id -> batch of its latest BatchSent
	counts   struct{ succeeded, failed, skipped int }
	err      error // first event that could not be recorded
	errCount int
	onError  func(error)
	finished bool
}

// pendingRow is a row buffered by the Observer until its next commit point.
type pendingRow struct {
	table string
	cols  []string
	vals  []any
}

// batchState tracks an RPC in flight, to commit its outcome as soon as it
// is known.
type batchState struct {
	expected, results int
	done              bool
}

// BeginRun records the start of a run and returns it. Args are redacted
// (see RedactArgs), addresses are stripped of credentials, Options are
// stored as redacted JSON.
func (s *Store) BeginRun(ctx context.Context, ri RunInfo) (*Run, error) {
	return s.beginRun(ctx, ri, nil, nil)
}

// beginRun begins a run, recording p (nil: no plan) and notes with it.
func (s *Store) beginRun(ctx context.Context, ri RunInfo, p *plan.Plan, notes []Note) (*Run, error) {
	if ri.Command == "" {
		return nil, errors.New("audit: begin run: no command")
	}
	if ri.User == "" {
		if u, err := user.Current(); err == nil {
			ri.User = u.Username
		} else {
			ri.User = os.Getenv("USER")
		}
	}
	if ri.Host == "" {
		ri.Host = s.hostname
	}
	ri.Args = RedactArgs(ri.Args)
	ri.Source.Address = redactEndpointAddress(ri.Source.Address)
	ri.Target.Address = redactEndpointAddress(ri.Target.Address)
	args, err := json.Marshal(ri.Args)
	if err != nil {
		return nil, fmt.Errorf("audit: begin run: %v", err)
	}
	opts, err := redactedJSON(ri.Options)
	if err != nil {
		return nil, fmt.Errorf("audit: begin run: options: %v", err)
	}
	r := &Run{s: s, ri: ri, batches: map[int]*batchState{}, inflight: map[string]int{}}
	begin := func(w *writer) error {
		tx, err := w.txn()
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM runs`).Scan(&r.id); err != nil {
			return fmt.Errorf("audit: begin run: %v", err)
		}
		_, err = w.insert("runs",
			[]string{"id", "command", "args", "os_user", "host", "pid", "tool_version", "started_at",
				"source_kind", "source_address", "source_cluster_id", "source_principal",
				"target_kind", "target_address", "target_cluster_id", "target_principal", "options"},
			r.id, ri.Command, string(args), ri.User, ri.Host, s.pid, ri.ToolVersion, timestamp(s.now()),
			nullIfEmpty(ri.Source.Kind), nullIfEmpty(ri.Source.Address), nullIfEmpty(ri.Source.ClusterID), nullIfEmpty(ri.Source.Principal),
			nullIfEmpty(ri.Target.Kind), nullIfEmpty(ri.Target.Address), nullIfEmpty(ri.Target.ClusterID), nullIfEmpty(ri.Target.Principal),
			nullIfEmpty(opts))
		return err
	}
	var planRows func(w *writer) error
	if p != nil {
		var done func()
		planRows, done = r.planWrite(p, nil)
		defer done()
	}
	_, err = s.write(ctx, &r.sc, func(w *writer) error {
		if err := begin(w); err != nil {
			return err
		}
		if planRows != nil {
			if err := planRows(w); err != nil {
				return err
			}
		}
		for _, n := range notes {
			if err := r.event(w, n.Kind, 0, n.Detail); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.planned = p != nil
	return r, nil
}

// Note is an event of a run recorded as it begins (BeginPlannedRun):
// kind is a short word, detail is scrubbed of secrets.
type Note struct{ Kind, Detail string }

// BeginPlannedRun is BeginRun, RecordPlan(p) and Note for each of notes,
// in one transaction: a run that knows its endpoints (in ri), plan and
// notes as it begins (a sync round) commits once instead of once for each.
// p is required; the rows and the chain are those the four calls write.
func (s *Store) BeginPlannedRun(ctx context.Context, ri RunInfo, p *plan.Plan, notes ...Note) (*Run, error) {
	if p == nil {
		return nil, errors.New("audit: begin run: nil plan")
	}
	return s.beginRun(ctx, ri, p, notes)
}

// ID returns the run's id.
func (r *Run) ID() int64 { return r.id }

// AddSecrets tells the run about secret values it might otherwise meet in
// text (broker error messages, notes); every text value written afterwards
// has them replaced by [redacted]. RecordPlan adds the plan's known secrets
// itself.
func (r *Run) AddSecrets(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sc.add(values...)
}

// SetOnError sets a function called (synchronously, from Observe) with each
// event the Observer could not record, for instance to cancel the apply
// before an RPC whose intent is not on disk is sent.
func (r *Run) SetOnError(fn func(error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onError = fn
}

// Err returns the first event the Observer could not record, if any.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// writeLocked commits the pending rows and those fn appends in one
// transaction. r.mu must be held.
func (r *Run) writeLocked(ctx context.Context, fn func(w *writer) error) (string, error) {
	if r.finished {
		return "", fmt.Errorf("audit: run %d is finished", r.id)
	}
	pending := r.pending
	head, err := r.s.write(ctx, &r.sc, func(w *writer) error {
		for _, p := range pending {
			if _, err := w.insert(p.table, p.cols, p.vals...); err != nil {
				return err
			}
		}
		if fn != nil {
			return fn(w)
		}
		return nil
	})
	if err != nil && len(pending) > 0 {
		// Drop what could not be written, so that one bad row does not
		// block every later write (Finish included); the caller reports it.
		err = fmt.Errorf("%w (%d buffered events dropped)", err, len(pending))
	}
	r.pending = r.pending[:0]
	return head, err
}

// event appends a run_events row.
func (r *Run) event(w *writer, kind string, other int64, detail string) error {
	var o any
	if other != 0 {
		o = other
	}
	_, err := w.insert("run_events", []string{"run_id", "at", "kind", "other_run_id", "detail"},
		r.id, timestamp(r.s.now()), kind, o, nullIfEmpty(detail))
	return err
}

// SetEndpoints records the run's source and target once they are known
// (after reading them: cluster ids come from the clusters). Addresses are
// stripped of credentials. Endpoints with every field empty are left out.
// The newest endpoints override those given to BeginRun in audit log/show
// and IncompleteRuns.
func (r *Run) SetEndpoints(ctx context.Context, source, target Endpoint) error {
	source.Address = redactEndpointAddress(source.Address)
	target.Address = redactEndpointAddress(target.Address)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error {
		for _, ep := range []struct {
			role string
			e    Endpoint
		}{{"source", source}, {"target", target}} {
			if ep.e == (Endpoint{}) {
				continue
			}
			if _, err := w.insert("run_endpoints", []string{"run_id", "role", "kind", "address", "cluster_id", "principal"},
				r.id, ep.role, nullIfEmpty(ep.e.Kind), nullIfEmpty(ep.e.Address), nullIfEmpty(ep.e.ClusterID), nullIfEmpty(ep.e.Principal)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if source != (Endpoint{}) {
		r.ri.Source = source
	}
	if target != (Endpoint{}) {
		r.ri.Target = target
	}
	return nil
}

// RecordSnapshot records a snapshot the run read: role is "source" or
// "target", digest is snapshot.Digest, counts are resources per kind.
func (r *Run) RecordSnapshot(ctx context.Context, role, digest string, counts map[string]int) error {
	if role != "source" && role != "target" {
		return fmt.Errorf("audit: record snapshot: role %q is not source or target", role)
	}
	c, err := json.Marshal(counts)
	if err != nil {
		return fmt.Errorf("audit: record snapshot: %v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.writeLocked(ctx, func(w *writer) error {
		_, err := w.insert("snapshots", []string{"run_id", "at", "role", "digest", "counts"},
			r.id, timestamp(r.s.now()), role, digest, string(c))
		return err
	})
	return err
}

// RecordPlan records a plan: its fingerprint, counts and redacted JSON,
// every change (in the planned state), every policy verdict, blocker,
// policy note and finding. A run records at most one plan.
func (r *Run) RecordPlan(ctx context.Context, p *plan.Plan) error {
	return r.RecordPlanEncoded(ctx, p, nil)
}

// RecordPlanEncoded is RecordPlan with the plan's JSON encoded by enc (nil:
// by RecordPlan itself), once for the audit trail and for the caller's own
// use (the plan file: planfile.Encode): enc's compressed text is stored as
// the plan's JSON when redaction and scrubbing change nothing in it (the
// plan is secret-free by construction, so this is the usual case); else the
// plan is encoded again, redacted and scrubbed, as RecordPlan stores it.
// enc is called once, before RecordPlanEncoded returns, unless the plan
// cannot be recorded at all (nil, or a second plan of the run).
func (r *Run) RecordPlanEncoded(ctx context.Context, p *plan.Plan, enc PlanEncoder) error {
	if p == nil {
		return errors.New("audit: record plan: nil plan")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordPlanLocked(ctx, p, enc)
}

func (r *Run) recordPlanLocked(ctx context.Context, p *plan.Plan, enc PlanEncoder) error {
	if r.planned {
		return fmt.Errorf("audit: run %d already has a plan recorded", r.id)
	}
	rows, done := r.planWrite(p, enc)
	defer done()
	if _, err := r.writeLocked(ctx, rows); err != nil {
		return err
	}
	r.planned = true
	return nil
}

// planWrite prepares the record of plan p: rows writes its rows in a
// transaction (of r, once its id is set), and done must be called after
// it, whether rows ran or not. It adds the plan's secrets to r's scrubber.
func (r *Run) planWrite(p *plan.Plan, enc PlanEncoder) (rows func(w *writer) error, done func()) {
	r.sc.add(planSecrets(p)...)
	rp, redacted := redactPlan(p)
	// The plan JSON is encoded one change at a time, scrubbed and
	// compressed piece by piece (the plan's tens of megabytes of JSON never
	// exist at once), on another goroutine while the plan's rows are
	// written: the plans row, which holds it, comes after them and closes
	// the plan's record. Both only read rp and the scrubber (r.mu is held,
	// or r is not yet shared).
	type result struct {
		blob []byte
		err  error
	}
	blobc := make(chan result, 1)
	go func() {
		if enc != nil {
			blob, ok, err := sharedPlanBlob(&r.sc, enc)
			if err == nil && ok && !redacted {
				blobc <- result{blob, nil}
				return
			}
		}
		blob, err := encodePlanBlob(&r.sc, rp)
		blobc <- result{blob, err}
	}()
	blobDone := false
	waitBlob := func() result {
		blobDone = true
		return <-blobc
	}
	done = func() {
		if !blobDone {
			waitBlob()
		}
	}
	perKind := map[string]int{}
	for _, c := range rp.Changes {
		perKind[string(c.Kind)]++
	}
	counts, _ := json.Marshal(perKind)
	now := timestamp(r.s.now())
	// From schema version 4 the changes rows leave the states to the plan
	// JSON, which holds them already, and from version 6 there are no
	// changes rows: the plan JSON holds every change (Store.Changes reads
	// them from it).
	statesInPlan := r.s.version >= statesInPlanVersion
	changeRows := r.s.version < changesInPlanVersion
	rows = func(w *writer) error {
		for i := range rp.Changes {
			c := &rp.Changes[i]
			if !changeRows {
				// The change must be one apply can carry, as its row
				// would have named the RPC.
				if _, err := apply.RPCOf(c); err != nil {
					return fmt.Errorf("audit: change %s: %v", c.ID, err)
				}
				continue
			}
			if err := insertChange(w, r.id, c, !statesInPlan); err != nil {
				return err
			}
		}
		for i := range rp.Changes {
			c := &rp.Changes[i]
			if c.Verdict == nil {
				continue
			}
			if _, err := w.insert("verdicts", []string{"run_id", "change_id", "allowed", "rule", "message"},
				r.id, c.ID, c.Verdict.Allowed, nullIfEmpty(c.Verdict.Rule), nullIfEmpty(c.Verdict.Message)); err != nil {
				return err
			}
		}
		for _, b := range rp.Blockers {
			var cid, rule any
			if b.Change != nil {
				cid = nullIfEmpty(b.Change.ID)
				if b.Change.Verdict != nil {
					rule = nullIfEmpty(b.Change.Verdict.Rule)
					if _, err := w.insert("verdicts", []string{"run_id", "change_id", "allowed", "rule", "message"},
						r.id, b.Change.ID, b.Change.Verdict.Allowed, nullIfEmpty(b.Change.Verdict.Rule), nullIfEmpty(b.Change.Verdict.Message)); err != nil {
						return err
					}
				}
			}
			if _, err := w.insert("blockers", []string{"run_id", "blocker_id", "kind", "resource", "reason", "fix", "change_id", "rule"},
				r.id, b.ID, string(b.Kind), b.Resource, b.Reason, nullIfEmpty(b.Fix), cid, rule); err != nil {
				return err
			}
		}
		for _, n := range rp.PolicyNotes {
			if err := r.event(w, "policy-note", 0, n); err != nil {
				return err
			}
		}
		if err := insertFindings(w, r.id, rp.Findings); err != nil {
			return err
		}
		res := waitBlob()
		if res.err != nil {
			return fmt.Errorf("audit: record plan: %v", res.err)
		}
		cols := []string{"run_id", "at", "fingerprint", "changes", "blockers", "findings", "counts", "plan_json"}
		vals := []any{r.id, now, rp.Fingerprint, len(rp.Changes), len(rp.Blockers), len(rp.Findings), string(counts), zstdBlob(res.blob)}
		switch {
		case !changeRows:
			cols, vals = append(cols, "changes_in_plan"), append(vals, int64(1))
		case statesInPlan:
			cols, vals = append(cols, "states_in_plan"), append(vals, int64(1))
		}
		_, err := w.insert("plans", cols, vals...)
		return err
	}
	return rows, done
}

// statesInPlanVersion is the schema version from which a plan's change
// states are stored once, in the plan JSON (plans.states_in_plan), and no
// longer in its changes rows.
const statesInPlanVersion = 4

// changesInPlanVersion is the schema version from which a plan's changes
// are stored once, in the plan JSON (plans.changes_in_plan), without a
// changes row each.
const changesInPlanVersion = 6

// insertChange appends one changes row (the planned state), with the
// before and after states as JSON when withStates (databases older than
// statesInPlanVersion), else without them (NULL: they are in the plan).
func insertChange(w *writer, runID int64, c *plan.Change, withStates bool) error {
	rpc, err := apply.RPCOf(c)
	if err != nil {
		return fmt.Errorf("audit: change %s: %v", c.ID, err)
	}
	if !withStates {
		_, err = w.insert("changes", []string{"run_id", "change_id", "kind", "action", "resource_type", "resource", "rpc"},
			runID, c.ID, string(c.Kind), string(c.Action), c.Resource.Type, c.Resource.Name, rpc)
		return err
	}
	before, err := w.stateJSON(c.Before)
	if err != nil {
		return err
	}
	after, err := w.stateJSON(c.After)
	if err != nil {
		return err
	}
	_, err = w.insert("changes", []string{"run_id", "change_id", "kind", "action", "resource_type", "resource", "rpc", "before_state", "after_state"},
		runID, c.ID, string(c.Kind), string(c.Action), c.Resource.Type, c.Resource.Name, rpc, before, after)
	return err
}

// stateJSON is a change state's JSON (json.Marshal's bytes), nil for no
// state; the encoder and its buffer are reused from row to row.
func (w *writer) stateJSON(s *plan.State) (any, error) {
	if s == nil {
		return nil, nil
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.encBuf)
	}
	w.encBuf.Reset()
	if err := w.enc.Encode(s); err != nil {
		return nil, fmt.Errorf("audit: record change state: %v", err)
	}
	b := w.encBuf.Bytes()
	return string(b[:len(b)-1]), nil // without Encode's newline
}

// RecordFindings records findings (from reading, planning or checking).
func (r *Run) RecordFindings(ctx context.Context, fs []snapshot.Finding) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error { return insertFindings(w, r.id, fs) })
	return err
}

func insertFindings(w *writer, runID int64, fs []snapshot.Finding) error {
	for _, f := range fs {
		if _, err := w.insert("findings", []string{"run_id", "finding_id", "severity", "resource", "message", "fix"},
			runID, f.ID, f.Severity, f.Resource, f.Message, nullIfEmpty(f.Fix)); err != nil {
			return err
		}
	}
	return nil
}

// MarkResumes records that this run resumes (finishes the work of) an
// earlier run that never finished.
func (r *Run) MarkResumes(ctx context.Context, previousRunID int64) error {
	if previousRunID == r.id || previousRunID <= 0 {
		return fmt.Errorf("audit: run %d cannot resume run %d", r.id, previousRunID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error {
		var n int
		tx, err := w.txn()
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id = ?`, previousRunID).Scan(&n); err != nil {
			return fmt.Errorf("audit: mark resumes: %v", err)
		}
		if n == 0 {
			return fmt.Errorf("audit: run %d cannot resume run %d: no such run", r.id, previousRunID)
		}
		return r.event(w, "resumes", previousRunID, fmt.Sprintf("resumes run %d", previousRunID))
	})
	return err
}

// Note records a free-form event on the run (kind is a short word such as
// "warning"; detail is scrubbed of secrets).
func (r *Run) Note(ctx context.Context, kind, detail string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error { return r.event(w, kind, 0, detail) })
	return err
}

// Finish records how the run ended (outcome such as "succeeded", "failed",
// "partial", "canceled"; the process exit code) and returns the chain head
// hash after it: the run's receipt, to print and keep elsewhere for
// `migrate audit verify --anchor`. Events still buffered by the Observer
// are written first. If some events could not be recorded, Finish still
// records the end and returns the head, with an error wrapping
// ErrIncomplete. Finish ignores the cancellation of ctx (an interrupted run
// still records its end), within a time limit.
func (r *Run) Finish(ctx context.Context, outcome string, exitCode int) (head string, err error) {
	// A run interrupted with Ctrl-C still records how it ended: the caller's
	// context is usually canceled by then.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*BusyTimeout)
	defer cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	if outcome == "" {
		outcome = "unknown"
	}
	obsErr, n := r.err, r.errCount
	var rc Receipt
	var closedBy int64
	_, err = r.writeLocked(ctx, func(w *writer) error {
		// A run closed as abandoned by another (it took over the target
		// after this run's heartbeat went stale) keeps that end; how it
		// really ended is noted.
		var cb sql.NullInt64
		tx, err := w.txn()
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT closed_by FROM run_ends WHERE run_id = ?`, r.id).Scan(&cb); err == nil {
			closedBy = cb.Int64
			return r.event(w, "finished-after-abandoned", cb.Int64, fmt.Sprintf("ended %s (exit %d) after run %d had closed it as abandoned", outcome, exitCode, cb.Int64))
		}
		if obsErr != nil {
			if err := r.event(w, "audit-error", 0, fmt.Sprintf("%d events not recorded; first: %v", n, obsErr)); err != nil {
				return err
			}
		}
		rc, err = w.insertEnd(r.id, timestamp(r.s.now()), outcome, exitCode, r.counts.succeeded, r.counts.failed, r.counts.skipped, nil)
		return err
	})
	if err != nil {
		return "", err
	}
	r.finished = true
	if closedBy != 0 {
		return "", fmt.Errorf("audit: run %d had already been closed as abandoned by run %d (which took over the target); its real end is noted on it", r.id, closedBy)
	}
	var errs []error
	if obsErr != nil {
		errs = append(errs, fmt.Errorf("%w: %d events of run %d not recorded; first: %v", ErrIncomplete, n, r.id, obsErr))
	}
	if err := r.s.appendReceipts(rc); err != nil {
		errs = append(errs, err)
	}
	return rc.Head, errors.Join(errs...)
}

// Signed reports whether the run's receipt is signed (the store has a
// signer), and the key's ID.
func (r *Run) Signed() (bool, string) {
	r.s.wmu.Lock()
	defer r.s.wmu.Unlock()
	if r.s.signer == nil {
		return false, ""
	}
	return true, r.s.signer.ID()
}

// AbandonRuns closes earlier runs that never finished (killed long ago;
// IncompleteRuns lists them) once this run has taken over their target's
// lock: each is linked to this run ("resumes", as MarkResumes) and given an
// end with outcome "abandoned", exit code -1, its changes counted by their
// latest status and closed_by this run, in one transaction. Later runs no
// longer list them. A run that has an end already is left alone; the ids
// closed are returned.
func (r *Run) AbandonRuns(ctx context.Context, ids []int64) ([]int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var closed []int64
	var rcs []Receipt
	_, err := r.writeLocked(ctx, func(w *writer) error {
		closed, rcs = closed[:0], rcs[:0]
		for _, id := range ids {
			if id == r.id || id <= 0 {
				return fmt.Errorf("audit: run %d cannot abandon run %d", r.id, id)
			}
			var runs, ends int
			tx, err := w.txn()
			if err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM runs WHERE id = ?1), (SELECT count(*) FROM run_ends WHERE run_id = ?1)`, id).Scan(&runs, &ends); err != nil {
				return fmt.Errorf("audit: abandon run %d: %v", id, err)
			}
			if runs == 0 {
				return fmt.Errorf("audit: run %d cannot abandon run %d: no such run", r.id, id)
			}
			if ends > 0 {
				continue
			}
			counts := map[string]int{}
			rows, err := tx.QueryContext(ctx, `SELECT status, count(*) FROM change_events e
				WHERE e.run_id = ?1 AND e.seq = (SELECT max(seq) FROM change_events x WHERE x.run_id = ?1 AND x.change_id = e.change_id)
				GROUP BY status`, id)
			if err != nil {
				return fmt.Errorf("audit: abandon run %d: %v", id, err)
			}
			for rows.Next() {
				var st string
				var n int
				if err := rows.Scan(&st, &n); err != nil {
					rows.Close()
					return fmt.Errorf("audit: abandon run %d: %v", id, err)
				}
				counts[st] = n
			}
			rows.Close()
			now := timestamp(r.s.now())
			if err := r.event(w, "resumes", id, fmt.Sprintf("resumes run %d and closes it as abandoned (it never finished)", id)); err != nil {
				return err
			}
			rc, err := w.insertEnd(id, now, "abandoned", -1, counts["succeeded"], counts["failed"], counts["skipped"], r.id)
			if err != nil {
				return err
			}
			closed, rcs = append(closed, id), append(rcs, rc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return closed, r.s.appendReceipts(rcs...)
}

// planSecrets lists the secret values a plan holds in memory.
func planSecrets(p *plan.Plan) []string {
	var out []string
	add := func(s *secret.Secret) {
		if s == nil {
			return
		}
		if v, ok := s.Reveal(); ok && v != "" {
			out = append(out, v)
		}
	}
	plan.EachSecret(p, func(at plan.SecretSite) {
		if at.Password != nil {
			add(at.Password)
			return
		}
		add(at.Config.Secret)
		if (at.Config.Sensitive || sensitiveKey(at.Config.Key)) && at.Config.Value != "" {
			out = append(out, at.Config.Value)
		}
	})
	sort.Strings(out)
	return out
}

// redactPlan returns p with the value of every sensitive config cleared
// (set to [redacted]), and whether it cleared any; secrets are otherwise
// held by reference (Secret values never serialise). Only the changes and
// blockers that hold such a value are copied; the rest is shared with p,
// read only. (It was a deep copy through JSON: 560 MB allocated for the
// plan of a 50,000-topic cluster.)
func redactPlan(p *plan.Plan) (*plan.Plan, bool) {
	// The changes (and blocked changes) with a value to clear, found by
	// the one walk of a plan's secrets; only they are copied.
	changes, blocked := map[*plan.Change]bool{}, map[*plan.Change]bool{}
	plan.EachSecret(p, func(at plan.SecretSite) {
		if c := at.Config; c != nil && (c.Sensitive || c.Secret != nil || sensitiveKey(c.Key)) && c.Value != "" && c.Value != Redacted {
			if at.Blocked {
				blocked[at.Change] = true
			} else {
				changes[at.Change] = true
			}
		}
	})
	if len(changes)+len(blocked) == 0 {
		return p, false
	}
	clear := func(st *plan.State) *plan.State {
		if st == nil {
			return nil
		}
		cp := *st
		cp.Configs = slices.Clone(st.Configs)
		for i := range cp.Configs {
			c := &cp.Configs[i]
			if (c.Sensitive || c.Secret != nil || sensitiveKey(c.Key)) && c.Value != "" {
				c.Value = Redacted
			}
		}
		return &cp
	}
	cp := *p
	if len(changes) > 0 {
		cp.Changes = slices.Clone(p.Changes)
		for i := range p.Changes {
			if changes[&p.Changes[i]] {
				cp.Changes[i].Before, cp.Changes[i].After = clear(p.Changes[i].Before), clear(p.Changes[i].After)
			}
		}
	}
	if len(blocked) > 0 {
		cp.Blockers = slices.Clone(p.Blockers)
		for i := range p.Blockers {
			if c := p.Blockers[i].Change; c != nil && blocked[c] {
				cc := *c
				cc.Before, cc.After = clear(c.Before), clear(c.After)
				cp.Blockers[i].Change = &cc
			}
		}
	}
	return &cp, true
}
