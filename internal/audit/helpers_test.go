package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// fixedClock returns a clock that advances one millisecond per call; safe
// for concurrent use.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

// openTest opens a fresh store in a temp dir with a deterministic clock.
func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	s.now = fixedClock()
	t.Cleanup(func() { s.Close() })
	return s, path
}

// rawDB opens the file without the audit package, as a tamperer would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// testPlan builds a plan of n topic changes plus a policy denial (a
// blocker with a verdict), a verdict on the first change and a finding.
func testPlan(n int) *plan.Plan {
	p := &plan.Plan{Format: plan.FormatVersion, Fingerprint: "fp-test",
		Source: plan.Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka", ClusterID: "src-id"},
		Target: plan.Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id"},
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("orders-%05d", i)
		p.Changes = append(p.Changes, plan.Change{
			ID: "topic:" + name, Kind: plan.KindTopic, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "topic", Name: name},
			After: &plan.State{Partitions: 3, ReplicationFactor: 3,
				Configs: []snapshot.Config{{Key: "retention.ms", Value: "86400000"}}},
		})
	}
	if n > 0 {
		p.Changes[0].Verdict = &plan.Verdict{Allowed: true, Rule: "rf-min", Message: "replication factor at least 3"}
	}
	p.Blockers = []plan.Blocker{{ID: "policy-denied", Kind: plan.KindTopic, Resource: "tmp-scratch",
		Reason: "policy rule no-tmp denies CREATE", Fix: "rename the topic",
		Change: &plan.Change{ID: "topic:tmp-scratch", Kind: plan.KindTopic, Action: plan.ActionCreate,
			Verdict: &plan.Verdict{Allowed: false, Rule: "no-tmp", Message: "tmp topics are not migrated"}}}}
	p.Findings = []snapshot.Finding{{ID: "topic-id-changes", Severity: snapshot.SeverityInfo, Resource: "orders-00000",
		Message: "the topic id will change"}}
	return p
}

// applyBatches feeds an observer batches of size per RPC over p's changes,
// in the order internal/apply emits events (BatchSent, BatchDone, then one
// ResourceResult per change, Batch unset). fail marks changes that fail.
func applyBatches(o apply.Observer, p *plan.Plan, size int, fail func(i int) bool) {
	o.Observe(apply.RunStarted{Plan: p, Total: len(p.Changes)})
	batch := 0
	for i := 0; i < len(p.Changes); i += size {
		batch++
		var cs []*plan.Change
		for j := i; j < i+size && j < len(p.Changes); j++ {
			cs = append(cs, &p.Changes[j])
		}
		rpc, _ := apply.RPCOf(cs[0])
		o.Observe(apply.BatchSent{Batch: batch, RPC: rpc, Version: -1, Broker: -1, Changes: cs})
		o.Observe(apply.BatchDone{Batch: batch, RPC: rpc, Version: 7, Broker: 1, Duration: 1500 * time.Microsecond})
		for k, c := range cs {
			rr := apply.ResourceResult{Change: c}
			if fail != nil && fail(i+k) {
				rr.ErrorCode, rr.ErrorName, rr.Message = 44, "POLICY_VIOLATION", "denied by the broker"
				rr.Err = errors.New("POLICY_VIOLATION")
			}
			o.Observe(rr)
		}
	}
}

// recordRun records a whole apply run of n changes and returns its id and
// receipt.
func recordRun(t testing.TB, s *Store, n int) (int64, string) {
	t.Helper()
	id, head, err := recordRunE(s, n)
	if err != nil {
		t.Fatal(err)
	}
	return id, head
}

// recordRunE is recordRun for goroutines: it returns the error.
func recordRunE(s *Store, n int) (int64, string, error) {
	ctx := context.Background()
	r, err := s.BeginRun(ctx, RunInfo{Command: "apply", Args: []string{"--plan", "plan.json"}, User: "ops", Host: "bastion", ToolVersion: "test",
		Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id", Principal: "User:admin"}})
	if err != nil {
		return 0, "", err
	}
	p := testPlan(n)
	if err := r.RecordSnapshot(ctx, "source", "sha256:src", map[string]int{"topics": n}); err != nil {
		return 0, "", err
	}
	if err := r.RecordPlan(ctx, p); err != nil {
		return 0, "", err
	}
	applyBatches(r.Observer(), p, 2, func(i int) bool { return i == 1 })
	if err := r.Err(); err != nil {
		return 0, "", err
	}
	head, err := r.Finish(ctx, "partial", 3)
	return r.ID(), head, err
}
