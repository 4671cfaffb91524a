package migration

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// fakeReads is a target of brokers 1, 2, ... each of which shows, read
// after read, its snapshots in turn (nil: the read fails), the last one
// repeating; listErr fails that many listings first, and broker left
// leaves the cluster after the first listing that succeeds.
type fakeReads struct {
	mu      sync.Mutex
	brokers [][]*snapshot.Snapshot
	listErr int
	lists   int
	left    int   // broker left+1 is listed only the first time (0: none)
	reads   []int // per broker
	// hold, when set, is called before broker i's read n (0-based).
	hold func(i, n int)
}

func (f *fakeReads) Reads() Reads {
	return Reads{
		List: func(context.Context) ([]kread.BrokerRead, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.lists++
			if f.lists <= f.listErr {
				return nil, errors.New("broker gone")
			}
			var out []kread.BrokerRead
			for i := range f.brokers {
				if f.left == i+1 && f.lists > f.listErr+1 {
					continue
				}
				out = append(out, kread.BrokerRead{Broker: int32(i + 1), Addr: fmt.Sprintf("b%d:9092", i+1)})
			}
			return out, nil
		},
		Read: func(ctx context.Context, b kread.BrokerRead) kread.BrokerRead {
			i := int(b.Broker) - 1
			f.mu.Lock()
			n := f.reads[i]
			f.reads[i]++
			seq := f.brokers[i]
			f.mu.Unlock()
			if f.hold != nil {
				f.hold(i, n)
			}
			if s := seq[min(n, len(seq)-1)]; s != nil {
				b.Snapshot = s
			} else {
				b.Err = fmt.Errorf("broker %d (%s): connection refused", b.Broker, b.Addr)
			}
			return b
		},
	}
}

func (f *fakeReads) readsOf(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[i]
}

// TestVerify: Verify reads the target through each broker until every
// broker shows every applied change, each broker on its own, and names
// the changes it never saw and the brokers that lag or do not answer
// (with the last failure).
func TestVerify(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	var applied []*plan.Change
	for i := range p.Changes {
		applied = append(applied, &p.Changes[i])
	}
	// done is the target once the given topics are created as planned.
	done := func(topics ...string) *snapshot.Snapshot {
		s := target()
		for _, src := range source().Topics {
			for _, name := range topics {
				if src.Name == name {
					s.Topics = append(s.Topics, src)
				}
			}
		}
		return s
	}
	seq := func(ss ...*snapshot.Snapshot) []*snapshot.Snapshot { return ss }
	all := done("orders", "payments")
	tests := []struct {
		name    string
		brokers [][]*snapshot.Snapshot
		listErr int
		left    int
		timeout time.Duration
		missing []string
		err     string
		reads   []int // per broker; with an error, at least
	}{
		{name: "shown at once", brokers: [][]*snapshot.Snapshot{seq(all)}, timeout: time.Minute, reads: []int{1}},
		{name: "shown on the third read", brokers: [][]*snapshot.Snapshot{seq(target(), done("orders"), all)}, timeout: time.Minute, reads: []int{3}},
		{name: "a failed read is retried", brokers: [][]*snapshot.Snapshot{seq(nil, all)}, timeout: time.Minute, reads: []int{2}},
		{name: "a failed listing is retried", brokers: [][]*snapshot.Snapshot{seq(all)}, listErr: 2, timeout: time.Minute, reads: []int{1}},
		{name: "one never shown", brokers: [][]*snapshot.Snapshot{seq(done("orders"))}, timeout: 250 * time.Millisecond, reads: []int{2},
			missing: []string{"topic:payments"}, err: "verify: after 250ms the target still does not show 1 applied change on broker 1 (b1:9092): topic:payments"},
		{name: "reads keep failing", brokers: [][]*snapshot.Snapshot{seq(nil)}, timeout: 250 * time.Millisecond, reads: []int{2},
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied changes on broker 1 (b1:9092) (last read failed: broker 1 (b1:9092): connection refused): topic:orders, topic:payments"},
		{name: "listing keeps failing", brokers: [][]*snapshot.Snapshot{seq(all)}, listErr: 1000, timeout: 250 * time.Millisecond, reads: []int{0},
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied changes (last read failed: broker gone): topic:orders, topic:payments"},
		// Broker 1 shows everything at once, broker 2 still has the old
		// metadata: done only when broker 2 has caught up, and broker 1
		// is not read again meanwhile.
		{name: "a lagging second broker is read again on its own", brokers: [][]*snapshot.Snapshot{seq(all), seq(target(), done("orders"), all)}, timeout: time.Minute, reads: []int{1, 3}},
		{name: "a second broker that never catches up is named", brokers: [][]*snapshot.Snapshot{seq(all), seq(done("orders"))}, timeout: 250 * time.Millisecond, reads: []int{1, 2},
			missing: []string{"topic:payments"}, err: "does not show 1 applied change on broker 2 (b2:9092): topic:payments"},
		{name: "a broker that does not answer is named", brokers: [][]*snapshot.Snapshot{seq(all), seq(nil)}, timeout: 250 * time.Millisecond, reads: []int{1, 2},
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied changes on broker 2 (b2:9092) (last read failed: broker 2 (b2:9092): connection refused): topic:orders, topic:payments"},
		{name: "a broker that left the cluster is not waited for", brokers: [][]*snapshot.Snapshot{seq(all), seq(nil)}, left: 2, timeout: time.Minute, reads: []int{1, 1}},
		{name: "it answers again", brokers: [][]*snapshot.Snapshot{seq(all), seq(nil, all)}, timeout: time.Minute, reads: []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeReads{brokers: tt.brokers, listErr: tt.listErr, left: tt.left, reads: make([]int, len(tt.brokers))}
			missing, err := Verify(context.Background(), f.Reads(), applied, tt.timeout)
			if !reflect.DeepEqual(missing, tt.missing) {
				t.Errorf("missing = %v, want %v", missing, tt.missing)
			}
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("Verify error = %v, want %q", err, tt.err)
			}
			for i, want := range tt.reads {
				if n := f.readsOf(i); n < want || (tt.err == "" && n != want) {
					t.Errorf("broker %d read %d time(s), want %d", i+1, n, want)
				}
			}
		})
	}
}

// TestVerifyReadsEachBrokerOnItsOwn: a broker that lags is read again as
// soon as its own read returns (and the delay has passed), not once every
// broker's read of the same round has: broker 2 shows everything on its
// third read while broker 1's first read is still out.
func TestVerifyReadsEachBrokerOnItsOwn(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	all := target()
	all.Topics = append(all.Topics, source().Topics...)
	third := make(chan struct{})
	f := &fakeReads{brokers: [][]*snapshot.Snapshot{{all}, {target(), target(), all}}, reads: make([]int, 2)}
	f.hold = func(i, n int) {
		switch {
		case i == 0 && n == 0:
			select { // broker 1's first read is slow: it ends once broker 2 is read a third time
			case <-third:
			case <-time.After(10 * time.Second): // a hang bound
			}
		case i == 1 && n == 2:
			close(third)
		}
	}
	if missing, err := Verify(context.Background(), f.Reads(), []*plan.Change{&p.Changes[0]}, time.Minute); err != nil || missing != nil {
		t.Fatalf("Verify = %v, %v; want every broker to show the change", missing, err)
	}
	select {
	case <-third:
	default:
		t.Errorf("broker 2 was read %d time(s) while broker 1's first read was out, want 3", f.readsOf(1))
	}
}

// TestVerifyStopsWhenCanceled: a canceled context ends the wait.
func TestVerifyStopsWhenCanceled(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeReads{brokers: [][]*snapshot.Snapshot{{target()}}, reads: make([]int, 1)}
	f.hold = func(int, int) { cancel() }
	missing, err := Verify(ctx, f.Reads(), []*plan.Change{&p.Changes[0]}, time.Hour)
	if n := f.readsOf(0); n != 1 || len(missing) != 1 || err == nil {
		t.Errorf("after cancel: %d read(s), missing %v, err %v; want 1 read and the change named", n, missing, err)
	}
}

// TestApplied: only changes the target accepted for real count, not the
// validate-only preflight nor failures.
func TestApplied(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	var a Applied
	a.Observe(apply.ResourceResult{Change: &p.Changes[0], ValidateOnly: true})
	a.Observe(apply.ResourceResult{Change: &p.Changes[1], Err: errors.New("refused")})
	a.Observe(apply.ResourceResult{Change: &p.Changes[0]})
	a.Observe(apply.ChangeSkipped{Change: &p.Changes[1]})
	if got := a.Changes(); len(got) != 1 || got[0].ID != "topic:orders" {
		t.Errorf("Applied = %v, want topic:orders only", got)
	}
}

// TestVerifyEachCallsShownPerChange: shown is called for a change as
// soon as every broker has shown it, though another change of the same
// verify never shows on one broker (it is then the one named missing).
func TestVerifyEachCallsShownPerChange(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	if len(p.Changes) < 2 {
		t.Fatalf("want two changes to verify, got %d", len(p.Changes))
	}
	a, b := &p.Changes[0], &p.Changes[1]
	all := target()
	all.Topics = append(all.Topics, source().Topics...)
	onlyA := target()
	for _, tp := range source().Topics {
		if tp.Name == a.Resource.Name {
			onlyA.Topics = append(onlyA.Topics, tp)
		}
	}
	f := &fakeReads{brokers: [][]*snapshot.Snapshot{{all}, {target(), onlyA}}, reads: make([]int, 2)}
	var mu sync.Mutex
	var shown []string
	missing, err := VerifyEach(context.Background(), f.Reads(), []*plan.Change{a, b}, 300*time.Millisecond, func(id string) {
		mu.Lock()
		shown = append(shown, id)
		mu.Unlock()
	})
	if err == nil || !reflect.DeepEqual(missing, []string{b.ID}) {
		t.Fatalf("VerifyEach = %v, %v; want %s missing", missing, err, b.ID)
	}
	if !reflect.DeepEqual(shown, []string{a.ID}) {
		t.Errorf("shown %v; want %s alone, once", shown, a.ID)
	}
}

// TestVerifyCountsEachChangeFromTheReadThatShowedIt: a broker has shown a
// change once a read of it showed it, whatever a later read shows. Sync
// frees a change's resource as soon as every broker has shown it, and the
// next round may change that resource while the rest of the verify goes
// on: the broker's later reads show the next round's state. The verify
// used to want every change in one read of each broker, so such a round
// was unverified after the whole --verify-timeout (BenchmarkSyncLag: a
// partition count and a quota raised again by the next rounds, 30 s).
func TestVerifyCountsEachChangeFromTheReadThatShowedIt(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	if len(p.Changes) < 2 {
		t.Fatalf("want two changes to verify, got %d", len(p.Changes))
	}
	a, b := &p.Changes[0], &p.Changes[1]
	only := func(c *plan.Change) *snapshot.Snapshot {
		s := target()
		for _, tp := range source().Topics {
			if tp.Name == c.Resource.Name {
				s.Topics = append(s.Topics, tp)
			}
		}
		return s
	}
	all := target()
	all.Topics = append(all.Topics, source().Topics...)
	// Broker 1 shows a, then (a's resource freed and changed by the next
	// round: here deleted) b without a; broker 2 shows both at once.
	f := &fakeReads{brokers: [][]*snapshot.Snapshot{{only(a), only(b)}, {all}}, reads: make([]int, 2)}
	var mu sync.Mutex
	var shown []string
	missing, err := VerifyEach(context.Background(), f.Reads(), []*plan.Change{a, b}, 5*time.Second, func(id string) {
		mu.Lock()
		shown = append(shown, id)
		mu.Unlock()
	})
	if err != nil || missing != nil {
		t.Fatalf("VerifyEach = %v, %v; want every change shown by every broker", missing, err)
	}
	if !reflect.DeepEqual(shown, []string{a.ID, b.ID}) {
		t.Errorf("shown %v; want %s then %s", shown, a.ID, b.ID)
	}
	if n := f.readsOf(0); n != 2 {
		t.Errorf("broker 1 read %d time(s), want 2", n)
	}
	// Without shown (migrate apply's verify) the same.
	f = &fakeReads{brokers: [][]*snapshot.Snapshot{{only(a), only(b)}, {all}}, reads: make([]int, 2)}
	if missing, err := Verify(context.Background(), f.Reads(), []*plan.Change{a, b}, 5*time.Second); err != nil || missing != nil {
		t.Errorf("Verify = %v, %v; want every change shown by every broker", missing, err)
	}
}
