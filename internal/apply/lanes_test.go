package apply_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
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

// laneLog holds every real CreateTopics request until a request of each
// kind in waitFor has come (or hold has passed), and logs the real
// requests as they are sent and answered ("sent CreatePartitions b",
// "done CreatePartitions b").
type laneLog struct {
	cl      apply.Requester
	hold    time.Duration
	waitFor map[string]chan struct{} // by RPC name, closed when one comes

	mu  sync.Mutex
	log []string
}

func (l *laneLog) note(s string) {
	l.mu.Lock()
	l.log = append(l.log, s)
	l.mu.Unlock()
}

func (l *laneLog) RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard {
	var name, what string
	validate := false
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		name, validate = "CreateTopics", r.ValidateOnly
		for _, t := range r.Topics {
			what += " " + t.Topic
		}
	case *kmsg.CreatePartitionsRequest:
		name, validate = "CreatePartitions", r.ValidateOnly
		for _, t := range r.Topics {
			what += " " + t.Topic
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		name, validate = "IncrementalAlterConfigs", r.ValidateOnly
		for _, c := range r.Resources {
			what += " " + c.ResourceName
		}
	}
	if name == "" || validate {
		return l.cl.RequestSharded(ctx, req)
	}
	l.note("sent " + name + what)
	l.mu.Lock()
	if ch, ok := l.waitFor[name]; ok {
		delete(l.waitFor, name)
		close(ch)
	}
	l.mu.Unlock()
	if name == "CreateTopics" {
		for _, ch := range l.pending() {
			select {
			case <-ch:
			case <-time.After(l.hold):
			}
		}
	}
	shards := l.cl.RequestSharded(ctx, req)
	l.note("done " + name + what)
	return shards
}

func (l *laneLog) pending() []chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []chan struct{}
	for _, ch := range l.waitFor {
		out = append(out, ch)
	}
	return out
}

// TestConcurrentTopicKinds: with ConcurrentKinds the kinds acting on
// topics go at once when they act on different topics (the partitions
// of b and the configs of c are sent while a's creation is held), and a
// change to a topic that an earlier kind changes in the same run follows
// it (c's configs after c's partitions).
func TestConcurrentTopicKinds(t *testing.T) {
	parts := func(n int) []snapshot.Partition {
		var ps []snapshot.Partition
		for i := range n {
			ps = append(ps, snapshot.Partition{ID: int32(i), Replicas: []int32{int32(i % 3), int32((i + 1) % 3)}})
		}
		return ps
	}
	for _, tc := range []struct {
		name     string
		cParts   int // c's partitions on the target (the source has 1)
		waitFor  []string
		wantPast map[string]string // this log line comes after that one
	}{
		{name: "different topics", cParts: 1, waitFor: []string{"CreatePartitions", "IncrementalAlterConfigs"},
			wantPast: map[string]string{"done CreateTopics a": "sent IncrementalAlterConfigs c"}},
		{name: "same topic follows", cParts: 0, waitFor: []string{"CreatePartitions"},
			wantPast: map[string]string{"sent IncrementalAlterConfigs c": "done CreatePartitions b c", "done CreateTopics a": "sent CreatePartitions b c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cl, _ := cluster(t, kfake.SeedTopics(1, "b"), kfake.SeedTopics(max(1, int32(tc.cParts)), "c"))
			src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, Topics: []snapshot.Topic{
				{Name: "a", Partitions: parts(3)},
				{Name: "b", Partitions: parts(2)},
				{Name: "c", Partitions: parts(2), Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "compact"}}},
			}}
			tgt := emptyTarget()
			tgt.Topics = []snapshot.Topic{{Name: "b", Partitions: parts(1)}, {Name: "c", Partitions: parts(max(1, tc.cParts))}}
			if tc.cParts == 1 {
				src.Topics[2].Partitions = parts(1) // c: only its configs change
			}
			p, err := plan.Build(plan.Input{Source: src, Target: tgt, Options: plan.Options{Placement: plan.PlacementTarget}})
			if err != nil {
				t.Fatal(err)
			}
			l := &laneLog{cl: cl, hold: 30 * time.Second, waitFor: map[string]chan struct{}{}} // a hang bound
			for _, n := range tc.waitFor {
				l.waitFor[n] = make(chan struct{})
			}
			res, err := apply.Run(context.Background(), l, p, tgt, apply.Options{ConcurrentKinds: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != 0 || res.Succeeded != len(p.Changes) {
				t.Fatalf("%d succeeded, %d failed (%v), want all %d", res.Succeeded, res.Failed, res.Failures, len(p.Changes))
			}
			at := map[string]int{}
			for i, s := range l.log {
				at[s] = i
			}
			for later, earlier := range tc.wantPast {
				i, ok1 := at[later]
				j, ok2 := at[earlier]
				if !ok1 || !ok2 || i < j {
					t.Errorf("want %q after %q; requests: %q", later, earlier, l.log)
				}
			}
		})
	}
}
