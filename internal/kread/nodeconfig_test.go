package kread

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestReadNodeConfigsRealKafka reads the authorizer settings of both nodes
// of the real Kafka 4.1 target: the class and roles come back with their
// values, super.users and allow.everyone.if.no.acl.found (keys Kafka does
// not define) come back set in the properties file but hidden, and a key
// the node does not set is returned with its default source.
func TestReadNodeConfigsRealKafka(t *testing.T) {
	bootstrap := testbed.TargetBootstrap(t)
	cfg, err := kafkaconn.Load(testbed.TargetClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	keys := []string{"authorizer.class.name", "super.users", "allow.everyone.if.no.acl.found", "process.roles", "early.start.listeners"}
	nodes, err := ReadNodeConfigs(ctx, conn, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].Node != 1 || nodes[1].Node != 2 {
		t.Fatalf("nodes %+v, want 1 and 2", nodes)
	}
	roles := map[int32]string{1: "broker,controller", 2: "broker"}
	for _, n := range nodes {
		if e := n.Get("authorizer.class.name"); e == nil || e.Value == nil || *e.Value != "org.apache.kafka.metadata.authorizer.StandardAuthorizer" || e.Source != "STATIC_BROKER_CONFIG" {
			t.Errorf("node %d authorizer.class.name = %+v", n.Node, e)
		}
		if e := n.Get("process.roles"); e == nil || e.Value == nil || *e.Value != roles[n.Node] {
			t.Errorf("node %d process.roles = %+v, want %s", n.Node, e, roles[n.Node])
		}
		for _, k := range []string{"super.users", "allow.everyone.if.no.acl.found"} {
			if e := n.Get(k); e == nil || e.Value != nil || e.Source != "STATIC_BROKER_CONFIG" {
				t.Errorf("node %d %s = %+v, want set in the file and hidden", n.Node, k, e)
			}
		}
		if e := n.Get("early.start.listeners"); e != nil && e.Source == "STATIC_BROKER_CONFIG" {
			t.Errorf("node %d early.start.listeners = %+v, want not set in the file", n.Node, e)
		}
	}
}
