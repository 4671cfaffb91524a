package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// RunExport is everything recorded about one run.
type RunExport struct {
	Run       RunSummary         `json:"run"`
	Snapshots []SnapshotRecord   `json:"snapshots,omitempty"`
	Plan      *PlanRecord        `json:"plan,omitempty"`
	Changes   []ChangeRecord     `json:"changes,omitempty"`
	RPCs      []RPCRecord        `json:"rpcs,omitempty"`
	Blockers  []BlockerRecord    `json:"blockers,omitempty"`
	Findings  []snapshot.Finding `json:"findings,omitempty"`
	Events    []EventRecord      `json:"events,omitempty"`
	// AccessProofs are the access proofs the run made (access diff, plan,
	// apply).
	AccessProofs []AccessProof `json:"access_proofs,omitempty"`
}

// SnapshotRecord is a recorded snapshot digest.
type SnapshotRecord struct {
	At     time.Time      `json:"at"`
	Role   string         `json:"role"`
	Digest string         `json:"digest"`
	Counts map[string]int `json:"counts,omitempty"`
}

// PlanRecord is a recorded plan.
type PlanRecord struct {
	At          time.Time       `json:"at"`
	Fingerprint string          `json:"fingerprint"`
	Changes     int             `json:"changes"`
	Blockers    int             `json:"blockers"`
	Findings    int             `json:"findings"`
	Counts      map[string]int  `json:"counts,omitempty"`
	JSON        json.RawMessage `json:"plan,omitempty"` // the plan, secrets by reference only
}

// BlockerRecord is a recorded blocker.
type BlockerRecord struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
	Reason   string `json:"reason"`
	Fix      string `json:"fix,omitempty"`
	ChangeID string `json:"change_id,omitempty"`
	Rule     string `json:"rule,omitempty"`
}

// EventRecord is a run event: apply started/finished, lock taken,
// reclaimed or released, resumes, policy notes, audit errors.
type EventRecord struct {
	Seq      int64     `json:"seq"`
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"`
	OtherRun int64     `json:"other_run,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

// Export returns everything recorded about a run.
func (s *Store) Export(ctx context.Context, runID int64) (*RunExport, error) {
	run, err := s.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	x := &RunExport{Run: run}
	if x.Changes, err = s.Changes(ctx, runID, ChangeFilter{}); err != nil {
		return nil, err
	}
	if x.RPCs, err = s.RPCs(ctx, runID); err != nil {
		return nil, err
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("audit: %s: export run %d: %v", s.path, runID, err)
	}
	defer tx.Rollback()
	q := func(query string, scan func(*sql.Rows) error) error {
		rows, err := tx.QueryContext(ctx, query, runID)
		if err != nil {
			return fmt.Errorf("audit: %s: export run %d: %v", s.path, runID, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return fmt.Errorf("audit: %s: export run %d: %v", s.path, runID, err)
			}
		}
		return rows.Err()
	}
	err = q(`SELECT at, role, digest, counts FROM snapshots WHERE run_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var r SnapshotRecord
		var at, counts string
		if err := rows.Scan(&at, &r.Role, &r.Digest, &counts); err != nil {
			return err
		}
		r.At = parseTime(at)
		_ = json.Unmarshal([]byte(counts), &r.Counts)
		x.Snapshots = append(x.Snapshots, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = q(`SELECT at, fingerprint, changes, blockers, findings, counts, plan_json FROM plans WHERE run_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var p PlanRecord
		var at, counts string
		var stored []byte
		if err := rows.Scan(&at, &p.Fingerprint, &p.Changes, &p.Blockers, &p.Findings, &counts, &stored); err != nil {
			return err
		}
		p.At = parseTime(at)
		_ = json.Unmarshal([]byte(counts), &p.Counts)
		pj, err := planJSONBytes(stored)
		if err != nil {
			return err
		}
		if json.Valid(pj) {
			p.JSON = json.RawMessage(pj)
		}
		x.Plan = &p
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = q(`SELECT blocker_id, kind, resource, reason, coalesce(fix, ''), coalesce(change_id, ''), coalesce(rule, '') FROM blockers WHERE run_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var b BlockerRecord
		if err := rows.Scan(&b.ID, &b.Kind, &b.Resource, &b.Reason, &b.Fix, &b.ChangeID, &b.Rule); err != nil {
			return err
		}
		x.Blockers = append(x.Blockers, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = q(`SELECT finding_id, severity, resource, message, coalesce(fix, '') FROM findings WHERE run_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var f snapshot.Finding
		if err := rows.Scan(&f.ID, &f.Severity, &f.Resource, &f.Message, &f.Fix); err != nil {
			return err
		}
		x.Findings = append(x.Findings, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if x.AccessProofs, err = accessProofs(ctx, tx, runID); err != nil {
		return nil, fmt.Errorf("audit: %s: export run %d: %v", s.path, runID, err)
	}
	err = q(`SELECT seq, at, kind, coalesce(other_run_id, 0), coalesce(detail, '') FROM run_events WHERE run_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var ev EventRecord
		var at string
		if err := rows.Scan(&ev.Seq, &at, &ev.Kind, &ev.OtherRun, &ev.Detail); err != nil {
			return err
		}
		ev.At = parseTime(at)
		x.Events = append(x.Events, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}
