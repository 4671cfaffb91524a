package syncsession

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// pollBed is a session polling a kfake source (topics orders and
// payments) into a kfake target, recorded in an audit database of its own.
type pollBed struct {
	src, tgt *kfake.Cluster
	srcAdm   *kadm.Client
	req      Request
	db       string
}

func newPollBed(t *testing.T) *pollBed {
	t.Helper()
	src, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("src"), kfake.SeedTopics(1, "orders", "payments"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	tgt, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("tgt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tgt.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(src.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	db := filepath.Join(t.TempDir(), "audit.db")
	return &pollBed{src: src, tgt: tgt, srcAdm: kadm.NewClient(cl), db: db, req: Request{
		Source:  migration.SourceRequest{Kafka: &migration.KafkaSource{Bootstrap: src.ListenAddrs()}},
		Target:  migration.KafkaTarget{Bootstrap: strings.Join(tgt.ListenAddrs(), ",")},
		Options: plan.Options{TopicRegex: "^(orders|payments)$", Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, Placement: plan.PlacementTarget, TargetVersion: "4.1"},
		// A poll a few times a second: the rounds the tests wait for.
		PollEvery: 100 * time.Millisecond, VerifyTimeout: 5 * time.Second,
		Audit: migration.AuditRequest{Path: db}, Version: "test",
	}}
}

// start opens and starts the session, and ends it when the test does.
func (b *pollBed) start(t *testing.T) *Session {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, b.req)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Close(ctx) })
	return s
}

// next takes the next round (a hang bound, not a speed claim); ok false
// once the session has ended.
func next(t *testing.T, s *Session) (syncer.Round, bool) {
	t.Helper()
	select {
	case r, ok := <-s.Rounds():
		return r, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no round")
		return syncer.Round{}, false
	}
}

// drain takes the rounds until the session ends.
func drain(t *testing.T, s *Session) {
	t.Helper()
	for _, ok := next(t, s); ok; _, ok = next(t, s) {
	}
}

// TestSessionKeepsItsLockAlive: while a session runs, its run's
// heartbeat on the target lock advances (it used to be refreshed only by
// the rounds' RPCs, and for the rounds' runs, which hold no lock: a
// quiet sync's lock went stale and an apply could take it).
func TestSessionKeepsItsLockAlive(t *testing.T) {
	b := newPollBed(t)
	b.req.LockHeartbeat = 10 * time.Millisecond
	s := b.start(t)
	if r, _ := next(t, s); r.Reason != syncer.ReasonInitial || r.Err != nil {
		t.Fatalf("initial round %+v", r)
	}
	beat := func() (string, string) {
		t.Helper()
		db, err := sql.Open("sqlite3", "file:"+b.db+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var acquired, hb string
		if err := db.QueryRow(`SELECT acquired_at, heartbeat FROM target_locks`).Scan(&acquired, &hb); err != nil {
			t.Fatal(err)
		}
		return acquired, hb
	}
	go func() {
		for range s.Rounds() { // the polls go on: keep taking them
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		acquired, hb := beat()
		if hb != acquired {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock's heartbeat is still %s, when it was acquired", hb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSessionStopsBehindNamingWhatIsPending: a change the target keeps
// refusing is pending when sync stops, though later rounds went well:
// the session ends behind (exit 3) naming it, and records it.
func TestSessionStopsBehindNamingWhatIsPending(t *testing.T) {
	b := newPollBed(t)
	b.tgt.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "payments", Err: kerr.PolicyViolation, Count: -1})
	s := b.start(t)
	if r, _ := next(t, s); r.Reason != syncer.ReasonInitial || r.Outcome.Applied == 0 || r.Outcome.Failed != 1 {
		t.Fatalf("initial round: %+v; want orders applied, payments refused", r.Outcome)
	}
	if st := s.State(); st.Phase != syncer.Behind || !slices.Contains(st.Names, "topic:payments") {
		t.Fatalf("state %+v; want BEHIND naming topic:payments", st)
	}
	s.Stop()
	drain(t, s)
	outcome, err := s.Outcome()
	if err != nil || outcome != migration.SyncBehind || outcome.Code != migration.ExitPartial || !slices.Contains(s.Pending(), "topic:payments") {
		t.Fatalf("outcome %+v (%v), pending %v; want stopped behind, exit 3, naming topic:payments", outcome, err, s.Pending())
	}
	var warned []string
	s.hooks.Warn = func(err error) { warned = append(warned, err.Error()) }
	if _, err := s.Close(context.Background()); err != nil || !slices.ContainsFunc(warned, func(w string) bool {
		return w == "stopped with 1 change not on the target: topic:payments"
	}) {
		t.Errorf("Close = %v, warned %q; want the pending changes named", err, warned)
	}
}

// TestSessionExitOnChangeByPoll: frozen with ExitOnChange, a poll that
// finds nothing changed goes on, and the first that finds the source
// changed ends the session (exit 3).
func TestSessionExitOnChangeByPoll(t *testing.T) {
	b := newPollBed(t)
	b.req.Freeze, b.req.ExitOnChange = true, true
	s := b.start(t)
	for range 3 { // the first round and two quiet polls
		if r, ok := next(t, s); !ok || len(r.AfterCut) != 0 {
			t.Fatalf("a quiet frozen round %+v (session open %v); want nothing after the cut", r, ok)
		}
	}
	v := "1234"
	if _, err := b.srcAdm.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Name: "retention.ms", Value: &v}}, "orders"); err != nil {
		t.Fatal(err)
	}
	for {
		r, ok := next(t, s)
		if !ok {
			break
		}
		// Frozen from the start, the target never got orders: its
		// change after the cut is in the create the target lacks.
		if len(r.AfterCut) > 0 && slices.ContainsFunc(r.AfterCut, func(c plan.Change) bool { return c.Resource.Name != "orders" }) {
			t.Errorf("after the cut %v; want orders' changes only", r.AfterCut)
		}
	}
	if outcome, _ := s.Outcome(); outcome != migration.SyncExitOnChange || outcome.Code != migration.ExitPartial {
		t.Fatalf("outcome %+v; want ended by --exit-on-change, exit 3", outcome)
	}
}
