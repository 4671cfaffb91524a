package audit

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestBeginPlannedRun: a run begun with its endpoints, plan and notes in
// one transaction holds what BeginRun, RecordPlan and Note record one
// after another (but for when: one transaction has one time), the chain
// verifies, and a second plan is refused as after RecordPlan.
func TestBeginPlannedRun(t *testing.T) {
	ctx := context.Background()
	ri := RunInfo{Command: "sync-round", Args: []string{"sync", "--yes"}, User: "ops", Host: "bastion", ToolVersion: "1.2.3",
		Source: Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"},
		Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id", Principal: "User:admin"}}
	notes := []Note{{"sync-round", "session run 1, round 2 (change), zxid 0x10"}, {"warning", "second note"}}
	p := testPlan(5)

	apart, apartPath := openTest(t)
	ra, err := apart.BeginRun(ctx, ri)
	if err != nil {
		t.Fatal(err)
	}
	if err := ra.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if err := ra.Note(ctx, n.Kind, n.Detail); err != nil {
			t.Fatal(err)
		}
	}
	once, oncePath := openTest(t)
	rb, err := once.BeginPlannedRun(ctx, ri, p, notes...)
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.RecordPlan(ctx, p); err == nil {
		t.Error("a second plan was recorded, want it refused")
	}
	for _, r := range []*Run{ra, rb} {
		applyBatches(r.Observer(), p, 2, nil)
		if _, err := r.Finish(ctx, "applied", 0); err != nil {
			t.Fatal(err)
		}
	}
	// Every row but its time and hash (the times differ: one transaction
	// reads the clock fewer times).
	queries := []string{
		`SELECT id, command, args, os_user, host, tool_version, source_kind, source_address, source_cluster_id, target_kind, target_address, target_cluster_id, target_principal FROM runs ORDER BY seq`,
		`SELECT run_id, kind, coalesce(detail, '') FROM run_events ORDER BY seq`,
		`SELECT run_id, fingerprint, changes, blockers, findings, counts, hex(plan_json) FROM plans ORDER BY seq`,
		`SELECT run_id, change_id, allowed, coalesce(rule, '') FROM verdicts ORDER BY seq`,
		`SELECT run_id, blocker_id, resource, reason FROM blockers ORDER BY seq`,
		`SELECT run_id, finding_id, resource, message FROM findings ORDER BY seq`,
		`SELECT run_id, batch, api, change_ids FROM rpcs ORDER BY seq`,
		`SELECT run_id, change_id, status FROM change_events ORDER BY seq`,
		`SELECT run_id, outcome, exit_code, succeeded FROM run_ends ORDER BY seq`,
	}
	rows := func(path, q string) [][]string {
		db := rawDB(t, path)
		rs, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		var out [][]string
		for rs.Next() {
			vals := make([]string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, vals)
		}
		return out
	}
	for _, q := range queries {
		a, b := rows(apartPath, q), rows(oncePath, q)
		if len(a) == 0 {
			t.Errorf("%s: no rows", q)
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("%s differs (-apart +once):\n%s", q, d)
		}
	}
	res, err := once.Verify(ctx, "")
	if err != nil || !res.OK {
		t.Errorf("verify: %+v, %v; want the chain intact", res, err)
	}
}

// TestBeginPlannedRunAtomic: a plan that cannot be recorded leaves no run
// at all (begin, plan and notes are one transaction), where BeginRun and
// RecordPlan leave a run without its plan.
func TestBeginPlannedRunAtomic(t *testing.T) {
	ctx := context.Background()
	bad := testPlan(2)
	bad.Changes[1].Kind = "no-such-kind"
	s, path := openTest(t)
	if _, err := s.BeginPlannedRun(ctx, RunInfo{Command: "sync-round"}, bad, Note{"sync-round", "x"}); err == nil {
		t.Fatal("BeginPlannedRun recorded a plan apply cannot carry")
	}
	var runs, events int
	db := rawDB(t, path)
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_events)`).Scan(&runs, &events); err != nil {
		t.Fatal(err)
	}
	if runs != 0 || events != 0 {
		t.Errorf("after the failed begin: %d runs, %d events; want none", runs, events)
	}
	if _, err := s.BeginPlannedRun(ctx, RunInfo{Command: "sync-round"}, testPlan(1)); err != nil {
		t.Errorf("a good plan after the failed one: %v", err)
	}
	if _, err := s.BeginPlannedRun(ctx, RunInfo{Command: "sync-round"}, nil); err == nil {
		t.Error("BeginPlannedRun without a plan succeeded, want an error")
	}
}

// TestBeginPlannedRunManyRows: a run begun with a plan holding a full
// INSERT statement's worth of blockers, verdicts or findings records it.
// The run's own row waited in its batch while the plan's rows were
// inserted, and a batch that filled up was written at once, before it:
// "insert into blockers: FOREIGN KEY constraint failed" (what a frozen sync
// round over a test bed with leftovers met: 64 or more blocked changes).
func TestBeginPlannedRunManyRows(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		grow func(p *plan.Plan, n int)
	}{
		{"blockers", func(p *plan.Plan, n int) {
			for i := range n {
				p.Blockers = append(p.Blockers, plan.Blocker{ID: "scram-no-password", Kind: plan.KindScramUser,
					Resource: fmt.Sprintf("user-%03d", i), Reason: "no password"})
			}
		}},
		{"verdicts", func(p *plan.Plan, n int) {
			for i := range p.Changes[:n] {
				p.Changes[i].Verdict = &plan.Verdict{Allowed: true, Rule: "ok"}
			}
		}},
		{"findings", func(p *plan.Plan, n int) {
			for i := range n {
				p.Findings = append(p.Findings, snapshot.Finding{ID: "topic-id-changes", Severity: snapshot.SeverityInfo,
					Resource: fmt.Sprintf("orders-%05d", i), Message: "the topic id will change"})
			}
		}},
	} {
		for _, n := range []int{rowsPerInsert - 1, rowsPerInsert, 2*rowsPerInsert + 1} {
			t.Run(fmt.Sprintf("%s-%d", tc.name, n), func(t *testing.T) {
				s, _ := openTest(t)
				// An earlier run, so the new run's id is not the first.
				if _, err := s.BeginRun(ctx, RunInfo{Command: "sync"}); err != nil {
					t.Fatal(err)
				}
				p := testPlan(n)
				tc.grow(p, n)
				r, err := s.BeginPlannedRun(ctx, RunInfo{Command: "sync-round"}, p, Note{"sync-round", "frozen"})
				if err != nil {
					t.Fatalf("BeginPlannedRun: %v", err)
				}
				var blockers, verdicts, findings int
				if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM blockers WHERE run_id = ?1),
					(SELECT count(*) FROM verdicts WHERE run_id = ?1), (SELECT count(*) FROM findings WHERE run_id = ?1)`, r.ID()).
					Scan(&blockers, &verdicts, &findings); err != nil {
					t.Fatal(err)
				}
				wantVerdicts := 1 + 1 // testPlan's first change and its blocker
				if tc.name == "verdicts" {
					wantVerdicts = n + 1
				}
				if blockers != len(p.Blockers) || verdicts != wantVerdicts || findings != len(p.Findings) {
					t.Errorf("recorded %d blockers, %d verdicts, %d findings; want %d, %d, %d",
						blockers, verdicts, findings, len(p.Blockers), wantVerdicts, len(p.Findings))
				}
				head, err := r.Finish(ctx, "frozen", 0)
				if err != nil {
					t.Fatal(err)
				}
				if res, err := s.Verify(ctx, head); err != nil || !res.OK {
					t.Errorf("verify: %+v, %v; want the chain intact", res, err)
				}
			})
		}
	}
}

// TestParentTablesComplete: every table a foreign key of the schema
// references is in parentTables, so that its rows are written before the
// rows that reference them (a migration adding a reference must add the
// table there).
func TestParentTablesComplete(t *testing.T) {
	_, path := openTest(t)
	db := rawDB(t, path)
	rows, err := db.Query(`SELECT DISTINCT f."table" FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var parent string
		if err := rows.Scan(&parent); err != nil {
			t.Fatal(err)
		}
		n++
		if !parentTables[parent] {
			t.Errorf("table %s is referenced by a foreign key and not in parentTables", parent)
		}
	}
	if n == 0 {
		t.Error("no foreign keys found in the schema; the query is wrong")
	}
}
