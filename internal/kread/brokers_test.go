package kread

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadEachBroker reads through every broker in turn: each broker gets its
// own requests (counted by the cluster per node), and on a cluster whose
// brokers agree each read equals a plain Read.
func TestReadEachBrokerKfake(t *testing.T) {
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	seed(t, conn.Admin)
	var mu sync.Mutex
	perNode := map[int16]map[int32]int{}
	for _, key := range []kmsg.Key{kmsg.DescribeACLs, kmsg.DescribeClientQuotas, kmsg.DescribeUserSCRAMCredentials, kmsg.DescribeConfigs, kmsg.Metadata} {
		c.ControlKey(key.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
			mu.Lock()
			defer mu.Unlock()
			if perNode[key.Int16()] == nil {
				perNode[key.Int16()] = map[int32]int{}
			}
			perNode[key.Int16()][c.CurrentNode()]++
			return nil, nil, false // observe only
		})
	}
	want, err := Read(context.Background(), conn, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	normalize(t, want, 3)
	mu.Lock()
	clear(perNode)
	mu.Unlock()

	reads, err := ReadEachBroker(context.Background(), conn, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != 3 {
		t.Fatalf("%d reads, want one per broker (3)", len(reads))
	}
	for i, r := range reads {
		if r.Broker != int32(i) || r.Err != nil || r.Snapshot == nil || !strings.HasPrefix(r.Addr, "127.0.0.1:") {
			t.Fatalf("read %d = broker %d at %q, err %v; want broker %d read", i, r.Broker, r.Addr, r.Err, i)
		}
		normalize(t, r.Snapshot, 3)
		if diff := cmp.Diff(want, r.Snapshot, secretCmp); diff != "" {
			t.Errorf("broker %d's read differs from Read (-Read +broker):\n%s", r.Broker, diff)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, key := range []kmsg.Key{kmsg.DescribeACLs, kmsg.DescribeClientQuotas, kmsg.DescribeUserSCRAMCredentials, kmsg.DescribeConfigs, kmsg.Metadata} {
		for node := int32(0); node < 3; node++ {
			if perNode[key.Int16()][node] == 0 {
				t.Errorf("no %s request reached broker %d: its read was not pinned to it (per node: %v)", key.Name(), node, perNode[key.Int16()])
			}
		}
	}
}

// failing is a broker that does not answer.
type failing struct{}

func (failing) Request(context.Context, kmsg.Request) (kmsg.Response, error) {
	return nil, errors.New("dial tcp: connection refused")
}

// A broker that lags behind shows the old state in its own read, and a
// broker that does not answer is named; the other reads are still made.
func TestReadEachBrokerStaleAndSilent(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	seed(t, conn.Admin)
	// old holds the state before the new ACL, as a lagging broker would.
	old := newCluster(t)
	oldConn := dial(t, old, "admin", "admin-secret")
	seed(t, oldConn.Admin)
	late := kadm.NewACLs().Topics("late").Allow("User:late").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral)
	if rs, err := conn.Admin.CreateACLs(ctx, late); err != nil || rs[0].Err != nil {
		t.Fatalf("create acl: %v %v", err, rs)
	}
	pin := func(id int32) kmsg.Requestor {
		switch id {
		case 1:
			return oldConn.Client
		case 2:
			return failing{}
		}
		return conn.Client.Broker(int(id))
	}
	reads, err := readEachBroker(ctx, conn, Options{Now: fixedNow}, pin)
	if err != nil || len(reads) != 3 {
		t.Fatalf("readEachBroker = %d reads, %v; want 3", len(reads), err)
	}
	hasLate := func(i int) bool {
		for _, a := range reads[i].Snapshot.ACLs {
			if a.Principal == "User:late" {
				return true
			}
		}
		return false
	}
	if reads[0].Err != nil || !hasLate(0) {
		t.Errorf("broker 0 (current): err %v, shows the new ACL %v; want it shown", reads[0].Err, reads[0].Err == nil && hasLate(0))
	}
	if reads[1].Err != nil || hasLate(1) {
		t.Errorf("broker 1 (lagging): err %v; want its read without the new ACL", reads[1].Err)
	}
	if e := reads[2].Err; e == nil || reads[2].Snapshot != nil || !strings.Contains(e.Error(), "broker 2 ("+reads[2].Addr+")") || !strings.Contains(e.Error(), "connection refused") {
		t.Errorf("broker 2 (silent): err %v; want it named with its address %s and the cause", e, reads[2].Addr)
	}
}
