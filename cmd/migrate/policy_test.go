package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyConvertCLI(t *testing.T) {
	dir := t.TempDir()
	b1 := writeFile(t, dir, "b1.properties", "broker.id=1\ncreate.topic.policy.class.name=org.x.Create\npolicy.max=10\npolicy.db.password=S3CRET-VALUE-1\n")
	b2 := writeFile(t, dir, "b2.properties", "broker.id=2\ncreate.topic.policy.class.name=org.x.Create\nalter.config.policy.class.name=org.x.Alter\npolicy.max=20\npolicy.db.password=S3CRET-VALUE-2\n")
	out, ctl := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "controller.properties")

	code, stdout, stderr := runMigrate(t, "policy", "convert", "--broker-config", b1, "--broker-config", b2, "--out", out, "--controller-config-out", ctl)
	if code != exitOK {
		t.Fatalf("convert exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("convert with --out wrote to stdout: %q", stdout)
	}
	for _, want := range []string{
		"warning: create.topic.policy.class.name (" + b1 + ":2, " + b2 + ":2) is deprecated",
		"warning: policy settings differ between brokers: alter.config.policy.class.name is unset on broker 1 (" + b1 + "); \"org.x.Alter\" on broker 2 (" + b2 + ")",
		"warning: policy settings differ between brokers: policy.max",
		"left out secret-looking property policy.db.password (" + b1 + ":4, " + b2 + ":5)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	pol, _ := os.ReadFile(out)
	cp, _ := os.ReadFile(ctl)
	for name, b := range map[string]string{"policy": string(pol), "controller": string(cp), "stderr": stderr} {
		if strings.Contains(b, "S3CRET-VALUE") {
			t.Errorf("%s output holds a secret value:\n%s", name, b)
		}
	}
	if !strings.Contains(string(cp), "create.topic.policy.class.name=org.x.Create\nalter.config.policy.class.name=org.x.Alter\n") {
		t.Errorf("controller properties lack the legacy keys:\n%s", cp)
	}
	if !strings.Contains(string(pol), "  - class: org.x.Alter\n    scope: alter-config\n") {
		t.Errorf("policy file lacks the alter adapter:\n%s", pol)
	}

	// Without --out the policy goes to stdout, byte for byte the same.
	code, stdout, _ = runMigrate(t, "policy", "convert", "--broker-config", b1, "--broker-config", b2)
	if code != exitOK || stdout != string(pol) {
		t.Errorf("convert to stdout: exit %d, output differs from --out file:\n%s", code, cmp.Diff(string(pol), stdout))
	}
}

func TestPolicyConvertCLIErrors(t *testing.T) {
	dir := t.TempDir()
	both := writeFile(t, dir, "both.properties", "broker.id=1\nalter.config.policy.class.name=org.x.Alter\ntopic.action.policy.class.name=org.x.Unified\n")
	out := filepath.Join(dir, "policy.yaml")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"legacy and unified", []string{"--broker-config", both, "--out", out},
			"migrate policy convert: policy: " + both + ":2: alter.config.policy.class.name and topic.action.policy.class.name (" + both + ":3) are both set"},
		{"no broker config", nil, "at least one --broker-config"},
		{"missing file", []string{"--broker-config", filepath.Join(dir, "nope.properties")}, "nope.properties"},
		{"same outputs", []string{"--broker-config", both, "--out", out, "--controller-config-out", out}, "--out and --controller-config-out are both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMigrate(t, append([]string{"policy", "convert"}, tc.args...)...)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written despite the error", out)
			}
		})
	}
}

// policyFixture is a snapshot with a compliant topic, two violating ones and
// an internal topic that is never evaluated.
func policyFixture(t *testing.T, dir string) string {
	t.Helper()
	parts := func(n int, reps ...int32) []snapshot.Partition {
		var ps []snapshot.Partition
		for i := 0; i < n; i++ {
			ps = append(ps, snapshot.Partition{ID: int32(i), Replicas: reps})
		}
		return ps
	}
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Address: "zk:2181",
		Topics: []snapshot.Topic{
			{Name: "__consumer_offsets", Internal: true, Partitions: parts(50, 1)},
			{Name: "good", Partitions: parts(6, 1, 2, 3), Configs: []snapshot.Config{{Key: "retention.ms", Value: "604800000"}}},
			{Name: "short-retention", Partitions: parts(3, 1, 2, 3), Configs: []snapshot.Config{{Key: "retention.ms", Value: "60000"}}},
			{Name: "weak", Partitions: parts(1, 1, 2), Configs: []snapshot.Config{{Key: "min.insync.replicas", Value: "2"}}},
		}}
	p := filepath.Join(dir, "snap.json")
	if err := snapshot.Save(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

const cliPolicy = `version: 1
rules:
  - name: retention-floor
    actions: [CREATE, MODIFY]
    expr: '!("retention.ms" in post.configs) || int(post.configs["retention.ms"]) >= 86400000'
    message: retention.ms must be at least one day
  - name: durable-replication
    expr: action == "DELETE" || post.replication_factor >= 3 || post.configs[?"min.insync.replicas"].orValue("1") == "1"
    message: replication factor below 3 needs min.insync.replicas=1
  - name: internal-never-seen
    topics: "__.*"
    expr: "false"
adapters:
  - class: org.x.Create
    scope: create
`

func TestPolicyTestCLI(t *testing.T) {
	dir := t.TempDir()
	snap := policyFixture(t, dir)
	pol := writeFile(t, dir, "policy.yaml", cliPolicy)
	pass := writeFile(t, dir, "pass.yaml", "version: 1\nrules:\n  - name: any\n    expr: post.partitions > 0\n")
	bad := writeFile(t, dir, "bad.yaml", "version: 1\nrules:\n  - name: typo\n    expr: post.partitons > 0\n")

	code, stdout, stderr := runMigrate(t, "policy", "test", "--policy", pol, "--snapshot", snap, "--no-audit")
	if code != exitPartial {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitPartial, stderr)
	}
	want := `TOPIC            RULE                 MESSAGE
short-retention  retention-floor      retention.ms must be at least one day
weak             durable-replication  replication factor below 3 needs min.insync.replicas=1
2 of 3 topics violate ` + pol + ` (1 Kafka-internal topics not evaluated)
note: adapter org.x.Create (CREATE) is enforced by the target's controllers, not by zkmigrate
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("text output mismatch (-want +got):\n%s", diff)
	}

	code, stdout, _ = runMigrate(t, "policy", "test", "--policy", pol, "--snapshot", snap, "--no-audit", "-o", "json")
	if code != exitPartial {
		t.Errorf("json: exit %d, want %d", code, exitPartial)
	}
	var rep policy.TestReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("json output: %v\n%s", err, stdout)
	}
	wantV := []policy.Violation{
		{Topic: "short-retention", Rule: "retention-floor", Message: "retention.ms must be at least one day"},
		{Topic: "weak", Rule: "durable-replication", Message: "replication factor below 3 needs min.insync.replicas=1"},
	}
	if diff := cmp.Diff(wantV, rep.Violations); diff != "" || rep.Topics != 3 || rep.InternalSkipped != 1 || len(rep.Notes) != 1 {
		t.Errorf("json report = %+v; violations diff:\n%s", rep, diff)
	}

	code, stdout, stderr = runMigrate(t, "policy", "test", "--policy", pass, "--snapshot", snap, "--audit-db", filepath.Join(dir, "audit.db"))
	if code != exitOK || !strings.HasPrefix(stdout, "no violations: 3 topics comply with "+pass) {
		t.Errorf("compliant: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	for name, args := range map[string][]string{
		"bad expression": {"--policy", bad, "--snapshot", snap, "--no-audit"},
		"no policy":      {"--snapshot", snap, "--no-audit"},
		"no snapshot":    {"--policy", pol, "--snapshot", filepath.Join(dir, "missing.json"), "--no-audit"},
		"bad output":     {"--policy", pol, "--snapshot", snap, "--no-audit", "-o", "yaml"},
	} {
		code, stdout, stderr := runMigrate(t, append([]string{"policy", "test"}, args...)...)
		if code != exitError || stdout != "" || !strings.HasPrefix(stderr, "migrate policy test: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 with a one-line error", name, code, stdout, stderr)
		}
	}
	if _, _, stderr := runMigrate(t, "policy", "test", "--policy", bad, "--snapshot", snap, "--no-audit"); !strings.Contains(stderr, bad+`:4: rule "typo": expr 1:5: undefined field 'partitons'`) {
		t.Errorf("bad expression error = %q", stderr)
	}
}

// TestPolicyTestTestbed runs `migrate policy test --zookeeper` against the
// topics Kafka 3.9 itself wrote (testbed/LegacyState.java).
func TestPolicyTestTestbed(t *testing.T) {
	zkAddr := testbed.ZK(t)
	dir := t.TempDir()
	pol := writeFile(t, dir, "policy.yaml", `version: 1
rules:
  - name: segment-floor
    expr: '!("segment.bytes" in post.configs) || int(post.configs["segment.bytes"]) >= 1048576'
    message: segment.bytes below 1 MiB is refused by Kafka 4.1+
  - name: compacted-only-internal-style
    expr: 'post.configs[?"cleanup.policy"].orValue("delete") != "compact" || topic.startsWith("_")'
    message: compacted application topics need an owner review
  - name: layout-complete
    expr: 'post.assignment.size() == post.partitions && post.assignment.all(r, r.size() == post.replication_factor)'
    message: every partition has a full replica list
`)
	code, stdout, stderr := runMigrate(t, "policy", "test", "--policy", pol, "--zookeeper", zkAddr, "--no-audit", "-o", "json")
	if code != exitPartial {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitPartial, stderr)
	}
	var rep policy.TestReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("json output: %v\n%s", err, stdout)
	}
	got := map[string]string{}
	for _, v := range rep.Violations {
		got[v.Topic] = v.Rule
	}
	want := map[string]string{"tiny-segments": "segment-floor", "customer-profiles": "compacted-only-internal-style"}
	for topic, rule := range want {
		if got[topic] != rule {
			t.Errorf("topic %s: violation %q, want %q (all: %v)", topic, got[topic], rule, got)
		}
	}
	for _, topic := range []string{"orders", "payments", "_schemas", "metrics.events", "etl-raw", "legacy-format", "__consumer_offsets"} {
		if r, ok := got[topic]; ok {
			t.Errorf("topic %s: unexpected violation of %s", topic, r)
		}
	}
	if rep.Topics < 8 {
		t.Errorf("evaluated %d topics, want at least the 8 the test bed creates", rep.Topics)
	}
}
