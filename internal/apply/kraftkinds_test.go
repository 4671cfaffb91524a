package apply_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func fakeConn(t *testing.T) *kafkaconn.Conn {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func alterNamed(t *testing.T, conn *kafkaconn.Conn, rt kmsg.ConfigResourceType, name string, kv ...string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = rt, name
	for i := 0; i+1 < len(kv); i += 2 {
		e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		e.Name, e.Value = kv[i], kmsg.StringPtr(kv[i+1])
		res.Configs = append(res.Configs, e)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(context.Background(), conn.Client)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.Resources[0]; r.ErrorCode != 0 {
		t.Fatalf("alter %s %s: code %d %v", rt, name, r.ErrorCode, r.ErrorMessage)
	}
}

func values(list []snapshot.NamedConfigs) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, nc := range list {
		m := map[string]string{}
		for _, c := range nc.Configs {
			m[c.Key] = c.Value
		}
		out[nc.Name] = m
	}
	return out
}

// TestApplyKRaftKindsKfake: client-metrics subscriptions and group configs
// read from one cluster (kread: ListConfigResources, DescribeConfigs) are
// created, updated and pruned on another through IncrementalAlterConfigs;
// a validate-only run sends them but changes nothing; afterwards the target
// holds exactly the source's and a second plan is empty.
func TestApplyKRaftKindsKfake(t *testing.T) {
	ctx := context.Background()
	src, tgt := fakeConn(t), fakeConn(t)
	alterNamed(t, src, kmsg.ConfigResourceTypeClientMetrics, "producers", "interval.ms", "60000", "metrics", "org.apache.kafka.producer.", "match", "client_id=app-.*")
	alterNamed(t, src, kmsg.ConfigResourceTypeClientMetrics, "all", "interval.ms", "30000", "metrics", "*")
	alterNamed(t, src, kmsg.ConfigResourceTypeGroupConfig, "orders-app", "consumer.session.timeout.ms", "50000", "consumer.heartbeat.interval.ms", "6000")
	alterNamed(t, tgt, kmsg.ConfigResourceTypeClientMetrics, "all", "interval.ms", "10000", "metrics", "*")
	alterNamed(t, tgt, kmsg.ConfigResourceTypeClientMetrics, "stale-sub", "interval.ms", "5000", "metrics", "org.apache.kafka.consumer.")
	alterNamed(t, tgt, kmsg.ConfigResourceTypeGroupConfig, "old-group", "consumer.session.timeout.ms", "60000")

	s, err := kread.Read(ctx, src, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantCM := map[string]map[string]string{
		"producers": {"interval.ms": "60000", "metrics": "org.apache.kafka.producer.", "match": "client_id=app-.*"},
		"all":       {"interval.ms": "30000", "metrics": "*"},
	}
	wantGC := map[string]map[string]string{"orders-app": {"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "6000"}}
	if got := values(s.ClientMetrics); !reflect.DeepEqual(got, wantCM) {
		t.Fatalf("kread client-metrics %v, want %v", got, wantCM)
	}
	if got := values(s.GroupConfigs); !reflect.DeepEqual(got, wantGC) {
		t.Fatalf("kread group configs %v, want %v", got, wantGC)
	}

	read := func() *snapshot.Snapshot {
		t.Helper()
		ts, err := kread.Read(ctx, tgt, kread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	ts := read()
	opts := plan.Options{Prune: true, Include: []plan.Kind{plan.KindClientMetrics, plan.KindGroupConfig}}
	p, err := plan.Build(plan.Input{Source: s, Target: ts, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]plan.Action{}
	for _, c := range p.Changes {
		actions[c.ID] = c.Action
	}
	wantActions := map[string]plan.Action{
		"client-metrics:producers": plan.ActionCreate, "client-metrics:all": plan.ActionUpdate, "client-metrics:stale-sub": plan.ActionDelete,
		"group-config:orders-app": plan.ActionCreate, "group-config:old-group": plan.ActionDelete,
	}
	if !reflect.DeepEqual(actions, wantActions) {
		t.Fatalf("plan %v, want %v", actions, wantActions)
	}

	if res, err := apply.Run(ctx, tgt.Client, p, ts, apply.Options{ValidateOnly: true}, nil); err != nil || res.Succeeded != len(p.Changes) || res.NotValidated != 0 {
		t.Fatalf("validate-only: %+v, %v; want all %d validated", res, err, len(p.Changes))
	}
	if again := read(); !reflect.DeepEqual(values(again.ClientMetrics), values(ts.ClientMetrics)) || !reflect.DeepEqual(values(again.GroupConfigs), values(ts.GroupConfigs)) {
		t.Fatalf("validate-only changed the target: %v %v", values(again.ClientMetrics), values(again.GroupConfigs))
	}

	res, err := apply.Run(ctx, tgt.Client, p, ts, apply.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Succeeded != len(p.Changes) || res.Failed != 0 {
		t.Fatalf("apply: %+v", res)
	}
	after := read()
	if got := values(after.ClientMetrics); !reflect.DeepEqual(got, wantCM) {
		t.Errorf("target client-metrics %v, want %v", got, wantCM)
	}
	if got := values(after.GroupConfigs); !reflect.DeepEqual(got, wantGC) {
		t.Errorf("target group configs %v, want %v", got, wantGC)
	}
	again, err := plan.Build(plan.Input{Source: s, Target: after, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 {
		t.Errorf("second plan has %d changes: %+v", len(again.Changes), again.Changes)
	}
}
