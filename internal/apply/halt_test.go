package apply_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

var errFrozen = errors.New("frozen")

// haltGate is an Options.Halt the test closes.
type haltGate struct{ closed atomic.Bool }

func (g *haltGate) Halt() error {
	if g.closed.Load() {
		return errFrozen
	}
	return nil
}

// requestCounter counts the requests of one key kfake received.
func countRequests(c *kfake.Cluster, key kmsg.Key) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

// TestHaltDuringASlowRequest: Options.Halt answering an error while a
// request is stalled on the target sends nothing after it: the request in
// flight is answered as usual, every later request is held back, and the
// result names the changes not sent.
func TestHaltDuringASlowRequest(t *testing.T) {
	c, cl, adm := cluster(t)
	gate := &haltGate{}
	stalled, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if first.CompareAndSwap(false, true) {
			close(stalled)
			c.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	others := map[kmsg.Key]*atomic.Int32{}
	for _, k := range []kmsg.Key{kmsg.IncrementalAlterConfigs, kmsg.AlterClientQuotas, kmsg.CreateACLs, kmsg.AlterUserSCRAMCredentials, kmsg.CreatePartitions} {
		others[k] = countRequests(c, k)
	}
	p := build(t, emptyTarget())
	var ev events
	done := make(chan struct{})
	var res apply.Result
	var err error
	go func() {
		defer close(done)
		res, err = apply.Run(context.Background(), cl, p, emptyTarget(), apply.Options{BatchSize: 1, MaxInFlight: 1, NoPreflight: true, Halt: gate.Halt}, &ev)
	}()
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		t.Fatal("no CreateTopics reached the target")
	}
	gate.closed.Store(true) // the freeze comes while the first request waits
	close(release)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("apply did not return")
	}
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	var skipped []string
	for _, e := range ev.es {
		switch e := e.(type) {
		case apply.BatchSent:
			sent++
		case apply.ChangeSkipped:
			if e.Reason == apply.ReasonHalted {
				skipped = append(skipped, e.Change.ID)
			}
		}
	}
	if sent != 1 || res.Succeeded != 1 {
		t.Errorf("%d requests sent, %d changes applied; want the one in flight only", sent, res.Succeeded)
	}
	for k, n := range others {
		if n.Load() != 0 {
			t.Errorf("%d %s request(s) reached the target after the halt", n.Load(), k.Name())
		}
	}
	if res.Halted == nil || !errors.Is(res.Halted, errFrozen) || len(res.Halted.Unsent) != len(p.Changes)-1 {
		t.Fatalf("Halted = %v; want the %d changes not sent, caused by the gate", res.Halted, len(p.Changes)-1)
	}
	if !slices.Equal(skipped, res.Halted.Unsent) {
		t.Errorf("skipped as halted %v, named unsent %v; want the same", skipped, res.Halted.Unsent)
	}
	if topics, _ := adm.ListTopics(context.Background()); len(topics) != 1 {
		t.Errorf("topics on the target: %v; want the one whose request was in flight", topics.Names())
	}
}

// TestHaltBeforeARetry: a halt that comes during a retry's backoff keeps
// the retry from being sent.
func TestHaltBeforeARetry(t *testing.T) {
	c, cl, _ := cluster(t)
	gate := &haltGate{}
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "c", Err: kerr.ThrottlingQuotaExceeded, Count: 1})
	p := build(t, emptyTarget())
	p.Changes = slices.DeleteFunc(p.Changes, func(c2 plan.Change) bool { return c2.ID != "topic:c" })
	var ev events
	obs := apply.ObserverFunc(func(e apply.Event) {
		ev.Observe(e)
		if d, ok := e.(apply.BatchDone); ok && d.Attempt == 1 {
			gate.closed.Store(true) // the first attempt failed: freeze before its retry
		}
	})
	res, err := apply.Run(context.Background(), cl, p, emptyTarget(), apply.Options{NoPreflight: true, Backoff: time.Millisecond, Halt: gate.Halt}, obs)
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for _, e := range ev.es {
		if _, ok := e.(apply.BatchSent); ok {
			attempts++
		}
	}
	if attempts != 1 || res.Halted == nil || !slices.Equal(res.Halted.Unsent, []string{"topic:c"}) || res.Succeeded+res.Failed != 0 {
		t.Fatalf("%d requests, result %+v; want the first attempt only and topic:c named unsent", attempts, res)
	}
}
