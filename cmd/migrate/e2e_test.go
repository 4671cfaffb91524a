package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// bed holds the test bed's addresses and files, and collects every output
// the CLI produced so the secrets test can search them.
type bed struct {
	zk, target, targetProps, serverProps, encoderSecret, creds string
	dir, auditDB                                               string
	outputs                                                    []string
}

func newBed(t *testing.T) *bed {
	t.Helper()
	dir := t.TempDir()
	return &bed{zk: testbed.ZK(t), target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t),
		serverProps: testbed.SourceServerProps(t), encoderSecret: testbed.EncoderSecretFile(t), creds: testbed.LegacyCredentialsFile(t),
		dir: dir, auditDB: filepath.Join(dir, "audit.db")}
}

func (b *bed) sourceArgs() []string {
	return []string{"--zookeeper", b.zk, "--broker-config", b.serverProps, "--password-encoder-secret-file", b.encoderSecret}
}

func (b *bed) targetArgs() []string {
	return []string{"--bootstrap-server", b.target, "--command-config", b.targetProps, "--audit-db", b.auditDB}
}

// migrate runs the CLI in-process and keeps its output.
func (b *bed) migrate(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	code, out, errs := runMigrate(t, args...)
	b.outputs = append(b.outputs, out, errs)
	return code, out, errs
}

func (b *bed) admin(t *testing.T) *kafkaconn.Conn { return dialAdmin(t, b.target, b.targetProps) }

// dialAdmin connects to the target as the test bed's admin.
func dialAdmin(t testing.TB, target, props string) *kafkaconn.Conn {
	t.Helper()
	cfg, err := kafkaconn.Load(props)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kafkaconn.Dial(context.Background(), []string{target}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func (b *bed) readTarget(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := kread.Read(context.Background(), b.admin(t), kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodePlan(t *testing.T, js string) *plan.Plan {
	t.Helper()
	var p plan.Plan
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("plan -o json: %v\n%s", err, js)
	}
	return &p
}

// TestEndToEndRealKafka migrates the legacy state Kafka 3.9 wrote into
// ZooKeeper (brokers 1 and 2) onto the two-node Kafka 4.1 KRaft target (nodes
// 1 and 2) with default flags and checks the target matches: every topic on
// the source's exact replica lists with the same preferred leaders, configs
// equal by their Kafka type, and a second plan of every kind empty.
func TestEndToEndRealKafka(t *testing.T) {
	b := newBed(t)
	testbed.ResetTarget(t) // an empty target, whatever ran before
	// One topic already on the target with the first 4 of its 6 partitions,
	// so the plan adds the other 2 (on the source's replicas, with CreatePartitions).
	precreate(t, b.admin(t), "metrics.events", [][]int32{{2}, {2}, {2}, {2}})
	planFile := filepath.Join(b.dir, "plan.json")
	policyFile := filepath.Join(b.dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte("version: 1\nrules:\n  - name: freeze-payments\n    topics: '^payments$'\n    expr: 'false'\n    message: payments is frozen during the cutover\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	common := append(append(b.sourceArgs(), b.targetArgs()...), "--scram-credentials", b.creds)

	// 1. Plan with a policy that freezes one topic; save it.
	code, out, errs := b.migrate(t, append([]string{"plan", "-o", "json", "--out", planFile, "--policy", policyFile}, common...)...)
	if code != exitPending && code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	p := decodePlan(t, out)
	if !slices.ContainsFunc(p.Blockers, func(bl plan.Blocker) bool { return bl.ID == "policy-denied" && bl.Resource == "payments" }) {
		t.Errorf("plan blockers %+v lack the policy denial of payments", p.Blockers)
	}

	// 2. Apply the saved plan (with its policy, as apply --plan requires):
	// everything but the frozen topic lands.
	code, _, errs = b.migrate(t, append([]string{"apply", "--plan", planFile, "--policy", policyFile, "--yes", "-o", "json", "--scram-credentials", b.creds}, append(b.sourceArgs(), b.targetArgs()...)...)...)
	if code != exitOK {
		t.Fatalf("apply --plan: exit %d\n%s", code, errs)
	}
	tgt := b.readTarget(t)
	if tgt.Topic("payments") != nil || tgt.Topic("orders") == nil {
		t.Fatalf("after the policy-limited apply: payments present=%v orders present=%v", tgt.Topic("payments") != nil, tgt.Topic("orders") != nil)
	}

	// 3. Without the policy the rest is applied; the next plan is empty, of
	// every kind, even with --reassign (which plans a move for any replica
	// list that differs from the source's).
	code, _, errs = b.migrate(t, append([]string{"apply", "--yes"}, common...)...)
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json", "--include", cliflags.KindList(), "--reassign"}, common...)...)
	again := decodePlan(t, out)
	if code != exitOK || len(again.Changes) != 0 {
		var ids []string
		for _, c := range again.Changes {
			ids = append(ids, c.ID)
		}
		t.Fatalf("second plan: exit %d with changes %v, want 0 and nothing to do\n%s", code, ids, errs)
	}
	// The value Kafka 4.1 refuses stays a blocker by default, naming the flag.
	if !slices.ContainsFunc(again.Blockers, func(bl plan.Blocker) bool {
		return bl.ID == "config-invalid-on-target" && bl.Resource == "tiny-segments" && strings.Contains(bl.Fix, "--raise-to-target-minimums")
	}) {
		t.Errorf("second plan blockers %+v: want tiny-segments blocked, the fix naming --raise-to-target-minimums", again.Blockers)
	}

	// 4. The target now holds what the source holds.
	code, out, errs = b.migrate(t, append([]string{"snapshot", "-o", "json"}, b.sourceArgs()...)...)
	if code != exitOK {
		t.Fatalf("snapshot: exit %d\n%s", code, errs)
	}
	src, err := snapshot.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	tgt = b.readTarget(t)
	compareMigrated(t, src, tgt)
	preferredLeaders(t, b.admin(t), src)
	// The racks the rack check reads (DescribeCluster): one broker per rack.
	racks := map[int32]string{}
	for _, br := range tgt.Brokers {
		racks[br.ID] = br.Rack
	}
	if racks[1] != "rack-a" || racks[2] != "rack-b" || len(racks) != 2 {
		t.Errorf("target brokers and racks %v, want 1: rack-a, 2: rack-b", racks)
	}

	// 4b. With --raise-to-target-minimums the refused topic is carried with
	// the nearest value Kafka 4.1 accepts, named in the plan.
	raise := append([]string{"--topics", "^tiny-segments$", "--raise-to-target-minimums"}, common...)
	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json"}, raise...)...)
	rp := decodePlan(t, out)
	if code != exitPending || len(rp.Changes) != 1 || rp.Changes[0].ID != "topic:tiny-segments" ||
		len(rp.Changes[0].Notes) != 1 || !strings.Contains(rp.Changes[0].Notes[0], "segment.bytes raised from 524288 to 1048576") {
		t.Fatalf("plan --raise-to-target-minimums: exit %d, changes %+v; want one topic create noting the raise\n%s", code, rp.Changes, errs)
	}
	if code, _, errs = b.migrate(t, append([]string{"apply", "--yes"}, raise...)...); code != exitOK {
		t.Fatalf("apply --raise-to-target-minimums: exit %d\n%s", code, errs)
	}
	// The audit trail names the adjustment: in the run's findings and plan.
	code, out, errs = b.migrate(t, "audit", "log", "-o", "json", "--limit", "1", "--audit-db", b.auditDB)
	var runs []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &runs); code != exitOK || err != nil || len(runs) != 1 || runs[0].Command != "apply" {
		t.Fatalf("audit log: exit %d, %v, runs %+v\n%s", code, err, runs, errs)
	}
	code, out, errs = b.migrate(t, "audit", "export", fmt.Sprint(runs[0].ID), "-o", "json", "--audit-db", b.auditDB)
	var exp audit.RunExport
	if err := json.Unmarshal([]byte(out), &exp); code != exitOK || err != nil {
		t.Fatalf("audit export: exit %d, %v\n%s", code, err, errs)
	}
	if !slices.ContainsFunc(exp.Findings, func(f snapshot.Finding) bool {
		return f.ID == "config-raised-to-target-minimum" && f.Resource == "topic tiny-segments"
	}) || exp.Plan == nil || !strings.Contains(string(exp.Plan.JSON), "segment.bytes raised from 524288 to 1048576") {
		t.Errorf("the audit trail of the raise run does not name the adjustment: findings %+v", exp.Findings)
	}
	tiny := b.readTarget(t).Topic("tiny-segments")
	if tiny == nil || snapshot.ConfigMap(tiny.Configs)["segment.bytes"] != "1048576" {
		t.Fatalf("tiny-segments on the target: %+v, want segment.bytes=1048576", tiny)
	}
	if code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json"}, raise...)...); code != exitOK || len(decodePlan(t, out).Changes) != 0 {
		t.Errorf("plan after the raise: exit %d, want 0 and no changes\n%s", code, errs)
	}

	// 4c. --prune leaves the target's own cluster-level defaults alone (a
	// new cluster may set some), and says so; --prune-cluster-configs deletes them.
	pruneClusterDefaults(t, b, common)

	// 5. SCRAM users log in with their own passwords on the target.
	var creds []struct{ User, Mechanism, Password string }
	data, _ := os.ReadFile(b.creds)
	if err := json.Unmarshal(data, &creds); err != nil {
		t.Fatal(err)
	}
	for _, c := range creds {
		loginAs(t, b.target, c.User, c.Mechanism, c.Password, true)
	}
	loginAs(t, b.target, "alice", "SCRAM-SHA-256", "wrong-password", false)

	// 6. The audit trail verifies.
	if code, _, errs := b.migrate(t, "audit", "verify", "--audit-db", b.auditDB); code != exitOK {
		t.Errorf("audit verify: exit %d\n%s", code, errs)
	}

	// 7. No secret reached any output, the plan file or the audit database.
	secrets := []string{"kp-secret-1", strings.TrimSpace(readFile(t, b.encoderSecret))}
	for _, c := range creds {
		secrets = append(secrets, c.Password)
	}
	// The plan file, every byte of the audit database with its WAL, and
	// every plan recorded there decompressed (a compressed blob would hide
	// a secret from a byte search).
	b.outputs = append(b.outputs, readFile(t, planFile))
	dbFiles, plans := auditDBContents(t, b.auditDB)
	for _, raw := range dbFiles {
		b.outputs = append(b.outputs, string(raw))
	}
	withSCRAM := 0
	for _, pj := range plans {
		if bytes.Contains(pj, []byte("scram-credentials:")) {
			withSCRAM++
		}
		b.outputs = append(b.outputs, string(pj))
	}
	if withSCRAM == 0 {
		t.Errorf("none of the %d recorded plans refers to a SCRAM credential: the search in them proves nothing", len(plans))
	}
	for i, o := range b.outputs {
		for _, s := range secrets {
			if s != "" && strings.Contains(o, s) {
				t.Errorf("output %d contains the secret %q", i, s)
			}
		}
	}
}

// readFile returns a file's contents, decompressed when it is a compressed
// plan or snapshot file, so that checks on the text see the JSON.
// pruneClusterDefaults plans and applies --prune with and without
// --prune-cluster-configs against cluster-level broker configs the source
// lacks: the min.insync.replicas a Kafka 4.1 controller sets itself for
// eligible leader replicas (and refuses to delete), and one set by hand.
func pruneClusterDefaults(t *testing.T, b *bed, common []string) {
	t.Helper()
	ctx := context.Background()
	v := "86400001"
	if _, err := b.admin(t).Admin.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.cleaner.delete.retention.ms", Value: &v}}); err != nil {
		t.Fatal(err)
	}
	defaultOf := func() map[string]string {
		for _, bc := range b.readTarget(t).BrokerConfigs {
			if bc.Broker == "" {
				return snapshot.ConfigMap(bc.Configs)
			}
		}
		return nil
	}
	eventually(t, "the target's own <default> configs", func() bool {
		d := defaultOf()
		return d["min.insync.replicas"] != "" && d["log.cleaner.delete.retention.ms"] == v
	})
	prune := append([]string{"--prune", "--include", "broker-config"}, common...)
	code, out, errs := b.migrate(t, append([]string{"plan", "-o", "json"}, prune...)...)
	p := decodePlan(t, out)
	if code != exitOK || len(p.Changes) != 0 || !slices.ContainsFunc(p.Findings, func(f snapshot.Finding) bool {
		return f.ID == "prune-keeps-cluster-configs" && strings.Contains(f.Message, "min.insync.replicas") && strings.Contains(f.Message, "log.cleaner.delete.retention.ms")
	}) {
		t.Errorf("plan --prune: exit %d, changes %+v, findings %+v; want nothing to do and a finding keeping both keys\n%s", code, p.Changes, p.Findings, errs)
	}
	if code, _, errs := b.migrate(t, append([]string{"apply", "--yes", "--prune-cluster-configs"}, prune...)...); code != exitOK {
		t.Fatalf("apply --prune --prune-cluster-configs: exit %d\n%s", code, errs)
	}
	eventually(t, "the pruned <default> config to go", func() bool { return defaultOf()["log.cleaner.delete.retention.ms"] == "" })
	if d := defaultOf(); d["min.insync.replicas"] == "" || d["log.retention.ms"] != "259200000" {
		t.Errorf("<default> after --prune-cluster-configs: %v; want min.insync.replicas (ELR) and the migrated keys kept", d)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := jsonfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}

// compareMigrated checks every migratable resource of src on tgt.
func compareMigrated(t *testing.T, src, tgt *snapshot.Snapshot) {
	t.Helper()
	pending := map[string]bool{}
	for _, n := range src.PendingDeletes {
		pending[n] = true
	}
	blocked := map[string]bool{"tiny-segments": true} // segment.bytes below 4.1's floor (carried later with the flag)
	for _, st := range src.Topics {
		if pending[st.Name] || blocked[st.Name] || st.Internal {
			continue
		}
		tt := tgt.Topic(st.Name)
		if tt == nil {
			t.Errorf("topic %s missing on the target", st.Name)
			continue
		}
		if got, want := replicaLists(tt), replicaLists(&st); !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
			t.Errorf("topic %s: replicas %v on the target, want the source's %v", st.Name, got, want)
		}
		want := map[string]string{}
		for _, c := range st.Configs {
			if _, removed := catalogue.Removed(catalogue.ScopeTopic, c.Key, catalogue.V4_1); !removed {
				want[c.Key] = c.Value
			}
		}
		if got := snapshot.ConfigMap(tt.Configs); !configsMean(catalogue.ScopeTopic, got, want) {
			t.Errorf("topic %s configs %v, want %v", st.Name, got, want)
		}
	}
	have := map[string]bool{}
	for _, a := range tgt.ACLs {
		have[a.Key()] = true
	}
	for _, a := range src.ACLs {
		if !have[a.Key()] {
			t.Errorf("ACL missing on the target: %s", a)
		}
	}
	quotas := map[string]map[string]float64{}
	for _, q := range tgt.Quotas {
		quotas[q.Entity.String()] = q.Values
	}
	for _, q := range src.Quotas {
		for k, v := range q.Values {
			if quotas[q.Entity.String()][k] != v {
				t.Errorf("quota %s %s = %v on the target, want %v", q.Entity, k, quotas[q.Entity.String()][k], v)
			}
		}
	}
	for _, bc := range src.BrokerConfigs {
		if bc.Broker == "3" {
			continue // broker 3 is gone from the source and absent on the target (a blocker)
		}
		var got []snapshot.Config
		for _, tb := range tgt.BrokerConfigs {
			if tb.Broker == bc.Broker {
				got = tb.Configs
			}
		}
		for _, c := range bc.Configs {
			i := slices.IndexFunc(got, func(g snapshot.Config) bool { return g.Key == c.Key })
			switch {
			case i < 0:
				t.Errorf("broker %q config %s missing on the target", bc.Broker, c.Key)
			case !c.Sensitive && !catalogue.EqualValues(catalogue.ScopeBroker, c.Key, got[i].Value, c.Value):
				t.Errorf("broker %q config %s = %q, want %q", bc.Broker, c.Key, got[i].Value, c.Value)
			}
		}
	}
}

// configsMean reports whether two config maps hold the same keys with values
// of the same meaning.
func configsMean(scope catalogue.Scope, a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !catalogue.EqualValues(scope, k, v, w) {
			return false
		}
	}
	return true
}

// replicaLists is a topic's replica list per partition (the reassignment's
// target replicas when one is in progress).
func replicaLists(t *snapshot.Topic) [][]int32 {
	out := make([][]int32, len(t.Partitions))
	for i, p := range t.Partitions {
		out[i] = p.TargetReplicas()
	}
	return out
}

// precreate creates a topic on the target with explicit replica lists
// (kadm cannot send them), unless it exists.
func precreate(t *testing.T, conn *kafkaconn.Conn, topic string, assign [][]int32) {
	t.Helper()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, -1, -1
	for p, rs := range assign {
		a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		a.Partition, a.Replicas = int32(p), rs
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), conn.Client)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil && err != kerr.TopicAlreadyExists {
		t.Fatalf("pre-creating %s: %v", topic, err)
	}
}

// preferredLeaders checks that every migrated partition on the target is led
// by its preferred (first) replica, as on the source.
func preferredLeaders(t *testing.T, conn *kafkaconn.Conn, src *snapshot.Snapshot) {
	t.Helper()
	var names []string
	for _, st := range src.Topics {
		if !st.Internal && !slices.Contains(src.PendingDeletes, st.Name) && st.Name != "tiny-segments" {
			names = append(names, st.Name)
		}
	}
	eventually(t, "every partition to be led by its preferred replica", func() bool {
		md, err := conn.Admin.Metadata(context.Background(), names...)
		if err != nil {
			return false
		}
		for _, n := range names {
			want := replicaLists(src.Topic(n))
			td, ok := md.Topics[n]
			if !ok || len(td.Partitions) != len(want) {
				return false
			}
			for p, pd := range td.Partitions {
				if int(p) >= len(want) || pd.Leader != want[p][0] {
					return false
				}
			}
		}
		return true
	})
}

func loginAs(t *testing.T, bootstrap, user, mechanism, password string, wantOK bool) {
	t.Helper()
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	jaas := fmt.Sprintf(`org.apache.kafka.common.security.scram.ScramLoginModule required username=%q password=%q;`, user, password)
	content := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=" + mechanism + "\nsasl.jaas.config=" + strings.ReplaceAll(jaas, `\`, `\\`) + "\n"
	if err := os.WriteFile(props, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := kafkaconn.Load(props)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := kafkaconn.Dial(ctx, []string{bootstrap}, cfg)
	if conn != nil {
		conn.Close()
	}
	if (err == nil) != wantOK {
		t.Errorf("SCRAM login as %s (%s): err=%v, want success=%v", user, mechanism, err, wantOK)
	}
}

// faultSource is a source snapshot of many small resources, for the fault
// tests; its names do not collide with the legacy state.
func faultSource(t *testing.T, dir, prefix string, topics, acls int) string {
	t.Helper()
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, ClusterID: "fault-source-" + prefix, Brokers: []snapshot.Broker{{ID: 0}}}
	for i := 0; i < topics; i++ {
		s.Topics = append(s.Topics, snapshot.Topic{Name: fmt.Sprintf("%s-%04d", prefix, i), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}},
			Configs: []snapshot.Config{{Key: "retention.ms", Value: fmt.Sprint(3600000 + i)}}})
	}
	for i := 0; i < acls; i++ {
		s.ACLs = append(s.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("%s-%04d", prefix, i%topics), PatternType: "LITERAL",
			Principal: fmt.Sprintf("User:%s-app-%d", prefix, i), Host: "*", Operation: "Read", Permission: "Allow"})
	}
	s.Sort()
	path := filepath.Join(dir, prefix+".snapshot.json")
	if err := snapshot.Save(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHelperProcess runs the CLI as a child process for the kill -9 test.
func TestHelperProcess(t *testing.T) {
	args := os.Getenv("ZKM_HELPER_ARGS")
	if args == "" {
		return
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	// SIGTERM and Ctrl-C stop it as they stop the real binary.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, argv, strings.NewReader(""), os.Stdout, os.Stderr, false))
}

// TestFaultsRealKafka kills the apply process (SIGKILL) and the target
// broker mid-apply, then applies again: the final state is exact, nothing
// is duplicated, the audit trail verifies and links the resumed run. It also
// checks that a stale plan is refused with the resource named, and that an
// authorization failure on one topic leaves the rest of its batch applied.
// It restarts the shared target broker; make test runs packages one at a
// time (-p 1), so no other package's test sees that.
func TestFaultsRealKafka(t *testing.T) {
	b := newBed(t)
	prefix := fmt.Sprintf("fault%d", time.Now().Unix()%100000)
	src := faultSource(t, b.dir, prefix, 300, 400)
	applyArgs := append([]string{"apply", "--snapshot", src, "--yes", "--topics", "^" + prefix, "--principals", prefix}, b.targetArgs()...)

	// Kill -9 the apply process once it has started sending.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	argv, _ := json.Marshal(append(slices.Clone(applyArgs), "--batch-size", "5", "--max-in-flight", "1", "--rate", "60"))
	cmd.Env = append(os.Environ(), "ZKM_HELPER_ARGS="+string(argv))
	var childOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(childOut.String(), ": done [") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !strings.Contains(childOut.String(), ": done [") {
		t.Fatalf("the child apply never applied anything:\n%s", childOut.String())
	}

	// Kill the broker too, and bring it back.
	testbed.KillTarget(t)
	testbed.StartTarget(t)

	// The killed run reverts exactly what it applied: the revert plan
	// deletes the fault set's topics and ACLs the target has now, nothing
	// else (docs/audit.md, "Reverting a run"; it is not applied here).
	killedTgt := b.readTarget(t)
	var made []string
	for _, tp := range killedTgt.Topics {
		if strings.HasPrefix(tp.Name, prefix) {
			made = append(made, "topic:"+tp.Name)
		}
	}
	for _, a := range killedTgt.ACLs {
		if strings.HasPrefix(a.Principal, "User:"+prefix) {
			made = append(made, plan.ChangeID(plan.KindACL, plan.Resource{Type: "acl", Name: a.String()}))
		}
	}
	code, out, errs := b.migrate(t, append([]string{"audit", "revert", fmt.Sprint(auditRunOf(t, b, "apply")), "--delete-created-topics", "-o", "json"}, b.targetArgs()...)...)
	var undone []string
	for _, c := range decodePlan(t, out).Changes {
		if c.Action != plan.ActionDelete {
			t.Errorf("the revert of the killed apply holds %s", c.ID)
		}
		undone = append(undone, c.ID)
	}
	slices.Sort(made)
	slices.Sort(undone)
	if code != exitPending || len(made) == 0 || !slices.Equal(made, undone) {
		t.Errorf("audit revert of the killed run: exit %d, undoes %d change(s), the run had made %d (%v / %v)\n%s", code, len(undone), len(made), undone, made, errs)
	}

	// Apply again: resumes, finishes, duplicates nothing.
	code, _, errs = b.migrate(t, applyArgs...)
	if code != exitOK {
		t.Fatalf("apply after the kills: exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "Resuming after interrupted run") {
		t.Errorf("the second apply did not link the killed run:\n%s", errs)
	}
	// The target has two brokers, and apply verified the changes it sent
	// through each of them: a plan right after it, on whichever broker it
	// reads, has nothing left to do. (The changes the killed run made
	// before the kill were committed to the controller's metadata log, and
	// the restarted node replays it before it serves.)
	resumedPlan := append([]string{"plan", "--snapshot", src, "--topics", "^" + prefix, "--principals", prefix}, b.targetArgs()...)
	if code, out, errs := b.migrate(t, resumedPlan...); code != exitOK {
		t.Errorf("plan right after the verified resumed apply: exit %d, want 0 (nothing pending)\n%s\n%s", code, out, errs)
	}
	tgt := b.readTarget(t)
	n, acls := 0, 0
	for _, tp := range tgt.Topics {
		if strings.HasPrefix(tp.Name, prefix) {
			n++
		}
	}
	for _, a := range tgt.ACLs {
		if strings.HasPrefix(a.Principal, "User:"+prefix) {
			acls++
		}
	}
	if n != 300 || acls != 400 {
		t.Errorf("target has %d topics and %d ACLs of the fault set, want 300 and 400", n, acls)
	}
	if code, out, errs := b.migrate(t, "audit", "verify", "--audit-db", b.auditDB); code != exitOK {
		t.Errorf("audit verify after kill -9: exit %d\n%s%s", code, out, errs)
	}
	// The killed run is closed as abandoned by the run that resumed it, so
	// no later apply lists it again.
	code, out, _ = b.migrate(t, "audit", "log", "--audit-db", b.auditDB, "--limit", "0", "-o", "json")
	var logged []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &logged); code != exitOK || err != nil {
		t.Fatalf("audit log: exit %d, %v", code, err)
	}
	abandoned := 0
	for _, r := range logged {
		if r.Command == "apply" && r.ExitCode == nil {
			t.Errorf("apply run %d is still unfinished after the resume", r.ID)
		}
		if r.Outcome == "abandoned" && r.ClosedBy != 0 {
			abandoned++
		}
	}
	if abandoned == 0 {
		t.Errorf("no run was closed as abandoned after kill -9: %+v", logged)
	}

	// A stale plan: saved, then the target changes under it.
	src2 := faultSource(t, b.dir, prefix+"s", 3, 0)
	planFile := filepath.Join(b.dir, "stale.json")
	planArgs := append([]string{"plan", "--snapshot", src2, "--topics", "^" + prefix + "s", "--out", planFile}, b.targetArgs()...)
	if code, _, errs := b.migrate(t, planArgs...); code != exitPending {
		t.Fatalf("plan for the stale test: exit %d\n%s", code, errs)
	}
	adm := b.admin(t).Admin
	if _, err := adm.CreateTopic(context.Background(), 2, 1, nil, prefix+"s-0001"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new topic to show", func() bool { return b.readTarget(t).Topic(prefix+"s-0001") != nil })
	code, _, errs = b.migrate(t, append([]string{"apply", "--plan", planFile, "--snapshot", src2, "--yes"}, b.targetArgs()...)...)
	if code != exitError || !strings.Contains(errs, prefix+"s-0001") || !strings.Contains(errs, "stale") {
		t.Errorf("apply of a stale plan: exit %d, stderr %q; want exit 1 naming %s-0001", code, errs, prefix+"s")
	}
	if topics, _ := adm.ListTopics(context.Background()); topics.Has(prefix + "s-0000") {
		t.Error("a refused stale plan still created a topic")
	}

	// Authorization: a user allowed to create only some topics.
	authorizationFailure(t, b, prefix)
}

func authorizationFailure(t *testing.T, b *bed, prefix string) {
	ctx := context.Background()
	adm := b.admin(t).Admin
	user, pass := prefix+"-limited", "limited-pass"
	if _, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: pass}}); err != nil {
		t.Fatal(err)
	}
	p := "User:" + user
	grants := []*kadm.ACLBuilder{
		kadm.NewACLs().Allow(p).Clusters().Operations(kadm.OpDescribe, kadm.OpDescribeConfigs),
		kadm.NewACLs().Allow(p).Topics("*").Operations(kadm.OpDescribe, kadm.OpDescribeConfigs),
		kadm.NewACLs().Allow(p).Topics(prefix + "a-ok").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpCreate),
	}
	for _, g := range grants {
		if _, err := adm.CreateACLs(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the grants to reach the broker", func() bool {
		n := 0
		for _, a := range b.readTarget(t).ACLs {
			if a.Principal == p {
				n++
			}
		}
		return n == 5
	})
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Topics: []snapshot.Topic{
		{Name: prefix + "a-ok-1", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
		{Name: prefix + "a-no-1", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
		{Name: prefix + "a-ok-2", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}},
	}}
	s.Sort()
	path := filepath.Join(b.dir, "auth.snapshot.json")
	if err := snapshot.Save(path, s); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(b.dir, "limited.properties")
	jaas := fmt.Sprintf(`org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, user, pass)
	if err := os.WriteFile(props, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config="+jaas+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := b.migrate(t, "apply", "--snapshot", path, "--topics", "^"+prefix+"a-", "--yes", "-o", "json",
		"--bootstrap-server", b.target, "--command-config", props, "--audit-db", b.auditDB)
	if code != exitPartial {
		t.Fatalf("apply as %s: exit %d, want 3 (partial)\n%s\n%s", user, code, out, errs)
	}
	var res struct {
		Results []struct{ Resource, Status, Error string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("apply -o json: %v\n%s", err, out)
	}
	status := map[string]string{}
	for _, r := range res.Results {
		status[r.Resource] = r.Status + " " + r.Error
	}
	if !strings.HasPrefix(status[prefix+"a-ok-1"], "succeeded") || !strings.HasPrefix(status[prefix+"a-ok-2"], "succeeded") ||
		status[prefix+"a-no-1"] != "failed TOPIC_AUTHORIZATION_FAILED" {
		t.Errorf("per-resource results %v: want the two ok topics created and the other refused", status)
	}
}

// eventually waits for cond: a KRaft broker learns of metadata changes
// asynchronously, after the controller commits them.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
