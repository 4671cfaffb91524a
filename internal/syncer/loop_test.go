package syncer

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// swapTree is a source whose tree the test replaces, as Kafka would change
// ZooKeeper.
type swapTree struct {
	mu sync.Mutex
	t  *zktree.Tree
}

func (s *swapTree) set(t *zktree.Tree) { s.mu.Lock(); s.t = t; s.mu.Unlock() }
func (s *swapTree) tree() *zktree.Tree { s.mu.Lock(); defer s.mu.Unlock(); return s.t }
func (s *swapTree) Get(p string) ([]byte, zktree.Stat, error) {
	return s.tree().Get(p)
}
func (s *swapTree) Children(p string) ([]string, error) { return s.tree().Children(p) }

// memTarget is a target held as a snapshot; Apply applies plans to it
// (plantest.Simulate) and counts what it was sent.
type memTarget struct {
	mu   sync.Mutex
	s    *snapshot.Snapshot
	sent []string
}

func (m *memTarget) stages(t testing.TB, opts plan.Options) Stages {
	return Stages{
		ReadTarget: func(context.Context) (*snapshot.Snapshot, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			c := *m.s
			return &c, nil
		},
		Plan: func(src, tgt *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: src, Target: tgt, Options: opts})
		},
		Apply: func(_ context.Context, p *plan.Plan, _ *snapshot.Snapshot, _ Round) (Outcome, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.s = plantest.Simulate(t, m.s, p.Changes)
			for _, c := range p.Changes {
				m.sent = append(m.sent, c.ID)
			}
			return Outcome{Applied: len(p.Changes)}, nil
		},
	}
}

func (m *memTarget) edit(fn func(s *snapshot.Snapshot)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *m.s
	c.Topics = slices.Clone(c.Topics)
	fn(&c)
	m.s = &c
}

// TestReconcileSortsMissedFromDrift: a source change no notification
// announced is "missed"; a target edit is "drift"; --keep-target-edits sends
// the first and leaves the second.
func TestReconcileSortsMissedFromDrift(t *testing.T) {
	for _, keep := range []bool{false, true} {
		base, err := zktree.Load(fixture)
		if err != nil {
			t.Fatal(err)
		}
		src := &swapTree{t: base}
		tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
		opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
		feed := make(chan zkfeed.Event)
		tick := make(chan struct{})
		rounds := make(chan Round, 4)
		ctx, cancel := context.WithCancel(context.Background())
		cfg := Config{Source: src, Feed: feed, Stages: tgt.stages(t, opts), KeepTargetEdits: keep, tick: tick}
		go Run(ctx, cfg, rounds)
		if r := <-rounds; r.Reason != ReasonInitial || r.Err != nil || r.Outcome.Applied == 0 {
			t.Fatalf("initial round %+v", r)
		}

		// The source changes without a notification; the target is edited.
		src.set(edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"1"}}`)))
		tgt.edit(func(s *snapshot.Snapshot) {
			for i := range s.Topics {
				if s.Topics[i].Name == "payments" {
					cs := slices.Clone(s.Topics[i].Configs)
					for j := range cs {
						if cs[j].Key == "max.message.bytes" {
							cs[j].Value = "1000"
						}
					}
					s.Topics[i].Configs = cs
				}
			}
		})
		sentBefore := len(tgt.sent)
		tick <- struct{}{}
		var r Round
		select {
		case r = <-rounds:
		case <-time.After(5 * time.Second):
			t.Fatal("no reconcile round")
		}
		name := func(cs []plan.Change) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Resource.Name)
			}
			return out
		}
		if !slices.Equal(name(r.Missed), []string{"orders"}) || !slices.Equal(name(r.Drift), []string{"payments"}) {
			t.Fatalf("keep=%v: missed %v, drift %v; want [orders] and [payments]", keep, name(r.Missed), name(r.Drift))
		}
		sent := tgt.sent[sentBefore:]
		want := 2
		if keep {
			want = 1
		}
		if len(sent) != want || r.Outcome.Applied != want {
			t.Fatalf("keep=%v: sent %v, applied %d; want %d change(s)", keep, sent, r.Outcome.Applied, want)
		}
		cancel()
	}
}

// TestPollSourceWithoutFeed: a source with no change feed (read whole by
// ReadSource, no Source, no Feed) is read again every PollEvery in a "poll"
// round; what the source changed since the last read is applied as a
// plain change, not reported missed, and a target edit is drift.
func TestPollSourceWithoutFeed(t *testing.T) {
	for _, keep := range []bool{false, true} {
		base, err := zktree.Load(fixture)
		if err != nil {
			t.Fatal(err)
		}
		src := &swapTree{t: base}
		permit := make(chan struct{}) // one source read per permit: the test decides what each poll sees
		read := func(ctx context.Context) (*snapshot.Snapshot, error) {
			select {
			case <-permit:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return zkread.Read(ctx, src, zkread.Options{})
		}
		tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
		opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
		rounds := make(chan Round, 4)
		ctx, cancel := context.WithCancel(context.Background())
		freeze := make(chan struct{})
		cfg := Config{ReadSource: read, PollEvery: time.Millisecond, Stages: tgt.stages(t, opts), KeepTargetEdits: keep, Freeze: freeze}
		done := make(chan error, 1)
		go func() { done <- Run(ctx, cfg, rounds) }()
		next := func(what string) Round {
			t.Helper()
			permit <- struct{}{}
			select {
			case r := <-rounds:
				return r
			case <-time.After(5 * time.Second):
				t.Fatalf("no %s round", what)
				return Round{}
			}
		}
		if r := next("initial"); r.Reason != ReasonInitial || r.Err != nil || r.Outcome.Applied == 0 {
			t.Fatalf("initial round %+v", r)
		}
		if r := next("quiet poll"); r.Reason != ReasonPoll || r.Err != nil || len(r.Changes)+len(r.Missed)+len(r.Drift) != 0 {
			t.Fatalf("a poll of an unchanged source: %+v", r)
		}

		// The source changes (nothing announces it: there is no feed); the
		// target is edited.
		src.set(edit(base, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"1"}}`)))
		tgt.edit(func(s *snapshot.Snapshot) {
			for i := range s.Topics {
				if s.Topics[i].Name == "payments" {
					cs := slices.Clone(s.Topics[i].Configs)
					for j := range cs {
						if cs[j].Key == "max.message.bytes" {
							cs[j].Value = "1000"
						}
					}
					s.Topics[i].Configs = cs
				}
			}
		})
		sentBefore := len(tgt.sent)
		r := next("poll")
		name := func(cs []plan.Change) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.Resource.Name)
			}
			slices.Sort(out)
			return out
		}
		if r.Reason != ReasonPoll || len(r.Missed) != 0 || !slices.Equal(name(r.Drift), []string{"payments"}) {
			t.Fatalf("keep=%v: %s round, missed %v, drift %v; want a poll round, none missed, drift [payments]", keep, r.Reason, name(r.Missed), name(r.Drift))
		}
		want := []string{"orders", "payments"}
		if keep {
			want = []string{"orders"}
		}
		if got := name(r.Changes); !slices.Equal(got, want) || r.Outcome.Applied != len(want) || len(tgt.sent)-sentBefore != len(want) {
			t.Fatalf("keep=%v: changes %v, applied %d, sent %v; want %v", keep, got, r.Outcome.Applied, tgt.sent[sentBefore:], want)
		}
		var retention string
		for _, tp := range tgt.s.Topics {
			for _, c := range tp.Configs {
				if tp.Name == "orders" && c.Key == "retention.ms" {
					retention = c.Value
				}
			}
		}
		if retention != "1" {
			t.Fatalf("keep=%v: the polled change did not reach the target: orders retention.ms %q", keep, retention)
		}

		// Frozen: a poll reports only what the source changed since the
		// last read (not every difference since the cut) and sends nothing.
		close(freeze)
		if r = next("poll started before the freeze"); len(r.Changes) != 0 { // (kept, the target edit is drift again)
			t.Fatalf("keep=%v: a poll of an unchanged source found %+v", keep, r)
		}
		src.set(edit(src.tree(), "/config/topics/payments", str(`{"version":1,"config":{"retention.ms":"2"}}`)))
		sentBefore = len(tgt.sent)
		r = next("frozen poll")
		if !r.Frozen || r.Reason != ReasonPoll || len(r.Drift) != 0 || len(tgt.sent) != sentBefore {
			t.Fatalf("keep=%v: frozen poll %+v, sent %v", keep, r, tgt.sent[sentBefore:])
		}
		var ids []string
		for _, c := range r.Changes {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, []string{"topic-config:payments"}) || len(r.AfterCut) != 1 || r.AfterCut[0].ID != ids[0] {
			t.Fatalf("keep=%v: frozen poll changes %v, after the cut %d; want payments' config only, after the cut", keep, ids, len(r.AfterCut))
		}
		if r = next("quiet frozen poll"); !r.Frozen || len(r.Changes)+len(r.Drift) != 0 {
			t.Fatalf("keep=%v: a frozen poll of an unchanged source reported %+v", keep, r)
		}
		// A second change after the cut: reported alone, payments' (still
		// not applied) is not reported again.
		src.set(edit(src.tree(), "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"3"}}`)))
		r = next("second frozen poll")
		ids = nil
		for _, c := range r.Changes {
			ids = append(ids, c.ID)
		}
		if !r.Frozen || !slices.Equal(ids, []string{"topic-config:orders"}) || len(r.Drift) != 0 || len(tgt.sent) != sentBefore {
			t.Fatalf("keep=%v: second frozen poll changes %v, drift %d, sent %v; want orders' config only, nothing sent", keep, ids, len(r.Drift), tgt.sent[sentBefore:])
		}
		cancel()
		if err := <-done; err != ErrStopped {
			t.Fatalf("Run: %v, want ErrStopped", err)
		}
	}
}

// TestBrokerIDMapRounds: with --broker-id-map a source broker's configs
// go to the mapped target broker, and sync follows them there: a change
// round for brokers/2 sends the change to broker 102 (it used to send
// nothing: the round looked for broker 2 on the target), and a change no
// notification announced is reported missed at reconciliation, not drift.
func TestBrokerIDMapRounds(t *testing.T) {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	src := &swapTree{t: base}
	tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target", Brokers: []snapshot.Broker{{ID: 101}, {ID: 102}, {ID: 103}}}}
	m := map[int32]int32{1: 101, 2: 102, 3: 103}
	opts := plan.Options{Include: []plan.Kind{plan.KindBrokerConfig}, BrokerIDMap: m}
	feed := make(chan zkfeed.Event)
	tick := make(chan struct{})
	rounds := make(chan Round, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Run(ctx, Config{Source: src, Feed: feed, Stages: tgt.stages(t, opts), BrokerIDMap: m, tick: tick, Coalesce: time.Millisecond}, rounds)
	take := taker(t, rounds, 5*time.Second)
	if r := take("initial"); r.Outcome.Applied == 0 {
		t.Fatalf("initial round applied nothing: %+v", r)
	}
	names := func(cs []plan.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}

	base = edit(base, "/config/brokers/2", str(`{"version":1,"config":{"log.cleaner.threads":"4"}}`))
	src.set(base)
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "brokers/2"}}, Seen: time.Now()}
	r := take("change")
	if got := names(r.Changes); !slices.Equal(got, []string{"broker-config:102"}) || r.Outcome.Applied != 1 {
		t.Fatalf("change round for brokers/2: changes %v, applied %d; want [broker-config:102] applied", got, r.Outcome.Applied)
	}
	if want := []string{"102"}; !slices.Equal(r.TargetScope.Brokers, want) {
		t.Errorf("the round read target brokers %v, want %v", r.TargetScope.Brokers, want)
	}

	src.set(edit(base, "/config/brokers/3", str(`{"version":1,"config":{"log.cleaner.threads":"5"}}`)))
	tick <- struct{}{}
	r = take("reconcile")
	if got := names(r.Missed); !slices.Equal(got, []string{"broker-config:103"}) || len(r.Drift) != 0 {
		t.Fatalf("reconcile: missed %v, drift %v; want broker-config:103 missed, no drift", got, names(r.Drift))
	}
}

// TestStopDuringARoundIsNotAFailure: a stop that cuts a later round's read
// short ends Run with ErrStopped and reports no failed round (it would
// make a sync that was in step exit as if changes were left undone); a
// stop during the first round's read is still that round's failure.
func TestStopDuringARoundIsNotAFailure(t *testing.T) {
	for _, first := range []bool{false, true} {
		base, err := zktree.Load(fixture)
		if err != nil {
			t.Fatal(err)
		}
		reads := 0
		blocked := make(chan struct{})
		read := func(ctx context.Context) (*snapshot.Snapshot, error) {
			reads++
			if first || reads > 1 {
				close(blocked)
				<-ctx.Done() // the stop comes while this read waits
				return nil, ctx.Err()
			}
			return zkread.Read(ctx, base, zkread.Options{})
		}
		tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
		opts := plan.Options{Include: []plan.Kind{plan.KindTopic}, Placement: plan.PlacementTarget}
		rounds := make(chan Round, 4)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, Config{ReadSource: read, PollEvery: time.Millisecond, Stages: tgt.stages(t, opts)}, rounds)
		}()
		if !first {
			if r := <-rounds; r.Reason != ReasonInitial || r.Err != nil {
				t.Fatalf("initial round %+v", r)
			}
		}
		<-blocked
		cancel()
		var err2 error
		select {
		case err2 = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after the stop")
		}
		var failed []Round
		for len(rounds) > 0 {
			if r := <-rounds; r.Err != nil {
				failed = append(failed, r)
			}
		}
		if first {
			if len(failed) != 1 || failed[0].Reason != ReasonInitial || err2 == nil || err2 == ErrStopped {
				t.Errorf("stopped during the first round: Run %v, failed rounds %+v; want the first round's failure", err2, failed)
			}
			continue
		}
		if err2 != ErrStopped || len(failed) != 0 {
			t.Errorf("stopped during a poll: Run %v, failed rounds %+v; want ErrStopped and none", err2, failed)
		}
	}
}

// TestRoundRetriedWhileTargetBrokerIsAway: a change round meets a target
// that lists fewer brokers than it had (its controller restarting) and
// blocks a topic of replication factor 2 for want of brokers: the round is
// not taken as done but tried again, so the topic arrives once the broker
// is back, not at the next reconciliation.
func TestRoundRetriedWhileTargetBrokerIsAway(t *testing.T) {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	two := []snapshot.Broker{{ID: 1}, {ID: 2}}
	tgt := &memTarget{s: &snapshot.Snapshot{ClusterID: "target", Brokers: two}}
	opts := plan.Options{Include: []plan.Kind{plan.KindTopic}, TopicRegex: "^orders$", Placement: plan.PlacementTarget}
	feed := make(chan zkfeed.Event, 1)
	rounds := make(chan Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Run(ctx, Config{Source: &swapTree{t: base}, Feed: feed, Stages: tgt.stages(t, opts), ReconcileEvery: time.Hour}, rounds)
	next := func(what string) Round {
		t.Helper()
		select {
		case r := <-rounds:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s round", what)
			return Round{}
		}
	}
	if r := next("initial"); r.Err != nil || r.Outcome.Applied != 1 {
		t.Fatalf("initial round %+v", r)
	}
	// The topic is gone from the target and broker 2 is away when the
	// notification comes.
	tgt.edit(func(s *snapshot.Snapshot) { s.Topics, s.Brokers = nil, two[:1] })
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}, Seen: time.Now()}
	r := next("change")
	if r.Err == nil || len(r.Blockers) != 1 || r.Outcome.Applied != 0 {
		t.Fatalf("change round with a broker away: err %v, blockers %v, applied %d; want an error naming the missing broker and one blocker", r.Err, r.Blockers, r.Outcome.Applied)
	}
	tgt.edit(func(s *snapshot.Snapshot) { s.Brokers = two })
	r = next("retry")
	if r.Reason != ReasonRetry || r.Err != nil || r.Outcome.Applied != 1 {
		t.Fatalf("after the broker is back: %s round, err %v, applied %d; want a retry that creates the topic", r.Reason, r.Err, r.Outcome.Applied)
	}
}
