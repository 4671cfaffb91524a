package apply_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// holdTopics holds every real CreateTopics request until a CreateAcls
// request has come, or hold has passed, and notes whether one came while
// it held.
type holdTopics struct {
	cl   apply.Requester
	hold time.Duration

	once    sync.Once
	acls    chan struct{}
	mu      sync.Mutex
	overlap bool
}

func (h *holdTopics) RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard {
	switch r := req.(type) {
	case *kmsg.CreateACLsRequest:
		h.once.Do(func() { close(h.acls) })
	case *kmsg.CreateTopicsRequest:
		if !r.ValidateOnly {
			select {
			case <-h.acls:
				h.mu.Lock()
				h.overlap = true
				h.mu.Unlock()
			case <-time.After(h.hold):
			}
		}
	}
	return h.cl.RequestSharded(ctx, req)
}

// TestConcurrentKinds: with ConcurrentKinds, ACLs (a lane of their own)
// are sent while the topics' request is still out; without it, each kind
// waits for the one before, so no ACL request comes while the topics are
// held. Both apply everything.
func TestConcurrentKinds(t *testing.T) {
	for _, tc := range []struct {
		concurrent, wantOverlap bool
	}{{true, true}, {false, false}} {
		_, cl, _ := cluster(t)
		p := build(t, emptyTarget())
		h := &holdTopics{cl: cl, hold: time.Second, acls: make(chan struct{})}
		if tc.concurrent {
			h.hold = 30 * time.Second // a hang bound: the ACLs must come meanwhile
		}
		ev := &events{}
		res, err := apply.Run(context.Background(), h, p, emptyTarget(), apply.Options{ConcurrentKinds: tc.concurrent}, ev)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 0 || res.Succeeded != len(p.Changes) {
			t.Errorf("concurrent %v: %d succeeded, %d failed, want all %d", tc.concurrent, res.Succeeded, res.Failed, len(p.Changes))
		}
		if h.overlap != tc.wantOverlap {
			t.Errorf("concurrent %v: ACLs sent while the topics' request was out: %v, want %v", tc.concurrent, h.overlap, tc.wantOverlap)
		}
	}
}

// TestKindLanes: the kinds acting on topics share a lane, in plan order;
// every other kind is a lane of its own.
func TestKindLanes(t *testing.T) {
	got := apply.KindLanes()
	want := [][]string{{"topic", "partitions", "reassignment", "topic-config"}, {"broker-config"}, {"quota"}, {"acl"}, {"scram-user"}, {"client-metrics"}, {"group-config"}}
	if len(got) != len(want) {
		t.Fatalf("lanes %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("lane %d: %v, want %v", i, got[i], want[i])
		}
		for j := range want[i] {
			if string(got[i][j]) != want[i][j] {
				t.Fatalf("lane %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
}
