package audit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestRecordForRevert: Record reads back what a run did, change by change
// (made, in flight, or not: failed, skipped, validated only), the whole
// states it found before deleting, and its record digest, which is the
// hash of its own last row and stays put when another run closes it as
// abandoned. A revert run's link is read back by audit log and checked by
// Verify, which reports a link whose record row is not the reverted run's.
func TestRecordForRevert(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	p := testPlan(5)
	p.Changes = append(p.Changes, plan.Change{ID: "topic:gone", Kind: plan.KindTopic, Action: plan.ActionDelete,
		Resource: plan.Resource{Type: "topic", Name: "gone"}, Before: &plan.State{Partitions: 2, ReplicationFactor: 1}})
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{Kind: "kafka", ClusterID: "dst-id"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	whole := &plan.State{Partitions: 2, ReplicationFactor: 1, Assignment: [][]int32{{1}, {2}},
		Configs: []snapshot.Config{{Key: "retention.ms", Value: "1000"}, {Key: "sasl.jaas.config", Sensitive: true, Value: "never-stored-jaas"}}}
	o := r.Observer()
	c := func(i int) *plan.Change { return &p.Changes[i] }
	o.Observe(apply.RunStarted{Plan: p, Total: 5, Found: map[string]*plan.State{"topic:gone": whole}})
	// 0: validated then made; 1: failed; 2: skipped; 3: in flight (a dry
	// run's request answered, then the real one never); 4: only planned;
	// 5 (the delete): made.
	o.Observe(apply.BatchSent{Batch: 1, RPC: "CreateTopics", ValidateOnly: true, Changes: []*plan.Change{c(0), c(3)}})
	o.Observe(apply.BatchDone{Batch: 1, RPC: "CreateTopics"})
	o.Observe(apply.ResourceResult{Change: c(0), ValidateOnly: true})
	o.Observe(apply.ResourceResult{Change: c(3), ValidateOnly: true})
	o.Observe(apply.BatchSent{Batch: 2, RPC: "CreateTopics", Changes: []*plan.Change{c(0), c(1)}})
	o.Observe(apply.BatchDone{Batch: 2, RPC: "CreateTopics"})
	o.Observe(apply.ResourceResult{Change: c(0)})
	o.Observe(apply.ResourceResult{Change: c(1), ErrorCode: 36, Err: errors.New("TOPIC_ALREADY_EXISTS")})
	o.Observe(apply.ChangeSkipped{Change: c(2), Reason: "already-applied"})
	o.Observe(apply.BatchSent{Batch: 3, RPC: "DeleteTopics", Changes: []*plan.Change{c(5)}})
	o.Observe(apply.BatchDone{Batch: 3, RPC: "DeleteTopics"})
	o.Observe(apply.ResourceResult{Change: c(5)})
	o.Observe(apply.BatchSent{Batch: 4, RPC: "CreateTopics", Changes: []*plan.Change{c(3)}})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// Killed here: no end. Its lock is gone with it (no target_locks row).
	rec, err := s.Record(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Journal{"topic:orders-00000": JournalApplied, "topic:orders-00003": JournalInFlight, "topic:gone": JournalApplied}
	if len(rec.Journal) != len(want) {
		t.Errorf("journal %v, want %v", rec.Journal, want)
	}
	for id, j := range want {
		if rec.Journal[id] != j {
			t.Errorf("journal of %s = %v, want %v", id, rec.Journal[id], j)
		}
	}
	if rec.Plan == nil || len(rec.Plan.Changes) != 6 || rec.Plan.Changes[5].Before.Partitions != 2 {
		t.Fatalf("recorded plan %+v", rec.Plan)
	}
	got := rec.Found["topic:gone"]
	if got == nil || len(got.Assignment) != 2 || got.Configs[0].Value != "1000" || got.Configs[1].Value != Redacted || len(rec.Found) != 1 {
		t.Errorf("found states %+v, want topic:gone whole with its sensitive value redacted", rec.Found)
	}
	if b, err := os.ReadFile(path + "-wal"); err == nil && strings.Contains(string(b), "never-stored-jaas") {
		t.Error("the found state's sensitive value reached the database")
	}
	var lastSeq int64
	var lastHash string
	if err := s.r.QueryRowContext(ctx, `SELECT seq, hash FROM change_events WHERE run_id = ? ORDER BY seq DESC LIMIT 1`, r.ID()).Scan(&lastSeq, &lastHash); err != nil {
		t.Fatal(err)
	}
	if rec.Seq != lastSeq || rec.Digest != lastHash {
		t.Errorf("record digest %d %s, want the run's last row %d %s", rec.Seq, rec.Digest, lastSeq, lastHash)
	}

	// Another run closes the killed one as abandoned and reverts it: the
	// record still ends where it did, and the link is read back.
	m, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{Kind: "kafka", ClusterID: "dst-id"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AbandonRuns(ctx, []int64{r.ID()}); err != nil {
		t.Fatal(err)
	}
	again, err := s.Record(ctx, r.ID())
	if err != nil || again.Seq != rec.Seq || again.Digest != rec.Digest {
		t.Fatalf("record after abandonment: %+v, %v; want it to end at %d as before", again, err, rec.Seq)
	}
	if err := m.RecordReverts(ctx, r.ID(), rec.Seq, rec.Digest); err != nil {
		t.Fatal(err)
	}
	if err := m.RecordReverts(ctx, m.ID(), rec.Seq, rec.Digest); err == nil {
		t.Error("a run reverting itself was recorded")
	}
	if _, err := m.Finish(ctx, "applied", 0); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range runs {
		switch x.ID {
		case m.ID():
			if x.Reverts != r.ID() || x.RevertedBy != nil {
				t.Errorf("run %d: reverts %d, reverted by %v", x.ID, x.Reverts, x.RevertedBy)
			}
		case r.ID():
			if x.Reverts != 0 || len(x.RevertedBy) != 1 || x.RevertedBy[0] != m.ID() {
				t.Errorf("run %d: reverts %d, reverted by %v", x.ID, x.Reverts, x.RevertedBy)
			}
		}
	}
	res, err := s.Verify(ctx, "")
	if err != nil || !res.OK || len(res.Reverts) != 1 || res.Reverts[0].Problem != "" || res.Reverts[0].Run != m.ID() || res.Reverts[0].Reverts != r.ID() {
		t.Fatalf("Verify = %+v, %v; want intact with the link checked", res, err)
	}

	// A link naming a row that is not the reverted run's does not hold.
	bad, err := s.BeginRun(ctx, RunInfo{Command: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.RecordReverts(ctx, r.ID(), rec.Seq+1, rec.Digest); err != nil {
		t.Fatal(err)
	}
	res, err = s.Verify(ctx, "")
	if err != nil || res.OK || res.Broken != nil || len(res.Reverts) != 2 || !strings.Contains(res.Reverts[1].Problem, "not run") {
		t.Errorf("Verify with a bad link = %+v, %v; want it reported, the chain intact", res, err)
	}

	// Refusals: no such run, a run without a plan, a run still running.
	if _, err := s.Record(ctx, 99); !errors.Is(err, ErrNoRun) {
		t.Errorf("Record(99) = %v, want ErrNoRun", err)
	}
	if _, err := s.Record(ctx, bad.ID()); err == nil || !strings.Contains(err.Error(), "recorded no plan") {
		t.Errorf("Record of a run without a plan = %v", err)
	}
	live, err := s.BeginRun(ctx, RunInfo{Command: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	_ = live.RecordPlan(ctx, testPlan(1))
	release, err := s.AcquireTargetLock(ctx, "dst-id", live.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var re *RunningError
	if _, err := s.Record(ctx, live.ID()); !errors.As(err, &re) || re.Run != live.ID() {
		t.Errorf("Record of a running run = %v, want a RunningError", err)
	}
}
