package kread

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

// secretCmp compares secrets by reference and knowledge, never by value.
var secretCmp = cmp.Comparer(func(a, b secret.Secret) bool { return a.Ref() == b.Ref() && a.Known() == b.Known() })

// writeProps writes a client.properties for a SCRAM-SHA-256 user.
func writeProps(t testing.TB, user, pass string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	body := fmt.Sprintf("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\n", user, pass)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// dial connects to a kfake cluster as user.
func dial(t testing.TB, c *kfake.Cluster, user, pass string) *kafkaconn.Conn {
	t.Helper()
	cfg, err := kafkaconn.Load(writeProps(t, user, pass))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func newCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	base := []kfake.Opt{
		kfake.NumBrokers(3), kfake.ClusterID("kread-test"),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "admin", "admin-secret"), kfake.EnableACLs(),
	}
	c, err := kfake.NewCluster(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ptr(s string) *string { return &s }

// seed creates the state TestReadKfake expects, through kadm as admin.
func seed(t *testing.T, adm *kadm.Client) {
	t.Helper()
	ctx := context.Background()
	mustTopic := func(name string, parts int32, rf int16, cfg map[string]*string) {
		r, err := adm.CreateTopic(ctx, parts, rf, cfg, name)
		if err != nil || r.Err != nil {
			t.Fatalf("create %s: %v %v", name, err, r.Err)
		}
	}
	mustTopic("orders", 3, 2, map[string]*string{"retention.ms": ptr("86400000"), "cleanup.policy": ptr("compact")})
	mustTopic("payments", 1, 3, nil)
	mustTopic("_schemas", 1, 1, map[string]*string{"cleanup.policy": ptr("compact")})
	if rs, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "max.message.bytes", Value: ptr("2097152")}}, "payments"); err != nil || rs[0].Err != nil {
		t.Fatalf("alter payments: %v %v", err, rs)
	}
	// A broker-level override with a topic equivalent must not show up as
	// a topic config.
	if rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.retention.ms", Value: ptr("604800000")}}, 1); err != nil || rs[0].Err != nil {
		t.Fatalf("alter broker 1: %v %v", err, rs)
	}

	acls := []*kadm.ACLBuilder{
		kadm.NewACLs().Topics("orders").Allow("User:alice").Operations(kadm.OpRead, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral),
		kadm.NewACLs().Topics("pay-").Allow("User:bob").AllowHosts("10.0.0.1").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
		kadm.NewACLs().Topics("orders").Deny("User:mallory").DenyHosts("10.0.0.7").Operations(kadm.OpAll).ResourcePatternType(kadm.ACLPatternLiteral),
		kadm.NewACLs().Groups("app-").Allow("User:alice").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternPrefixed),
		kadm.NewACLs().Clusters().Allow("User:ops").Operations(kadm.OpIdempotentWrite, kadm.OpDescribeConfigs).ResourcePatternType(kadm.ACLPatternLiteral),
		kadm.NewACLs().TransactionalIDs("tx-1").Allow("User:alice").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternLiteral),
	}
	for _, b := range acls {
		rs, err := adm.CreateACLs(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Err != nil {
				t.Fatalf("create acl %+v: %v", r, r.Err)
			}
		}
	}

	user := func(n *string) kadm.ClientQuotaEntityComponent {
		return kadm.ClientQuotaEntityComponent{Type: "user", Name: n}
	}
	client := func(n *string) kadm.ClientQuotaEntityComponent {
		return kadm.ClientQuotaEntityComponent{Type: "client-id", Name: n}
	}
	ip := func(n *string) kadm.ClientQuotaEntityComponent {
		return kadm.ClientQuotaEntityComponent{Type: "ip", Name: n}
	}
	set := func(k string, v float64) kadm.AlterClientQuotaOp { return kadm.AlterClientQuotaOp{Key: k, Value: v} }
	qs := []kadm.AlterClientQuotaEntry{
		{Entity: kadm.ClientQuotaEntity{user(ptr("alice"))}, Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 1048576), set("consumer_byte_rate", 2097152)}},
		{Entity: kadm.ClientQuotaEntity{user(nil)}, Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 524288)}},
		// client-id first on purpose: the snapshot orders user, client-id.
		{Entity: kadm.ClientQuotaEntity{client(ptr("billing")), user(ptr("alice"))}, Ops: []kadm.AlterClientQuotaOp{set("request_percentage", 50)}},
		{Entity: kadm.ClientQuotaEntity{user(nil), client(nil)}, Ops: []kadm.AlterClientQuotaOp{set("consumer_byte_rate", 1000)}},
		{Entity: kadm.ClientQuotaEntity{client(nil)}, Ops: []kadm.AlterClientQuotaOp{set("producer_byte_rate", 100)}},
		{Entity: kadm.ClientQuotaEntity{ip(ptr("10.0.0.9"))}, Ops: []kadm.AlterClientQuotaOp{set("connection_creation_rate", 5)}},
	}
	if rs, err := adm.AlterClientQuotas(ctx, qs); err != nil {
		t.Fatal(err)
	} else {
		for _, r := range rs {
			if r.Err != nil {
				t.Fatalf("quota %v: %v", r.Entity, r.Err)
			}
		}
	}

	up := []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "alice-pw"},
		{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: "carol-pw"},
	}
	if rs, err := adm.AlterUserSCRAMs(ctx, nil, up); err != nil {
		t.Fatal(err)
	} else if err := rs.Error(); err != nil {
		t.Fatal(err)
	}
}

func cfg(k, v, src string) snapshot.Config { return snapshot.Config{Key: k, Value: v, Source: src} }

func secretRef(ref string) *secret.Secret { s := secret.Ref(ref); return &s }

// normalize checks what kfake makes random (topic ids, replica placement,
// ports) and replaces it with fixed values, so the rest compares exactly.
func normalize(t *testing.T, s *snapshot.Snapshot, brokers int32) {
	t.Helper()
	idRe := regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)
	for i := range s.Topics {
		tp := &s.Topics[i]
		if !idRe.MatchString(tp.ID) {
			t.Errorf("topic %s: id %q is not a base64url Uuid", tp.Name, tp.ID)
		}
		tp.ID = "ID"
		for j := range tp.Partitions {
			p := &tp.Partitions[j]
			seen := map[int32]bool{}
			for _, r := range p.Replicas {
				if r < 0 || r >= brokers || seen[r] {
					t.Errorf("topic %s partition %d: bad replicas %v", tp.Name, p.ID, p.Replicas)
				}
				seen[r] = true
			}
			p.Replicas = []int32{int32(len(p.Replicas))} // keep only the count
		}
	}
	for i := range s.Brokers {
		if s.Brokers[i].Port <= 0 || s.Brokers[i].Host == "" {
			t.Errorf("broker %d: no address", s.Brokers[i].ID)
		}
		s.Brokers[i].Host, s.Brokers[i].Port = "", 0
	}
	if s.Controller == nil || s.Controller.BrokerID < 0 || s.Controller.BrokerID >= brokers {
		t.Errorf("controller = %+v", s.Controller)
	}
	s.Controller = nil
	s.Address = ""
}

func TestReadKfake(t *testing.T) {
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	seed(t, conn.Admin)

	got, err := Read(context.Background(), conn, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	normalize(t, got, 3)

	const dyn, dynBroker = "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG"
	rf := func(n int32) []int32 { return []int32{n} }
	// kfake keeps one broker config map for the whole cluster and reports
	// it as DYNAMIC_BROKER_CONFIG on every broker; a real cluster keeps the
	// override on broker 1 only.
	retention := []snapshot.Config{cfg("log.retention.ms", "604800000", dynBroker)}
	want := &snapshot.Snapshot{
		Format:    snapshot.FormatVersion,
		Source:    snapshot.SourceKafka,
		ClusterID: "kread-test",
		Read:      snapshot.ReadInfo{Started: "2026-11-29T12:00:00Z", Finished: "2026-11-29T12:00:00Z"},
		// kfake finalizes these feature levels and reports every broker in
		// rack "krack".
		Features: []snapshot.Feature{
			{Name: "eligible.leader.replicas.version", MinLevel: 1, MaxLevel: 1, Enabled: true},
			{Name: "group.version", MinLevel: 1, MaxLevel: 1, Enabled: true},
			{Name: "kraft.version", MinLevel: 1, MaxLevel: 1, Enabled: true},
			{Name: "metadata.version", MinLevel: 33, MaxLevel: 33, Enabled: true},
			{Name: "share.version", MinLevel: 2, MaxLevel: 2, Enabled: true},
			{Name: "streams.version", MinLevel: 1, MaxLevel: 1, Enabled: true},
			{Name: "transaction.version", MinLevel: 2, MaxLevel: 2, Enabled: true},
		},
		Brokers: []snapshot.Broker{{ID: 0, Rack: "krack"}, {ID: 1, Rack: "krack"}, {ID: 2, Rack: "krack"}},
		Topics: []snapshot.Topic{
			{Name: "_schemas", ID: "ID", Partitions: []snapshot.Partition{{ID: 0, Replicas: rf(1)}},
				Configs: []snapshot.Config{cfg("cleanup.policy", "compact", dyn)}},
			{Name: "orders", ID: "ID", Partitions: []snapshot.Partition{{ID: 0, Replicas: rf(2)}, {ID: 1, Replicas: rf(2)}, {ID: 2, Replicas: rf(2)}},
				Configs: []snapshot.Config{cfg("cleanup.policy", "compact", dyn), cfg("retention.ms", "86400000", dyn)}},
			{Name: "payments", ID: "ID", Partitions: []snapshot.Partition{{ID: 0, Replicas: rf(3)}},
				Configs: []snapshot.Config{cfg("max.message.bytes", "2097152", dyn)}},
		},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "0", Configs: retention}, {Broker: "1", Configs: retention}, {Broker: "2", Configs: retention}},
		Quotas: []snapshot.Quota{
			{Entity: snapshot.QuotaEntity{{Type: "client-id", Default: true}}, Values: map[string]float64{"producer_byte_rate": 100}},
			{Entity: snapshot.QuotaEntity{{Type: "ip", Name: "10.0.0.9"}}, Values: map[string]float64{"connection_creation_rate": 5}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Default: true}}, Values: map[string]float64{"producer_byte_rate": 524288}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Default: true}, {Type: "client-id", Default: true}}, Values: map[string]float64{"consumer_byte_rate": 1000}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}, {Type: "client-id", Name: "billing"}}, Values: map[string]float64{"request_percentage": 50}},
		},
		ScramUsers: []snapshot.ScramUser{
			{Name: "admin", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: secretRef("kafka:user/admin#SCRAM-SHA-256")}}},
			{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192, Secret: secretRef("kafka:user/alice#SCRAM-SHA-256")}}},
			{Name: "carol", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096, Secret: secretRef("kafka:user/carol#SCRAM-SHA-512")}}},
		},
		ACLs: []snapshot.ACL{
			{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:ops", Host: "*", Operation: "DescribeConfigs", Permission: "Allow"},
			{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:ops", Host: "*", Operation: "IdempotentWrite", Permission: "Allow"},
			{ResourceType: "Group", ResourceName: "app-", PatternType: "PREFIXED", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Describe", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:mallory", Host: "10.0.0.7", Operation: "All", Permission: "Deny"},
			{ResourceType: "Topic", ResourceName: "pay-", PatternType: "PREFIXED", Principal: "User:bob", Host: "10.0.0.1", Operation: "Write", Permission: "Allow"},
			{ResourceType: "TransactionalId", ResourceName: "tx-1", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Write", Permission: "Allow"},
		},
	}
	want.Sort()
	if d := cmp.Diff(want, got, secretCmp); d != "" {
		t.Errorf("Read mismatch (-want +got):\n%s", d)
	}

	// The encoded form, as plan and the snapshot command see it (topic ids,
	// replica placement and addresses normalized as above).
	var b strings.Builder
	if err := snapshot.Encode(&b, got); err != nil {
		t.Fatal(err)
	}
	golden.AssertString(t, filepath.Join("testdata", "kfake-read.golden.json"), b.String())

	// The secrets test: no password given to the cluster appears in the
	// encoded snapshot.
	for _, pw := range []string{"admin-secret", "alice-pw", "carol-pw"} {
		if strings.Contains(b.String(), pw) {
			t.Errorf("snapshot JSON contains the password %q", pw)
		}
	}
}

func TestReadFilterAndSkipConfigs(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "__consumer_offsets", "a.one", "a.two", "b.one"))
	conn := dial(t, c, "admin", "admin-secret")
	if rs, err := conn.Admin.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: ptr("1000")}}, "a.one"); err != nil || rs[0].Err != nil {
		t.Fatal(err, rs)
	}
	tests := []struct {
		name       string
		opts       Options
		wantTopics []string
		wantCfgs   int
	}{
		{"all", Options{}, []string{"__consumer_offsets", "a.one", "a.two", "b.one"}, 1},
		{"filter", Options{Topics: regexp.MustCompile(`^a\.`)}, []string{"a.one", "a.two"}, 1},
		{"filter internal", Options{Topics: regexp.MustCompile(`^__`)}, []string{"__consumer_offsets"}, 0},
		{"skip configs", Options{SkipConfigs: true}, []string{"__consumer_offsets", "a.one", "a.two", "b.one"}, 0},
		{"tiny batches", Options{ConfigBatch: 1, Concurrency: 2}, []string{"__consumer_offsets", "a.one", "a.two", "b.one"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(context.Background(), conn, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			cfgs := 0
			for _, tp := range s.Topics {
				names = append(names, tp.Name)
				cfgs += len(tp.Configs)
				if tp.Internal != catalogue.IsInternalTopic(tp.Name) {
					t.Errorf("%s: Internal = %v", tp.Name, tp.Internal)
				}
			}
			if !slices.Equal(names, tt.wantTopics) {
				t.Errorf("topics = %v, want %v", names, tt.wantTopics)
			}
			if cfgs != tt.wantCfgs {
				t.Errorf("%d topic configs, want %d", cfgs, tt.wantCfgs)
			}
			if tt.opts.SkipConfigs && len(s.BrokerConfigs) != 0 {
				t.Errorf("SkipConfigs read broker configs: %+v", s.BrokerConfigs)
			}
		})
	}
}

// A principal missing an ACL gets an error naming it, never a partial
// snapshot.
func TestReadAuthorization(t *testing.T) {
	clusterACL := func(op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: kmsg.ACLResourceTypeCluster, Name: "kafka-cluster", Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: true}
	}
	topicACL := func(op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: kmsg.ACLResourceTypeTopic, Name: "secret-topic", Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: true}
	}
	tests := []struct {
		name string
		acls []kfake.ACL
		want string
	}{
		{"nothing", nil, "kread: reading ACLs needs Cluster:Describe for User:bob"},
		{"describe only", []kfake.ACL{clusterACL(kmsg.ACLOperationDescribe)},
			"kread: reading client quotas needs Cluster:DescribeConfigs for User:bob"},
		{"no topic describe configs", []kfake.ACL{clusterACL(kmsg.ACLOperationDescribe), clusterACL(kmsg.ACLOperationDescribeConfigs), topicACL(kmsg.ACLOperationDescribe)},
			"kread: reading topic configs needs Topic:DescribeConfigs on secret-topic for User:bob"},
		{"enough", []kfake.ACL{clusterACL(kmsg.ACLOperationDescribe), clusterACL(kmsg.ACLOperationDescribeConfigs), topicACL(kmsg.ACLOperationDescribe), topicACL(kmsg.ACLOperationDescribeConfigs)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, kfake.SeedTopics(1, "secret-topic"), kfake.User("SCRAM-SHA-256", "bob", "bob-pw", tt.acls...))
			conn := dial(t, c, "bob", "bob-pw")
			s, err := Read(context.Background(), conn, Options{Concurrency: 1})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Read: %v", err)
			case tt.want == "":
				if len(s.Topics) != 1 || s.Topics[0].Name != "secret-topic" {
					t.Errorf("topics = %+v", s.Topics)
				}
			case err == nil:
				t.Fatalf("Read succeeded, want %q", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
		})
	}
}

func TestDynamicConfigs(t *testing.T) {
	entry := func(name string, v *string, src kmsg.ConfigSource, ro, sens bool) kmsg.DescribeConfigsResponseResourceConfig {
		return kmsg.DescribeConfigsResponseResourceConfig{Name: name, Value: v, Source: src, ReadOnly: ro, IsSensitive: sens}
	}
	in := []kmsg.DescribeConfigsResponseResourceConfig{
		entry("retention.ms", ptr("1000"), kmsg.ConfigSourceDynamicTopicConfig, false, false),
		entry("segment.bytes", ptr("1073741824"), kmsg.ConfigSourceDefaultConfig, false, false),
		entry("min.insync.replicas", ptr("2"), kmsg.ConfigSourceDynamicDefaultBrokerConfig, false, false),
		entry("log.retention.ms", ptr("5"), kmsg.ConfigSourceDynamicBrokerConfig, false, false),
		entry("broker.id", ptr("1"), kmsg.ConfigSourceDynamicTopicConfig, true, false),
		entry("sasl.jaas.config", nil, kmsg.ConfigSourceDynamicTopicConfig, false, true),
		entry("odd.secret", ptr("leaked?"), kmsg.ConfigSourceDynamicTopicConfig, false, true),
		entry("no.value", nil, kmsg.ConfigSourceDynamicTopicConfig, false, false),
	}
	got := dynamicConfigs(in, kmsg.ConfigSourceDynamicTopicConfig, func(k string) string { return "kafka:t#" + k })
	src := "DYNAMIC_TOPIC_CONFIG"
	want := []snapshot.Config{
		{Key: "no.value", Sensitive: true, Secret: secretRef("kafka:t#no.value"), Source: src},
		{Key: "odd.secret", Sensitive: true, Secret: secretRef("kafka:t#odd.secret"), Source: src},
		{Key: "retention.ms", Value: "1000", Source: src},
		{Key: "sasl.jaas.config", Sensitive: true, Secret: secretRef("kafka:t#sasl.jaas.config"), Source: src},
	}
	if d := cmp.Diff(want, got, secretCmp); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// kfake, like a misconfigured or older broker, returns password-type
// values in clear and does not flag them sensitive: the snapshot holds them
// by reference anyway, and no encoding of it contains the value.
func TestReadKfakeClearPasswords(t *testing.T) {
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	ctx := context.Background()
	if _, err := conn.Admin.CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	const clear = "clear-value-Zq81"
	keys := []string{"ssl.key.password", "listener.name.internal.ssl.keystore.password",
		"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "ssl.truststore.certificates"}
	var set []kadm.AlterConfig
	for _, k := range keys {
		set = append(set, kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: ptr(clear + k)})
	}
	if rs, err := conn.Admin.AlterTopicConfigs(ctx, set, "t"); err != nil || rs[0].Err != nil {
		t.Fatalf("seed topic: %v %v", err, rs)
	}
	if rs, err := conn.Admin.AlterBrokerConfigs(ctx, set, 1); err != nil || rs[0].Err != nil {
		t.Fatalf("seed broker: %v %v", err, rs)
	}
	s, err := Read(ctx, conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	check := func(where string, cs []snapshot.Config) {
		for _, c := range cs {
			if !slices.Contains(keys, c.Key) {
				continue
			}
			seen++
			if !c.Sensitive || c.Value != "" || c.Secret == nil || c.Secret.Known() {
				t.Errorf("%s %s: sensitive=%v value=%q secret=%v, want held by reference", where, c.Key, c.Sensitive, c.Value, c.Secret)
			}
		}
	}
	for _, tp := range s.Topics {
		check("topic "+tp.Name, tp.Configs)
	}
	for _, bc := range s.BrokerConfigs {
		check("broker "+bc.Broker, bc.Configs)
	}
	if seen < 2*len(keys) {
		t.Fatalf("saw %d of the %d seeded keys; the test proves nothing", seen, 2*len(keys))
	}
	var buf strings.Builder
	if err := snapshot.Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), clear) || strings.Contains(fmt.Sprintf("%+v", s), clear) {
		t.Errorf("the snapshot holds a value the target returned in clear")
	}
}

func TestSortEntity(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"client-id", "user"}, []string{"user", "client-id"}},
		{[]string{"ip"}, []string{"ip"}},
		{[]string{"zz", "client-id", "aa", "user"}, []string{"user", "client-id", "aa", "zz"}},
	}
	for _, tt := range tests {
		var e snapshot.QuotaEntity
		for _, ty := range tt.in {
			e = append(e, snapshot.EntityComponent{Type: ty})
		}
		sortEntity(e)
		var got []string
		for _, c := range e {
			got = append(got, c.Type)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("sortEntity(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
