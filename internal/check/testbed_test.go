package check

import (
	"context"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// testbedEnv returns the named test-bed variable; the test skips when it is
// unset locally and fails when CI is set (CI always starts the test bed).
func testbedEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set (CI must start the test bed: testbed/testbed.sh start all && testbed/testbed.sh legacy)", name)
		}
		t.Skipf("%s not set; start the test bed (testbed/testbed.sh start all; testbed/testbed.sh legacy; eval $(testbed/testbed.sh env))", name)
	}
	return v
}

// readTestbed reads the real Kafka 3.9 test bed's ZooKeeper, as `migrate
// check --zookeeper ... --broker-config source.properties [secret]` does.
func readTestbed(t *testing.T, secrets []string) *snapshot.Snapshot {
	t.Helper()
	addr := testbedEnv(t, "ZKM_TEST_ZK")
	props := testbedEnv(t, "ZKM_TEST_SOURCE_SERVER_PROPS")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := zkread.Read(ctx, conn, zkread.Options{Full: true, EncoderSecrets: secrets, Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	st, err := zkread.ReadStatic(props)
	if err != nil {
		t.Fatal(err)
	}
	s.StaticConfigs = append(s.StaticConfigs, st.Config)
	s.Sort()
	if s.Topic("legacy-format") == nil {
		t.Fatalf("no topic legacy-format at %s: the legacy state is missing (testbed/testbed.sh legacy)", addr)
	}
	return s
}

func has(fs []Finding, id, resource, text string) bool {
	for _, f := range fs {
		if f.ID == id && (resource == "" || f.Resource == resource) && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

// The legacy state written by Kafka 3.9 itself (testbed/LegacyState.java and
// testbed.sh legacy) triggers a known set of findings.
func TestTestbedLegacyFindings(t *testing.T) {
	s := readTestbed(t, nil)
	fs, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ id, resource, text string }{
		{"K4-TOPIC-CONFIG-REMOVED", "topic:legacy-format", "message.format.version=2.8"},
		{"K4-TOPIC-CONFIG-REMOVED", "topic:legacy-format", "message.downconversion.enable=false"},
		{"K4-TOPIC-SEGMENT-BYTES", "topic:tiny-segments", "segment.bytes=524288"},
		{"ACL-HOST-NEVER-MATCHES", "acl:Topic:LITERAL:orders", `"db.example.com"`},
		{"ACL-CLUSTER-CREATE", "principal:User:alice", "Allow Create on Cluster:LITERAL:kafka-cluster"},
		{"ACL-UNCHECKED-OPERATION", "acl:Group:LITERAL:billing", "Write"},
		{"CARRY-SCRAM", "scram-user:User:alice", "SCRAM-SHA-"},
		{"CARRY-SCRAM", "scram-user:User:bob", "SCRAM-SHA-256"},
		{catalogue.IDDelegationToken, "", "User:admin"},
		{catalogue.IDTopicIDChanges, "topics", ""},
		{"KRAFT-PASSWORD-NO-SECRET", "broker:1", "listener.name.sasl_plaintext.ssl.key.password"},
		{catalogue.IDTopicPendingDelete, "topic:doomed", ""},
		{"KRAFT-AUTHORIZER", "", aclAuthorizer},
		{"KRAFT-ZK-SETTING", "", "zookeeper.connect"},
	} {
		if !has(fs, w.id, w.resource, w.text) {
			t.Errorf("missing %s %s %q", w.id, w.resource, w.text)
		}
	}
	// A 3.9 cluster never migrated: ids everywhere, a ZooKeeper controller.
	for _, id := range []string{"KRAFT-MIGRATION-ZNODE", "KRAFT-CONTROLLER", "KRAFT-TOPIC-NO-ID", "KRAFT-IBP-TOO-OLD", "TOPIC-RF-BELOW-MIN-ISR"} {
		if has(fs, id, "", "") {
			t.Errorf("unexpected %s", id)
		}
	}
	if t.Failed() {
		for _, f := range fs {
			t.Logf("%s %s %s: %s", f.Severity, f.ID, f.Resource, f.Message)
		}
	}
}

// With the encoder secret the broker password decrypts, and the finding goes.
func TestTestbedEncoderSecret(t *testing.T) {
	b, err := os.ReadFile(testbedEnv(t, "ZKM_TEST_ENCODER_SECRET_FILE"))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimRight(string(b), "\r\n")
	s := readTestbed(t, []string{secret})
	fs, err := Run(s, Options{EncoderSecretKnown: true})
	if err != nil {
		t.Fatal(err)
	}
	if has(fs, "KRAFT-PASSWORD-NO-SECRET", "", "") {
		t.Errorf("password finding despite the encoder secret: %+v", fs)
	}
	for _, f := range fs {
		if strings.Contains(f.Message+f.Fix, secret) {
			t.Fatalf("the encoder secret appears in finding %s", f.ID)
		}
	}
}

// readTestbedBrokers reads the real Kafka 3.9 source through its brokers'
// admin protocol, as `migrate check --source-bootstrap-server` does.
func readTestbedBrokers(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	bootstrap := testbedEnv(t, "ZKM_TEST_SOURCE_BOOTSTRAP")
	cfg, err := kafkaconn.Load(testbedEnv(t, "ZKM_TEST_SOURCE_CLIENT_PROPS"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := kread.Read(ctx, conn, kread.Options{Source: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTestbedCrossCheck compares the 3.9 source's ZooKeeper with what its
// brokers serve. The legacy state holds two differences Kafka itself
// produced: topic doomed, deleted while broker 3 (its only replica) was
// down, stays in ZooKeeper while the brokers dropped it from Metadata; and
// broker 3's dynamic config (log.cleaner.threads, set by kafka-configs while
// it ran) stays in /config/brokers/3 while no running broker serves it.
// Everything else agrees, so these are the only findings.
func TestTestbedCrossCheck(t *testing.T) {
	zk := readTestbed(t, nil)
	served := readTestbedBrokers(t)
	fs := CrossCheck(zk, served)
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+" "+f.Resource)
		t.Logf("%s %s %s: %s", f.Severity, f.ID, f.Resource, f.Message)
	}
	want := []string{"CROSS-BROKER-CONFIG-OFFLINE broker:3", "CROSS-TOPIC-DELETING topic:doomed"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cross-check findings:\n got %q\nwant %q", got, want)
	}
	if !has(fs, "CROSS-BROKER-CONFIG-OFFLINE", "broker:3", "1 dynamic config for broker 3") {
		t.Errorf("broker 3's finding does not count its one config")
	}
}
