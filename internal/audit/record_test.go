package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func TestRecordApplyRun(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply", Args: []string{"--plan", "p.json"}, User: "ops", Host: "bastion", ToolVersion: "1.2.3",
		Options: plan.Options{Principal: "User:admin", Prune: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetEndpoints(ctx, Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"},
		Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id", Principal: "User:admin"}); err != nil {
		t.Fatal(err)
	}
	p := testPlan(5)
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := r.RecordPlan(ctx, p); err == nil {
		t.Error("second RecordPlan in one run succeeded, want an error")
	}
	o := r.Observer()
	o.Observe(apply.RunStarted{Plan: p, Total: 4})
	o.Observe(apply.ChangeSkipped{Change: &p.Changes[4], Reason: "already-applied", Detail: "the target is already in the planned state"})
	// Batch 1: results after BatchDone (internal/apply's order), Batch unset.
	o.Observe(apply.BatchSent{Batch: 1, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Changes: []*plan.Change{&p.Changes[0], &p.Changes[1]}})
	o.Observe(apply.BatchDone{Batch: 1, RPC: apply.RPCCreateTopics, Version: 7, Broker: 2, Duration: 2500 * time.Microsecond})
	o.Observe(apply.ResourceResult{Change: &p.Changes[0]})
	o.Observe(apply.ResourceResult{Change: &p.Changes[1], ErrorCode: 44, ErrorName: "POLICY_VIOLATION", Message: "no", Err: errors.New("POLICY_VIOLATION")})
	// Batch 2: results before BatchDone, Batch set.
	o.Observe(apply.BatchSent{Batch: 2, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Changes: []*plan.Change{&p.Changes[2]}})
	o.Observe(apply.ResourceResult{Change: &p.Changes[2], Batch: 2})
	o.Observe(apply.BatchDone{Batch: 2, RPC: apply.RPCCreateTopics, Version: 7, Broker: 1, Duration: time.Millisecond})
	// Batch 3: the request fails as a whole and its change is never resolved.
	o.Observe(apply.BatchSent{Batch: 3, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Changes: []*plan.Change{&p.Changes[3]}})
	o.Observe(apply.BatchDone{Batch: 3, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Duration: time.Millisecond, Err: errors.New("connection refused")})
	o.Observe(apply.RunFinished{Succeeded: 2, Failed: 1, Skipped: 1})
	head, err := r.Finish(ctx, "partial", 3)
	if err != nil || len(head) != 64 {
		t.Fatalf("Finish = %q, %v; want a 64-hex receipt", head, err)
	}
	if r.Err() != nil {
		t.Fatalf("observer error: %v", r.Err())
	}

	got, err := s.Changes(ctx, r.ID(), ChangeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		ID, Status, ErrorName, Reason string
		Batch, ErrorCode              int
		Statuses                      []string
	}
	var briefs []brief
	for _, c := range got {
		b := brief{ID: c.ChangeID, Status: c.Status, ErrorName: c.ErrorName, Reason: c.Reason, Batch: c.Batch, ErrorCode: c.ErrorCode}
		for _, e := range c.Events {
			b.Statuses = append(b.Statuses, e.Status)
		}
		briefs = append(briefs, b)
	}
	want := []brief{
		{ID: "topic:orders-00000", Status: "succeeded", Batch: 1, Statuses: []string{"sent", "succeeded"}},
		{ID: "topic:orders-00001", Status: "failed", Batch: 1, ErrorCode: 44, ErrorName: "POLICY_VIOLATION", Statuses: []string{"sent", "failed"}},
		{ID: "topic:orders-00002", Status: "succeeded", Batch: 2, Statuses: []string{"sent", "succeeded"}},
		{ID: "topic:orders-00003", Status: "sent", Batch: 3, Statuses: []string{"sent"}},
		{ID: "topic:orders-00004", Status: "skipped", Reason: "already-applied", Statuses: []string{"skipped"}},
	}
	if diff := cmp.Diff(want, briefs); diff != "" {
		t.Errorf("Changes mismatch (-want +got):\n%s", diff)
	}
	if got[0].Verdict == nil || got[0].Verdict.Rule != "rf-min" {
		t.Errorf("change 0 verdict = %+v, want rule rf-min", got[0].Verdict)
	}
	failed, err := s.Changes(ctx, r.ID(), ChangeFilter{Status: "failed", Kind: "topic"})
	if err != nil || len(failed) != 1 || failed[0].ChangeID != "topic:orders-00001" {
		t.Errorf("Changes(status=failed) = %+v, %v; want orders-00001 only", failed, err)
	}

	rpcs, err := s.RPCs(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	wantRPCs := []RPCRecord{
		{Batch: 1, API: "CreateTopics", Version: 7, Broker: 2, Principal: "User:admin", Resources: 2, ChangeIDs: []string{"topic:orders-00000", "topic:orders-00001"}, Result: "ok", Duration: 2500 * time.Microsecond},
		{Batch: 2, API: "CreateTopics", Version: 7, Broker: 1, Principal: "User:admin", Resources: 1, ChangeIDs: []string{"topic:orders-00002"}, Result: "ok", Duration: time.Millisecond},
		{Batch: 3, API: "CreateTopics", Version: -1, Broker: -1, Principal: "User:admin", Resources: 1, ChangeIDs: []string{"topic:orders-00003"}, Result: "error", Error: "connection refused", Duration: time.Millisecond},
	}
	if diff := cmp.Diff(wantRPCs, rpcs, cmpopts.IgnoreFields(RPCRecord{}, "Seq", "Started", "Finished")); diff != "" {
		t.Errorf("RPCs mismatch (-want +got):\n%s", diff)
	}

	run, err := s.Run(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	exit := 3
	wantRun := RunSummary{ID: 1, Command: "apply", Args: []string{"--plan", "p.json"}, User: "ops", Host: "bastion", PID: os.Getpid(), ToolVersion: "1.2.3",
		Source:  Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"},
		Target:  Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id", Principal: "User:admin"},
		Outcome: "partial", ExitCode: &exit, Succeeded: 2, Failed: 1, Skipped: 1, Head: head}
	if diff := cmp.Diff(wantRun, run, cmpopts.IgnoreFields(RunSummary{}, "Started", "Finished", "Options")); diff != "" {
		t.Errorf("Run mismatch (-want +got):\n%s", diff)
	}
	if !bytes.Contains(run.Options, []byte(`"prune":true`)) {
		t.Errorf("run options = %s, want the plan options", run.Options)
	}

	x, err := s.Export(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if x.Plan == nil || x.Plan.Fingerprint != "fp-test" || x.Plan.Changes != 5 || x.Plan.Counts["topic"] != 5 {
		t.Errorf("export plan = %+v, want fingerprint fp-test with 5 topic changes", x.Plan)
	}
	if len(x.Blockers) != 1 || x.Blockers[0].Rule != "no-tmp" || len(x.Findings) != 1 {
		t.Errorf("export blockers %+v findings %+v; want the policy denial and one finding", x.Blockers, x.Findings)
	}
	var kinds []string
	for _, e := range x.Events {
		kinds = append(kinds, e.Kind)
	}
	if diff := cmp.Diff([]string{"apply-started", "apply-finished"}, kinds); diff != "" {
		t.Errorf("run events mismatch (-want +got):\n%s", diff)
	}

	res, err := s.Verify(ctx, head)
	if err != nil || !res.OK || !res.AnchorFound || res.RowsAfterAnchor != 0 {
		t.Fatalf("Verify(receipt) = %+v, %v; want intact with the receipt as head", res, err)
	}
}

func TestFinishReportsObserverErrors(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []error
	r.SetOnError(func(err error) { seen = append(seen, err) })
	// Make every insert into rpcs fail, as a full disk or a broken file would.
	db := rawDB(t, path)
	mustExec(t, db, `CREATE TRIGGER no_rpcs BEFORE INSERT ON rpcs BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
	p := testPlan(1)
	r.Observer().Observe(apply.BatchSent{Batch: 1, RPC: "CreateTopics", Changes: []*plan.Change{&p.Changes[0]}})
	if len(seen) != 1 || r.Err() == nil {
		t.Fatalf("onError calls = %v, Err() = %v; want the failed intent reported", seen, r.Err())
	}
	head, err := r.Finish(ctx, "failed", 1)
	if !errors.Is(err, ErrIncomplete) || head == "" {
		t.Fatalf("Finish = %q, %v; want a receipt and ErrIncomplete", head, err)
	}
}

func TestReadersDoNotBlockWriters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, path := openTest(t)
	recordRun(t, s, 2)
	// A reader in the middle of a read transaction...
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var before int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	// ...does not stop a writer in another connection (another process).
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	recordRun(t, other, 2)
	var during int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&during); err != nil {
		t.Fatal(err)
	}
	if during != before {
		t.Errorf("reader saw %d runs inside its transaction, then %d: its snapshot moved", before, during)
	}
	// And a writer holding the write lock does not stop readers.
	db := rawDB(t, path)
	wtx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wtx.Rollback()
	if _, err := wtx.ExecContext(ctx, `UPDATE chain_head SET seq = seq WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	runs, err := other.Runs(ctx, 0)
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs while another connection holds the write lock = %d runs, %v; want 2", len(runs), err)
	}
	if res, err := other.Verify(ctx, ""); err != nil || !res.OK {
		t.Fatalf("Verify while another connection holds the write lock = %+v, %v", res, err)
	}
}

func TestRecordSnapshotRole(t *testing.T) {
	s, _ := openTest(t)
	r, err := s.BeginRun(context.Background(), RunInfo{Command: "check"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RecordSnapshot(context.Background(), "sideways", "d", nil); err == nil {
		t.Error(`RecordSnapshot(role "sideways") succeeded, want an error`)
	}
	if err := r.RecordFindings(context.Background(), []snapshot.Finding{{ID: "x", Severity: "info", Resource: "/brokers", Message: "m"}}); err != nil {
		t.Error(err)
	}
}

func TestFinishAfterCancel(t *testing.T) {
	s, _ := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // Ctrl-C
	head, err := r.Finish(ctx, "canceled", 3)
	if err != nil || head == "" {
		t.Fatalf("Finish with a canceled context = %q, %v; want the end recorded", head, err)
	}
	run, err := s.Run(context.Background(), r.ID())
	if err != nil || run.Outcome != "canceled" {
		t.Errorf("run = %+v, %v; want outcome canceled", run, err)
	}
}

// TestRecordExcludedAndMechanism: a change left out in review is
// recorded "excluded" (not "planned", not counted as skipped), and a
// SCRAM credential's change names its mechanism, so a user's two
// credentials never read alike.
func TestRecordExcludedAndMechanism(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	p := testPlan(1)
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
		c := plan.Change{ID: "scram-user:alice/" + mech, Kind: plan.KindScramUser, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "user", Name: "alice", Mechanism: mech}, After: &plan.State{Iterations: 4096}}
		p.Changes = append(p.Changes, c)
	}
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	o := r.Observer()
	o.Observe(apply.ChangeSkipped{Change: &p.Changes[2], Reason: apply.ReasonExcluded, Detail: "not in the selection applied"})
	o.Observe(apply.RunFinished{})
	if _, err := r.Finish(ctx, "succeeded", 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Changes(ctx, r.ID(), ChangeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	status, mech := map[string]string{}, map[string]string{}
	for _, c := range got {
		status[c.ChangeID], mech[c.ChangeID] = c.Status, c.Mechanism
	}
	if status["scram-user:alice/SCRAM-SHA-512"] != "excluded" || status["scram-user:alice/SCRAM-SHA-256"] != "planned" {
		t.Errorf("statuses %v; want the excluded one excluded, the other planned", status)
	}
	if mech["scram-user:alice/SCRAM-SHA-256"] != "SCRAM-SHA-256" || mech["scram-user:alice/SCRAM-SHA-512"] != "SCRAM-SHA-512" {
		t.Errorf("mechanisms %v", mech)
	}
	runs, err := s.Runs(ctx, 1)
	if err != nil || len(runs) != 1 || runs[0].Skipped != 0 {
		t.Errorf("runs %+v, %v; want one run with 0 skipped (an exclusion is not a skip)", runs, err)
	}
	if ex, err := s.Changes(ctx, r.ID(), ChangeFilter{Status: "excluded"}); err != nil || len(ex) != 1 {
		t.Errorf("--status excluded: %d changes, %v; want 1", len(ex), err)
	}
}
