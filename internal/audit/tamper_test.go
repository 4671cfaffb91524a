package audit

import (
	"bytes"
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tamperBase records two runs, closes the store (so the file holds
// everything) and returns the file and the two receipts.
func tamperBase(t *testing.T) (path, receipt1, receipt2 string) {
	t.Helper()
	s, path := openTest(t)
	_, receipt1 = recordRun(t, s, 4)
	_, receipt2 = recordRun(t, s, 4)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, receipt1, receipt2
}

func seqOf(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestVerifyDetectsTampering(t *testing.T) {
	ctx := context.Background()
	base, receipt1, receipt2 := tamperBase(t)
	tests := []struct {
		name   string
		anchor string
		// tamper changes the file and returns the chain position where
		// Verify must report the first broken link (0: no link is broken
		// but the anchor must be missing).
		tamper     func(t *testing.T, db *sql.DB) int64
		wantReason string
	}{
		{
			name: "edit a blocker's resource",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM blockers`)
				mustExec(t, db, `UPDATE blockers SET resource = 'evil' WHERE seq = ?`, seq)
				return seq
			},
			wantReason: "does not match its content",
		},
		{
			// Readers would then look for the changes in the changes
			// table, which holds none of this plan's: the flag is hashed
			// with the plans row.
			name: "clear a plan's changes_in_plan",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM plans WHERE changes_in_plan = 1`)
				mustExec(t, db, `UPDATE plans SET changes_in_plan = NULL WHERE seq = ?`, seq)
				return seq
			},
			wantReason: "does not match its content",
		},
		{
			name: "edit an exit code",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM run_ends`)
				mustExec(t, db, `UPDATE run_ends SET exit_code = 0, outcome = 'succeeded' WHERE seq = ?`, seq)
				return seq
			},
			wantReason: "does not match its content",
		},
		{
			name: "null out a column",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM change_events WHERE error_code IS NOT NULL`)
				mustExec(t, db, `UPDATE change_events SET error_code = NULL, error_name = NULL, message = NULL, status = 'succeeded' WHERE seq = ?`, seq)
				return seq
			},
			wantReason: "does not match its content",
		},
		{
			name: "edit a row and recompute its hash",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM rpc_results`)
				mustExec(t, db, `UPDATE rpc_results SET duration_us = 1 WHERE seq = ?`, seq)
				rehash(t, db, "rpc_results", seq)
				return seq + 1
			},
			wantReason: "does not match its content",
		},
		{
			name: "delete a middle row",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT min(seq) FROM rpcs`)
				mustExec(t, db, `DELETE FROM rpcs WHERE seq = ?`, seq)
				return seq + 1
			},
			wantReason: "missing (deleted)",
		},
		{
			name: "delete a whole run's rows",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				mustExec(t, db, `PRAGMA foreign_keys = OFF`)
				for _, tbl := range []string{"run_ends", "run_events", "snapshots", "plans", "changes", "change_events", "rpcs", "rpc_results", "verdicts", "blockers", "findings"} {
					mustExec(t, db, `DELETE FROM `+tbl+` WHERE run_id = 1`)
				}
				mustExec(t, db, `DELETE FROM runs WHERE id = 1`)
				return seqOf(t, db, `SELECT min(seq) FROM runs`)
			},
			wantReason: "missing (deleted)",
		},
		{
			name: "reorder two rows",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				a := seqOf(t, db, `SELECT min(seq) FROM change_events`)
				b := seqOf(t, db, `SELECT min(seq) FROM change_events WHERE seq > `+strconv.FormatInt(a, 10))
				mustExec(t, db, `UPDATE change_events SET seq = -1 WHERE seq = ?`, a)
				mustExec(t, db, `UPDATE change_events SET seq = ? WHERE seq = ?`, a, b)
				mustExec(t, db, `UPDATE change_events SET seq = ? WHERE seq = -1`, b)
				return a
			},
			wantReason: "does not match its content",
		},
		{
			name: "swap two rows' contents keeping positions",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				a := seqOf(t, db, `SELECT min(seq) FROM change_events`)
				b := seqOf(t, db, `SELECT min(seq) FROM change_events WHERE change_id != (SELECT change_id FROM change_events WHERE seq = `+strconv.FormatInt(a, 10)+`)`)
				var ida, idb string
				if err := db.QueryRow(`SELECT (SELECT change_id FROM change_events WHERE seq = ?), (SELECT change_id FROM change_events WHERE seq = ?)`, a, b).Scan(&ida, &idb); err != nil {
					t.Fatal(err)
				}
				mustExec(t, db, `UPDATE change_events SET change_id = ? WHERE seq = ?`, idb, a)
				mustExec(t, db, `UPDATE change_events SET change_id = ? WHERE seq = ?`, ida, b)
				return a
			},
			wantReason: "does not match its content",
		},
		{
			name: "append a forged row",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT seq FROM chain_head`) + 1
				mustExec(t, db, `INSERT INTO findings (seq, hash, run_id, finding_id, severity, resource, message) VALUES (?, 'f00d', 1, 'x', 'info', 'r', 'forged')`, seq)
				mustExec(t, db, `UPDATE chain_head SET seq = ?, hash = 'f00d'`, seq)
				return seq
			},
			wantReason: "does not match its content",
		},
		{
			name: "delete the newest rows",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				cut := seqOf(t, db, `SELECT seq FROM run_ends WHERE run_id = 2`)
				deleteFrom(t, db, cut)
				return cut
			},
			wantReason: "chain head record",
		},
		{
			name: "drop the chain head",
			tamper: func(t *testing.T, db *sql.DB) int64 {
				seq := seqOf(t, db, `SELECT seq FROM chain_head`)
				mustExec(t, db, `DROP TABLE chain_head`)
				return seq + 1
			},
			wantReason: "chain head record is missing",
		},
		{
			name:   "delete the newest rows and fix the head: only the anchor tells",
			anchor: receipt2,
			tamper: func(t *testing.T, db *sql.DB) int64 {
				cut := seqOf(t, db, `SELECT seq FROM run_ends WHERE run_id = 2`)
				deleteFrom(t, db, cut)
				mustExec(t, db, `UPDATE chain_head SET seq = ?, hash = ?`, cut-1, hashAt(t, db, cut-1))
				return 0
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.db")
			copyFile(t, base, path)
			db := rawDB(t, path)
			wantSeq := tt.tamper(t, db)
			db.Close()
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open of the tampered file: %v", err)
			}
			defer s.Close()
			res, err := s.Verify(ctx, tt.anchor)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if res.OK {
				t.Fatalf("Verify = %+v; want tampering reported", res)
			}
			if wantSeq == 0 {
				if res.Broken != nil || res.AnchorFound {
					t.Fatalf("Verify = %+v, broken %v; want an intact chain without the anchor", res, res.Broken)
				}
				return
			}
			if res.Broken == nil {
				t.Fatalf("Verify = %+v; want a broken link at %d", res, wantSeq)
			}
			if res.Broken.Seq != wantSeq || !strings.Contains(res.Broken.Reason, tt.wantReason) {
				t.Errorf("first broken link = %v; want at seq %d with %q", res.Broken, wantSeq, tt.wantReason)
			}
		})
	}
	// The untouched copy verifies, with either receipt as anchor.
	s, err := Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, anchor := range []string{"", receipt1, receipt2} {
		if res, err := s.Verify(ctx, anchor); err != nil || !res.OK {
			t.Errorf("Verify(untouched, anchor %q) = %+v, %v; want intact", short(anchor), res, err)
		}
	}
}

// TestVerifyDetectsTamperingWithSQLiteCLI edits the file with the sqlite3
// command-line shell, when it is installed.
func TestVerifyDetectsTamperingWithSQLiteCLI(t *testing.T) {
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 CLI not installed; TestVerifyDetectsTampering covers the same edits through SQL")
	}
	ctx := context.Background()
	path, _, _ := tamperBase(t)
	out, err := exec.Command(cli, path, `UPDATE change_events SET message = 'evil' WHERE seq = (SELECT max(seq) FROM change_events);`).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Verify(ctx, "")
	if err != nil || res.OK || res.Broken == nil {
		t.Fatalf("Verify after a sqlite3 edit = %+v, %v; want a broken link", res, err)
	}
}

// rehash recomputes one row's hash from its content and the previous row's
// stored hash, as a tamperer who knows the scheme would.
func rehash(t *testing.T, db *sql.DB, table string, seq int64) {
	t.Helper()
	prev := hashAt(t, db, seq-1)
	if prev == "" {
		prev = zeroHash
	}
	rows, err := db.Query(`SELECT * FROM `+table+` WHERE seq = ?`, seq)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatalf("no row %d in %s", seq, table)
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	mustExec(t, db, `UPDATE `+table+` SET hash = ? WHERE seq = ?`, rowHash(prev, table, cols, vals), seq)
}

// chainTables lists every hash-chained table.
var chainTables = []string{"runs", "run_ends", "receipt_signatures", "run_events", "run_endpoints", "snapshots", "plans", "changes", "change_events", "rpcs", "rpc_results", "verdicts", "blockers", "findings"}

// hashAt returns the stored hash of the row at chain position seq.
func hashAt(t *testing.T, db *sql.DB, seq int64) string {
	t.Helper()
	for _, tbl := range chainTables {
		var h string
		if err := db.QueryRow(`SELECT hash FROM `+tbl+` WHERE seq = ?`, seq).Scan(&h); err == nil {
			return h
		}
	}
	return ""
}

// deleteFrom deletes every chained row at position cut or later.
func deleteFrom(t *testing.T, db *sql.DB, cut int64) {
	t.Helper()
	mustExec(t, db, `PRAGMA foreign_keys = OFF`)
	for _, tbl := range chainTables {
		mustExec(t, db, `DELETE FROM `+tbl+` WHERE seq >= ?`, cut)
	}
}

// A plan's JSON is stored zstd-compressed; the row hash covers the stored
// bytes, so one byte changed inside the compressed blob (still a zstd frame
// by its magic, still the same length) breaks the chain at that plans row,
// and the break names the table and the run.
func TestVerifyDetectsTamperedPlanBlob(t *testing.T) {
	ctx := context.Background()
	base, _, _ := tamperBase(t)
	for _, at := range []struct {
		name string
		pos  func(n int) int
	}{
		{"first byte after the magic", func(int) int { return len(planMagic) }},
		{"middle", func(n int) int { return n / 2 }},
		{"last byte", func(n int) int { return n - 1 }},
	} {
		t.Run(at.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.db")
			copyFile(t, base, path)
			db := rawDB(t, path)
			var seq, runID int64
			var blob []byte
			if err := db.QueryRow(`SELECT seq, run_id, plan_json FROM plans WHERE run_id = 2`).Scan(&seq, &runID, &blob); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(blob, planMagic) || len(blob) < 16 {
				t.Fatalf("plan_json of run 2 is not a zstd blob: %.40q", blob)
			}
			i := at.pos(len(blob))
			blob[i] ^= 0x01
			mustExec(t, db, `UPDATE plans SET plan_json = ? WHERE seq = ?`, blob, seq)
			db.Close()
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open of the tampered file: %v", err)
			}
			defer s.Close()
			res, err := s.Verify(ctx, "")
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if res.OK || res.Broken == nil {
				t.Fatalf("Verify after changing byte %d of %d of the plan blob = %+v; want a broken link", i, len(blob), res)
			}
			b := res.Broken
			if b.Seq != seq || b.Table != "plans" || b.RunID != runID || !strings.Contains(b.Reason, "does not match its content") {
				t.Errorf("broken link = %+v; want seq %d in plans of run %d, content mismatch", b, seq, runID)
			}
			if msg := b.String(); !strings.Contains(msg, "(plans, run 2)") {
				t.Errorf("break message %q does not name the plans row and run 2", msg)
			}
			// Export does not hand out a changed plan as if it were the
			// recorded one, nor show its changes' states (they are read
			// from it): the frame's checksum fails, and the error names
			// the run.
			if cs, err := s.Changes(ctx, runID, ChangeFilter{}); err == nil || !strings.Contains(err.Error(), "run 2: stored plan JSON") {
				t.Errorf("Changes(run 2) of a changed plan blob = %d changes, %v; want an error naming run 2's stored plan JSON", len(cs), err)
			}
			// Nor a listing without states: the changes themselves are
			// read from the plan.
			if cs, err := s.Changes(ctx, runID, ChangeFilter{NoStates: true}); err == nil || !strings.Contains(err.Error(), "run 2: stored plan JSON") {
				t.Errorf("Changes(run 2, no states) of a changed plan blob = %d changes, %v; want an error naming run 2's stored plan JSON", len(cs), err)
			}
			if x, err := s.Export(ctx, runID); err == nil || !strings.Contains(err.Error(), "run 2: stored plan JSON") {
				var got string
				if x != nil && x.Plan != nil {
					got = string(x.Plan.JSON)
				}
				t.Errorf("Export(run 2) of a changed plan blob: err %v, plan %.80q; want an error naming run 2's stored plan JSON", err, got)
			}
		})
	}
}

// TestVerifyDetectsTamperedChangeRows: changes rows of plans recorded
// before schema version 6 (a database written at version 5, then opened by
// this tool) are in the chain like any other: an edit breaks it there.
func TestVerifyDetectsTamperedChangeRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := open(ctx, path, changesInPlanVersion-1)
	if err != nil {
		t.Fatal(err)
	}
	recordRun(t, s, 4)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	seq := seqOf(t, db, `SELECT min(seq) FROM changes`)
	mustExec(t, db, `UPDATE changes SET resource = 'evil' WHERE seq = ?`, seq)
	db.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Verify(ctx, "")
	if err != nil || res.OK || res.Broken == nil || res.Broken.Seq != seq || res.Broken.Table != "changes" {
		t.Fatalf("Verify after editing changes row %d = %+v, %v; want broken there", seq, res, err)
	}
}
