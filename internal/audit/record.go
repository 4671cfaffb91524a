package audit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// foundStatesVersion is the schema version from which an apply keeps the
// whole state of what it deletes (found_states) and a revert links to the
// run it reverts (reverts).
const foundStatesVersion = 8

// Journal is what a run's journal says of one of its changes.
type Journal int

// The journal states of a change, for a revert.
const (
	// JournalNone: planned only, skipped, validated by a dry run, or
	// failed: the run did not change the resource.
	JournalNone Journal = iota
	// JournalApplied: the target answered that the change was made.
	JournalApplied
	// JournalInFlight: the change was sent and no answer was recorded (the
	// run was killed with it in flight): only the target can say whether
	// it was made.
	JournalInFlight
)

// RunRecord is what a run did, as its audit record holds it: what a revert
// undoes (Store.Record).
type RunRecord struct {
	Run RunSummary
	// Plan is the run's recorded plan (secrets by reference only).
	Plan *plan.Plan
	// Journal says, by change id, whether the run made each change
	// (missing: JournalNone).
	Journal map[string]Journal
	// Found is, by change id, the whole state of each resource a change
	// deleted, as the apply found it before (runs recorded from schema
	// version 8 on; none before).
	Found map[string]*plan.State
	// Seq and Digest are the run's record digest: the chain position and
	// hash of its own last row. The row hash covers every row before it, so
	// while the chain verifies, a record that still ends there is the
	// record read now. A run end another run wrote when it closed this one
	// as abandoned is not the run's own row.
	Seq    int64
	Digest string
}

// RunningError refuses to read as done a run that is still running: it has
// no end and holds a live lock on its target.
type RunningError struct {
	Run       int64
	Host      string
	PID       int
	Heartbeat string
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("run %d is still running (pid %d on host %s, last heartbeat %s); wait for it to end", e.Run, e.PID, e.Host, e.Heartbeat)
}

// Record reads what run runID did: its plan, whether it made each change,
// the whole states it found before deleting, and its record digest. It
// refuses a run the database does not hold (ErrNoRun), one that recorded no
// plan, and one still running (*RunningError). It does not verify the
// chain: Verify does.
func (s *Store) Record(ctx context.Context, runID int64) (*RunRecord, error) {
	run, err := s.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("audit: %s: read run %d: %v", s.path, runID, err)
	}
	defer tx.Rollback()
	fail := func(what string, err error) error {
		return fmt.Errorf("audit: %s: run %d: read %s: %v", s.path, runID, what, err)
	}
	if run.Finished.IsZero() {
		var host, beat string
		var pid int
		err := tx.QueryRowContext(ctx, `SELECT host, pid, heartbeat FROM target_locks WHERE run_id = ?`, runID).Scan(&host, &pid, &beat)
		if err == nil && s.lockLive(host, pid, beat) {
			return nil, &RunningError{Run: runID, Host: host, PID: pid, Heartbeat: beat}
		}
	}
	rec := &RunRecord{Run: run, Journal: map[string]Journal{}, Found: map[string]*plan.State{}}
	var stored []byte
	err = tx.QueryRowContext(ctx, `SELECT plan_json FROM plans WHERE run_id = ? ORDER BY seq LIMIT 1`, runID).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d (%s) recorded no plan: it changed nothing to revert", runID, run.Command)
	}
	if err != nil {
		return nil, fail("its plan", err)
	}
	if rec.Plan, err = decodeStoredPlan(stored); err != nil {
		return nil, fmt.Errorf("audit: %s: run %d: %v", s.path, runID, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT change_id, status, validate_only FROM change_events WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fail("its journal", err)
	}
	for rows.Next() {
		var id, status string
		var vo bool
		if err := rows.Scan(&id, &status, &vo); err != nil {
			rows.Close()
			return nil, fail("its journal", err)
		}
		if vo {
			continue // a dry run's request or answer: nothing changed
		}
		switch status {
		case "succeeded":
			rec.Journal[id] = JournalApplied
		case "sent":
			rec.Journal[id] = JournalInFlight
		default: // failed, skipped
			delete(rec.Journal, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fail("its journal", err)
	}
	if s.version >= foundStatesVersion {
		rows, err := tx.QueryContext(ctx, `SELECT change_id, state FROM found_states WHERE run_id = ? ORDER BY seq`, runID)
		if err != nil {
			return nil, fail("the states it found", err)
		}
		for rows.Next() {
			var id, state string
			if err := rows.Scan(&id, &state); err != nil {
				rows.Close()
				return nil, fail("the states it found", err)
			}
			var st plan.State
			if err := json.Unmarshal([]byte(state), &st); err != nil {
				rows.Close()
				return nil, fmt.Errorf("audit: %s: run %d: found state of %s: %v (the database was changed or damaged; migrate audit verify finds the row)", s.path, runID, id, err)
			}
			rec.Found[id] = &st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fail("the states it found", err)
		}
	}
	if rec.Seq, rec.Digest, err = ownLastRow(ctx, tx, runID); err != nil {
		return nil, fail("its last row", err)
	}
	return rec, nil
}

// decodeStoredPlan decodes a plan as plans.plan_json stores it (a zstd
// frame, or plain JSON text written by an older migrate).
func decodeStoredPlan(stored []byte) (*plan.Plan, error) {
	damaged := func(err error) error {
		return fmt.Errorf("stored plan JSON: %v (the database was changed or damaged; migrate audit verify finds the row)", err)
	}
	zr, err := jsonfile.NewReader(bytes.NewReader(stored))
	if err != nil {
		return nil, damaged(err)
	}
	defer zr.Close()
	var p plan.Plan
	if err := jsonfile.Decode(zr, &p); err != nil {
		return nil, damaged(err)
	}
	return &p, nil
}

// ownLastRow returns the chain position and hash of run runID's own last
// row: the newest row of any chained table that belongs to it, except a
// run end another run wrote when it closed this one as abandoned, and
// receipt signatures (which sign an end, and are no record of what the run
// did).
func ownLastRow(ctx context.Context, tx *sql.Tx, runID int64) (int64, string, error) {
	tables, err := chainedTables(ctx, tx)
	if err != nil {
		return 0, "", err
	}
	var seq int64
	var hash string
	for _, t := range tables {
		var q string
		switch t {
		case "runs":
			q = `SELECT seq, hash FROM runs WHERE id = ?`
		case "receipt_signatures":
			continue
		case "run_ends":
			q = `SELECT seq, hash FROM run_ends WHERE run_id = ? AND closed_by IS NULL`
		default:
			has, err := hasColumn(ctx, tx, t, "run_id")
			if err != nil {
				return 0, "", err
			}
			if !has {
				continue
			}
			q = `SELECT seq, hash FROM "` + t + `" WHERE run_id = ? ORDER BY seq DESC LIMIT 1`
		}
		var sq int64
		var h string
		err := tx.QueryRowContext(ctx, q, runID).Scan(&sq, &h)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return 0, "", fmt.Errorf("%s: %v", t, err)
		}
		if sq > seq {
			seq, hash = sq, h
		}
	}
	if seq == 0 {
		return 0, "", fmt.Errorf("no rows")
	}
	return seq, hash, nil
}

func hasColumn(ctx context.Context, tx *sql.Tx, table, col string) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
		if n == col {
			return true, nil
		}
	}
	return false, rows.Err()
}

// RecordReverts links the run to the run it reverts: the plan it applies
// is a revert of run reverted, made from that run's record ending at seq
// with hash (RunRecord.Seq and Digest). audit log and show name the link;
// Verify checks it.
func (r *Run) RecordReverts(ctx context.Context, reverted, seq int64, hash string) error {
	if reverted <= 0 || reverted == r.id {
		return fmt.Errorf("audit: run %d cannot revert run %d", r.id, reverted)
	}
	if r.s.version < foundStatesVersion {
		return fmt.Errorf("audit: %s: schema version %d keeps no revert links", r.s.path, r.s.version)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error {
		_, err := w.insert("reverts", []string{"run_id", "reverted_run", "record_seq", "record_hash"}, r.id, reverted, seq, hash)
		return err
	})
	return err
}

// queueFound buffers the found_states rows of an apply's RunStarted, in
// change id order; they are committed with the first request's intent.
func (r *Run) queueFound(found map[string]*plan.State) error {
	if len(found) == 0 || r.s.version < foundStatesVersion {
		return nil
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := found[id]
		if st == nil {
			continue
		}
		cp := *st
		cp.Password = nil
		cp.Configs = slices.Clone(st.Configs)
		for i := range cp.Configs {
			if c := &cp.Configs[i]; (c.Sensitive || c.Secret != nil || sensitiveKey(c.Key)) && c.Value != "" {
				c.Value = Redacted
			}
		}
		js, err := json.Marshal(&cp)
		if err != nil {
			return fmt.Errorf("audit: found state of %s: %v", id, err)
		}
		r.queue("found_states", []string{"run_id", "change_id", "state"}, r.id, id, jsonText(js))
	}
	return nil
}
