package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestAuditSigningFlags: keygen, runs that sign with --audit-key and append
// to --receipt-file, and audit verify with the key, the receipts and a
// wrong key; a tampered signature is caught.
func TestAuditSigningFlags(t *testing.T) {
	dir := t.TempDir()
	key, db, receipts := filepath.Join(dir, "audit.key"), filepath.Join(dir, "audit.db"), filepath.Join(dir, "receipts.jsonl")
	code, out, errs := runMigrate(t, "audit", "keygen", "--out", key)
	if code != exitOK || !strings.Contains(out, key+".pub") {
		t.Fatalf("keygen: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runMigrate(t, "audit", "keygen", "--out", key); code != exitError || !strings.Contains(errs, "exists") {
		t.Fatalf("keygen over an existing key: exit %d\n%s", code, errs)
	}
	for i := 0; i < 2; i++ {
		code, _, errs := runMigrate(t, "check", "--snapshot", checkFixture, "--audit-db", db, "--audit-key", key, "--receipt-file", receipts)
		if code != exitOK && code != exitPartial {
			t.Fatalf("check: exit %d\n%s", code, errs)
		}
		if !strings.Contains(errs, "receipt ") || !strings.Contains(errs, "(signed by key ") {
			t.Fatalf("check did not print a signed receipt:\n%s", errs)
		}
	}
	// Signing needs the private key: with a public one the audit trail is
	// unavailable, said on stderr (apply then refuses to run).
	code, _, errs = runMigrate(t, "check", "--snapshot", checkFixture, "--audit-db", db, "--audit-key", key+".pub")
	if !strings.Contains(errs, "--audit-key") || !strings.Contains(errs, "private key") {
		t.Errorf("check with a public key: exit %d\n%s", code, errs)
	}
	data, _ := os.ReadFile(receipts)
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Fatalf("receipt file has %d lines, want 2:\n%s", n, data)
	}

	code, out, errs = runMigrate(t, "audit", "verify", "--audit-db", db, "--audit-key", key+".pub", "--receipt-file", receipts)
	if code != exitOK || !strings.Contains(out, "2 receipts signed by key") || !strings.Contains(out, "all 2 in "+receipts) {
		t.Fatalf("verify with key and receipts: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", db)
	if code != exitOK || !strings.Contains(out, "not checked (give --audit-key") {
		t.Errorf("plain verify: exit %d\n%s", code, out)
	}
	code, out, _ = runMigrate(t, "audit", "log", "--audit-db", db)
	if code != exitOK || strings.Count(out, " signed") < 2 {
		t.Errorf("audit log does not mark the signed receipts:\n%s", out)
	}

	other := filepath.Join(dir, "other.key")
	if code, _, errs := runMigrate(t, "audit", "keygen", "--out", other); code != exitOK {
		t.Fatal(errs)
	}
	code, _, errs = runMigrate(t, "audit", "verify", "--audit-db", db, "--audit-key", other+".pub")
	if code != exitError || !strings.Contains(errs, "not by key") || !strings.Contains(errs, other+".pub") {
		t.Errorf("verify with the wrong key: exit %d, want 1 with a clear message\n%s", code, errs)
	}
	code, _, errs = runMigrate(t, "audit", "verify", "--audit-db", db, "--receipt-file", filepath.Join(dir, "nope"))
	if code != exitError || !strings.Contains(errs, "nope") {
		t.Errorf("verify with a missing receipt file: exit %d\n%s", code, errs)
	}

	// Alter the newest signature (its row hash recomputed so that the chain
	// itself stays intact): only the key catches it.
	raw, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	var sig string
	if err := raw.QueryRow(`SELECT seq, signature FROM receipt_signatures ORDER BY seq DESC LIMIT 1`).Scan(&seq, &sig); err != nil {
		t.Fatal(err)
	}
	alt := []byte(sig)
	alt[1] ^= 1
	if _, err := raw.Exec(`UPDATE receipt_signatures SET signature = ? WHERE seq = ?`, string(alt), seq); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", db, "--audit-key", key)
	if code != exitPartial || !strings.Contains(out, "TAMPERED") {
		t.Errorf("verify after altering a signature: exit %d, want 3\n%s", code, out)
	}
}

// TestApplyClosesAbandonedRuns: applies killed long ago are closed as
// abandoned by the apply that takes over the target, once; audit log and
// show say so, and the next apply lists nothing to resume.
func TestApplyClosesAbandonedRuns(t *testing.T) {
	ctx := context.Background()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("abandon"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := strings.Join(c.ListenAddrs(), ",")
	conn, err := kafkaconn.Dial(ctx, c.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tgt, err := kread.Read(ctx, conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Brokers: tgt.Brokers,
		Topics: []snapshot.Topic{{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{tgt.Brokers[0].ID}}}}}}
	data, _ := json.Marshal(src)
	snap := filepath.Join(dir, "source.json")
	if err := os.WriteFile(snap, data, 0o600); err != nil {
		t.Fatal(err)
	}

	// Two applies against this target that were killed: the first held
	// the lock (its process is gone), the second never got that far.
	db := filepath.Join(dir, "audit.db")
	s, err := audit.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var killed []int64
	for i := 0; i < 2; i++ {
		r, err := s.BeginRun(ctx, audit.RunInfo{Command: "apply", Target: audit.Endpoint{Kind: "kafka", Address: addr, ClusterID: "abandon"}})
		if err != nil {
			t.Fatal(err)
		}
		killed = append(killed, r.ID())
	}
	if _, err := s.AcquireTargetLock(ctx, "abandon", killed[0]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE target_locks SET pid = 999999999`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	args := []string{"apply", "--yes", "--snapshot", snap, "--bootstrap-server", addr, "--audit-db", db}
	code, _, errs := runMigrate(t, args...)
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	for _, id := range killed {
		if !strings.Contains(errs, "interrupted run "+strconv.FormatInt(id, 10)+" (closed as abandoned)") {
			t.Errorf("apply did not close run %d:\n%s", id, errs)
		}
	}
	code, _, errs = runMigrate(t, args...)
	if code != exitOK || strings.Contains(errs, "Resuming") {
		t.Errorf("second apply: exit %d, resumes again:\n%s", code, errs)
	}

	code, out, _ := runMigrate(t, "audit", "log", "--audit-db", db, "-o", "json")
	var runs []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &runs); code != exitOK || err != nil || len(runs) != 4 {
		t.Fatalf("audit log: exit %d, %v\n%s", code, err, out)
	}
	byID := map[int64]audit.RunSummary{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	closer := byID[3]
	for _, id := range killed {
		r := byID[id]
		if r.Outcome != "abandoned" || r.ClosedBy != closer.ID || len(r.ResumedBy) != 1 || r.ResumedBy[0] != closer.ID {
			t.Errorf("run %d: outcome %q closed by %d resumed by %v; want abandoned, closed and resumed by run %d once", id, r.Outcome, r.ClosedBy, r.ResumedBy, closer.ID)
		}
	}
	if len(byID[4].Resumes) != 0 {
		t.Errorf("run 4 resumes %v; want none", byID[4].Resumes)
	}
	code, out, _ = runMigrate(t, "audit", "log", "--audit-db", db)
	if code != exitOK || strings.Count(out, "abandoned (closed by run 3)") != 2 || strings.Contains(out, "unfinished") {
		t.Errorf("audit log text:\n%s", out)
	}
	code, out, _ = runMigrate(t, "audit", "show", strconv.FormatInt(killed[0], 10), "--audit-db", db)
	if code != exitOK || !strings.Contains(out, "abandoned: closed at") || !strings.Contains(out, "by run 3") {
		t.Errorf("audit show of an abandoned run:\n%s", out)
	}
	if code, out, _ := runMigrate(t, "audit", "verify", "--audit-db", db); code != exitOK {
		t.Errorf("verify: exit %d\n%s", code, out)
	}
}

// TestConcurrentApplies pins what docs/audit.md says is and is not guarded:
// a second apply sharing the first one's audit database is refused while
// the first holds the target's lock; one with another database is not
// refused, and idempotence still leaves the target as planned.
func TestConcurrentApplies(t *testing.T) {
	ctx := context.Background()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("concurrent"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := strings.Join(c.ListenAddrs(), ",")
	conn, err := kafkaconn.Dial(ctx, c.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tgt, err := kread.Read(ctx, conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Brokers: tgt.Brokers}
	for i := 0; i < 12; i++ {
		src.Topics = append(src.Topics, snapshot.Topic{Name: "c" + strconv.Itoa(i), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{tgt.Brokers[0].ID}}}})
	}
	data, _ := json.Marshal(src)
	snap := filepath.Join(dir, "source.json")
	if err := os.WriteFile(snap, data, 0o600); err != nil {
		t.Fatal(err)
	}
	apply := func(db string, slow bool) (int, string) {
		args := []string{"apply", "--yes", "--snapshot", snap, "--bootstrap-server", addr, "--audit-db", db}
		if slow {
			args = append(args, "--batch-size", "1", "--max-in-flight", "1", "--rate", "4")
		}
		code, _, errs := runMigrate(t, args...)
		return code, errs
	}
	shared, other := filepath.Join(dir, "shared.db"), filepath.Join(dir, "other.db")
	// The first apply is slow (12 topics at 4 a second); wait until it
	// holds the lock.
	done := make(chan struct{})
	var firstCode int
	var firstErrs string
	go func() { defer close(done); firstCode, firstErrs = apply(shared, true) }()
	for held := false; !held; {
		select {
		case <-done:
			t.Fatalf("the first apply ended before the others started (exit %d)\n%s", firstCode, firstErrs)
		default:
		}
		if db, err := sql.Open("sqlite3", "file:"+shared+"?mode=ro"); err == nil {
			var n int
			if db.QueryRow(`SELECT count(*) FROM target_locks`).Scan(&n) == nil && n > 0 {
				held = true
			}
			db.Close()
		}
	}
	code, errs := apply(shared, false)
	if code != exitError || !strings.Contains(errs, "target concurrent is locked by run 1") {
		t.Errorf("apply sharing the database: exit %d, want 1 naming the lock holder\n%s", code, errs)
	}
	code, errs = apply(other, false)
	if code != exitOK && code != exitPartial {
		t.Errorf("apply with another database: exit %d, want 0 or 3 (not guarded)\n%s", code, errs)
	}
	<-done
	if firstCode != exitOK && firstCode != exitPartial {
		t.Errorf("first apply: exit %d\n%s", firstCode, firstErrs)
	}
	// Whatever the interleaving, the target ends as planned.
	code, out, errs := runMigrate(t, "plan", "--snapshot", snap, "--bootstrap-server", addr, "--no-audit")
	if code != exitOK {
		t.Errorf("plan after the concurrent applies: exit %d, want 0 (nothing to do)\n%s%s", code, out, errs)
	}
}
