package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Applied collects, as an apply.Observer, the changes the target accepted
// (not the validate-only preflight), for Verify.
type Applied struct {
	mu      sync.Mutex
	changes []*plan.Change
}

// Observe keeps every change the target accepted.
func (a *Applied) Observe(ev apply.Event) {
	if r, ok := ev.(apply.ResourceResult); ok && r.Err == nil && !r.ValidateOnly {
		a.mu.Lock()
		a.changes = append(a.changes, r.Change)
		a.mu.Unlock()
	}
}

// Changes returns the changes collected so far.
func (a *Applied) Changes() []*plan.Change {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*plan.Change(nil), a.changes...)
}

// ReadFunc reads the target once through each of its brokers
// (kread.ReadEachBroker).
type ReadFunc func(ctx context.Context) ([]kread.BrokerRead, error)

// Reader reads p's live target through each of its brokers, scoped to the
// topics its plan may touch.
func (p *Planned) Reader() ReadFunc {
	return func(ctx context.Context) ([]kread.BrokerRead, error) {
		topics, err := topicScope(p.Plan.Options.TopicRegex)
		if err != nil {
			return nil, err
		}
		return kread.ReadEachBroker(ctx, p.Conn, kread.Options{Topics: topics})
	}
}

// Verify reads the target (read) until every broker shows every applied
// change in its After state, or timeout runs out; it returns the ids of the
// changes some broker never showed, with an error naming them and the
// brokers (nil, nil: every broker shows every change). Each KRaft broker
// applies the metadata log on its own, so right after the RPCs one broker
// may still answer with the old state, and a client that asks another
// broker than verify did would see it: the target is read through each
// broker at once, then after 100 ms, 200 ms, ... (at most 1 s apart), and
// the wait ends with the first round in which every broker shows
// everything. A read that fails, or a broker that does not answer, is
// retried the same way; the last failure is named in the error.
func Verify(ctx context.Context, read ReadFunc, applied []*plan.Change, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	missing := make([]string, len(applied))
	for i, c := range applied {
		missing[i] = c.ID
	}
	var readErr error
	var behind []string
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		rctx, cancel := context.WithDeadline(ctx, deadline)
		reads, err := read(rctx)
		cut := rctx.Err() != nil && ctx.Err() == nil // our own deadline ended the read
		cancel()
		switch {
		case err != nil:
			if !cut {
				readErr = err
			}
		default:
			m, b, failed := unshown(reads, applied)
			if len(m) == 0 && failed == nil {
				return nil, nil
			}
			if !cut { // a round our deadline ended says nothing new
				missing, behind, readErr = m, b, failed
			}
		}
		wait := min(delay, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	shown := strings.Join(missing[:min(10, len(missing))], ", ")
	if len(missing) > 10 {
		shown += fmt.Sprintf(" (and %d more)", len(missing)-10)
	}
	why := ""
	if len(behind) > 0 {
		why = " on " + strings.Join(behind, ", ")
	}
	if readErr != nil {
		why += fmt.Sprintf(" (last read failed: %v)", readErr)
	}
	return missing, fmt.Errorf("verify: after %s the target still does not show %d applied change(s)%s: %s", timeout, len(missing), why, shown)
}

// unshown returns the ids of the applied changes that some broker's read
// does not show, the brokers that miss one ("broker 2 (host:9092)"), and
// the first failed read. A broker whose read failed shows none of them; a
// round with no broker read shows nothing either.
func unshown(reads []kread.BrokerRead, applied []*plan.Change) (missing, behind []string, failed error) {
	if len(reads) == 0 {
		failed = errors.New("no broker was read")
	}
	gone := make([]bool, len(applied))
	for _, r := range reads {
		lags := false
		if r.Err != nil || r.Snapshot == nil {
			if failed == nil {
				failed = r.Err
			}
			lags = true
			for i := range gone {
				gone[i] = true
			}
		} else {
			ix := plan.NewTarget(r.Snapshot)
			for i, c := range applied {
				if !ix.Shows(c) {
					gone[i], lags = true, true
				}
			}
		}
		if lags {
			behind = append(behind, fmt.Sprintf("broker %d (%s)", r.Broker, r.Addr))
		}
	}
	for i, c := range applied {
		if gone[i] || failed != nil && len(reads) == 0 {
			missing = append(missing, c.ID)
		}
	}
	return missing, behind, failed
}
