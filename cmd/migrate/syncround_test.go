package main

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// topicRequests counts the CreateTopics requests a kfake cluster gets,
// validate-only ones apart.
type topicRequests struct {
	mu             sync.Mutex
	real, validate int
}

func countTopicRequests(c *kfake.Cluster) *topicRequests {
	n := &topicRequests{}
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.mu.Lock()
		if req.(*kmsg.CreateTopicsRequest).ValidateOnly {
			n.validate++
		} else {
			n.real++
		}
		n.mu.Unlock()
		return nil, nil, false
	})
	return n
}

// TestSyncRoundPreflight: a change round sends its requests without the
// validate-only preflight (it would refuse only what the real request
// refuses, a controller round trip earlier); a full round (the initial
// one, a reconciliation) keeps it, as migrate apply does. Both apply and
// verify their change.
func TestSyncRoundPreflight(t *testing.T) {
	for _, tc := range []struct {
		reason       string
		wantValidate int
	}{{syncer.ReasonChange, 0}, {syncer.ReasonInitial, 1}, {syncer.ReasonReconcile, 1}} {
		t.Run(tc.reason, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("round"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			n := countTopicRequests(c)
			s := newTestSyncRun(t, strings.Join(c.ListenAddrs(), ","), "--topics", "^orders$", "--placement", "target")
			ctx := context.Background()
			scope := kread.Scope{Topics: []string{"orders"}}
			tgt, err := s.readTargetScoped(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, Topics: []snapshot.Topic{
				{Name: "orders", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
			}}
			p, err := s.plan(src, tgt)
			if err != nil || len(p.Changes) != 1 {
				t.Fatalf("plan: %v, %d changes, want 1", err, len(p.Changes))
			}
			out, err := s.apply(ctx, p, tgt, syncer.Round{N: 1, Reason: tc.reason, TargetScope: &scope})
			if err != nil || out.Applied != 1 || out.Verify == nil {
				t.Fatalf("apply: %v, %+v", err, out)
			}
			if u := out.Verify(ctx); u != 0 {
				t.Fatalf("%d changes unverified", u)
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			if n.real != 1 || n.validate != tc.wantValidate {
				t.Errorf("CreateTopics requests: %d real, %d validate-only; want 1 and %d", n.real, n.validate, tc.wantValidate)
			}
		})
	}
}
