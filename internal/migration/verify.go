package migration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
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

// ReadFunc reads the target once.
type ReadFunc func(ctx context.Context) (*snapshot.Snapshot, error)

// Reader reads p's live target, scoped to the topics its plan may touch.
func (p *Planned) Reader() ReadFunc {
	return func(ctx context.Context) (*snapshot.Snapshot, error) {
		topics, err := topicScope(p.Plan.Options.TopicRegex)
		if err != nil {
			return nil, err
		}
		return kread.Read(ctx, p.Conn, kread.Options{Topics: topics})
	}
}

// Verify reads the target (read) until it shows every applied change in
// its After state, or timeout runs out; it returns the ids of the changes
// the target never showed, with an error naming them (nil, nil: every
// change is shown). KRaft brokers apply metadata asynchronously, so a read
// right after the RPCs may lag behind them: the target is read at once,
// then after 100 ms, 200 ms, ... (at most 1 s apart), and the wait ends
// with the first read that shows everything. A read that fails is retried
// the same way; the last failure is named in the error.
func Verify(ctx context.Context, read ReadFunc, applied []*plan.Change, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	missing := make([]string, len(applied))
	for i, c := range applied {
		missing[i] = c.ID
	}
	var readErr error
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		rctx, cancel := context.WithDeadline(ctx, deadline)
		tgt, err := read(rctx)
		cut := rctx.Err() != nil && ctx.Err() == nil // our own deadline ended the read
		cancel()
		if err != nil && !cut {
			readErr = err
		}
		if err == nil {
			readErr = nil
			ix := plan.NewTarget(tgt)
			missing = missing[:0]
			for _, c := range applied {
				if !ix.Shows(c) {
					missing = append(missing, c.ID)
				}
			}
			if len(missing) == 0 {
				return nil, nil
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
	if readErr != nil {
		why = fmt.Sprintf(" (last read failed: %v)", readErr)
	}
	return missing, fmt.Errorf("verify: after %s the target still does not show %d applied change(s)%s: %s", timeout, len(missing), why, shown)
}
