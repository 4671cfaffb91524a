package migration

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// kfakeConn starts a two-broker kfake cluster with topic orders and dials it.
func kfakeConn(t *testing.T) (*kfake.Cluster, *kafkaconn.Conn) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.ClusterID("dst-id"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	if r, err := conn.Admin.CreateTopic(context.Background(), 1, 1, nil, "orders"); err != nil || r.Err != nil {
		t.Fatalf("create orders: %v %v", err, r.Err)
	}
	return c, conn
}

// lagging makes broker node of c answer requests of kind key from old (a
// cluster holding the state before the apply), as a broker whose metadata
// has not caught up would, for the first n of them (n < 0: always). It
// returns how many requests of that kind node received.
func lagging(c *kfake.Cluster, node int32, key kmsg.Key, old *kafkaconn.Conn, n int) func() int {
	var mu sync.Mutex
	got := 0
	c.ControlKey(key.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if c.CurrentNode() != node {
			return nil, nil, false
		}
		mu.Lock()
		got++
		stale := n < 0 || got <= n
		mu.Unlock()
		if !stale {
			return nil, nil, false
		}
		resp, err := old.Client.Request(context.Background(), req)
		return resp, err, true
	})
	return func() int { mu.Lock(); defer mu.Unlock(); return got }
}

// TestVerifyLaggingBroker: on a two-broker target whose broker 1 still
// answers with the state before the apply, Verify does not report the
// change shown until broker 1 shows it too, and names broker 1 when it
// never does. (Reading through a client's random broker, as verify did,
// reports it shown as soon as one read reaches broker 0.)
func TestVerifyLaggingBroker(t *testing.T) {
	ctx := context.Background()
	kinds := []struct {
		kind plan.Kind
		key  kmsg.Key // the request a lagging broker answers from old state
		src  func(s *snapshot.Snapshot)
		do   func(t *testing.T, adm *kadm.Client)
	}{
		{plan.KindACL, kmsg.DescribeACLs,
			func(s *snapshot.Snapshot) {
				s.ACLs = []snapshot.ACL{{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}}
			},
			func(t *testing.T, adm *kadm.Client) {
				b := kadm.NewACLs().Topics("orders").Allow("User:alice").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral)
				if rs, err := adm.CreateACLs(ctx, b); err != nil || rs[0].Err != nil {
					t.Fatalf("create acl: %v %v", err, rs)
				}
			}},
		{plan.KindQuota, kmsg.DescribeClientQuotas,
			func(s *snapshot.Snapshot) {
				s.Quotas = []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}}}
			},
			func(t *testing.T, adm *kadm.Client) {
				alice := "alice"
				q := []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &alice}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1024}}}}
				if rs, err := adm.AlterClientQuotas(ctx, q); err != nil || rs[0].Err != nil {
					t.Fatalf("alter quota: %v %v", err, rs)
				}
			}},
		{plan.KindTopicConfig, kmsg.DescribeConfigs,
			func(s *snapshot.Snapshot) {
				s.Topics[0].Configs = []snapshot.Config{{Key: "retention.ms", Value: "1000"}}
			},
			func(t *testing.T, adm *kadm.Client) {
				v := "1000"
				if rs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &v}}, "orders"); err != nil || rs[0].Err != nil {
					t.Fatalf("alter topic config: %v %v", err, rs)
				}
			}},
	}
	for _, k := range kinds {
		for _, lag := range []struct {
			name string
			n    int // requests broker 1 answers from the old state; -1: all
		}{{"catches up", 3}, {"never catches up", -1}} {
			t.Run(string(k.kind)+"/"+lag.name, func(t *testing.T) {
				c, conn := kfakeConn(t)
				_, old := kfakeConn(t)
				before, err := kread.Read(ctx, old, kread.Options{})
				if err != nil {
					t.Fatal(err)
				}
				src, err := kread.Read(ctx, old, kread.Options{}) // a copy to edit
				if err != nil {
					t.Fatal(err)
				}
				src.Source = snapshot.SourceZooKeeper
				k.src(src)
				p := build(t, src, before, plan.Options{Include: []plan.Kind{k.kind}})
				if len(p.Changes) != 1 || p.Changes[0].Kind != k.kind {
					t.Fatalf("plan = %+v, want one %s change", p.Changes, k.kind)
				}
				k.do(t, conn.Admin)
				asked := lagging(c, 1, k.key, old, lag.n)
				pl := &Planned{Plan: p, Target: before, Conn: conn}
				// Far beyond what catching up takes (it returns then); the
				// whole wait when broker 1 never catches up.
				timeout := time.Minute
				if lag.n < 0 {
					timeout = 2 * time.Second
				}
				missing, err := Verify(ctx, pl.Reader(), []*plan.Change{&p.Changes[0]}, timeout)
				if lag.n >= 0 {
					if err != nil || missing != nil {
						t.Fatalf("Verify = %v, %v; want shown once broker 1 caught up", missing, err)
					}
					if got := asked(); got <= lag.n {
						t.Errorf("Verify returned after broker 1 answered %d %s request(s), all from the old state; want it asked again after it caught up (%d)", got, k.key.Name(), lag.n)
					}
					return
				}
				if len(missing) != 1 || missing[0] != p.Changes[0].ID || err == nil || !strings.Contains(err.Error(), "on broker 1 (") || strings.Contains(err.Error(), "broker 0") {
					t.Errorf("Verify with broker 1 never showing %s = %v, %v; want the change named, and broker 1 (not 0)", p.Changes[0].ID, missing, err)
				}
			})
		}
	}
}
