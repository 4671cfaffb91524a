package migration

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestVerify: Verify reads the target until it shows every applied change,
// and names the changes it never showed (with the last read's failure).
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
	type read struct {
		s   *snapshot.Snapshot
		err error
	}
	tests := []struct {
		name    string
		reads   []read // in turn; the last one repeats
		timeout time.Duration
		missing []string
		err     string
		atLeast int // reads
	}{
		{name: "shown at once", reads: []read{{s: done("orders", "payments")}}, timeout: time.Minute, atLeast: 1},
		{name: "shown on the third read", reads: []read{{s: target()}, {s: done("orders")}, {s: done("orders", "payments")}}, timeout: time.Minute, atLeast: 3},
		{name: "a failed read is retried", reads: []read{{err: errors.New("broker gone")}, {s: done("orders", "payments")}}, timeout: time.Minute, atLeast: 2},
		{name: "one never shown", reads: []read{{s: done("orders")}}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:payments"}, err: "verify: after 250ms the target still does not show 1 applied change(s): topic:payments"},
		{name: "reads keep failing", reads: []read{{err: errors.New("broker gone")}}, timeout: 250 * time.Millisecond, atLeast: 2,
			missing: []string{"topic:orders", "topic:payments"}, err: "2 applied change(s) (last read failed: broker gone): topic:orders, topic:payments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			readFn := func(context.Context) (*snapshot.Snapshot, error) {
				r := tt.reads[min(n, len(tt.reads)-1)]
				n++
				return r.s, r.err
			}
			missing, err := Verify(context.Background(), readFn, applied, tt.timeout)
			if !reflect.DeepEqual(missing, tt.missing) {
				t.Errorf("missing = %v, want %v", missing, tt.missing)
			}
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("Verify error = %v, want %q", err, tt.err)
			}
			if n < tt.atLeast || (tt.err == "" && n != tt.atLeast) {
				t.Errorf("%d read(s), want %d", n, tt.atLeast)
			}
		})
	}
}

// TestVerifyStopsWhenCanceled: a canceled context ends the wait.
func TestVerifyStopsWhenCanceled(t *testing.T) {
	p := build(t, source(), target(), plan.Options{Include: []plan.Kind{plan.KindTopic}})
	ctx, cancel := context.WithCancel(context.Background())
	reads := 0
	missing, err := Verify(ctx, func(context.Context) (*snapshot.Snapshot, error) {
		reads++
		cancel()
		return target(), nil
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
