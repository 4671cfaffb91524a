package audit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestWriterBatches: rows of several tables inserted interleaved, more than
// one INSERT statement carries and not a multiple of it, are all written in
// chain order within the transaction; a query through txn sees the rows
// inserted before it; the chain verifies, row by row.
func TestWriterBatches(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan", User: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*rowsPerInsert + 37
	var seen int
	_, err = s.write(ctx, &r.sc, func(w *writer) error {
		for i := range n {
			if _, err := w.insert("findings", []string{"run_id", "finding_id", "severity", "resource", "message", "fix"},
				r.id, fmt.Sprintf("f%d", i), "info", "res", "msg", nullIfEmpty("")); err != nil {
				return err
			}
			if i%3 == 0 {
				if _, err := w.insert("verdicts", []string{"run_id", "change_id", "allowed", "rule", "message"},
					r.id, fmt.Sprintf("c%d", i), i%2 == 0, nil, nullIfEmpty("m")); err != nil {
					return err
				}
			}
		}
		tx, err := w.txn()
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM findings) + (SELECT count(*) FROM verdicts)`).Scan(&seen)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := n + (n+2)/3; seen != want {
		t.Errorf("a query in the transaction saw %d rows; want %d", seen, want)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, finding_id FROM findings ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	var last int64
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			t.Fatal(err)
		}
		if id != fmt.Sprintf("f%d", i) || seq <= last {
			t.Fatalf("findings row %d: seq %d, id %s; want f%d after seq %d", i, seq, id, i, last)
		}
		last = seq
		i++
	}
	if i != n {
		t.Errorf("%d findings rows; want %d", i, n)
	}
	head, err := r.Finish(ctx, "planned", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Verify(ctx, head); err != nil || !res.OK || res.Rows != 2+n+(n+2)/3 {
		t.Errorf("Verify = %+v, %v; want OK with %d rows", res, err, 2+n+(n+2)/3)
	}
}

// TestWriterBatchErrorRollsBack: a row SQLite refuses (here a second runs
// row with the same id) fails the transaction when its batch is written,
// with an error naming the table and chain positions, and nothing of the
// transaction is kept: the chain head and the rows are as before.
func TestWriterBatchErrorRollsBack(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan", User: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	var seq0 int64
	var head0 string
	if err := s.r.QueryRowContext(ctx, `SELECT seq, hash FROM chain_head`).Scan(&seq0, &head0); err != nil {
		t.Fatal(err)
	}
	_, err = s.write(ctx, &r.sc, func(w *writer) error {
		for i := range 5 {
			if _, err := w.insert("findings", []string{"run_id", "finding_id", "severity", "resource", "message"},
				r.id, fmt.Sprintf("f%d", i), "info", "res", "msg"); err != nil {
				return err
			}
		}
		_, err := w.insert("runs", []string{"id", "command", "args", "os_user", "host", "pid", "started_at"},
			r.id, "plan", "[]", "ops", "h", 1, "2026-11-01T12:00:00Z")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "insert into runs") || !strings.Contains(err.Error(), fmt.Sprintf("chain positions %d..%d", seq0+6, seq0+6)) {
		t.Fatalf("write = %v; want an error naming the runs insert at chain position %d", err, seq0+6)
	}
	var seq int64
	var head string
	var findings int
	if err := s.r.QueryRowContext(ctx, `SELECT seq, hash, (SELECT count(*) FROM findings) FROM chain_head`).Scan(&seq, &head, &findings); err != nil {
		t.Fatal(err)
	}
	if seq != seq0 || head != head0 || findings != 0 {
		t.Errorf("after the failed write: chain head %d %s, %d findings; want %d %s and none", seq, head, findings, seq0, head0)
	}
	// The store still writes.
	if err := r.Note(ctx, "warning", "still works"); err != nil {
		t.Fatal(err)
	}
}

// TestRecordPlanFailsWhole: a plan that cannot be encoded (a NaN quota has
// no JSON) is refused with an error, nothing of it is recorded (the plan
// JSON is encoded on another goroutine while its rows are written: neither
// is left behind), and the run records a plan afterwards.
func TestRecordPlanFailsWhole(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan", User: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	bad := testPlan(3*rowsPerInsert + 5)
	bad.Changes = append(bad.Changes, plan.Change{ID: "quota:user=u", Kind: plan.KindQuota, Action: plan.ActionUpdate,
		Resource: plan.Resource{Type: "quota", Name: "user=u"}, After: &plan.State{Quota: map[string]float64{"producer_byte_rate": math.NaN()}}})
	if err := r.RecordPlan(ctx, bad); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("RecordPlan(NaN quota) = %v; want an error naming the NaN", err)
	}
	for _, table := range []string{"plans", "changes", "verdicts", "blockers", "findings"} {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s holds %d rows after the failed RecordPlan (%v); want none", table, n, err)
		}
	}
	if err := r.RecordPlan(ctx, testPlan(10)); err != nil {
		t.Fatalf("RecordPlan after the failure: %v", err)
	}
	head, err := r.Finish(ctx, "planned", 2)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Verify(ctx, head); err != nil || !res.OK {
		t.Errorf("Verify = %+v, %v", res, err)
	}
}
