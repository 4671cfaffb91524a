package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// fakeTarget starts a three-broker kfake cluster and connects to it.
func fakeTarget(t *testing.T) (addr string, conn *kafkaconn.Conn) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("trust-apply"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn, err = kafkaconn.Dial(context.Background(), c.ListenAddrs(), kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return strings.Join(c.ListenAddrs(), ","), conn
}

// everyKindSource writes a source snapshot and a SCRAM credentials file that,
// against seedEveryKind's target, plan every change kind (prune included).
// kfake places replicas itself, so the source's layout of "grow" is made
// from the target's: the same brokers in reverse order.
func everyKindSource(t *testing.T, dir string, target *snapshot.Snapshot) (snap, creds string) {
	t.Helper()
	rs := func(ids ...int32) []int32 { return ids }
	onTarget := target.Topic("grow").Partitions[0].Replicas
	if len(onTarget) < 2 {
		t.Fatalf("kfake placed grow on %v; want two replicas", onTarget)
	}
	moved := slices.Clone(onTarget)
	slices.Reverse(moved)
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper,
		Brokers: []snapshot.Broker{{ID: 0}, {ID: 1}, {ID: 2}},
		Topics: []snapshot.Topic{
			{Name: "fresh", Partitions: []snapshot.Partition{{ID: 0, Replicas: rs(0, 1)}}, Configs: []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}},
			{Name: "grow", Partitions: []snapshot.Partition{{ID: 0, Replicas: moved}, {ID: 1, Replicas: onTarget}},
				Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "compact"}}},
		},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "", Configs: []snapshot.Config{{Key: "log.retention.ms", Value: "7200000"}}}},
		Quotas:        []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}}},
		ACLs: []snapshot.ACL{{ResourceType: "Topic", ResourceName: "fresh", PatternType: "LITERAL", Principal: "User:alice",
			Host: "*", Operation: "Read", Permission: "Allow"}},
		ScramUsers: []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}},
		// A ZooKeeper source never has these; a snapshot file may (one
		// read from a KRaft cluster), and plan creates them from it.
		ClientMetrics: []snapshot.NamedConfigs{{Name: "producers", Configs: []snapshot.Config{{Key: "interval.ms", Value: "60000"}, {Key: "metrics", Value: "org.apache.kafka.producer."}}}},
		GroupConfigs:  []snapshot.NamedConfigs{{Name: "orders-app", Configs: []snapshot.Config{{Key: "consumer.session.timeout.ms", Value: "50000"}}}},
	}
	s.Sort()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	snap, creds = filepath.Join(dir, "source.json"), filepath.Join(dir, "creds.json")
	if err := os.WriteFile(snap, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte(`[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw","iterations":4096}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	return snap, creds
}

// seedEveryKind gives the target a topic with fewer partitions and another
// layout than the source's, a topic and an ACL the source lacks (pruned).
func seedEveryKind(t *testing.T, conn *kafkaconn.Conn) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Admin.CreateTopic(ctx, -1, -1, nil, "zombie"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Admin.CreateTopic(ctx, 1, 2, nil, "grow"); err != nil {
		t.Fatal(err)
	}
	acl := kadm.NewACLs().Topics("zombie").ResourcePatternType(kadm.ACLPatternLiteral).Allow("User:bob").AllowHosts("*").Operations(kadm.OpWrite)
	res, err := conn.Admin.CreateACLs(ctx, acl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// A validate-only apply of every kind leaves the target as it was, kind by
// kind, and says per resource what it validated and what it did not send.
func TestApplyValidateOnlyChangesNothing(t *testing.T) {
	addr, conn := fakeTarget(t)
	seedEveryKind(t, conn)
	dir := t.TempDir()
	before, err := kread.Read(context.Background(), conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, creds := everyKindSource(t, dir, before)
	db := filepath.Join(dir, "audit.db")
	args := []string{"--snapshot", snap, "--bootstrap-server", addr, "--scram-credentials", creds, "--prune",
		"--broker-id-map", "0=0,1=1,2=2", "--reassign", "--audit-db", db}

	code, out, errs := runMigrate(t, append([]string{"plan", "-o", "json"}, args...)...)
	if code != exitPending {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	kinds := map[plan.Kind]bool{}
	for _, c := range decodePlan(t, out).Changes {
		kinds[c.Kind] = true
		if c.Action == plan.ActionDelete {
			kinds[plan.Kind(string(c.Kind)+"-delete")] = true
		}
	}
	for _, k := range append(append([]plan.Kind{}, plan.Kinds...), "topic-delete", "acl-delete") {
		if !kinds[k] {
			t.Fatalf("the plan has no %s change; the test would prove less than it says: %v\n%s", k, kinds, out)
		}
	}

	code, out, errs = runMigrate(t, append([]string{"apply", "--validate-only", "-o", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("apply --validate-only: exit %d\n%s%s", code, out, errs)
	}
	var res render.ApplyJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	validatable := map[string]bool{apply.RPCCreateTopics: true, apply.RPCCreatePartitions: true, apply.RPCIncrementalAlter: true, apply.RPCAlterClientQuotas: true}
	p := decodePlan(t, mustPlan(t, args))
	rpc := map[string]string{}
	for _, c := range p.Changes {
		rpc[c.ID], _ = apply.RPCOf(&c)
	}
	if len(res.Results) != len(p.Changes) {
		t.Errorf("%d results for %d changes", len(res.Results), len(p.Changes))
	}
	for _, r := range res.Results {
		want, wantMsg := "validated", ""
		if !validatable[rpc[r.ID]] {
			want, wantMsg = "not-validated", "not validated: would send "+rpc[r.ID]
		}
		if r.Status != want || r.Message != wantMsg {
			t.Errorf("%s (%s): status %q message %q, want %q %q", r.ID, rpc[r.ID], r.Status, r.Message, want, wantMsg)
		}
	}

	after, err := kread.Read(context.Background(), conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for kind, pair := range map[string][2]any{
		"topics":         {before.Topics, after.Topics},
		"broker config":  {before.BrokerConfigs, after.BrokerConfigs},
		"quotas":         {before.Quotas, after.Quotas},
		"ACLs":           {before.ACLs, after.ACLs},
		"SCRAM users":    {before.ScramUsers, after.ScramUsers},
		"client-metrics": {before.ClientMetrics, after.ClientMetrics},
		"group configs":  {before.GroupConfigs, after.GroupConfigs},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("validate-only changed the target's %s:\nbefore %+v\nafter  %+v", kind, pair[0], pair[1])
		}
	}

	code, out, errs = runMigrate(t, "audit", "log", "-o", "json", "--audit-db", db)
	if code != exitOK || !strings.Contains(out, `"not validated"`) || strings.Contains(out, `"applied"`) {
		t.Errorf("audit log: exit %d, want the run's outcome \"not validated\"\n%s%s", code, out, errs)
	}
}

func mustPlan(t *testing.T, args []string) string {
	t.Helper()
	_, out, _ := runMigrate(t, append([]string{"plan", "-o", "json"}, args...)...)
	return out
}

// A numeric apply flag that means nothing is a one-line error naming the
// flag, exit 1, before anything is read or sent.
func TestApplyRefusesMeaninglessNumbers(t *testing.T) {
	for _, tc := range []struct{ flag, value string }{
		{"--batch-size", "0"},
		{"--batch-size", "-5"},
		{"--max-in-flight", "0"},
		{"--max-in-flight", "-1"},
		{"--rate", "-1"},
		{"--rate", "NaN"},
		{"--rate", "Inf"},
		{"--rate", "-Inf"},
		{"--verify-timeout", "-1s"},
	} {
		t.Run(tc.flag+"="+tc.value, func(t *testing.T) {
			// No source or target: a flag error must come first.
			code, out, errs := runMigrate(t, "apply", "--no-audit", tc.flag, tc.value)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(errs, tc.flag+" ") || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 and one line naming %s", code, errs, out, tc.flag)
			}
		})
	}
	// The accepted edges still parse: 0 rate is unlimited, 0 verify skips.
	code, _, errs := runMigrate(t, "apply", "--no-audit", "--rate", "0", "--verify-timeout", "0", "--batch-size", "1", "--max-in-flight", "1")
	if strings.Contains(errs, "--rate") || strings.Contains(errs, "--verify-timeout") || strings.Contains(errs, "--batch-size") || code != exitError {
		t.Errorf("edge values: exit %d, %q; want only the missing-source error", code, errs)
	}
}

// TestRefusesWithoutAuditTrailInOneLine: apply and sync without their
// audit trail refuse in one line naming the database, exit 1, before
// anything is sent (no "audit trail unavailable" warning before it).
func TestRefusesWithoutAuditTrailInOneLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(file, "audit.db") // under a file: cannot be created, even by root
	addr, _ := fakeTarget(t)
	for _, args := range [][]string{
		{"apply", "--bootstrap-server", "127.0.0.1:1", "--snapshot", filepath.Join(dir, "none.json")},
		// sync opens its source first: a live one (the brokers, polled).
		{"sync", "--source-bootstrap-server", addr, "--bootstrap-server", addr, "--yes"},
	} {
		code, out, errs := runMigrate(t, append(args, "--audit-db", db)...)
		var lines []string // error lines (sync's notice that it polls is not one)
		for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
			if strings.HasPrefix(l, "migrate ") {
				lines = append(lines, l)
			}
		}
		if code != exitError || len(lines) != 1 || out != "" ||
			!strings.HasPrefix(lines[0], "migrate "+args[0]+": refusing to "+args[0]+" without an audit trail in "+db+" (") ||
			!strings.HasSuffix(lines[0], "); fix --audit-db or pass --no-audit") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line refusing, naming %s", args[0], code, out, errs, db)
		}
	}
}

// hideTopicConfigs makes the kfake cluster answer every DescribeConfigs
// with no configs at all, as a target that never shows a change would.
func hideTopicConfigs(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.DescribeConfigs), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.DescribeConfigsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		resp.SetVersion(req.GetVersion())
		for _, r := range req.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
}

// runMigrateCtx is runMigrate bounded by ctx: a command that waits past it
// is stopped, so a regression fails instead of hanging the test.
func runMigrateCtx(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, strings.NewReader(""), &out, &errb, false)
	return code, out.String(), errb.String()
}

// An apply whose verify never sees a change exits 3 naming it; one whose
// target shows the changes ends the wait at once and exits 0.
func TestApplyVerifyExitCode(t *testing.T) {
	for _, hidden := range []bool{true, false} {
		t.Run(fmt.Sprintf("hidden=%v", hidden), func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("verify"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			addr := strings.Join(c.ListenAddrs(), ",")
			conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), kafkaconn.Default())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Admin.CreateTopic(context.Background(), 1, 1, nil, "t"); err != nil {
				t.Fatal(err)
			}
			tgt, err := kread.Read(context.Background(), conn, kread.Options{})
			if err != nil {
				t.Fatal(err)
			}
			src := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Brokers: tgt.Brokers,
				Topics: []snapshot.Topic{{Name: "t", Partitions: tgt.Topic("t").Partitions, Configs: []snapshot.Config{{Key: "retention.ms", Value: "1000"}}}}}
			data, _ := json.Marshal(src)
			snap := filepath.Join(t.TempDir(), "source.json")
			if err := os.WriteFile(snap, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if hidden {
				hideTopicConfigs(c)
			}
			// verify-timeout is far beyond the test's own bound when the
			// target shows the change: the wait must end by itself.
			timeout, bound := "1h", 2*time.Minute
			if hidden {
				timeout = "300ms"
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			code, out, errs := runMigrateCtx(ctx, "apply", "--yes", "--no-audit", "-o", "json", "--snapshot", snap, "--bootstrap-server", addr,
				"--include", "topic-config", "--verify-timeout", timeout)
			if ctx.Err() != nil {
				t.Fatalf("apply did not end within %s\n%s", bound, errs)
			}
			var res render.ApplyJSON
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v\n%s%s", err, out, errs)
			}
			if res.Summary.Succeeded != 1 {
				t.Fatalf("apply: %+v\n%s", res.Summary, errs)
			}
			if !hidden {
				if code != exitOK || len(res.Summary.Unverified) != 0 || !strings.Contains(errs, "Verified") {
					t.Errorf("exit %d, unverified %v; want 0 and verified\n%s", code, res.Summary.Unverified, errs)
				}
				return
			}
			if code != exitPartial || !strings.Contains(errs, "does not show 1 applied change on broker 0 (") || !strings.Contains(errs, "): topic-config:t") ||
				!slices.Equal(res.Summary.Unverified, []string{"topic-config:t"}) {
				t.Errorf("exit %d, unverified %v; want 3 naming topic-config:t\n%s", code, res.Summary.Unverified, errs)
			}
		})
	}
}
