package syncsession

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// The session driven below the command, against kfake, through the cases
// cmd/migrate's sync tests cover against the real test bed: changes reach
// the target and a stop in step exits 0, with the session and its rounds
// in the audit trail; a freeze applies nothing more and reports the
// source's changes (exit 3 on stop); a second session on the target is
// refused while the first holds its lock; a declined first plan applies
// nothing; a SCRAM password never reaches the audit database.

// until takes rounds until ok holds for one (failing if the session ends
// first) and returns it.
func until(t *testing.T, s *Session, what string, ok func(syncer.Round) bool) syncer.Round {
	t.Helper()
	for {
		r, open := next(t, s)
		if !open {
			t.Fatalf("%s: the session ended", what)
		}
		if ok(r) {
			return r
		}
	}
}

// targetTopics lists the target's topics.
func (b *pollBed) targetTopics(t *testing.T) []string {
	t.Helper()
	conn, err := kafkaconn.Dial(context.Background(), b.tgt.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := kread.Read(context.Background(), conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tp := range s.Topics {
		out = append(out, tp.Name)
	}
	return out
}

// runs are the audit runs of the bed's database, newest first.
func (b *pollBed) runs(t *testing.T) []audit.RunSummary {
	t.Helper()
	store, err := audit.Open(context.Background(), b.db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.Runs(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestSessionFollowsTheSource(t *testing.T) {
	b := newPollBed(t)
	b.req.Options.TopicRegex = "^(orders|payments|refunds)$"
	ctx := context.Background()
	s := b.start(t)
	if r, _ := next(t, s); r.Reason != syncer.ReasonInitial || r.Err != nil || r.Outcome.Applied != 2 {
		t.Fatalf("initial round %+v, %v; want orders and payments applied", r.Outcome, r.Err)
	}
	if _, err := b.srcAdm.CreateTopic(ctx, 1, 1, nil, "refunds"); err != nil {
		t.Fatal(err)
	}
	until(t, s, "refunds applied", func(r syncer.Round) bool {
		return r.Reason == syncer.ReasonPoll && slices.ContainsFunc(r.Changes, func(c plan.Change) bool { return c.ID == "topic:refunds" }) && r.Outcome.Applied == 1
	})
	if got := b.targetTopics(t); !slices.Equal(got, []string{"orders", "payments", "refunds"}) {
		t.Errorf("target topics %v", got)
	}
	s.Stop()
	drain(t, s)
	outcome, err := s.Outcome()
	if err != nil || outcome != migration.SyncInStep || outcome.Code != migration.ExitOK {
		t.Fatalf("outcome %+v, %v; want stopped in step, exit 0", outcome, err)
	}
	rc, err := s.Close(ctx)
	if err != nil || rc.Head == "" {
		t.Fatalf("receipt %+v, %v", rc, err)
	}
	var session, rounds int
	for _, r := range b.runs(t) {
		switch r.Command {
		case "sync":
			session++
			if r.Outcome != "stopped in step" || r.ExitCode == nil || *r.ExitCode != 0 || r.ID != rc.Run {
				t.Errorf("session run %+v; want run %d stopped in step, exit 0", r, rc.Run)
			}
		case "sync-round":
			rounds++
			if r.Outcome != "applied" {
				t.Errorf("round run %d outcome %q", r.ID, r.Outcome)
			}
		}
	}
	if session != 1 || rounds != 2 {
		t.Errorf("%d session runs, %d round runs; want 1 and 2 (the initial round and refunds')", session, rounds)
	}
}

func TestSessionFrozenReportsChanges(t *testing.T) {
	b := newPollBed(t)
	b.req.Options.TopicRegex = "^(orders|payments|refunds)$"
	ctx := context.Background()
	s := b.start(t)
	next(t, s) // the initial round applies orders and payments
	s.Freeze()
	until(t, s, "a frozen round", func(r syncer.Round) bool { return r.Frozen })
	if _, err := b.srcAdm.CreateTopic(ctx, 1, 1, nil, "refunds"); err != nil {
		t.Fatal(err)
	}
	r := until(t, s, "refunds after the cut", func(r syncer.Round) bool { return len(r.AfterCut) > 0 })
	if r.Outcome.Applied != 0 || !slices.ContainsFunc(r.AfterCut, func(c plan.Change) bool { return c.ID == "topic:refunds" }) {
		t.Errorf("frozen round applied %d, after the cut %v; want nothing applied, topic:refunds reported", r.Outcome.Applied, r.AfterCut)
	}
	s.Stop()
	drain(t, s)
	if outcome, _ := s.Outcome(); outcome != migration.SyncChangedAfterCut || outcome.Code != migration.ExitPartial {
		t.Errorf("outcome %+v; want stopped frozen with the source changed after the cut, exit 3", outcome)
	}
	if slices.Contains(b.targetTopics(t), "refunds") {
		t.Error("refunds was created on the target after the freeze")
	}
}

func TestSessionSecondOnTargetRefused(t *testing.T) {
	b := newPollBed(t)
	ctx := context.Background()
	first := b.start(t)
	next(t, first)
	second, err := Open(ctx, b.req)
	if err != nil {
		t.Fatal(err)
	}
	err = second.Start(ctx, nil)
	var le *audit.LockError
	if !errors.As(err, &le) || le.RunID != first.rec.ID() {
		t.Fatalf("second session Start = %v; want the lock held by run %d", err, first.rec.ID())
	}
	if _, err := second.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if outcome, _ := second.Outcome(); outcome != migration.Failed {
		t.Errorf("refused session outcome %+v, want error", outcome)
	}
}

func TestSessionDeclined(t *testing.T) {
	b := newPollBed(t)
	ctx := context.Background()
	s, err := Open(ctx, b.req)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	s.hooks.Notice = func(msg string) { said = append(said, msg) }
	asked := 0
	if err := s.Start(ctx, func(_ context.Context, p *plan.Plan) bool { asked = len(p.Changes); return false }); err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if outcome, err := s.Outcome(); outcome != migration.Declined || err != nil || asked != 2 {
		t.Fatalf("outcome %+v, %v after being asked about %d changes; want declined after 2", outcome, err, asked)
	}
	if _, err := s.Close(ctx); err != nil || !slices.Contains(said, "Nothing applied.") {
		t.Errorf("Close = %v, said %q; want it to say nothing was applied", err, said)
	}
	if got := b.targetTopics(t); len(got) != 0 {
		t.Errorf("a declined session created %v", got)
	}
}

func TestSessionSecretsNeverRecorded(t *testing.T) {
	b := newPollBed(t)
	ctx := context.Background()
	const password = "sekrit-scram-pw-7"
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.src.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "source-side-pw"}}); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(creds, []byte(`[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"`+password+`","iterations":4096}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	b.req.CredentialsFile = creds
	b.req.Options.Include = append(b.req.Options.Include, plan.KindScramUser)
	s := b.start(t)
	r := until(t, s, "alice's credential applied", func(r syncer.Round) bool {
		return slices.ContainsFunc(r.Changes, func(c plan.Change) bool { return c.Kind == plan.KindScramUser })
	})
	if r.Outcome.Failed != 0 {
		t.Fatalf("round %+v", r.Outcome)
	}
	s.Stop()
	drain(t, s)
	if _, err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{b.db, b.db + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(password)) {
			t.Errorf("%s holds the SCRAM password", f)
		}
	}
}
