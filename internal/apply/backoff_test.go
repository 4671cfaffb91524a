package apply_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// timingOut answers every real CreateTopics with a retriable error for
// each topic (the controller timed out) and cancels the apply once it has
// answered the first: the apply is stopped while it waits to try again.
type timingOut struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	mu     sync.Mutex
	sent   int
}

func (f *timingOut) RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard {
	r, ok := req.(*kmsg.CreateTopicsRequest)
	if !ok || r.ValidateOnly {
		return f.cl.RequestSharded(ctx, req)
	}
	f.mu.Lock()
	f.sent++
	f.mu.Unlock()
	resp := kmsg.NewPtrCreateTopicsResponse()
	for _, t := range r.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic, rt.ErrorCode = t.Topic, kerr.RequestTimedOut.Code
		resp.Topics = append(resp.Topics, rt)
	}
	f.cancel()
	return []kgo.ResponseShard{{Resp: resp}}
}

// TestStopDuringRetryBackoff: an apply stopped while it waits to retry
// (the backoff here an hour) returns at once, sends nothing more, and
// reports each change it was retrying failed with the answer it got,
// never silently dropped. (The wait ignored the stop: up to 3.75 s per
// batch with the default backoff.)
func TestStopDuringRetryBackoff(t *testing.T) {
	_, cl, _ := cluster(t)
	p := build(t, emptyTarget())
	p.Changes = topicsOnly(p.Changes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &timingOut{cl: cl, cancel: cancel}
	ev := &events{}
	done := make(chan apply.Result, 1)
	go func() {
		res, err := apply.Run(ctx, f, p, emptyTarget(), apply.Options{NoPreflight: true, Backoff: time.Hour}, ev)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var res apply.Result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second): // a hang bound: the backoff is an hour
		t.Fatal("apply still waiting to retry after it was stopped")
	}
	if f.sent != 1 {
		t.Errorf("%d CreateTopics sent, want 1: nothing more after the stop", f.sent)
	}
	if res.Failed != len(p.Changes) {
		t.Errorf("%d of %d changes failed", res.Failed, len(p.Changes))
	}
	for id, r := range ev.results() {
		if r.ErrorCode != kerr.RequestTimedOut.Code {
			t.Errorf("%s: error %d %s, want the answer it got (REQUEST_TIMED_OUT)", id, r.ErrorCode, r.ErrorName)
		}
	}
}

func topicsOnly(cs []plan.Change) []plan.Change {
	var out []plan.Change
	for _, c := range cs {
		if c.Kind == plan.KindTopic {
			out = append(out, c)
		}
	}
	return out
}
