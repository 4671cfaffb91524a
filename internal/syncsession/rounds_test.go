package syncsession

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// topicRequests counts the CreateTopics requests a kfake cluster gets,
// validate-only ones apart.
type topicRequests struct {
	mu             sync.Mutex
	real, validate int
}

func countTopicRequests(c *kfake.Cluster) *topicRequests {
	n := &topicRequests{}
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.mu.Lock()
		if req.(*kmsg.CreateTopicsRequest).ValidateOnly {
			n.validate++
		} else {
			n.real++
		}
		n.mu.Unlock()
		return nil, nil, false
	})
	return n
}

// TestSyncRoundPreflight: a change round sends its requests without the
// validate-only preflight (it would refuse only what the real request
// refuses, a controller round trip earlier); a full round (the initial
// one, a reconciliation) keeps it, as migrate apply does. Both apply and
// verify their change.
func TestSyncRoundPreflight(t *testing.T) {
	for _, tc := range []struct {
		reason       string
		wantValidate int
	}{{syncer.ReasonChange, 0}, {syncer.ReasonInitial, 1}, {syncer.ReasonReconcile, 1}} {
		t.Run(tc.reason, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("round"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			n := countTopicRequests(c)
			s, _ := newTestRounds(t, ordersRequest(c))
			ctx := context.Background()
			scope := kread.Scope{Topics: []string{"orders"}}
			tgt, err := s.readTargetScoped(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, Topics: []snapshot.Topic{
				{Name: "orders", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
			}}
			p, err := s.plan(src, tgt)
			if err != nil || len(p.Changes) != 1 {
				t.Fatalf("plan: %v, %d changes, want 1", err, len(p.Changes))
			}
			out, err := s.apply(ctx, p, tgt, syncer.Round{N: 1, Reason: tc.reason, Scoped: tc.reason == syncer.ReasonChange, TargetScope: &scope})
			if err != nil || out.Applied != 1 || out.VerifyEach == nil {
				t.Fatalf("apply: %v, %+v", err, out)
			}
			if u := len(out.VerifyEach(ctx, nil)); u != 0 {
				t.Fatalf("%d changes unverified", u)
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			if n.real != 1 || n.validate != tc.wantValidate {
				t.Errorf("CreateTopics requests: %d real, %d validate-only; want 1 and %d", n.real, n.validate, tc.wantValidate)
			}
		})
	}
}

// TestSyncRoundAuditInSessionDB: a round is recorded in the database the
// session opened (it stays open for the session, rather than being
// opened again per round, at whatever --audit-db names by then): its run
// "sync-round" holds the endpoints, the note naming the session, the plan
// and the change's outcome, and the chain verifies. The database is moved
// away after the session began: a round that opened --audit-db again
// would record into a new database there (it is moved back to be read).
func TestSyncRoundAuditInSessionDB(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("round"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s, db := newTestRounds(t, ordersRequest(c))
	ctx := context.Background()
	moved := filepath.Join(filepath.Dir(db), "moved.db")
	if err := os.Rename(db, moved); err != nil {
		t.Fatal(err)
	}
	scope := kread.Scope{Topics: []string{"orders"}}
	tgt, err := s.readTargetScoped(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, Address: "zk1:2181", Topics: []snapshot.Topic{
		{Name: "orders", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
	}}
	p, err := s.plan(src, tgt)
	if err != nil || len(p.Changes) != 1 {
		t.Fatalf("plan: %v, %d changes, want 1", err, len(p.Changes))
	}
	out, err := s.apply(ctx, p, tgt, syncer.Round{N: 7, Reason: syncer.ReasonChange, Zxid: 0x42, TargetScope: &scope})
	if err != nil || out.Applied != 1 || out.VerifyEach == nil || len(out.VerifyEach(ctx, nil)) != 0 {
		t.Fatalf("apply: %v, %+v", err, out)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatalf("a database was made again at %s: the round did not record in the session's", db)
	}
	if err := os.Rename(moved, db); err != nil { // back, for the reads below
		t.Fatal(err)
	}
	store, err := audit.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.Runs(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var round *audit.RunSummary
	for i := range runs {
		if runs[i].Command == "sync-round" {
			round = &runs[i]
		}
	}
	if round == nil {
		t.Fatalf("no sync-round run in the session's database: %+v", runs)
	}
	if round.Target.ClusterID != "round" || round.Target.Kind != snapshot.SourceKafka || round.Source.Kind != snapshot.SourceZooKeeper || round.Outcome != "applied" || round.Succeeded != 1 {
		t.Errorf("round run %+v: want the target's cluster id, both endpoints, outcome applied and 1 succeeded", round)
	}
	changes, err := store.Changes(ctx, round.ID, audit.ChangeFilter{})
	if err != nil || len(changes) != 1 || changes[0].ChangeID != "topic:orders" || changes[0].Status != "succeeded" {
		t.Errorf("round changes %+v, %v; want topic:orders succeeded", changes, err)
	}
	res, err := store.Verify(ctx, "")
	if err != nil || !res.OK {
		t.Errorf("audit verify: %+v, %v", res, err)
	}
	n, err := roundNotes(db, round.ID)
	if err != nil || len(n) != 1 || !strings.Contains(n[0], fmt.Sprintf("session run %d, round 7 (change), zxid 0x42", s.session.ID())) {
		t.Errorf("round notes %q, %v; want the one naming the session, round and zxid", n, err)
	}
}

// ordersRequest is a sync of topic orders to c, whose replicas c places.
func ordersRequest(c *kfake.Cluster) Request {
	return Request{Target: migration.KafkaTarget{Bootstrap: strings.Join(c.ListenAddrs(), ",")},
		Options: plan.Options{TopicRegex: "^orders$", Placement: plan.PlacementTarget, TargetVersion: "4.1"}, VerifyTimeout: 30 * time.Second}
}

// newTestRounds are the rounds of a sync session with req on its target
// (dialled), its session run begun in an audit database of its own
// unless req.Audit.Off (and finished at the end), whose path it returns.
func newTestRounds(t testing.TB, req Request) (*rounds, string) {
	t.Helper()
	ctx := context.Background()
	if !req.Audit.Off {
		req.Audit.Path = filepath.Join(t.TempDir(), "audit.db")
	}
	r, err := newRounds(req)
	if err != nil {
		t.Fatal(err)
	}
	target, err := req.Target.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Close)
	session := migration.BeginRun(ctx, req.Audit, "sync", req.Args, "test")
	if session.Err != nil {
		t.Fatal(session.Err)
	}
	t.Cleanup(func() { _, _ = session.Finish(ctx, migration.SyncStopped) })
	r.bind(target, session)
	return r, req.Audit.Path
}

// roundNotes are the "sync-round" events of run id.
func roundNotes(path string, id int64) ([]string, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rs, err := db.Query(`SELECT detail FROM run_events WHERE run_id = ? AND kind = 'sync-round' ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var d string
		if err := rs.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rs.Err()
}
