package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/secret"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// base is a clean ZooKeeper snapshot: on it, only CARRY-TOPIC-ID (a fact
// about every topic with an id) fires.
func base() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Format: 1, Source: snapshot.SourceZooKeeper,
		Controller: &snapshot.Controller{BrokerID: 1, KRaftControllerEpoch: -1},
		Topics: []snapshot.Topic{{
			Name: "orders", ID: "Wm4s3qv8RHSv0DVk2nJtYA",
			Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, 2, 3}}, {ID: 1, Replicas: []int32{2, 3, 1}}},
			Configs:    []snapshot.Config{{Key: "retention.ms", Value: "86400000"}, {Key: "min.insync.replicas", Value: "2"}},
		}},
		StaticConfigs: []snapshot.StaticConfig{{
			File: "server-1.properties", BrokerID: "1",
			Configs: []snapshot.Config{
				{Key: "authorizer.class.name", Value: standardAuthorizer},
				{Key: "broker.id", Value: "1"},
				{Key: "log.dirs", Value: "/var/lib/kafka"},
				{Key: "log.segment.bytes", Value: "1073741824"},
			},
		}},
		ACLs: []snapshot.ACL{
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Write", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:bob", Host: "10.0.0.7", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Group", ResourceName: "app-", PatternType: "PREFIXED", Principal: "User:bob", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:mallory", Host: "*", Operation: "All", Permission: "Deny"},
			{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:admin", Host: "*", Operation: "Alter", Permission: "Allow"},
		},
	}
}

func static(s *snapshot.Snapshot, kv ...string) {
	for i := 0; i < len(kv); i += 2 {
		s.StaticConfigs[0].Configs = append(s.StaticConfigs[0].Configs, snapshot.Config{Key: kv[i], Value: kv[i+1]})
	}
}

func setStatic(s *snapshot.Snapshot, key, value string) {
	for i, c := range s.StaticConfigs[0].Configs {
		if c.Key == key {
			s.StaticConfigs[0].Configs[i].Value = value
			return
		}
	}
	static(s, key, value)
}

func topicConfig(s *snapshot.Snapshot, kv ...string) {
	for i := 0; i < len(kv); i += 2 {
		s.Topics[0].Configs = append(s.Topics[0].Configs, snapshot.Config{Key: kv[i], Value: kv[i+1]})
	}
}

func mkACL(rt, name, pt, principal, host, op, perm string) snapshot.ACL {
	return snapshot.ACL{ResourceType: rt, ResourceName: name, PatternType: pt, Principal: principal, Host: host, Operation: op, Permission: perm}
}

func brokerConfigs(s *snapshot.Snapshot, broker string, cs ...snapshot.Config) {
	s.BrokerConfigs = append(s.BrokerConfigs, snapshot.BrokerConfig{Broker: broker, Configs: cs})
}

type fakePolicy struct{ maxPartitions int }

func (p fakePolicy) CheckExisting(t *snapshot.Topic) []PolicyViolation {
	if len(t.Partitions) > p.maxPartitions {
		return []PolicyViolation{{Rule: "max-partitions", Message: "too many partitions"}}
	}
	return nil
}

// cases: for every id, at least one case that triggers it (want > 0) and one
// close to it that does not (want 0). TestCatalogueCovered checks that.
var cases = []struct {
	name     string
	id       string
	opts     Options
	mut      func(s *snapshot.Snapshot)
	want     int    // findings with id
	severity string // of the first, when set
	resource string // of the first, when set
	contains string // in the first's message or fix, when set
}{
	{"read finding passed through under its own id", catalogue.IDZnodeMalformed, Options{}, func(s *snapshot.Snapshot) {
		s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDZnodeMalformed, Severity: "error", Resource: "/brokers/topics/x", Message: "not JSON"})
	}, 1, "error", "/brokers/topics/x", "not JSON"},
	{"no read finding", catalogue.IDZnodeMalformed, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"znodes changed during the read", catalogue.IDReadNotConsistent, Options{}, func(s *snapshot.Snapshot) {
		s.Read.Changed = []string{"/brokers/topics/orders"}
	}, 1, "warning", "source", "/brokers/topics/orders"},
	{"znodes changed, as the reader said", catalogue.IDReadNotConsistent, Options{}, func(s *snapshot.Snapshot) {
		s.Read.Changed = []string{"/brokers/topics/orders"}
		s.Findings = append(s.Findings, snapshot.Finding{ID: catalogue.IDReadNotConsistent, Severity: "warning", Resource: "/", Message: "1 znode changed"})
	}, 1, "warning", "/", "1 znode changed"},
	{"clean read", catalogue.IDReadNotConsistent, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"pending notifications", catalogue.IDNotificationsPending, Options{}, func(s *snapshot.Snapshot) {
		s.Findings = append(s.Findings, snapshot.Finding{ID: "notifications-pending", Severity: "info", Resource: "/config/changes", Message: "3 notification znodes not yet processed or expired"})
	}, 1, "info", "znode:/config/changes", "3 notification znodes"},
	{"no pending notifications", catalogue.IDNotificationsPending, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},

	{"migration znode", "KRAFT-MIGRATION-ZNODE", Options{}, func(s *snapshot.Snapshot) {
		s.Migration = &snapshot.Migration{KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 12345}
	}, 1, "error", "znode:/migration", "has finished"},
	{"no migration znode", "KRAFT-MIGRATION-ZNODE", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"kraft controller", "KRAFT-CONTROLLER", Options{}, func(s *snapshot.Snapshot) {
		s.Controller = &snapshot.Controller{BrokerID: 3000, KRaftControllerEpoch: 0}
	}, 1, "error", "znode:/controller", "3000"},
	{"zk controller", "KRAFT-CONTROLLER", Options{}, func(s *snapshot.Snapshot) {
		s.Controller = &snapshot.Controller{BrokerID: 2, KRaftControllerEpoch: -1}
	}, 0, "", "", ""},

	{"pending delete", catalogue.IDTopicPendingDelete, Options{}, func(s *snapshot.Snapshot) {
		s.PendingDeletes = []string{"orders", "gone"}
	}, 2, "warning", "topic:gone", "already gone"},
	{"no pending delete", catalogue.IDTopicPendingDelete, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"legacy reassignment", catalogue.IDLegacyReassignment, Options{}, func(s *snapshot.Snapshot) {
		s.LegacyReassignments = []snapshot.PartitionAssignment{{Topic: "orders", Partition: 0, Replicas: []int32{4, 5, 6}}, {Topic: "orders", Partition: 1, Replicas: []int32{4, 5, 6}}}
	}, 1, "warning", "topic:orders", "2 partitions"},
	{"no legacy reassignment", catalogue.IDLegacyReassignment, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"reassignment in progress", catalogue.IDTopicMidReassignment, Options{}, func(s *snapshot.Snapshot) {
		s.Topics[0].Partitions[1] = snapshot.Partition{ID: 1, Replicas: []int32{2, 3, 1, 4}, Adding: []int32{4}, Removing: []int32{1}}
	}, 1, "warning", "topic:orders", "adding [4], removing [1]"},
	{"reassignment reported by a live cluster", catalogue.IDTopicMidReassignment, Options{}, func(s *snapshot.Snapshot) {
		s.Reassignments = []snapshot.PartitionAssignment{{Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3, 4}, Adding: []int32{4}}}
	}, 1, "warning", "topic:orders", ""},
	{"no reassignment", catalogue.IDTopicMidReassignment, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},

	{"topic without id", "KRAFT-TOPIC-NO-ID", Options{}, func(s *snapshot.Snapshot) { s.Topics[0].ID = "" }, 1, "error", "topic:orders", ""},
	{"topic without id on a live cluster is not flagged", "KRAFT-TOPIC-NO-ID", Options{}, func(s *snapshot.Snapshot) {
		s.Topics[0].ID = ""
		s.Source = snapshot.SourceKafka
	}, 0, "", "", ""},

	{"ibp not a version", "KRAFT-IBP-INVALID", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "three") }, 1, "warning", "file:server-1.properties", `"three"`},
	{"ibp a version", "KRAFT-IBP-INVALID", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.9") }, 0, "", "", ""},
	{"ibp 3.2", "KRAFT-IBP-TOO-OLD", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.2-IV0") }, 1, "error", "file:server-1.properties", "3.2-IV0"},
	{"ibp 0.10.2", "KRAFT-IBP-TOO-OLD", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "0.10.2") }, 1, "error", "", ""},
	{"ibp 3.3 is new enough for Kafka 4", "KRAFT-IBP-TOO-OLD", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.3") }, 0, "", "", ""},
	{"ibp 3.5 too old for KIP-866", "KRAFT-IBP-MIGRATION", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.5") }, 1, "warning", "", "3.6-IV1"},
	{"ibp 3.6-IV0 too old for KIP-866", "KRAFT-IBP-MIGRATION", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.6-IV0") }, 1, "", "", ""},
	{"ibp 3.6 is enough for KIP-866", "KRAFT-IBP-MIGRATION", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.6") }, 0, "", "", ""},
	{"ibp below 3.3 is not also a migration warning", "KRAFT-IBP-MIGRATION", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "2.8") }, 0, "", "", ""},
	{"mixed ibp", "KRAFT-IBP-MIXED", Options{}, func(s *snapshot.Snapshot) {
		static(s, "inter.broker.protocol.version", "3.9")
		s.StaticConfigs = append(s.StaticConfigs, snapshot.StaticConfig{File: "server-2.properties", Configs: []snapshot.Config{{Key: "inter.broker.protocol.version", Value: "3.8"}}})
	}, 1, "warning", "brokers", "3.8 (server-2.properties); 3.9 (server-1.properties)"},
	{"same ibp everywhere", "KRAFT-IBP-MIXED", Options{}, func(s *snapshot.Snapshot) {
		static(s, "inter.broker.protocol.version", "3.9")
		s.StaticConfigs = append(s.StaticConfigs, snapshot.StaticConfig{File: "server-2.properties", Configs: []snapshot.Config{{Key: "inter.broker.protocol.version", Value: "3.9"}}})
	}, 0, "", "", ""},
	{"jbod with ibp 3.6", "KRAFT-JBOD-IBP", Options{}, func(s *snapshot.Snapshot) {
		static(s, "inter.broker.protocol.version", "3.6")
		setStatic(s, "log.dirs", "/d1,/d2")
	}, 1, "warning", "", "2 log.dirs"},
	{"jbod with ibp 3.7", "KRAFT-JBOD-IBP", Options{}, func(s *snapshot.Snapshot) {
		static(s, "inter.broker.protocol.version", "3.7")
		setStatic(s, "log.dirs", "/d1,/d2")
	}, 0, "", "", ""},
	{"one log dir with ibp 3.6", "KRAFT-JBOD-IBP", Options{}, func(s *snapshot.Snapshot) { static(s, "inter.broker.protocol.version", "3.6") }, 0, "", "", ""},

	{"zookeeper-only settings", "KRAFT-ZK-SETTING", Options{}, func(s *snapshot.Snapshot) {
		static(s, "zookeeper.connect", "zk:2181/kafka", "inter.broker.protocol.version", "3.9", "broker.id.generation.enable", "true",
			"reserved.broker.max.id", "1000", "authorizer.zookeeper.url", "zk2:2181", "password.encoder.cipher.algorithm", "AES/CBC/PKCS5Padding")
	}, 6, "warning", "file:server-1.properties", ""},
	{"ibp setting names metadata.version", "KRAFT-ZK-SETTING", Options{}, func(s *snapshot.Snapshot) {
		static(s, "inter.broker.protocol.version", "3.9")
	}, 1, "", "", "metadata"},
	{"kraft settings are fine", "KRAFT-ZK-SETTING", Options{}, func(s *snapshot.Snapshot) {
		static(s, "controller.quorum.bootstrap.servers", "c:9093", "node.id", "1", "process.roles", "broker")
	}, 0, "", "", ""},
	{"control plane listener", "KRAFT-CONTROL-PLANE-LISTENER", Options{}, func(s *snapshot.Snapshot) { static(s, "control.plane.listener.name", "CONTROLLER") }, 1, "error", "", "CONTROLLER"},
	{"no control plane listener", "KRAFT-CONTROL-PLANE-LISTENER", Options{}, func(s *snapshot.Snapshot) { static(s, "controller.listener.names", "CONTROLLER") }, 0, "", "", ""},

	{"AclAuthorizer", "KRAFT-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "authorizer.class.name", aclAuthorizer) }, 1, "error", "file:server-1.properties", aclAuthorizer},
	{"SimpleAclAuthorizer", "KRAFT-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "authorizer.class.name", simpleAclAuthorizer) }, 1, "", "", ""},
	{"StandardAuthorizer", "KRAFT-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"custom authorizer", "KRAFT-CUSTOM-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "authorizer.class.name", "com.example.OpaAuthorizer") }, 1, "info", "", "OpaAuthorizer"},
	{"AclAuthorizer is not custom", "KRAFT-CUSTOM-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "authorizer.class.name", aclAuthorizer) }, 0, "", "", ""},
	{"policy classes", "KRAFT-POLICY-CLASS", Options{}, func(s *snapshot.Snapshot) {
		static(s, "create.topic.policy.class.name", "com.example.CreatePolicy", "alter.config.policy.class.name", "com.example.AlterPolicy")
	}, 2, "warning", "", ""},
	{"no policy classes", "KRAFT-POLICY-CLASS", Options{}, func(s *snapshot.Snapshot) { static(s, "create.topic.policy.class.name", "") }, 0, "", "", ""},

	{"encrypted password without secret", "KRAFT-PASSWORD-NO-SECRET", Options{}, func(s *snapshot.Snapshot) {
		sec := secret.Ref("zookeeper:/config/brokers/1#listener.name.internal.ssl.keystore.password")
		brokerConfigs(s, "1", snapshot.Config{Key: "listener.name.internal.ssl.keystore.password", Sensitive: true, Secret: &sec})
	}, 1, "error", "broker:1", "no password encoder secret"},
	{"secret given but did not decrypt", "KRAFT-PASSWORD-NO-SECRET", Options{EncoderSecretKnown: true}, func(s *snapshot.Snapshot) {
		sec := secret.Ref("zookeeper:/config/brokers/1#ssl.key.password")
		brokerConfigs(s, "1", snapshot.Config{Key: "ssl.key.password", Sensitive: true, Secret: &sec})
	}, 1, "", "", "did not decrypt"},
	{"decrypted password", "KRAFT-PASSWORD-NO-SECRET", Options{EncoderSecretKnown: true}, func(s *snapshot.Snapshot) {
		sec := secret.New("zookeeper:/config/brokers/1#ssl.key.password", "pw")
		brokerConfigs(s, "1", snapshot.Config{Key: "ssl.key.password", Sensitive: true, Secret: &sec})
	}, 0, "", "", ""},
	{"no server.properties", "KRAFT-NO-BROKER-CONFIG", Options{}, func(s *snapshot.Snapshot) { s.StaticConfigs = nil }, 1, "info", "source", ""},
	{"server.properties given", "KRAFT-NO-BROKER-CONFIG", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},

	{"removed topic configs", "K4-TOPIC-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		topicConfig(s, "message.format.version", "2.8-IV1", "message.downconversion.enable", "true", "message.timestamp.difference.max.ms", "3600000")
	}, 3, "error", "topic:orders", "message.downconversion.enable=true"},
	{"kafka 4 topic configs", "K4-TOPIC-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		topicConfig(s, "message.timestamp.before.max.ms", "3600000")
	}, 0, "", "", ""},
	{"removed dynamic broker configs", "K4-BROKER-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		brokerConfigs(s, "", snapshot.Config{Key: "log.message.format.version", Value: "2.8"}, snapshot.Config{Key: "log.message.timestamp.difference.max.ms", Value: "1000"})
	}, 2, "error", "broker:<default>", ""},
	{"current dynamic broker config", "K4-BROKER-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		brokerConfigs(s, "1", snapshot.Config{Key: "log.retention.ms", Value: "1000"})
	}, 0, "", "", ""},
	{"removed static config", "K4-STATIC-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		static(s, "delegation.token.master.key", "x", "offsets.commit.required.acks", "-1")
	}, 2, "warning", "", "delegation.token.secret.key"},
	{"current static config", "K4-STATIC-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) { static(s, "delegation.token.secret.key", "x") }, 0, "", "", ""},
	{"small segment.bytes, target 4.1", "K4-TOPIC-SEGMENT-BYTES", Options{TargetVersion: "4.1"}, func(s *snapshot.Snapshot) { topicConfig(s, "segment.bytes", "524288") }, 1, "error", "topic:orders", "524288"},
	{"small segment.bytes, default target", "K4-TOPIC-SEGMENT-BYTES", Options{}, func(s *snapshot.Snapshot) { topicConfig(s, "segment.bytes", "1048575") }, 1, "error", "", ""},
	{"small segment.bytes, target 4.0", "K4-TOPIC-SEGMENT-BYTES", Options{TargetVersion: "4.0"}, func(s *snapshot.Snapshot) { topicConfig(s, "segment.bytes", "524288") }, 1, "warning", "", "from 4.1"},
	{"segment.bytes of 1 MiB", "K4-TOPIC-SEGMENT-BYTES", Options{}, func(s *snapshot.Snapshot) { topicConfig(s, "segment.bytes", "1048576") }, 0, "", "", ""},
	{"small static log.segment.bytes", "K4-LOG-SEGMENT-BYTES", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "log.segment.bytes", "1000") }, 1, "error", "file:server-1.properties", ""},
	{"small dynamic log.segment.bytes", "K4-LOG-SEGMENT-BYTES", Options{TargetVersion: "4.0"}, func(s *snapshot.Snapshot) {
		brokerConfigs(s, "2", snapshot.Config{Key: "log.segment.bytes", Value: "65536"})
	}, 1, "error", "broker:2", ""},
	{"large log.segment.bytes", "K4-LOG-SEGMENT-BYTES", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"remote thread pools of -1", "K4-REMOTE-THREAD-POOL", Options{}, func(s *snapshot.Snapshot) {
		static(s, "remote.log.manager.copier.thread.pool.size", "-1")
		brokerConfigs(s, "", snapshot.Config{Key: "remote.log.manager.expiration.thread.pool.size", Value: "-1"})
	}, 2, "error", "", ""},
	{"remote thread pools sized", "K4-REMOTE-THREAD-POOL", Options{}, func(s *snapshot.Snapshot) {
		static(s, "remote.log.manager.copier.thread.pool.size", "10")
	}, 0, "", "", ""},
	{"remote thread pool of 0", "K4-REMOTE-THREAD-POOL", Options{}, func(s *snapshot.Snapshot) {
		static(s, "remote.log.manager.copier.thread.pool.size", "0")
	}, 1, "error", "", "minimum of 1"},
	{"small metadata.log.segment.bytes, target 4.1", "K4-BROKER-CONFIG-BELOW-MINIMUM", Options{}, func(s *snapshot.Snapshot) {
		static(s, "metadata.log.segment.bytes", "1048576")
	}, 1, "error", "file:server-1.properties", "below the Kafka 4.1 minimum of 8388608"},
	{"small metadata.log.segment.bytes, target 4.0", "K4-BROKER-CONFIG-BELOW-MINIMUM", Options{TargetVersion: "4.0"}, func(s *snapshot.Snapshot) {
		static(s, "metadata.log.segment.bytes", "1048576")
	}, 0, "", "", ""},
	{"removed in 4.0, found by Kafka's ConfigDef", "K4-STATIC-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		static(s, "eligible.leader.replicas.enable", "true")
	}, 1, "warning", "", "eligible.leader.replicas.version"},
	{"removed in 4.1, target 4.1", "K4-BROKER-CONFIG-REMOVED", Options{}, func(s *snapshot.Snapshot) {
		brokerConfigs(s, "1", snapshot.Config{Key: "group.coordinator.new.enable", Value: "true"})
	}, 1, "error", "broker:1", "is removed in Kafka 4.1"},
	{"removed in 4.1, target 4.0", "K4-BROKER-CONFIG-REMOVED", Options{TargetVersion: "4.0"}, func(s *snapshot.Snapshot) {
		brokerConfigs(s, "1", snapshot.Config{Key: "group.coordinator.new.enable", Value: "true"})
	}, 0, "", "", ""},

	{"scram users", "CARRY-SCRAM", Options{}, func(s *snapshot.Snapshot) {
		a := secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-256")
		b := secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-512")
		s.ScramUsers = []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &a}, {Mechanism: "SCRAM-SHA-512", Iterations: 4096, Secret: &b}}}}
	}, 1, "warning", "scram-user:User:alice", "SCRAM-SHA-256, SCRAM-SHA-512"},
	{"scram users with passwords", "CARRY-SCRAM", Options{}, func(s *snapshot.Snapshot) {
		a := secret.New("scram-credentials:alice/SCRAM-SHA-256", "pw")
		s.ScramUsers = []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &a}}}}
	}, 0, "", "", ""},
	{"scram passwords given with --scram-credentials", "CARRY-SCRAM", Options{ScramPasswords: map[ScramKey]bool{{"alice", "SCRAM-SHA-256"}: true}}, func(s *snapshot.Snapshot) {
		a := secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-256")
		b := secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-512")
		s.ScramUsers = []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &a}, {Mechanism: "SCRAM-SHA-512", Iterations: 4096, Secret: &b}}}}
	}, 1, "warning", "scram-user:User:alice", "SCRAM-SHA-512 without"},
	{"every scram password given", "CARRY-SCRAM", Options{ScramPasswords: map[ScramKey]bool{{"alice", "SCRAM-SHA-256"}: true}}, func(s *snapshot.Snapshot) {
		a := secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-256")
		s.ScramUsers = []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &a}}}}
	}, 0, "", "", ""},
	{"delegation token", catalogue.IDDelegationToken, Options{}, func(s *snapshot.Snapshot) {
		s.DelegationTokens = []snapshot.DelegationToken{{TokenID: "tok-1", Owner: "User:alice"}}
	}, 1, "warning", "delegation-token:tok-1", "User:alice"},
	{"no delegation tokens", catalogue.IDDelegationToken, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"topic ids change", catalogue.IDTopicIDChanges, Options{}, func(s *snapshot.Snapshot) {}, 1, "info", "topics", "1 topic will get new topic ids"},
	{"topic ids change from a source read through its brokers too", catalogue.IDTopicIDChanges, Options{}, func(s *snapshot.Snapshot) { s.Source = snapshot.SourceKafka }, 1, "info", "topics", "1 topic will get new topic ids"},
	{"no topic ids to change", catalogue.IDTopicIDChanges, Options{}, func(s *snapshot.Snapshot) { s.Topics[0].ID = "" }, 0, "", "", ""},
	{"topics being deleted are not recreated", catalogue.IDTopicIDChanges, Options{}, func(s *snapshot.Snapshot) { s.PendingDeletes = []string{"orders"} }, 0, "", "", ""},
	{"internal topics are not recreated", catalogue.IDTopicIDChanges, Options{}, func(s *snapshot.Snapshot) { s.Topics[0].Name = "__consumer_offsets" }, 0, "", "", ""},
	{"tiered topic", catalogue.IDBlockTieredStorageTopic, Options{}, func(s *snapshot.Snapshot) { topicConfig(s, "remote.storage.enable", "true") }, 1, "error", "topic:orders", "Wm4s3qv8RHSv0DVk2nJtYA"},
	{"tiered topic, BOOLEAN in capitals", catalogue.IDBlockTieredStorageTopic, Options{}, func(s *snapshot.Snapshot) { topicConfig(s, "remote.storage.enable", "TRUE") }, 1, "error", "topic:orders", ""},
	{"tiering off", catalogue.IDBlockTieredStorageTopic, Options{}, func(s *snapshot.Snapshot) { topicConfig(s, "remote.storage.enable", "false") }, 0, "", "", ""},

	{"cluster create", "ACL-CLUSTER-CREATE", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Cluster", "kafka-cluster", "LITERAL", "User:alice", "*", "Create", "Allow"),
			mkACL("Topic", "orders-", "PREFIXED", "User:alice", "*", "Write", "Allow"))
	}, 1, "warning", "principal:User:alice", "Topic:PREFIXED:orders-"},
	{"cluster all for everyone", "ACL-CLUSTER-CREATE", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("CLUSTER", "kafka-cluster", "LITERAL", "User:*", "*", "ALL", "ALLOW"))
	}, 1, "", "principal:User:*", "every principal"},
	{"cluster alter only", "ACL-CLUSTER-CREATE", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"denied cluster create is not a grant", "ACL-CLUSTER-CREATE", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Cluster", "kafka-cluster", "LITERAL", "User:eve", "*", "Create", "Deny"))
	}, 0, "", "", ""},
	{"hostname host", "ACL-HOST-NEVER-MATCHES", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:carol", "app1.example.com", "Read", "Allow"))
	}, 1, "warning", "acl:Topic:LITERAL:orders", "not an IP address"},
	{"cidr deny host", "ACL-HOST-NEVER-MATCHES", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:carol", "10.0.0.0/8", "Read", "Deny"))
	}, 1, "error", "", "CIDR"},
	{"compressed ipv6 host", "ACL-HOST-NEVER-MATCHES", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:carol", "::1", "Read", "Allow"))
	}, 1, "", "", "0:0:0:0:0:0:0:1"},
	{"exact ip hosts", "ACL-HOST-NEVER-MATCHES", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:carol", "fe80:0:0:0:0:0:0:1", "Read", "Allow"))
	}, 0, "", "", ""},
	{"unchecked operations", "ACL-UNCHECKED-OPERATION", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Group", "app", "LITERAL", "User:bob", "*", "Write", "Allow"),
			mkACL("Topic", "orders", "LITERAL", "User:bob", "*", "ClusterAction", "Allow"),
			mkACL("TransactionalId", "tx", "LITERAL", "User:bob", "*", "Read", "Allow"))
	}, 3, "warning", "", "Kafka never checks"},
	{"supported operations and All", "ACL-UNCHECKED-OPERATION", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Group", "app", "LITERAL", "User:bob", "*", "All", "Allow"),
			mkACL("TRANSACTIONAL_ID", "tx", "LITERAL", "User:bob", "*", "WRITE", "Allow"),
			mkACL("User", "User:bob", "LITERAL", "User:bob", "*", "CreateTokens", "Allow"))
	}, 0, "", "", ""},
	{"principal map leaves a DN unmapped", catalogue.IDPrincipalMapUnmapped, Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:CN=x,O=corp", "*", "Read", "Allow"))
		mapWith(s, "ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n")
	}, 1, "warning", "User:CN=x,O=corp", "principal \"User:CN=x,O=corp\": no rule applies"},
	{"principal map collides two SCRAM users", catalogue.IDBlockPrincipalMapClash, Options{}, func(s *snapshot.Snapshot) {
		s.ScramUsers = append(s.ScramUsers, snapshot.ScramUser{Name: "CN=bob,OU=eng", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}},
			snapshot.ScramUser{Name: "bob", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}})
		mapWith(s, "ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n")
	}, 1, "error", "User:bob", ""}, // and principal-map-merge
	{"principal map covering every principal", catalogue.IDPrincipalMapUnmapped, Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:CN=x,OU=eng", "*", "Read", "Allow"))
		mapWith(s, "ssl.principal.mapping.rules=RULE:^CN=([^,]+),OU=eng$/$1/\n")
	}, 0, "", "", ""},
	{"group names starting with *", "ACCESS-DIFFERENCE", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", aclAuthorizer)
		s.ACLs = append(s.ACLs, mkACL("Group", "*", "LITERAL", "User:alice", "*", "Read", "Allow"))
	}, 1, "error", `principal:User:alice on Group:(any name starting with "*" that no ACL names or prefixes ("*zzkmigrate-unnamed"))`, `names that start with "*"`},
	{"idempotent producers with allow.everyone", "ACCESS-DIFFERENCE", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", aclAuthorizer)
		static(s, "allow.everyone.if.no.acl.found", "true")
		s.ACLs = append(s.ACLs, mkACL("Topic", "*", "LITERAL", "User:bob", "*", "Write", "Allow"))
	}, 1, "error", "", "InitProducerId"},
	{"the same decisions under both authorizers", "ACCESS-DIFFERENCE", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", aclAuthorizer)
	}, 0, "", "", ""},
	{"custom authorizer not proved", "ACCESS-NOT-PROVED", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", "com.example.OpaAuthorizer")
	}, 1, "warning", "source server-1.properties", "OpaAuthorizer"},
	{"Kafka's authorizer is proved", "ACCESS-NOT-PROVED", Options{}, func(s *snapshot.Snapshot) { setStatic(s, "authorizer.class.name", aclAuthorizer) }, 0, "", "", ""},
	{"brokers with different super.users", "ACCESS-NODES-DISAGREE", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", aclAuthorizer)
		other := s.StaticConfigs[0]
		other.File, other.Configs = "server-2.properties", append(slices.Clone(other.Configs), snapshot.Config{Key: "super.users", Value: "User:admin"})
		s.StaticConfigs = append(s.StaticConfigs, other)
	}, 1, "warning", "source", `super.users "User:admin"`},
	{"brokers alike", "ACCESS-NODES-DISAGREE", Options{}, func(s *snapshot.Snapshot) {
		s.StaticConfigs = append(s.StaticConfigs, s.StaticConfigs[0])
	}, 0, "", "", ""},
	{"no authorizer", "ACCESS-NO-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) {
		s.StaticConfigs[0].Configs = slices.DeleteFunc(s.StaticConfigs[0].Configs, func(c snapshot.Config) bool { return c.Key == "authorizer.class.name" })
	}, 1, "warning", "source (server-1.properties)", "every request is allowed"},
	{"an authorizer", "ACCESS-NO-AUTHORIZER", Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"empty super.users element", "ACCESS-BAD-SETTING", Options{}, func(s *snapshot.Snapshot) {
		setStatic(s, "authorizer.class.name", aclAuthorizer)
		static(s, "super.users", ";User:admin")
	}, 1, "error", "file:server-1.properties", "does not start"},
	{"an empty element StandardAuthorizer skips", "ACCESS-BAD-SETTING", Options{}, func(s *snapshot.Snapshot) { static(s, "super.users", ";User:admin") }, 0, "", "", ""},
	{"deny shadows allow, same principal", "ACL-DENY-SHADOWS-ALLOW", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:alice", "*", "Write", "Deny"))
	}, 1, "warning", "acl:Topic:LITERAL:orders", "cancelled by Deny User:alice Write"},
	{"wildcard principal deny", "ACL-DENY-SHADOWS-ALLOW", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "orders", "LITERAL", "User:*", "10.0.0.7", "Read", "Deny"))
	}, 1, "", "", "Allow User:bob Read from 10.0.0.7"},
	{"prefixed deny covers literal allow", "ACL-DENY-SHADOWS-ALLOW", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Topic", "ord", "PREFIXED", "User:alice", "*", "All", "Deny"))
	}, 1, "", "", "Topic:PREFIXED:ord"},
	{"wildcard resource deny", "ACL-DENY-SHADOWS-ALLOW", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, mkACL("Group", "*", "LITERAL", "User:bob", "*", "Read", "Deny"))
	}, 1, "", "acl:Group:PREFIXED:app-", ""},
	{"deny elsewhere does not shadow", "ACL-DENY-SHADOWS-ALLOW", Options{}, func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs,
			mkACL("Topic", "orders", "LITERAL", "User:alice", "*", "Read", "Deny"),      // other operation
			mkACL("Topic", "orders", "LITERAL", "User:bob", "10.0.0.8", "Read", "Deny"), // other host
			mkACL("Topic", "orders-x", "PREFIXED", "User:alice", "*", "All", "Deny"),    // longer prefix
			mkACL("Topic", "orders", "LITERAL", "User:carol", "*", "All", "Deny"),       // other principal
			mkACL("Group", "orders", "LITERAL", "User:alice", "*", "All", "Deny"),       // other type
			mkACL("Group", "app-x", "PREFIXED", "User:bob", "*", "All", "Deny"))         // narrower than the allow
	}, 0, "", "", ""},

	{"rf below topic min isr", "TOPIC-RF-BELOW-MIN-ISR", Options{}, func(s *snapshot.Snapshot) {
		s.Topics[0].Configs[1].Value = "4"
	}, 1, "warning", "topic:orders", "replication factor 3 is below min.insync.replicas=4 (topic override)"},
	{"rf below dynamic default", "TOPIC-RF-BELOW-MIN-ISR", Options{}, func(s *snapshot.Snapshot) {
		s.Topics[0].Configs = s.Topics[0].Configs[:1]
		brokerConfigs(s, "", snapshot.Config{Key: "min.insync.replicas", Value: "5"})
		static(s, "min.insync.replicas", "2")
	}, 1, "", "", "dynamic cluster default"},
	{"rf below static default", "TOPIC-RF-BELOW-MIN-ISR", Options{}, func(s *snapshot.Snapshot) {
		s.Topics[0].Configs = s.Topics[0].Configs[:1]
		static(s, "min.insync.replicas", "4")
	}, 1, "", "", "server-1.properties"},
	{"topic override below the default is fine", "TOPIC-RF-BELOW-MIN-ISR", Options{}, func(s *snapshot.Snapshot) {
		static(s, "min.insync.replicas", "4")
	}, 0, "", "", ""},
	{"legacy consumers", catalogue.IDOutOfScopeOffsets, Options{}, func(s *snapshot.Snapshot) {
		s.ConsumerGroups = []snapshot.LegacyConsumerGroup{{Group: "old-app", Topics: []string{"orders"}, Offsets: 2}}
	}, 1, "info", "consumer-group:old-app", "2 committed offsets on orders"},
	{"no legacy consumers", catalogue.IDOutOfScopeOffsets, Options{}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},

	{"policy violation", "POLICY-VIOLATION", Options{Policy: fakePolicy{maxPartitions: 1}}, func(s *snapshot.Snapshot) {}, 1, "error", "topic:orders", "rule max-partitions: too many partitions"},
	{"policy satisfied", "POLICY-VIOLATION", Options{Policy: fakePolicy{maxPartitions: 2}}, func(s *snapshot.Snapshot) {}, 0, "", "", ""},
	{"internal topics are not judged by policy", "POLICY-VIOLATION", Options{Policy: fakePolicy{maxPartitions: 1}}, func(s *snapshot.Snapshot) { s.Topics[0].Name = "__consumer_offsets" }, 0, "", "", ""},
}

func TestChecks(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.id+"/"+tc.name, func(t *testing.T) {
			s := base()
			tc.mut(s)
			fs, err := Run(s, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range fs {
				if f.ID == tc.id {
					got = append(got, f)
				}
			}
			if len(got) != tc.want {
				t.Fatalf("got %d %s findings, want %d: %+v", len(got), tc.id, tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			f := got[0]
			if tc.severity != "" && f.Severity != tc.severity {
				t.Errorf("severity %q, want %q", f.Severity, tc.severity)
			}
			if tc.resource != "" && f.Resource != tc.resource {
				t.Errorf("resource %q, want %q", f.Resource, tc.resource)
			}
			if tc.contains != "" && !strings.Contains(f.Message+" "+f.Fix, tc.contains) {
				t.Errorf("message %q / fix %q does not contain %q", f.Message, f.Fix, tc.contains)
			}
			for _, f := range got {
				if f.Why == "" || f.Fix == "" || f.Message == "" || f.Resource == "" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
		})
	}
}

// Every catalogue id has a case that triggers it and one that does not.
func TestCatalogueCovered(t *testing.T) {
	trig, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range cases {
		if _, ok := Lookup(tc.id); !ok {
			t.Errorf("case %q uses unknown id %s", tc.name, tc.id)
		}
		if tc.want > 0 {
			trig[tc.id] = true
		} else {
			quiet[tc.id] = true
		}
	}
	for _, tc := range crossCases { // cross_test.go
		fired := map[string]bool{}
		for _, w := range tc.want {
			id, _, _ := strings.Cut(w, " ")
			trig[id], fired[id] = true, true
		}
		for _, r := range Catalogue() {
			if r.Category == CatCross && !fired[r.ID] {
				quiet[r.ID] = true
			}
		}
	}
	// The rules check computes itself; the readers' findings it passes
	// through as they are (the read cases above).
	for _, r := range catalogue.FindingsFrom(catalogue.FromCheck) {
		if !trig[r.ID] || !quiet[r.ID] {
			t.Errorf("%s: triggering case %v, non-triggering case %v", r.ID, trig[r.ID], quiet[r.ID])
		}
		if r.Title == "" || r.Why == "" || r.Fix == "" || Rank(r.Severity) == 0 {
			t.Errorf("%s: incomplete catalogue entry", r.ID)
		}
	}
}

// The clean base snapshot yields only the topic-id fact.
func TestCleanSnapshot(t *testing.T) {
	fs, err := Run(base(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].ID != catalogue.IDTopicIDChanges {
		t.Fatalf("got %+v, want only CARRY-TOPIC-ID", fs)
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{"", "4.1", false}, {"4.0", "4.0", false}, {"4.1", "4.1", false}, {"4.2.1", "4.2", false},
		{"3.9", "", true}, {"four", "", true}, {"4", "", true}, {"4.x", "", true}, {"4.1.1.1", "", true},
	} {
		got, err := ParseTarget(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseTarget(%q) error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && got.String() != tc.want {
			t.Errorf("ParseTarget(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := Run(base(), Options{TargetVersion: "5"}); err == nil {
		t.Error("Run accepted target version 5")
	}
}

func TestParseIBP(t *testing.T) {
	for _, tc := range []struct {
		in       string
		below33  bool
		below361 bool
		ok       bool
	}{
		{"0.10.2-IV0", true, true, true},
		{"2.8", true, true, true},
		{"3.3-IV3", false, true, true},
		{"3.6-IV0", false, true, true},
		{"3.6-IV1", false, false, true},
		{"3.6", false, false, true},
		{"3.9-IV0", false, false, true},
		{"3.10", false, false, true},
		{"banana", false, false, false},
		{"3", false, false, false},
		{"3.6-XX1", false, false, false},
	} {
		v, ok := parseIBP(tc.in)
		if ok != tc.ok {
			t.Errorf("parseIBP(%q) ok %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := v.below(3, 3, 0); got != tc.below33 {
			t.Errorf("%s below 3.3: %v, want %v", tc.in, got, tc.below33)
		}
		if got := v.below(3, 6, 1); got != tc.below361 {
			t.Errorf("%s below 3.6-IV1: %v, want %v", tc.in, got, tc.below361)
		}
	}
}

func TestBadIBPIsReported(t *testing.T) {
	s := base()
	static(s, "inter.broker.protocol.version", "three")
	fs, _ := Run(s, Options{})
	if !slices.ContainsFunc(fs, func(f Finding) bool { return f.ID == "KRAFT-IBP-INVALID" && strings.Contains(f.Message, `"three"`) }) {
		t.Fatalf("no KRAFT-IBP-INVALID for a bad IBP: %+v", fs)
	}
}

func TestHostProblem(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"10.0.0.7", ""},
		{"0:0:0:0:0:0:0:1", ""},
		{"2001:db8:0:0:0:0:0:1", ""},
		{"2001:db8::1", "2001:db8:0:0:0:0:0:1"},
		{"2001:DB8:0:0:0:0:0:1", "2001:db8:0:0:0:0:0:1"},
		{"::ffff:10.0.0.7", "10.0.0.7"},
		{"kafka.example.com", "-"},
		{"10.0.0.0/24", "-"},
	} {
		reason, want := hostProblem(tc.host)
		switch tc.want {
		case "":
			if reason != "" {
				t.Errorf("%s: unexpected problem %q", tc.host, reason)
			}
		case "-":
			if reason == "" || want != "" {
				t.Errorf("%s: reason %q, suggestion %q; want a reason and no suggestion", tc.host, reason, want)
			}
		default:
			if want != tc.want {
				t.Errorf("%s: suggestion %q, want %q", tc.host, want, tc.want)
			}
		}
	}
}

func TestAtOrAbove(t *testing.T) {
	fs := []Finding{{Severity: SeverityWarning}, {Severity: SeverityInfo}}
	for _, tc := range []struct {
		threshold string
		want      bool
	}{{"error", false}, {"warning", true}, {"info", true}, {"none", false}} {
		if got := AtOrAbove(fs, tc.threshold); got != tc.want {
			t.Errorf("AtOrAbove(%s) = %v, want %v", tc.threshold, got, tc.want)
		}
	}
}

func TestOrderAndConversion(t *testing.T) {
	s := base()
	s.Topics[0].ID = ""
	s.PendingDeletes = []string{"b", "a"}
	s.ConsumerGroups = []snapshot.LegacyConsumerGroup{{Group: "g"}}
	fs, _ := Run(s, Options{})
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID+" "+f.Resource)
	}
	want := []string{"KRAFT-TOPIC-NO-ID topic:orders", "topic-pending-delete topic:a", "topic-pending-delete topic:b", "out-of-scope-offsets consumer-group:g"}
	if !slices.Equal(ids, want) {
		t.Fatalf("order %q, want %q", ids, want)
	}
	sf := ToSnapshot(fs)
	if len(sf) != len(fs) || sf[0].ID != fs[0].ID || sf[0].Fix != fs[0].Fix || sf[0].Severity != "error" {
		t.Fatalf("conversion lost fields: %+v", sf[0])
	}
}

// mapWith maps s with a principal map file as plan and check do
// (principalmap.ApplySnapshot), collisions included as findings.
func mapWith(s *snapshot.Snapshot, file string) {
	m, err := principalmap.Parse(strings.NewReader(file), "map.properties")
	if err != nil {
		panic(err)
	}
	out, res := m.ApplySnapshot(s)
	for _, c := range res.Collisions {
		out.Findings = append(out.Findings, c.Finding)
	}
	*s = *out
}
