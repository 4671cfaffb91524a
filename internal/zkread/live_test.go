package zkread

import (
	"context"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
)

// TestLiveTestBed reads the test bed's ZooKeeper and checks the snapshot
// against what testbed/LegacyState.java made Kafka 3.9 write.
func TestLiveTestBed(t *testing.T) {
	addr := testbed.ZK(t)
	var secrets []string
	if f := os.Getenv("ZKM_TEST_ENCODER_SECRET_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		secrets = []string{strings.TrimSpace(string(b))}
	}
	conn, err := zkconn.Dial(context.Background(), zkconn.Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, full := range []bool{false, true} {
		s, err := Read(context.Background(), conn, Options{Full: full, EncoderSecrets: secrets, Address: conn.Address()})
		if err != nil {
			t.Fatal(err)
		}
		checkLegacyState(t, s, len(secrets) > 0)
		if s.Read.StartZxid == 0 || s.Read.ZxidMax == 0 || s.Read.ZxidMax > s.Read.StartZxid && len(s.Read.Changed) == 0 {
			t.Errorf("read info: %+v", s.Read)
		}
		doomed := s.Topic("doomed")
		if full && (doomed == nil || doomed.Partitions[0].State == nil) {
			t.Errorf("full read: no partition state for doomed")
		}
	}
}

func checkLegacyState(t *testing.T, s *snapshot.Snapshot, haveSecret bool) {
	t.Helper()
	if s.ClusterID == "" || s.Controller == nil {
		t.Errorf("cluster id %q, controller %v", s.ClusterID, s.Controller)
	}
	topics := map[string]struct {
		parts   int
		configs map[string]string
	}{
		// retention.ms changed afterwards by kafka-configs (testbed.sh)
		"orders":            {5, map[string]string{"retention.ms": "86400000", "cleanup.policy": "delete", "min.insync.replicas": "1"}},
		"customer-profiles": {2, map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1", "segment.ms": "3600000"}},
		"legacy-format":     {1, map[string]string{"message.format.version": "2.8", "message.downconversion.enable": "false"}},
		"tiny-segments":     {1, map[string]string{"segment.bytes": "524288"}},
		"payments":          {3, map[string]string{"retention.bytes": "1073741824", "max.message.bytes": "2097152"}},
		"metrics.events":    {6, map[string]string{}},
		"audit-log":         {2, map[string]string{"cleanup.policy": "compact,delete"}},
		"_schemas":          {1, map[string]string{"cleanup.policy": "compact"}},
		"etl-raw":           {2, map[string]string{}},
		"replicated":        {2, map[string]string{"min.insync.replicas": "1"}},
		"doomed":            {2, map[string]string{}},
	}
	for name, want := range topics {
		tp := s.Topic(name)
		if tp == nil {
			t.Errorf("topic %s missing", name)
			continue
		}
		if len(tp.Partitions) != want.parts || tp.ID == "" {
			t.Errorf("topic %s: %d partitions, id %q; want %d and an id", name, len(tp.Partitions), tp.ID, want.parts)
		}
		if d := cmp.Diff(want.configs, snapshot.ConfigMap(tp.Configs)); d != "" {
			t.Errorf("topic %s configs (-want +got):\n%s", name, d)
		}
	}
	// Every replica list as LegacyState.java assigned it (partitions 3-4 of
	// orders and 4-5 of metrics.events were added later).
	assignments := map[string][][]int32{
		"orders":            {{1, 2}, {2, 1}, {1, 2}, {2, 1}, {1, 2}},
		"customer-profiles": {{2, 1}, {1, 2}},
		"legacy-format":     {{2}},
		"tiny-segments":     {{2, 1}},
		"payments":          {{1}, {1}, {1}},
		"metrics.events":    {{2}, {2}, {2}, {2}, {2}, {2}},
		"_schemas":          {{1, 2}},
		"etl-raw":           {{2, 1}, {1, 2}},
		"audit-log":         {{1, 2}, {2, 1}},
		"replicated":        {{1, 2}, {2, 1}},
		"doomed":            {{3}, {3}},
	}
	for name, want := range assignments {
		if tp := s.Topic(name); tp != nil {
			var got [][]int32
			for _, pt := range tp.Partitions {
				got = append(got, pt.Replicas)
			}
			if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
				t.Errorf("topic %s replicas %v, want %v", name, got, want)
			}
		}
	}
	if !slices.Contains(s.PendingDeletes, "doomed") {
		t.Errorf("pending deletes %v, want doomed", s.PendingDeletes)
	}

	acl := func(typ, name, pat, principal, host, op, perm string) snapshot.ACL {
		return snapshot.ACL{ResourceType: typ, ResourceName: name, PatternType: pat, Principal: principal, Host: host, Operation: op, Permission: perm}
	}
	wantACLs := []snapshot.ACL{
		acl("Topic", "orders", "LITERAL", "User:alice", "*", "Read", "Allow"),
		acl("Topic", "orders", "LITERAL", "User:alice", "*", "Write", "Allow"),
		acl("Topic", "orders", "LITERAL", "User:alice", "*", "Describe", "Allow"),
		acl("Topic", "orders", "LITERAL", "User:User With Space", "*", "Read", "Allow"),
		acl("Topic", "orders", "LITERAL", "User:carol", "10.0.0.7", "Read", "Allow"),
		acl("Topic", "orders", "LITERAL", "User:carol", "db.example.com", "Read", "Allow"),
		acl("Topic", "payments", "LITERAL", "User:mallory", "*", "Read", "Deny"),
		acl("Topic", "payments", "LITERAL", "User:*", "10.0.0.99", "Write", "Deny"),
		acl("Topic", "*", "LITERAL", "User:auditor", "*", "Describe", "Allow"),
		acl("Topic", "*", "LITERAL", "User:auditor", "*", "DescribeConfigs", "Allow"),
		acl("Topic", "metrics.", "PREFIXED", "User:bob", "*", "Read", "Allow"),
		acl("Topic", "metrics.", "PREFIXED", "User:bob", "*", "Describe", "Allow"),
		acl("Topic", "metrics.", "PREFIXED", "User:mallory", "*", "All", "Deny"),
		acl("Group", "billing", "LITERAL", "User:alice", "*", "Read", "Allow"),
		acl("Group", "billing", "LITERAL", "User:mallory", "*", "Read", "Deny"),
		acl("Group", "billing", "LITERAL", "User:alice", "*", "Write", "Allow"),
		acl("Group", "team-", "PREFIXED", "User:bob", "*", "Read", "Allow"),
		acl("Group", "*", "LITERAL", "User:auditor", "*", "Describe", "Allow"),
		acl("Cluster", "kafka-cluster", "LITERAL", "User:alice", "*", "Create", "Allow"),
		acl("Cluster", "kafka-cluster", "LITERAL", "User:alice", "*", "IdempotentWrite", "Allow"),
		acl("Cluster", "kafka-cluster", "LITERAL", "User:svc-admin", "*", "Alter", "Allow"),
		acl("Cluster", "kafka-cluster", "LITERAL", "User:CN=foo,OU=bar", "*", "DescribeConfigs", "Allow"),
		acl("Cluster", "kafka-cluster", "LITERAL", "User:mallory", "*", "AlterConfigs", "Deny"),
		acl("TransactionalId", "tx-orders", "LITERAL", "User:alice", "*", "Write", "Allow"),
		acl("TransactionalId", "tx-orders", "LITERAL", "User:alice", "*", "Describe", "Allow"),
		acl("TransactionalId", "tx-orders", "LITERAL", "User:mallory", "*", "Write", "Deny"),
		acl("TransactionalId", "tx-", "PREFIXED", "User:bob", "*", "Describe", "Allow"),
		acl("User", "User:alice", "LITERAL", "User:bob", "*", "CreateTokens", "Allow"),
		acl("User", "User:alice", "LITERAL", "User:bob", "*", "DescribeTokens", "Allow"),
		acl("DelegationToken", "reporting-token", "LITERAL", "User:alice", "*", "Describe", "Allow"),
		// kafka-acls --producer on a prefixed pattern (testbed.sh)
		acl("Topic", "etl-", "PREFIXED", "User:svc-etl", "*", "Write", "Allow"),
		acl("Topic", "etl-", "PREFIXED", "User:svc-etl", "*", "Describe", "Allow"),
		acl("Topic", "etl-", "PREFIXED", "User:svc-etl", "*", "Create", "Allow"),
	}
	(&snapshot.Snapshot{ACLs: wantACLs}).Sort()
	if d := cmp.Diff(wantACLs, s.ACLs); d != "" {
		t.Errorf("ACLs (-want +got):\n%s", d)
	}

	user := func(n string) snapshot.EntityComponent { return snapshot.EntityComponent{Type: "user", Name: n} }
	client := func(n string) snapshot.EntityComponent { return snapshot.EntityComponent{Type: "client-id", Name: n} }
	defUser := snapshot.EntityComponent{Type: "user", Default: true}
	defClient := snapshot.EntityComponent{Type: "client-id", Default: true}
	wantQuotas := []snapshot.Quota{
		{Entity: snapshot.QuotaEntity{user("alice")}, Values: map[string]float64{"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152}},
		{Entity: snapshot.QuotaEntity{user("CN=foo,OU=bar")}, Values: map[string]float64{"request_percentage": 25}},
		{Entity: snapshot.QuotaEntity{user("svc~deploy")}, Values: map[string]float64{"controller_mutation_rate": 10}},
		{Entity: snapshot.QuotaEntity{client("reporting-app")}, Values: map[string]float64{"consumer_byte_rate": 4194304, "request_percentage": 50}},
		{Entity: snapshot.QuotaEntity{user("alice"), client("alice-cli")}, Values: map[string]float64{"producer_byte_rate": 524288}},
		{Entity: snapshot.QuotaEntity{user("alice"), defClient}, Values: map[string]float64{"consumer_byte_rate": 1048576}},
		{Entity: snapshot.QuotaEntity{defUser}, Values: map[string]float64{"producer_byte_rate": 10485760, "consumer_byte_rate": 10485760}},
		{Entity: snapshot.QuotaEntity{defClient}, Values: map[string]float64{"request_percentage": 200}},
		{Entity: snapshot.QuotaEntity{defUser, client("batch-loader")}, Values: map[string]float64{"producer_byte_rate": 262144}},
		{Entity: snapshot.QuotaEntity{defUser, defClient}, Values: map[string]float64{"request_percentage": 100}},
		{Entity: snapshot.QuotaEntity{{Type: "ip", Name: "10.1.2.3"}}, Values: map[string]float64{"connection_creation_rate": 10}},
		{Entity: snapshot.QuotaEntity{{Type: "ip", Default: true}}, Values: map[string]float64{"connection_creation_rate": 100}},
		{Entity: snapshot.QuotaEntity{user("bob")}, Values: map[string]float64{"producer_byte_rate": 524288}}, // kafka-configs (testbed.sh)
	}
	(&snapshot.Snapshot{Quotas: wantQuotas}).Sort()
	if d := cmp.Diff(wantQuotas, s.Quotas); d != "" {
		t.Errorf("quotas (-want +got):\n%s", d)
	}

	gotUsers := map[string]int32{}
	for _, u := range s.ScramUsers {
		for _, c := range u.Credentials {
			gotUsers[u.Name+"/"+c.Mechanism] = c.Iterations
			if c.Secret == nil || c.Secret.Known() || c.Secret.Ref() != "zookeeper:/config/users/"+Sanitize(u.Name)+"#"+c.Mechanism {
				t.Errorf("SCRAM %s/%s secret %v", u.Name, c.Mechanism, c.Secret)
			}
		}
	}
	wantUsers := map[string]int32{"admin/SCRAM-SHA-256": 8192, "alice/SCRAM-SHA-256": 8192, "alice/SCRAM-SHA-512": 8192,
		"CN=foo,OU=bar/SCRAM-SHA-256": 4096, "User With Space/SCRAM-SHA-512": 4096, "carol/SCRAM-SHA-256": 4096, "bob/SCRAM-SHA-256": 8192}
	if d := cmp.Diff(wantUsers, gotUsers); d != "" {
		t.Errorf("SCRAM users (-want +got):\n%s", d)
	}

	var pw *snapshot.Config
	for i := range s.BrokerConfigs {
		bc := &s.BrokerConfigs[i]
		switch bc.Broker {
		case "":
			want := map[string]string{"log.retention.ms": "259200000", "max.connections.per.ip": "1000",
				"log.cleaner.io.max.bytes.per.second": "10485760", "unclean.leader.election.enable": "false", "log.cleanup.policy": "delete"}
			if d := cmp.Diff(want, snapshot.ConfigMap(bc.Configs)); d != "" {
				t.Errorf("<default> broker configs:\n%s", d)
			}
		case "2":
			want := map[string]string{"log.cleaner.threads": "1", "log.cleaner.backoff.ms": "20000", "log.cleaner.io.buffer.load.factor": "0.8"}
			if d := cmp.Diff(want, snapshot.ConfigMap(bc.Configs)); d != "" {
				t.Errorf("broker 2 configs:\n%s", d)
			}
		case "1":
			for j := range bc.Configs {
				if bc.Configs[j].Key == "listener.name.sasl_plaintext.ssl.key.password" {
					pw = &bc.Configs[j]
				}
			}
		}
	}
	if pw == nil || !pw.Sensitive || pw.Secret == nil || pw.Value != "" {
		t.Fatalf("broker 1 password config: %+v", pw)
	}
	if v, ok := pw.Secret.Reveal(); haveSecret && (!ok || v != "kp-secret-1") {
		t.Errorf("broker 1 password decrypted to %q (known %v), want the test bed's value", v, ok)
	}
	if len(s.DelegationTokens) != 1 || s.DelegationTokens[0].Owner != "User:admin" || !slices.Equal(s.DelegationTokens[0].Renewers, []string{"User:alice"}) {
		t.Errorf("delegation tokens %+v", s.DelegationTokens)
	}
}
