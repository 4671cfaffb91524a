package migration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
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

// Reads reads a target through its brokers one at a time: List names
// them (kread.ListBrokers), Read reads the target once through one
// (kread.ReadBroker).
type Reads struct {
	List func(ctx context.Context) ([]kread.BrokerRead, error)
	Read func(ctx context.Context, b kread.BrokerRead) kread.BrokerRead
}

// EachBroker is Reads of conn, every read with opts.
func EachBroker(conn *kafkaconn.Conn, opts kread.Options) Reads {
	return Reads{
		List: func(ctx context.Context) ([]kread.BrokerRead, error) { return kread.ListBrokers(ctx, conn) },
		Read: func(ctx context.Context, b kread.BrokerRead) kread.BrokerRead {
			return kread.ReadBroker(ctx, conn, b, opts)
		},
	}
}

// Reader reads p's live target through each of its brokers, scoped to the
// topics its plan may touch.
func (p *Planned) Reader() Reads {
	topics, err := topicScope(p.Plan.Options.TopicRegex)
	if err != nil {
		return Reads{List: func(context.Context) ([]kread.BrokerRead, error) { return nil, err }}
	}
	return EachBroker(p.Conn, kread.Options{Topics: topics})
}

// Verify delays: a broker that does not show every change yet is read
// again after firstDelay, then twice as long each time, at most maxDelay
// apart.
const (
	firstDelay = 20 * time.Millisecond
	maxDelay   = time.Second
)

// Verify reads the target (reads) until every broker has shown every
// applied change in its After state, or timeout runs out; it returns the
// ids of the changes some broker never showed, with an error naming them
// and the brokers (nil, nil: every broker showed every change). Each KRaft
// broker applies the metadata log on its own, so right after the RPCs one
// broker may still answer with the old state, and a client that asks
// another broker than verify did would see it. The brokers are listed
// once and each is read on its own, at once and then, until it has shown
// every change, again 20 ms, 40 ms, ... (at most 1 s) after its last read
// returned. A broker has shown a change once a read of it showed it: it
// applies the log in order, so a later read that no longer shows the
// change shows a later write (sync frees a change's resource for its next
// round as soon as every broker has shown it). A broker is done once it
// has shown every change, and the wait ends when every broker is. A read
// that fails is retried the same way, and a broker no longer listed then
// is not waited for; the last failure is named in the error.
func Verify(ctx context.Context, reads Reads, applied []*plan.Change, timeout time.Duration) ([]string, error) {
	return VerifyEach(ctx, reads, applied, timeout, nil)
}

// VerifyEach is Verify that also calls shown (when not nil) with each
// change's id as soon as every broker has shown that change (a broker
// that left the cluster counts as having shown it): sync frees the
// change's resource for the next round then, not when the last change
// of the round shows.
func VerifyEach(ctx context.Context, reads Reads, applied []*plan.Change, timeout time.Duration, shown func(id string)) ([]string, error) {
	deadline := time.Now().Add(timeout)
	vctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// cut says whether our own deadline ended a read: such a read says
	// nothing new.
	cut := func() bool { return vctx.Err() != nil && ctx.Err() == nil }
	brokers, listErr := listBrokers(ctx, vctx, reads, cut)
	if brokers == nil {
		return verifyFailed(timeout, applied, nil, nil, listErr)
	}
	// Each broker's last read that counts, and whether it has shown all.
	last := make([]kread.BrokerRead, len(brokers))
	done := make([]bool, len(brokers))
	tally := newShownTally(applied, len(brokers), shown)
	var wg sync.WaitGroup
	for i, b := range brokers {
		last[i] = kread.BrokerRead{Broker: b.Broker, Addr: b.Addr, Err: errors.New("not read")}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for delay := firstDelay; ; delay = min(2*delay, maxDelay) {
				r := reads.Read(vctx, b)
				if cut() {
					return
				}
				last[i] = r
				if r.Err == nil && tally.read(i, r.Snapshot) {
					done[i] = true
					return
				}
				if r.Err != nil && gone(vctx, reads, b) {
					done[i] = true // the broker left the cluster
					tally.all(i)
					return
				}
				select {
				case <-time.After(delay):
				case <-vctx.Done():
					return
				}
			}
		}()
	}
	wg.Wait()
	var lagging []kread.BrokerRead
	var unseen [][]bool // per lagging broker: per change, not shown by it
	for i := range brokers {
		if !done[i] {
			lagging = append(lagging, last[i])
			unseen = append(unseen, tally.unseen(i))
		}
	}
	if len(lagging) == 0 {
		return nil, nil
	}
	missing, behind, failed := unshown(lagging, unseen, applied)
	return verifyFailed(timeout, applied, missing, behind, failed)
}

// shownTally counts, per change, the brokers that have shown it (in any
// read), and calls shown, when set, once all have.
type shownTally struct {
	mu      sync.Mutex
	applied []*plan.Change
	by      []map[int]bool // per change: the brokers (by index) that showed it
	of      []int          // per broker: how many changes it has shown
	brokers int
	shown   func(id string)
}

func newShownTally(applied []*plan.Change, brokers int, shown func(string)) *shownTally {
	t := &shownTally{applied: applied, brokers: brokers, shown: shown, by: make([]map[int]bool, len(applied)), of: make([]int, brokers)}
	for i := range t.by {
		t.by[i] = map[int]bool{}
	}
	return t
}

// read notes what broker i's read s shows, and reports whether broker i
// has now shown every change.
func (t *shownTally) read(i int, s *snapshot.Snapshot) bool {
	if s == nil {
		return false
	}
	ix := plan.NewTarget(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.applied {
		if !t.by[k][i] && ix.Shows(c) {
			t.mark(k, i)
		}
	}
	return t.of[i] == len(t.applied)
}

// all notes that broker i is out of the count (it left the cluster).
func (t *shownTally) all(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.applied {
		if !t.by[k][i] {
			t.mark(k, i)
		}
	}
}

// unseen says, per change, whether broker i has not shown it.
func (t *shownTally) unseen(i int) []bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]bool, len(t.applied))
	for k := range t.applied {
		out[k] = !t.by[k][i]
	}
	return out
}

// mark counts broker i for change k; t.mu is held.
func (t *shownTally) mark(k, i int) {
	t.by[k][i] = true
	t.of[i]++
	if len(t.by[k]) == t.brokers && t.shown != nil {
		t.shown(t.applied[k].ID)
	}
}

// listBrokers lists the brokers, retrying with Verify's delays until vctx
// ends; nil and the last error when it never could.
func listBrokers(ctx, vctx context.Context, reads Reads, cut func() bool) ([]kread.BrokerRead, error) {
	var lastErr error
	for delay := firstDelay; ; delay = min(2*delay, maxDelay) {
		bs, err := reads.List(vctx)
		if err == nil && len(bs) > 0 {
			return bs, nil
		}
		if !cut() {
			if lastErr = err; err == nil {
				lastErr = errors.New("no broker was read")
			}
		}
		select {
		case <-time.After(delay):
		case <-vctx.Done():
			if lastErr == nil {
				lastErr = vctx.Err()
			}
			return nil, lastErr
		}
	}
}

// gone reports whether b is no longer listed (a failed listing says not).
func gone(ctx context.Context, reads Reads, b kread.BrokerRead) bool {
	bs, err := reads.List(ctx)
	return err == nil && !slices.ContainsFunc(bs, func(x kread.BrokerRead) bool { return x.Broker == b.Broker })
}

// verifyFailed is Verify's answer when not every broker showed every
// change: missing (nil: all of applied) and the error naming them, the
// brokers behind and the last failure.
func verifyFailed(timeout time.Duration, applied []*plan.Change, missing, behind []string, readErr error) ([]string, error) {
	if missing == nil {
		for _, c := range applied {
			missing = append(missing, c.ID)
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
	return missing, fmt.Errorf("verify: after %s the target still does not show %s%s: %s", timeout, english.N(len(missing), "applied change"), why, shown)
}

// unshown returns the ids of the applied changes some lagging broker has
// not shown (unseen: per broker, per change), the brokers that miss one
// ("broker 2 (host:9092)"), and the first of their last reads that failed.
func unshown(lagging []kread.BrokerRead, unseen [][]bool, applied []*plan.Change) (missing, behind []string, failed error) {
	gone := make([]bool, len(applied))
	for j, r := range lagging {
		if (r.Err != nil || r.Snapshot == nil) && failed == nil {
			failed = r.Err
		}
		behind = append(behind, fmt.Sprintf("broker %d (%s)", r.Broker, r.Addr))
		for k := range applied {
			gone[k] = gone[k] || unseen[j][k]
		}
	}
	for k, c := range applied {
		if gone[k] {
			missing = append(missing, c.ID)
		}
	}
	return missing, behind, failed
}

// VerifyApplied waits until every broker of the target shows every applied
// change (Verify), for as long as the target keeps showing more of them:
// it gives up only after a whole window in which none more were shown. A
// large apply is published by a KRaft broker in pieces, each waiting for
// the partition logs of the one before to be created (about 10,000 topics
// of 2 partitions took minutes on the test broker, docs/benchmarks.md), so
// no fixed wait fits every size, while a target that shows nothing new for
// a window has stopped. h.Notice hears how far it got after each window.
func VerifyApplied(ctx context.Context, read Reads, applied []*plan.Change, window time.Duration, h Hooks) ([]string, error) {
	start := time.Now()
	pending := applied
	for {
		missing, err := Verify(ctx, read, pending, window)
		if err == nil || len(missing) >= len(pending) || ctx.Err() != nil {
			if err != nil && len(pending) < len(applied) {
				h.notice("Verify: the target showed none more in the last %s (%d of %d after %s in all); giving up.",
					window, len(applied)-len(missing), len(applied), time.Since(start).Round(time.Second))
			}
			return missing, err
		}
		h.notice("Verify: the target shows %d of %s after %s; waiting while it shows more.",
			len(applied)-len(missing), english.N(len(applied), "applied change"), time.Since(start).Round(time.Second))
		left := make(map[string]bool, len(missing))
		for _, id := range missing {
			left[id] = true
		}
		pending = slices.DeleteFunc(slices.Clone(pending), func(c *plan.Change) bool { return !left[c.ID] })
	}
}
