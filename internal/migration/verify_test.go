package migration

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestVerify: Verify reads the target through each broker until every
// broker shows every applied change, and names the changes it never saw
// and the brokers that lag or do not answer (with the last failure).
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
	// round is one read through every broker: what broker 1, 2, ... showed
	// (nil: that broker did not answer), or the error of the whole read.
	type round struct {
		brokers []*snapshot.Snapshot
		err     error
	}
	one := func(s *snapshot.Snapshot) round { return round{brokers: []*snapshot.Snapshot{s}} }
	two := func(b1, b2 *snapshot.Snapshot) round { return round{brokers: []*snapshot.Snapshot{b1, b2}} }
	all := done("orders", "payments")
	tests := []struct {
		name    string
		rounds  []round // in turn; the last one repeats
		timeout time.Duration
		missing []string
		err     string
		atLeast int // rounds
	}{
		{name: "shown at once", rounds: []round{one(all)}, timeout: time.Minute, atLeast: 1},
		{name: "shown on the third read", rounds: []round{one(target()), one(done("orders")), one(all)}, timeout: time.Minute, atLeast: 3},
		{name: "a failed read is retried", rounds: []round{{err: errors.New("broker gone")}, one(all)}, timeout: time.Minute, atLeast: 2},
		{name: "one never shown", rounds: []round{one(done("orders"))}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:payments"}, err: "verify: after 250ms the target still does not show 1 applied change(s) on broker 1 (b1:9092): topic:payments"},
		{name: "reads keep failing", rounds: []round{{err: errors.New("broker gone")}}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied change(s) (last read failed: broker gone): topic:orders, topic:payments"},
		// Broker 1 shows everything at once, broker 2 still has the old
		// metadata: done only when broker 2 has caught up.
		{name: "a lagging second broker holds the wait", rounds: []round{two(all, target()), two(all, done("orders")), two(all, all)}, timeout: time.Minute, atLeast: 3},
		{name: "a second broker that never catches up is named", rounds: []round{two(all, done("orders"))}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:payments"}, err: "does not show 1 applied change(s) on broker 2 (b2:9092): topic:payments"},
		{name: "a broker that does not answer is named", rounds: []round{two(all, nil)}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied change(s) on broker 2 (b2:9092) (last read failed: broker 2 (b2:9092): connection refused): topic:orders, topic:payments"},
		{name: "it answers again", rounds: []round{two(all, nil), two(all, all)}, timeout: time.Minute, atLeast: 2},
		{name: "no broker read shows nothing", rounds: []round{{}}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:orders", "topic:payments"}, err: "(last read failed: no broker was read)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			readFn := func(context.Context) ([]kread.BrokerRead, error) {
				r := tt.rounds[min(n, len(tt.rounds)-1)]
				n++
				if r.err != nil {
					return nil, r.err
				}
				var reads []kread.BrokerRead
				for i, s := range r.brokers {
					br := kread.BrokerRead{Broker: int32(i + 1), Addr: fmt.Sprintf("b%d:9092", i+1), Snapshot: s}
					if s == nil {
						br.Err = fmt.Errorf("broker %d (%s): connection refused", br.Broker, br.Addr)
					}
					reads = append(reads, br)
				}
				return reads, nil
			}
			missing, err := Verify(context.Background(), readFn, applied, tt.timeout)
			if !reflect.DeepEqual(missing, tt.missing) {
				t.Errorf("missing = %v, want %v", missing, tt.missing)
			}
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("Verify error = %v, want %q", err, tt.err)
			}
			if n < tt.atLeast || (tt.err == "" && n != tt.atLeast) {
				t.Errorf("%d round(s) of reads, want %d", n, tt.atLeast)
			}
		})
	}
}

// TestVerifyStopsWhenCanceled: a canceled context ends the wait.
func TestVerifyStopsWhenCanceled(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	ctx, cancel := context.WithCancel(context.Background())
	reads := 0
	missing, err := Verify(ctx, func(context.Context) ([]kread.BrokerRead, error) {
		reads++
		cancel()
		return []kread.BrokerRead{{Broker: 1, Addr: "b1:9092", Snapshot: target()}}, nil
	}, []*plan.Change{&p.Changes[0]}, time.Hour)
	if reads != 1 || len(missing) != 1 || err == nil {
		t.Errorf("after cancel: %d read(s), missing %v, err %v; want 1 read and the change named", reads, missing, err)
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
