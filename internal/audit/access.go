package audit

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// AccessProof is one access proof a run made (docs/access.md): what was
// proved, the verdict, the counts and the proof's digest.
type AccessProof struct {
	At time.Time `json:"at"`
	// What is "target" (the target as read) or "planned" (as the plan
	// would leave it).
	What      string `json:"what"`
	Verdict   string `json:"verdict"`
	Classes   int64  `json:"classes"`
	Differing int64  `json:"differing"`
	Causes    int64  `json:"causes"`
	NotProved int64  `json:"not_proved"`
	Accepted  int64  `json:"accepted"`
	Digest    string `json:"digest"`
}

// RecordAccessProof records an access proof of the run.
func (r *Run) RecordAccessProof(ctx context.Context, p AccessProof) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.writeLocked(ctx, func(w *writer) error {
		_, err := w.insert("access_proofs", []string{"run_id", "at", "what", "verdict", "classes", "differing", "causes", "not_proved", "accepted", "digest"},
			r.id, timestamp(r.s.now()), p.What, p.Verdict, p.Classes, p.Differing, p.Causes, p.NotProved, p.Accepted, p.Digest)
		return err
	})
	return err
}

// AccessProofs returns the access proofs a run made, in the order it made
// them.
func (s *Store) AccessProofs(ctx context.Context, runID int64) ([]AccessProof, error) {
	out, err := accessProofs(ctx, s.r, runID)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: %v", s.path, err)
	}
	return out, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// accessProofs reads a run's proofs, in the order they were made.
func accessProofs(ctx context.Context, q querier, runID int64) ([]AccessProof, error) {
	rows, err := q.QueryContext(ctx, `SELECT at, what, verdict, classes, differing, causes, not_proved, accepted, digest FROM access_proofs WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("access proofs of run %d: %v", runID, err)
	}
	defer rows.Close()
	var out []AccessProof
	for rows.Next() {
		var p AccessProof
		var at string
		if err := rows.Scan(&at, &p.What, &p.Verdict, &p.Classes, &p.Differing, &p.Causes, &p.NotProved, &p.Accepted, &p.Digest); err != nil {
			return nil, fmt.Errorf("access proofs of run %d: %v", runID, err)
		}
		p.At = parseTime(at)
		out = append(out, p)
	}
	return out, rows.Err()
}
