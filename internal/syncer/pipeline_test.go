package syncer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// pipeBed is a sync over the fixture's orders and payments topics (their
// configs) whose Apply stage leaves a verify the test controls per round.
type pipeBed struct {
	t      *testing.T
	src    *swapTree
	tgt    *memTarget
	feed   chan zkfeed.Event
	rounds chan Round
	cancel context.CancelFunc
	done   chan error

	mu     sync.Mutex
	apply  map[int]func()               // called as round N's Apply starts
	verify map[int]func(*memTarget) int // round N's verify (none: verified)
	reads  map[string]chan struct{}     // closed when the source reads the path
	waited chan struct{}                // a round waits for the verify before it
	// targetRead, when set, is called as a round reads the target
	targetRead func()
}

func newPipeBed(t *testing.T) *pipeBed { return newPipeBedWith(t, bedInFlight) }

// newPipeBedWith is newPipeBed with inFlight as Config.MaxInFlight.
func newPipeBedWith(t *testing.T, inFlight int) *pipeBed {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	b := &pipeBed{t: t, src: &swapTree{t: base}, tgt: &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}},
		feed: make(chan zkfeed.Event, 8), rounds: make(chan Round, 16), done: make(chan error, 1),
		apply: map[int]func(){}, verify: map[int]func(*memTarget) int{}, reads: map[string]chan struct{}{}, waited: make(chan struct{}, 8)}
	opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
	st := b.tgt.stages(t, opts)
	apply0, read0 := st.Apply, st.ReadTarget
	st.ReadTarget = func(ctx context.Context) (*snapshot.Snapshot, error) {
		b.mu.Lock()
		hook := b.targetRead
		b.mu.Unlock()
		if hook != nil {
			hook()
		}
		return read0(ctx)
	}
	st.Apply = func(ctx context.Context, p *plan.Plan, tg *snapshot.Snapshot, r Round) (Outcome, error) {
		b.mu.Lock()
		hook, verify := b.apply[r.N], b.verify[r.N]
		b.mu.Unlock()
		if hook != nil {
			hook()
		}
		out, err := apply0(ctx, p, tg, r)
		if verify != nil {
			out.Verify = func(context.Context) int { return verify(b.tgt) }
		}
		return out, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	t.Cleanup(cancel)
	go func() {
		b.done <- Run(ctx, Config{Source: readHook{b}, Feed: b.feed, Stages: st, MaxInFlight: inFlight, waiting: func() { b.waited <- struct{}{} }}, b.rounds)
	}()
	if r := b.next("initial"); r.Err != nil || r.Outcome.Applied == 0 {
		t.Fatalf("initial round %+v", r)
	}
	return b
}

// bedInFlight rounds may apply at once on the bed (more than the default,
// so that rounds beside each other are tested).
const bedInFlight = 4

// readHook is the source, telling the test when a path is read.
type readHook struct{ b *pipeBed }

func (h readHook) Get(p string) ([]byte, zktree.Stat, error) {
	h.b.mu.Lock()
	if ch := h.b.reads[p]; ch != nil {
		close(ch)
		delete(h.b.reads, p)
	}
	h.b.mu.Unlock()
	return h.b.src.Get(p)
}
func (h readHook) Children(p string) ([]string, error) { return h.b.src.Children(p) }

// onRead returns a channel closed when the source next reads p.
func (b *pipeBed) onRead(p string) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{})
	b.reads[p] = ch
	return ch
}

func (b *pipeBed) hooks(n int, apply func(), verify func(*memTarget) int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.apply[n], b.verify[n] = apply, verify
}

// retention sets a topic's retention.ms on the source and notifies it.
func (b *pipeBed) retention(topic, v string) {
	b.src.set(edit(b.src.tree(), "/config/topics/"+topic, str(fmt.Sprintf(`{"version":1,"config":{"retention.ms":%q}}`, v))))
	b.feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/" + topic}}, Seen: time.Now()}
}

func (b *pipeBed) next(what string) Round {
	b.t.Helper()
	select {
	case r := <-b.rounds:
		return r
	case <-time.After(10 * time.Second):
		b.t.Fatalf("no %s round", what)
		return Round{}
	}
}

// wait fails the test when ch is not closed within a bound (a hang, not a
// measurement).
func (b *pipeBed) wait(ch <-chan struct{}, what string) bool {
	b.t.Helper()
	select {
	case <-ch:
		return true
	case <-time.After(10 * time.Second):
		b.t.Errorf("%s did not happen", what)
		return false
	}
}

func targetRetention(m *memTarget, topic string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, tp := range m.s.Topics {
		if tp.Name == topic {
			for _, c := range tp.Configs {
				if c.Key == "retention.ms" {
					return c.Value
				}
			}
		}
	}
	return ""
}

// TestVerifyBesideNextRound: a change round's verify runs beside the next
// round when their changes touch different resources (the next round is
// read, planned and applied while the verify still runs), the rounds are
// reported in order, and a round is reported only once its verify ended.
func TestVerifyBesideNextRound(t *testing.T) {
	b := newPipeBed(t)
	release := make(chan struct{})
	applied3 := make(chan struct{})
	b.hooks(2, nil, func(m *memTarget) int {
		// While round 2 is being verified, payments changes; the verify
		// holds until round 3 applied it: round 3 must not wait for it
		// (payments is not a resource round 2 changed).
		b.retention("payments", "2")
		<-release
		if targetRetention(m, "orders") != "1" {
			return 1
		}
		return 0
	})
	b.hooks(3, func() { close(applied3) }, nil)
	b.retention("orders", "1")
	go func() {
		b.wait(applied3, "round 3's apply while round 2's verify ran")
		close(release)
	}()
	r2, r3 := b.next("second"), b.next("third")
	if r2.N != 2 || r3.N != 3 {
		t.Fatalf("rounds reported as %d, %d; want 2, 3", r2.N, r3.N)
	}
	if r2.Outcome.Unverified != 0 || r2.Outcome.Applied != 1 || r2.Err != nil {
		t.Fatalf("round 2: %+v, %v; want 1 applied, verified", r2.Outcome, r2.Err)
	}
	if r3.Outcome.Applied != 1 || targetRetention(b.tgt, "payments") != "2" {
		t.Fatalf("round 3: %+v, payments retention %q; want the change applied", r3.Outcome, targetRetention(b.tgt, "payments"))
	}
	if !r3.Started.Before(r2.Finished) {
		t.Errorf("round 3 started %s, after round 2 was reported (%s)", r3.Started, r2.Finished)
	}
}

// TestVerifyBeforeSameResourceApplies: when the next round covers a
// resource the round being verified changed, it reads the target (and
// applies) only once that verify ended: its read then shows that change on
// every broker, and the verify sees its own round's write, not a later one.
func TestVerifyBeforeSameResourceApplies(t *testing.T) {
	b := newPipeBed(t)
	applied2 := make(chan struct{})
	applied3 := make(chan struct{})
	var overlapped, verified atomic.Bool
	b.hooks(2, func() { close(applied2) }, func(m *memTarget) int {
		// Hold the verify until round 3 either waits for it or applies
		// (wrong: it changes orders too).
		select {
		case <-b.waited:
		case <-applied3:
			overlapped.Store(true)
		}
		defer verified.Store(true)
		if targetRetention(m, "orders") != "5" {
			return 1
		}
		return 0
	})
	b.hooks(3, func() { close(applied3) }, nil)
	b.retention("orders", "5")
	if !b.wait(applied2, "round 2's apply") {
		return
	}
	b.mu.Lock()
	b.targetRead = func() {
		if !verified.Load() {
			overlapped.Store(true)
		}
	}
	b.mu.Unlock()
	b.retention("orders", "6")
	r2, r3 := b.next("second"), b.next("third")
	if r2.N != 2 || r2.Outcome.Unverified != 0 {
		t.Errorf("round %d: %+v; want round 2 verified (its verify saw retention 5)", r2.N, r2.Outcome)
	}
	if overlapped.Load() {
		t.Error("round 3 read or applied orders while round 2's verify of orders ran")
	}
	if r3.N != 3 || r3.Outcome.Applied != 1 || r3.Phases.Wait <= 0 || targetRetention(b.tgt, "orders") != "6" {
		t.Errorf("round %d: %+v, waited %s, orders retention %q; want round 3 to wait, then set it to 6", r3.N, r3.Outcome, r3.Phases.Wait, targetRetention(b.tgt, "orders"))
	}
}

// TestNotificationsReadWhileARoundApplies: notifications that come while a
// round applies are gathered and their entities re-read from the source
// during that apply; their round follows with what was read.
func TestNotificationsReadWhileARoundApplies(t *testing.T) {
	b := newPipeBed(t)
	read := b.onRead("/config/topics/payments")
	b.hooks(2, func() {
		b.retention("payments", "7")
		b.wait(read, "a re-read of payments while round 2 applied")
	}, nil)
	b.retention("orders", "3")
	r2, r3 := b.next("second"), b.next("third")
	if r2.Outcome.Applied != 1 || r3.Outcome.Applied != 1 {
		t.Fatalf("rounds %d and %d applied %d and %d; want 1 each", r2.N, r3.N, r2.Outcome.Applied, r3.Outcome.Applied)
	}
	if len(r3.Entities) != 1 || r3.Entities[0].Name != "topics/payments" && r3.Entities[0].Name != "payments" {
		t.Errorf("round 3 entities %v; want payments", r3.Entities)
	}
	if r3.Phases.ReadSource <= 0 {
		t.Errorf("round 3's source read took %s; want it recorded", r3.Phases.ReadSource)
	}
	if targetRetention(b.tgt, "payments") != "7" || targetRetention(b.tgt, "orders") != "3" {
		t.Errorf("target retention orders %q payments %q; want 3 and 7", targetRetention(b.tgt, "orders"), targetRetention(b.tgt, "payments"))
	}
}

// TestUnverifiedRoundRetried: a verify that ends with changes not shown
// still makes the round undone: it is reported unverified and a full
// round retries.
func TestUnverifiedRoundRetried(t *testing.T) {
	b := newPipeBed(t)
	b.hooks(2, nil, func(*memTarget) int { return 1 })
	b.retention("orders", "4")
	if r := b.next("change"); r.Outcome.Unverified != 1 || r.Phases.Verify <= 0 {
		t.Fatalf("round %d: %+v, verify took %s; want 1 unverified", r.N, r.Outcome, r.Phases.Verify)
	}
	if r := b.next("retry"); r.Reason != ReasonRetry {
		t.Fatalf("after an unverified round: a %s round; want a retry", r.Reason)
	}
}

// TestStopWaitsForVerify: a stop while a round's verify runs reports the
// round (as verified or not) before Run returns.
func TestStopWaitsForVerify(t *testing.T) {
	b := newPipeBed(t)
	started := make(chan struct{})
	release := make(chan struct{})
	b.hooks(2, nil, func(*memTarget) int { close(started); <-release; return 0 })
	b.retention("orders", "8")
	if !b.wait(started, "round 2's verify") {
		return
	}
	b.cancel()
	close(release)
	select {
	case err := <-b.done:
		if err != ErrStopped {
			t.Fatalf("Run: %v; want ErrStopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the stop")
	}
	if len(b.rounds) != 1 {
		t.Fatalf("%d rounds reported after the stop; want round 2", len(b.rounds))
	}
	if r := <-b.rounds; r.N != 2 || r.Outcome.Applied != 1 || r.Outcome.Unverified != 0 {
		t.Fatalf("round %d: %+v; want round 2 applied and verified", r.N, r.Outcome)
	}
}

// TestRoundsBesideEachOther: a round whose scope shares nothing with the
// round applying is read, planned and applied while that round still
// applies (serial rounds would hang here), and the rounds are reported in
// order though the later one finished first.
func TestRoundsBesideEachOther(t *testing.T) {
	b := newPipeBed(t)
	applied3 := make(chan struct{})
	b.hooks(2, func() {
		b.retention("payments", "2")
		b.wait(applied3, "round 3's apply while round 2 applied")
	}, nil)
	b.hooks(3, func() { close(applied3) }, nil)
	b.retention("orders", "1")
	r2, r3 := b.next("second"), b.next("third")
	if r2.N != 2 || r3.N != 3 {
		t.Fatalf("rounds reported as %d, %d; want 2, 3", r2.N, r3.N)
	}
	if r2.Outcome.Applied != 1 || r3.Outcome.Applied != 1 || r3.Phases.Wait != 0 {
		t.Fatalf("rounds 2 and 3: %+v, %+v (round 3 waited %s); want one change each, no wait", r2.Outcome, r3.Outcome, r3.Phases.Wait)
	}
	if targetRetention(b.tgt, "orders") != "1" || targetRetention(b.tgt, "payments") != "2" {
		t.Errorf("target retention orders %q payments %q; want 1 and 2", targetRetention(b.tgt, "orders"), targetRetention(b.tgt, "payments"))
	}
}

// TestSameResourceRoundsInOrder: a round that changes what a round still
// applying changes waits for it (and its verify) before it reads the
// target, even with a round on another resource launched between them;
// the last write wins on the target.
func TestSameResourceRoundsInOrder(t *testing.T) {
	b := newPipeBed(t)
	release := make(chan struct{})
	applied3 := make(chan struct{})
	var done2 atomic.Bool
	b.hooks(2, func() {
		b.retention("payments", "2")
		if !b.wait(applied3, "round 3's apply while round 2 applied") {
			return
		}
		b.retention("orders", "3")
		<-release
	}, func(*memTarget) int { done2.Store(true); return 0 })
	b.hooks(3, func() { close(applied3) }, nil)
	early := make(chan struct{}, 1)
	b.retention("orders", "1")
	if !b.wait(applied3, "round 3's apply") {
		return
	}
	b.mu.Lock()
	b.targetRead = func() {
		if !done2.Load() {
			early <- struct{}{}
		}
	}
	b.mu.Unlock()
	if !b.wait(b.waited, "round 4's wait for round 2") {
		close(release)
		return
	}
	close(release)
	r2, r3, r4 := b.next("second"), b.next("third"), b.next("fourth")
	if r2.N != 2 || r3.N != 3 || r4.N != 4 {
		t.Fatalf("rounds reported as %d, %d, %d; want 2, 3, 4", r2.N, r3.N, r4.N)
	}
	if len(early) > 0 {
		t.Error("round 4 read the target before round 2 (the same topic) was applied and verified")
	}
	if r4.Phases.Wait <= 0 || r4.Outcome.Applied != 1 || targetRetention(b.tgt, "orders") != "3" {
		t.Errorf("round 4: %+v, waited %s, orders retention %q; want it to wait, then set 3", r4.Outcome, r4.Phases.Wait, targetRetention(b.tgt, "orders"))
	}
}

// TestAtMostMaxInFlight: with Config.MaxInFlight rounds not yet applied
// (the default, one, and the bed's four), no further round starts; what
// is notified meanwhile is gathered, and runs as one round once one of
// them has applied.
func TestAtMostMaxInFlight(t *testing.T) {
	for _, n := range []int{0, bedInFlight} {
		t.Run(fmt.Sprintf("MaxInFlight=%d", n), func(t *testing.T) { atMostInFlight(t, n) })
	}
}

func atMostInFlight(t *testing.T, inFlight int) {
	b := newPipeBedWith(t, inFlight)
	most := inFlight
	if most == 0 {
		most = DefaultMaxInFlight
	}
	release := make(chan struct{})
	started := make(chan struct{}, 16)
	b.mu.Lock()
	b.targetRead = func() { started <- struct{}{}; <-release }
	b.mu.Unlock()
	notify := func(topic string) {
		b.feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/" + topic}}, Seen: time.Now()}
	}
	for i := range most {
		notify(fmt.Sprintf("other-%d", i))
		if !b.wait(started, fmt.Sprintf("round %d's target read", i+2)) {
			close(release)
			return
		}
	}
	notify("more-1")
	time.Sleep(50 * time.Millisecond) // past the 20 ms coalescing window: a burst of its own
	notify("more-2")
	// A round would be launched within the coalescing window; this waits
	// ten times that before looking.
	time.Sleep(200 * time.Millisecond)
	if n := len(started); n != 0 {
		t.Errorf("%d more round(s) read the target with %d rounds not yet applied; want none", n, most)
	}
	if n := len(b.feed); n != 0 {
		t.Errorf("%d notification(s) left in the feed; want both read while the rounds applied", n)
	}
	close(release)
	for i := range most {
		if r := b.next("a round in flight"); r.N != i+2 || r.Err != nil {
			t.Fatalf("round %d (%v); want round %d", r.N, r.Err, i+2)
		}
	}
	r := b.next("the round of what was gathered")
	var names []string
	for _, e := range r.Entities {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, ","); got != "more-1,more-2" {
		t.Errorf("round %d entities %s; want more-1 and more-2 in one round", r.N, got)
	}
}

// TestBatchSplitAroundARoundInFlight: of one burst's entities, those that
// share nothing with the round in flight run at once; those that meet it
// are held and run as the next round once it is done.
func TestBatchSplitAroundARoundInFlight(t *testing.T) {
	b := newPipeBed(t)
	applied3 := make(chan struct{})
	b.hooks(2, func() {
		tr := edit(b.src.tree(), "/config/topics/payments", str(`{"version":1,"config":{"retention.ms":"20"}}`))
		b.src.set(edit(tr, "/config/topics/orders", str(`{"version":1,"config":{"retention.ms":"21"}}`)))
		b.feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}, {Kind: zkfeed.Config, Name: "topics/payments"}}, Seen: time.Now()}
		b.wait(applied3, "round 3 (payments alone) while round 2 applied orders")
	}, nil)
	b.hooks(3, func() { close(applied3) }, nil)
	b.retention("orders", "1")
	r2, r3, r4 := b.next("second"), b.next("third"), b.next("fourth")
	names := func(r Round) (out []string) {
		for _, e := range r.Entities {
			out = append(out, e.Name)
		}
		return out
	}
	if got := strings.Join(names(r3), ","); r3.N != 3 || got != "payments" {
		t.Errorf("round %d entities %s; want round 3 with payments alone", r3.N, got)
	}
	if got := strings.Join(names(r4), ","); r4.N != 4 || got != "orders" || r4.Phases.Wait <= 0 {
		t.Errorf("round %d entities %s, waited %s; want round 4 with orders, after a wait", r4.N, got, r4.Phases.Wait)
	}
	if r2.Outcome.Applied != 1 || r3.Outcome.Applied != 1 || r4.Outcome.Applied != 1 {
		t.Errorf("applied %d, %d, %d; want one change per round", r2.Outcome.Applied, r3.Outcome.Applied, r4.Outcome.Applied)
	}
	if targetRetention(b.tgt, "orders") != "21" || targetRetention(b.tgt, "payments") != "20" {
		t.Errorf("target retention orders %q payments %q; want 21 and 20", targetRetention(b.tgt, "orders"), targetRetention(b.tgt, "payments"))
	}
}

// TestHeldEntitiesWaitForTheirOwnRounds: an entity held for one round in
// flight runs once that round is done, though another held entity still
// waits for a different round.
func TestHeldEntitiesWaitForTheirOwnRounds(t *testing.T) {
	b := newPipeBed(t)
	applied3, applied4 := make(chan struct{}), make(chan struct{})
	release2, release3 := make(chan struct{}), make(chan struct{})
	b.hooks(2, func() {
		b.retention("payments", "2")
		b.wait(applied3, "round 3's apply while round 2 applied")
		<-release2
	}, nil)
	b.hooks(3, func() { close(applied3); <-release3 }, nil)
	b.hooks(4, func() { close(applied4) }, nil)
	b.retention("orders", "1")
	if !b.wait(applied3, "round 3's apply") {
		close(release2)
		return
	}
	b.retention("orders", "5")   // held for round 2
	b.retention("payments", "6") // held for round 3
	for range 2 {
		if !b.wait(b.waited, "an entity held for the round in flight it meets") {
			return
		}
	}
	close(release3)
	b.wait(applied4, "round 4 (payments) while round 2 (orders) still applied")
	close(release2)
	r2, r3, r4, r5 := b.next("second"), b.next("third"), b.next("fourth"), b.next("fifth")
	if len(r4.Entities) != 1 || r4.Entities[0].Name != "payments" || len(r5.Entities) != 1 || r5.Entities[0].Name != "orders" {
		t.Errorf("rounds %d and %d entities %v and %v; want payments, then orders", r4.N, r5.N, r4.Entities, r5.Entities)
	}
	for _, r := range []Round{r2, r3, r4, r5} {
		if r.Outcome.Applied != 1 || r.Err != nil {
			t.Errorf("round %d: %+v, %v; want one change applied", r.N, r.Outcome, r.Err)
		}
	}
	if targetRetention(b.tgt, "orders") != "5" || targetRetention(b.tgt, "payments") != "6" {
		t.Errorf("target retention orders %q payments %q; want 5 and 6", targetRetention(b.tgt, "orders"), targetRetention(b.tgt, "payments"))
	}
}
