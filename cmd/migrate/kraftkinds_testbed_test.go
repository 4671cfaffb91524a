package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// alterNamed sets (value non-empty) or deletes (value "") keys of a
// CLIENT_METRICS or GROUP resource through Kafka's own admin API.
func alterNamed(t *testing.T, conn *kafkaconn.Conn, rt kmsg.ConfigResourceType, name string, kv ...string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = rt, name
	for i := 0; i+1 < len(kv); i += 2 {
		e := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		e.Name = kv[i]
		if kv[i+1] == "" {
			e.Op = kmsg.IncrementalAlterConfigOpDelete
		} else {
			e.Value = kmsg.StringPtr(kv[i+1])
		}
		res.Configs = append(res.Configs, e)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(context.Background(), conn.Client)
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.Resources[0]; r.ErrorCode != 0 {
		t.Fatalf("IncrementalAlterConfigs %s %s: code %d %s", rt, name, r.ErrorCode, deref(r.ErrorMessage))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// namedValues is a kind's resources as name -> key -> value.
func namedValues(list []snapshot.NamedConfigs) map[string]map[string]string {
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

// TestKRaftKindsRealKafka41: a Kafka 4.1 KRaft cluster (the test bed's fresh
// target, as the source) with client-metrics subscriptions and group configs
// set through Kafka's admin API migrates, read through its brokers
// (--source-bootstrap-server), to the test bed's 4.1 target, which holds a
// differing subscription, one the source lacks and a group config of its
// own: plan creates, updates and (--prune) deletes them; apply
// --validate-only changes nothing; apply makes the target hold exactly the
// source's; the audit trail names each change; a second plan is empty.
func TestKRaftKindsRealKafka41(t *testing.T) {
	dir := t.TempDir() // the target only: no ZooKeeper source
	b := &bed{target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t), dir: dir, auditDB: filepath.Join(dir, "audit.db")}
	fresh := testbed.FormatFresh(t)
	testbed.StartFresh(t)
	src := dialAdmin(t, fresh.Bootstrap, b.targetProps) // the fresh target's admin is the target's
	tgt := b.admin(t)
	cm, gc := kmsg.ConfigResourceTypeClientMetrics, kmsg.ConfigResourceTypeGroupConfig
	alterNamed(t, src, cm, "zkm-producers", "metrics", "org.apache.kafka.producer.", "interval.ms", "60000", "match", "client_id=app-.*,client_software_name=apache-kafka-java")
	alterNamed(t, src, cm, "zkm-all", "metrics", "*", "interval.ms", "30000")
	alterNamed(t, src, gc, "zkm-orders-app", "consumer.session.timeout.ms", "50000", "consumer.heartbeat.interval.ms", "6000")
	alterNamed(t, src, gc, "zkm-share-app", "share.record.lock.duration.ms", "45000")
	alterNamed(t, tgt, cm, "zkm-all", "metrics", "*", "interval.ms", "10000", "match", "client_id=old")
	alterNamed(t, tgt, cm, "zkm-stale", "metrics", "org.apache.kafka.consumer.", "interval.ms", "5000")
	alterNamed(t, tgt, gc, "zkm-old-group", "consumer.session.timeout.ms", "60000")
	t.Cleanup(func() { // the target is shared with other packages' tests
		for _, n := range []string{"zkm-producers", "zkm-all", "zkm-stale"} {
			alterNamed(t, tgt, cm, n, "metrics", "", "interval.ms", "", "match", "")
		}
		for _, n := range []string{"zkm-orders-app", "zkm-share-app", "zkm-old-group"} {
			alterNamed(t, tgt, gc, n, "consumer.session.timeout.ms", "", "consumer.heartbeat.interval.ms", "", "share.record.lock.duration.ms", "")
		}
	})

	source, err := kread.Read(context.Background(), src, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantCM := map[string]map[string]string{
		"zkm-producers": {"metrics": "org.apache.kafka.producer.", "interval.ms": "60000", "match": "client_id=app-.*,client_software_name=apache-kafka-java"},
		"zkm-all":       {"metrics": "*", "interval.ms": "30000"},
	}
	wantGC := map[string]map[string]string{
		"zkm-orders-app": {"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "6000"},
		"zkm-share-app":  {"share.record.lock.duration.ms": "45000"},
	}
	if got := namedValues(source.ClientMetrics); !reflect.DeepEqual(got, wantCM) {
		t.Fatalf("kread of the 4.1 source: client-metrics %v, want %v", got, wantCM)
	}
	if got := namedValues(source.GroupConfigs); !reflect.DeepEqual(got, wantGC) {
		t.Fatalf("kread of the 4.1 source: group configs %v, want %v", got, wantGC)
	}

	args := append([]string{"--source-bootstrap-server", fresh.Bootstrap, "--source-command-config", b.targetProps,
		"--include", "client-metrics,group-config", "--prune"}, b.targetArgs()...)
	code, out, errs := b.migrate(t, append([]string{"plan", "-o", "json"}, args...)...)
	if code != exitPending {
		t.Fatalf("plan: exit %d, want 2\n%s%s", code, out, errs)
	}
	actions := map[string]plan.Action{}
	for _, c := range decodePlan(t, out).Changes {
		actions[c.ID] = c.Action
	}
	want := map[string]plan.Action{
		"client-metrics:zkm-producers": plan.ActionCreate, "client-metrics:zkm-all": plan.ActionUpdate, "client-metrics:zkm-stale": plan.ActionDelete,
		"group-config:zkm-orders-app": plan.ActionCreate, "group-config:zkm-share-app": plan.ActionCreate, "group-config:zkm-old-group": plan.ActionDelete,
	}
	if !reflect.DeepEqual(actions, want) {
		t.Fatalf("plan: %v, want %v", actions, want)
	}
	code, out, _ = b.migrate(t, append([]string{"plan"}, args...)...)
	for _, s := range []string{"+ client-metrics zkm-producers", "~ interval.ms: 10000 -> 30000", "- match (was client_id=old)", "- group-config group zkm-old-group"} {
		if !strings.Contains(out, s) {
			t.Errorf("plan text lacks %q:\n%s", s, out)
		}
	}

	read := func() *snapshot.Snapshot {
		t.Helper()
		s, err := kread.Read(context.Background(), tgt, kread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := read()
	if code, out, errs := b.migrate(t, append([]string{"apply", "--validate-only"}, args...)...); code != exitOK {
		t.Fatalf("apply --validate-only: exit %d\n%s%s", code, out, errs)
	}
	if after := read(); !reflect.DeepEqual(namedValues(after.ClientMetrics), namedValues(before.ClientMetrics)) ||
		!reflect.DeepEqual(namedValues(after.GroupConfigs), namedValues(before.GroupConfigs)) {
		t.Fatalf("apply --validate-only changed the target: %v %v", namedValues(after.ClientMetrics), namedValues(after.GroupConfigs))
	}

	if code, out, errs := b.migrate(t, append([]string{"apply", "--yes"}, args...)...); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errs)
	}
	after := read()
	if got := namedValues(after.ClientMetrics); !reflect.DeepEqual(got, wantCM) {
		t.Errorf("target client-metrics %v, want exactly the source's %v", got, wantCM)
	}
	if got := namedValues(after.GroupConfigs); !reflect.DeepEqual(got, wantGC) {
		t.Errorf("target group configs %v, want exactly the source's %v", got, wantGC)
	}

	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json"}, args...)...)
	if again := decodePlan(t, out); code != exitOK || len(again.Changes) != 0 {
		t.Errorf("second plan: exit %d, %d changes, want none\n%s%s", code, len(again.Changes), out, errs)
	}
	// The audit trail holds each change of the apply run, succeeded,
	// with its kind and RPC; its text shows them by kind.
	code, out, errs = runMigrate(t, "audit", "log", "-o", "json", "--audit-db", b.auditDB)
	var runs []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &runs); code != exitOK || err != nil {
		t.Fatalf("audit log: exit %d, %v\n%s", code, err, errs)
	}
	var applyRun int64
	for _, r := range runs {
		if r.Command == "apply" && applyRun == 0 {
			applyRun = r.ID // newest first: the real apply, not the validate-only one
		}
	}
	code, out, errs = runMigrate(t, "audit", "show", strconv.FormatInt(applyRun, 10), "-o", "json", "--audit-db", b.auditDB)
	var shown struct {
		Changes []audit.ChangeRecord `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &shown); code != exitOK || err != nil {
		t.Fatalf("audit show %d: exit %d, %v\n%s", applyRun, code, err, errs)
	}
	got := map[string]string{}
	for _, c := range shown.Changes {
		got[c.ChangeID] = c.Kind + " " + c.Action + " " + c.RPC + " " + c.Status
	}
	for id, action := range want {
		kind, _, _ := strings.Cut(id, ":")
		if w := kind + " " + string(action) + " IncrementalAlterConfigs succeeded"; got[id] != w {
			t.Errorf("audit show %d: %s is %q, want %q", applyRun, id, got[id], w)
		}
	}
	code, out, _ = runMigrate(t, "audit", "show", strconv.FormatInt(applyRun, 10), "--kind", "group-config", "--audit-db", b.auditDB)
	if code != exitOK || !strings.Contains(out, "group-config") || !strings.Contains(out, "zkm-orders-app") || strings.Contains(out, "zkm-producers") {
		t.Errorf("audit show --kind group-config (exit %d):\n%s", code, out)
	}
}
