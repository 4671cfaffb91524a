package audit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// ErrNoRun is returned (wrapped) for a run id the database does not hold.
var ErrNoRun = errors.New("audit: no such run")

// RunSummary is one run as `migrate audit log` lists it.
type RunSummary struct {
	ID          int64           `json:"id"`
	Command     string          `json:"command"`
	Args        []string        `json:"args"`
	User        string          `json:"user"`
	Host        string          `json:"host"`
	PID         int             `json:"pid"`
	ToolVersion string          `json:"tool_version"`
	Started     time.Time       `json:"started"`
	Source      Endpoint        `json:"source"`
	Target      Endpoint        `json:"target"`
	Options     json.RawMessage `json:"options,omitempty"`
	// Finished is zero for a run that never finished (running, or killed).
	Finished  time.Time `json:"finished,omitzero"`
	Outcome   string    `json:"outcome,omitempty"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Succeeded int       `json:"succeeded"`
	Failed    int       `json:"failed"`
	Skipped   int       `json:"skipped"`
	// Head is the run's receipt: the chain head after its end row.
	Head string `json:"head,omitempty"`
	// Resumes lists the runs this run resumed.
	Resumes []int64 `json:"resumes,omitempty"`
	// ResumedBy lists the runs that resumed this one.
	ResumedBy []int64 `json:"resumed_by,omitempty"`
	// ClosedBy is the run that closed this one as abandoned (Outcome
	// "abandoned", ExitCode -1): this run was killed and never finished.
	ClosedBy int64 `json:"closed_by,omitempty"`
	// KeyID names the key that signed the receipt, when it is signed.
	KeyID string `json:"key_id,omitempty"`
	// Reverts is the run this run reverts (it applied a revert plan of
	// it: migrate audit revert), RevertedBy the runs that revert this one.
	Reverts    int64   `json:"reverts,omitempty"`
	RevertedBy []int64 `json:"reverted_by,omitempty"`
}

const runSelect = `SELECT r.id, r.command, r.args, r.os_user, r.host, r.pid, r.tool_version, r.started_at,
	coalesce(se.kind, r.source_kind, ''), coalesce(se.address, r.source_address, ''), coalesce(se.cluster_id, r.source_cluster_id, ''), coalesce(se.principal, r.source_principal, ''),
	coalesce(te.kind, r.target_kind, ''), coalesce(te.address, r.target_address, ''), coalesce(te.cluster_id, r.target_cluster_id, ''), coalesce(te.principal, r.target_principal, ''),
	coalesce(r.options, ''),
	e.finished_at, e.outcome, e.exit_code, coalesce(e.succeeded, 0), coalesce(e.failed, 0), coalesce(e.skipped, 0), e.hash,
	(SELECT group_concat(other_run_id) FROM run_events v WHERE v.run_id = r.id AND v.kind = 'resumes'),
	(SELECT group_concat(run_id) FROM run_events v WHERE v.other_run_id = r.id AND v.kind = 'resumes'),
	e.closed_by, (SELECT min(key_id) FROM receipt_signatures g WHERE g.signed_seq = e.seq),
	(SELECT min(reverted_run) FROM reverts v WHERE v.run_id = r.id),
	(SELECT group_concat(run_id) FROM reverts v WHERE v.reverted_run = r.id)
FROM runs r LEFT JOIN run_ends e ON e.run_id = r.id
	LEFT JOIN run_endpoints se ON se.seq = (SELECT max(seq) FROM run_endpoints x WHERE x.run_id = r.id AND x.role = 'source')
	LEFT JOIN run_endpoints te ON te.seq = (SELECT max(seq) FROM run_endpoints x WHERE x.run_id = r.id AND x.role = 'target')`

type rowScanner interface{ Scan(...any) error }

func scanRun(sc rowScanner) (RunSummary, error) {
	var (
		rs                  RunSummary
		args, started, opts string
		finished, outcome   sql.NullString
		exit                sql.NullInt64
		head                sql.NullString
		resumes, resumedBy  sql.NullString
		closedBy            sql.NullInt64
		keyID               sql.NullString
		reverts             sql.NullInt64
		revertedBy          sql.NullString
	)
	err := sc.Scan(&rs.ID, &rs.Command, &args, &rs.User, &rs.Host, &rs.PID, &rs.ToolVersion, &started,
		&rs.Source.Kind, &rs.Source.Address, &rs.Source.ClusterID, &rs.Source.Principal,
		&rs.Target.Kind, &rs.Target.Address, &rs.Target.ClusterID, &rs.Target.Principal, &opts,
		&finished, &outcome, &exit, &rs.Succeeded, &rs.Failed, &rs.Skipped, &head, &resumes, &resumedBy, &closedBy, &keyID, &reverts, &revertedBy)
	if err != nil {
		return rs, err
	}
	_ = json.Unmarshal([]byte(args), &rs.Args)
	if opts != "" && json.Valid([]byte(opts)) {
		rs.Options = json.RawMessage(opts)
	}
	rs.Started = parseTime(started)
	if finished.Valid {
		rs.Finished = parseTime(finished.String)
		rs.Outcome = outcome.String
		c := int(exit.Int64)
		rs.ExitCode = &c
		rs.Head = head.String
	}
	rs.Resumes = idList(resumes.String)
	rs.ResumedBy = idList(resumedBy.String)
	rs.ClosedBy, rs.KeyID = closedBy.Int64, keyID.String
	rs.Reverts, rs.RevertedBy = reverts.Int64, idList(revertedBy.String)
	return rs, nil
}

func idList(s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		var n int64
		if _, err := fmt.Sscan(f, &n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// Runs lists runs newest first; limit <= 0 means all.
func (s *Store) Runs(ctx context.Context, limit int) ([]RunSummary, error) {
	q := runSelect + ` ORDER BY r.id DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.queryRuns(ctx, q)
}

func (s *Store) queryRuns(ctx context.Context, q string, args ...any) ([]RunSummary, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: list runs: %v", s.path, err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		rs, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: list runs: %v", s.path, err)
		}
		out = append(out, rs)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: %s: list runs: %v", s.path, err)
	}
	return out, nil
}

// Run returns one run.
func (s *Store) Run(ctx context.Context, id int64) (RunSummary, error) {
	rs, err := scanRun(s.r.QueryRowContext(ctx, runSelect+` WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return rs, fmt.Errorf("%w: run %d is not in %s", ErrNoRun, id, s.path)
	}
	if err != nil {
		return rs, fmt.Errorf("audit: %s: read run %d: %v", s.path, id, err)
	}
	return rs, nil
}

// IncompleteRuns returns the apply and sync runs against target (matched against
// the target's cluster id or address, as given to BeginRun or SetEndpoints)
// that never finished and were not resumed by a run that finished, oldest
// first. A run that still holds a live lock on the target (its process is
// alive, or it is on another host and its heartbeat is fresh) is left out:
// it is running, not killed.
func (s *Store) IncompleteRuns(ctx context.Context, target string) ([]RunSummary, error) {
	runs, err := s.queryRuns(ctx, runSelect+`
	WHERE r.command IN ('apply', 'sync', 'sync-round')
	  AND (r.target_cluster_id = ?1 OR r.target_address = ?1 OR te.cluster_id = ?1 OR te.address = ?1)
	  AND e.run_id IS NULL
	  AND NOT EXISTS (SELECT 1 FROM run_events v JOIN run_ends f ON f.run_id = v.run_id
	                  WHERE v.kind = 'resumes' AND v.other_run_id = r.id)
	ORDER BY r.id`, target)
	if err != nil {
		return nil, err
	}
	out := runs[:0]
	for _, r := range runs {
		var host, beat string
		var pid int
		err := s.r.QueryRowContext(ctx, `SELECT host, pid, heartbeat FROM target_locks WHERE run_id = ?`, r.ID).Scan(&host, &pid, &beat)
		if err == nil && s.lockLive(host, pid, beat) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// lockLive reports whether a lock holder looks alive.
func (s *Store) lockLive(host string, pid int, heartbeat string) bool {
	if host == s.hostname {
		return processAlive(pid)
	}
	return s.now().Sub(parseTime(heartbeat)) <= s.lockStaleAfter()
}

// ChangeRecord is one change of a run with its transitions.
type ChangeRecord struct {
	Seq          int64           `json:"seq,omitempty"` // chain position of the row that recorded the planned change: its changes row, or its plan's plans row (schema version 6)
	ChangeID     string          `json:"change_id"`
	Kind         string          `json:"kind"`
	Action       string          `json:"action"`
	ResourceType string          `json:"resource_type"`
	Resource     string          `json:"resource"`
	Mechanism    string          `json:"mechanism,omitempty"` // a scram-user change's SCRAM mechanism (its resource is the user)
	RPC          string          `json:"rpc"`
	Before       json.RawMessage `json:"before,omitempty"`
	After        json.RawMessage `json:"after,omitempty"`
	// Status is the latest transition: planned, sent, validated,
	// succeeded, failed, skipped, or excluded (left out of the selection
	// the run applied, in review).
	Status    string         `json:"status"`
	ErrorCode int            `json:"error_code,omitempty"`
	ErrorName string         `json:"error_name,omitempty"`
	Message   string         `json:"message,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Batch     int            `json:"batch,omitempty"`
	Verdict   *VerdictRecord `json:"verdict,omitempty"`
	Events    []ChangeEvent  `json:"events,omitempty"`
}

// VerdictRecord is a recorded policy decision.
type VerdictRecord struct {
	Allowed bool   `json:"allowed"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message,omitempty"`
}

// ChangeEvent is one transition of a change.
type ChangeEvent struct {
	Seq          int64     `json:"seq"`
	At           time.Time `json:"at"`
	Status       string    `json:"status"`
	Reason       string    `json:"reason,omitempty"`
	Batch        int       `json:"batch,omitempty"`
	ValidateOnly bool      `json:"validate_only,omitempty"`
	ErrorCode    int       `json:"error_code,omitempty"`
	ErrorName    string    `json:"error_name,omitempty"`
	Message      string    `json:"message,omitempty"`
}

// planChange is a change as the stored plan JSON holds it, the fields
// Changes reads (states nil for none, or when they are not wanted).
type planChange struct {
	ID       string      `json:"id"`
	Kind     plan.Kind   `json:"kind"`
	Action   plan.Action `json:"action"`
	Resource struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"resource"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// planChanges reads the changes of a run's plan from its stored plan JSON
// when its changes rows do not hold them: all of them when the plan was
// recorded without changes rows (plans.changes_in_plan, schema version 6;
// rowless is then true, and seq is the plans row's), their states when its rows hold none
// (plans.states_in_plan, version 4) and states are wanted. It returns nil
// when the rows hold everything (older plans) or the run has no plan. The
// plan is decompressed and decoded as a stream, one change at a time.
func (s *Store) planChanges(ctx context.Context, tx *sql.Tx, runID int64, states bool) (cs []planChange, rowless bool, seq int64, err error) {
	if s.version < statesInPlanVersion {
		return nil, false, 0, nil
	}
	var stored []byte
	var statesIn, changesIn sql.NullInt64
	cols := `seq, plan_json, states_in_plan, NULL`
	if s.version >= changesInPlanVersion {
		cols = `seq, plan_json, states_in_plan, changes_in_plan`
	}
	err = tx.QueryRowContext(ctx, `SELECT `+cols+` FROM plans WHERE run_id = ? ORDER BY seq LIMIT 1`, runID).Scan(&seq, &stored, &statesIn, &changesIn)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, 0, nil
	}
	if err != nil {
		return nil, false, 0, fmt.Errorf("audit: %s: read the plan of run %d: %v", s.path, runID, err)
	}
	rowless = changesIn.Int64 == 1
	if !rowless && !(states && statesIn.Int64 == 1) {
		return nil, false, 0, nil
	}
	damaged := func(err error) error {
		return fmt.Errorf("audit: %s: run %d: stored plan JSON: %v (the database was changed or damaged; migrate audit verify finds the row)", s.path, runID, err)
	}
	zr, err := jsonfile.NewReader(bytes.NewReader(stored))
	if err != nil {
		return nil, false, 0, damaged(err)
	}
	defer zr.Close()
	var doc struct {
		Changes []planChange `json:"changes"`
	}
	if err := jsonfile.Decode(zr, &doc); err != nil {
		return nil, false, 0, damaged(err)
	}
	for i := range doc.Changes {
		c := &doc.Changes[i]
		if !states || string(c.Before) == "null" {
			c.Before = nil
		}
		if !states || string(c.After) == "null" {
			c.After = nil
		}
	}
	return doc.Changes, rowless, seq, nil
}

// ChangeFilter selects changes; empty fields select all.
type ChangeFilter struct {
	Kind   string
	Status string
	// NoStates leaves every change's Before and After out (a listing that
	// does not show them need not decompress the stored plan they are
	// read from).
	NoStates bool
}

// Changes returns a run's changes in plan order with their transitions.
// Transitions of changes that are not in the run's recorded plan are
// returned as changes of their own (kind unknown).
func (s *Store) Changes(ctx context.Context, runID int64, f ChangeFilter) ([]ChangeRecord, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read changes: %v", s.path, err)
	}
	defer tx.Rollback()
	fromPlan, rowless, planSeq, err := s.planChanges(ctx, tx, runID, !f.NoStates)
	if err != nil {
		return nil, err
	}
	var out []ChangeRecord
	byID := map[string]int{}
	states := map[string]*planChange{}
	if rowless {
		// Recorded without changes rows: the plan holds every change.
		for i := range fromPlan {
			c := &fromPlan[i]
			rpc, _ := apply.RPCOf(&plan.Change{Kind: c.Kind, Action: c.Action})
			byID[c.ID] = len(out)
			out = append(out, ChangeRecord{Seq: planSeq, ChangeID: c.ID, Kind: string(c.Kind), Action: string(c.Action),
				ResourceType: c.Resource.Type, Resource: c.Resource.Name, Mechanism: mechanismOf(string(c.Kind), c.ID), RPC: rpc, Before: c.Before, After: c.After, Status: "planned"})
		}
		fromPlan = nil
	}
	for i := range fromPlan {
		states[fromPlan[i].ID] = &fromPlan[i]
	}
	stateCols := `coalesce(before_state, ''), coalesce(after_state, '')`
	if f.NoStates {
		stateCols = `'', ''`
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, change_id, kind, action, resource_type, resource, rpc, `+stateCols+`
		FROM changes WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read changes: %v", s.path, err)
	}
	for rows.Next() {
		var c ChangeRecord
		var before, after string
		if err := rows.Scan(&c.Seq, &c.ChangeID, &c.Kind, &c.Action, &c.ResourceType, &c.Resource, &c.RPC, &before, &after); err != nil {
			rows.Close()
			return nil, fmt.Errorf("audit: %s: read changes: %v", s.path, err)
		}
		if before != "" {
			c.Before = json.RawMessage(before)
		}
		if after != "" {
			c.After = json.RawMessage(after)
		}
		if st := states[c.ChangeID]; st != nil && before == "" && after == "" {
			c.Before, c.After = st.Before, st.After
		}
		c.Mechanism = mechanismOf(c.Kind, c.ChangeID)
		c.Status = "planned"
		byID[c.ChangeID] = len(out)
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: %s: read changes: %v", s.path, err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT seq, change_id, at, status, coalesce(reason, ''), coalesce(batch, 0), validate_only,
		coalesce(error_code, 0), coalesce(error_name, ''), coalesce(message, '') FROM change_events WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read change events: %v", s.path, err)
	}
	for rows.Next() {
		var ev ChangeEvent
		var id, at string
		if err := rows.Scan(&ev.Seq, &id, &at, &ev.Status, &ev.Reason, &ev.Batch, &ev.ValidateOnly, &ev.ErrorCode, &ev.ErrorName, &ev.Message); err != nil {
			rows.Close()
			return nil, fmt.Errorf("audit: %s: read change events: %v", s.path, err)
		}
		ev.At = parseTime(at)
		i, ok := byID[id]
		if !ok {
			i = len(out)
			byID[id] = i
			out = append(out, ChangeRecord{ChangeID: id, Status: "planned"})
		}
		c := &out[i]
		c.Events = append(c.Events, ev)
		c.Status, c.Reason, c.ErrorCode, c.ErrorName, c.Message = ev.Status, ev.Reason, ev.ErrorCode, ev.ErrorName, ev.Message
		if ev.Batch != 0 {
			c.Batch = ev.Batch
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: %s: read change events: %v", s.path, err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT change_id, allowed, coalesce(rule, ''), coalesce(message, '') FROM verdicts WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read verdicts: %v", s.path, err)
	}
	for rows.Next() {
		var id string
		var v VerdictRecord
		if err := rows.Scan(&id, &v.Allowed, &v.Rule, &v.Message); err != nil {
			rows.Close()
			return nil, fmt.Errorf("audit: %s: read verdicts: %v", s.path, err)
		}
		if i, ok := byID[id]; ok {
			out[i].Verdict = &v
		}
	}
	rows.Close()
	if f.Kind == "" && f.Status == "" {
		return out, nil
	}
	kept := out[:0]
	for _, c := range out {
		if (f.Kind == "" || c.Kind == f.Kind) && (f.Status == "" || c.Status == f.Status) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// RPCRecord is one admin RPC of a run: its intent and, when it returned,
// its outcome.
type RPCRecord struct {
	Seq          int64     `json:"seq"`
	Batch        int       `json:"batch"`
	Attempt      int       `json:"attempt"`
	API          string    `json:"api"`
	Version      int       `json:"api_version"`
	Broker       int       `json:"broker"`
	Principal    string    `json:"principal,omitempty"`
	ValidateOnly bool      `json:"validate_only,omitempty"`
	Started      time.Time `json:"started"`
	Resources    int       `json:"resources"`
	ChangeIDs    []string  `json:"change_ids"`
	// Result is "ok", "error", or "" when the RPC's outcome was never
	// recorded (the process died while it was in flight).
	Result   string        `json:"result"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_us"`
	Finished time.Time     `json:"finished,omitzero"`
}

// MarshalJSON writes the duration in microseconds.
func (r RPCRecord) MarshalJSON() ([]byte, error) {
	type plain RPCRecord
	return json.Marshal(struct {
		plain
		Duration int64 `json:"duration_us"`
	}{plain(r), r.Duration.Microseconds()})
}

// RPCs returns a run's RPCs in the order they were sent.
func (s *Store) RPCs(ctx context.Context, runID int64) ([]RPCRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT p.seq, p.batch, p.attempt, p.api, p.api_version, p.broker, coalesce(p.principal, ''),
		p.validate_only, p.started_at, p.resources, p.change_ids,
		coalesce(x.result, ''), coalesce(x.error, ''), coalesce(x.duration_us, 0), coalesce(x.finished_at, ''), coalesce(x.api_version, -1), coalesce(x.broker, -1)
		FROM rpcs p LEFT JOIN rpc_results x ON x.run_id = p.run_id AND x.batch = p.batch AND x.attempt = p.attempt
		WHERE p.run_id = ? ORDER BY p.seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read rpcs: %v", s.path, err)
	}
	defer rows.Close()
	var out []RPCRecord
	for rows.Next() {
		var r RPCRecord
		var started, ids, finished string
		var us int64
		var doneVersion, doneBroker int
		if err := rows.Scan(&r.Seq, &r.Batch, &r.Attempt, &r.API, &r.Version, &r.Broker, &r.Principal, &r.ValidateOnly,
			&started, &r.Resources, &ids, &r.Result, &r.Error, &us, &finished, &doneVersion, &doneBroker); err != nil {
			return nil, fmt.Errorf("audit: %s: read rpcs: %v", s.path, err)
		}
		r.Started = parseTime(started)
		r.Finished = parseTime(finished)
		r.Duration = time.Duration(us) * time.Microsecond
		if r.Version < 0 {
			r.Version = doneVersion
		}
		if r.Broker < 0 {
			r.Broker = doneBroker
		}
		_ = json.Unmarshal([]byte(ids), &r.ChangeIDs)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: %s: read rpcs: %v", s.path, err)
	}
	return out, nil
}

// mechanismOf is the SCRAM mechanism of a scram-user change, from its id
// ("scram-user:alice/SCRAM-SHA-256": the plan's key is the user and the
// mechanism), whichever schema recorded it; "" for any other kind.
func mechanismOf(kind, changeID string) string {
	if i := strings.LastIndexByte(changeID, '/'); kind == string(plan.KindScramUser) && i >= 0 {
		return changeID[i+1:]
	}
	return ""
}
