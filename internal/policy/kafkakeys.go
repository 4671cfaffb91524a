package policy

import "strings"

// kafkaKeyPrefixes and kafkaKeys cover the broker and controller config keys
// Kafka itself defines (KafkaConfig, KRaftConfigs, ServerLogConfigs,
// ZkConfigs, SocketServerConfigs, QuotaConfigs, ... in 0.11–4.x), plus
// the keys of the authorizers that ship with Kafka and the Confluent
// Platform prefix. A server.properties key outside them is a custom
// property: the policy classes receive the whole broker config in
// configure(), so those are the properties they may have been configured
// with.
var kafkaKeyPrefixes = []string{
	"advertised.", "alter.", "authorizer.", "auto.", "background.", "broker.",
	"client.quota.", "compression.", "config.providers", "confluent.", "connection.",
	"connections.", "control.plane.", "controlled.shutdown.", "controller.",
	"create.topic.", "default.", "delegation.token.", "delete.", "eligible.leader.replicas.",
	"fetch.", "follower.", "group.", "initial.broker.registration.", "inter.broker.",
	"kafka.metrics.", "leader.", "listener.", "log.", "max.connection",
	"max.incremental.fetch.session.", "max.request.partition.size.limit", "message.max.bytes",
	"metadata.", "metric.reporters", "metrics.", "min.insync.replicas", "num.",
	"offset.metadata.", "offsets.", "password.encoder.", "principal.builder.",
	"producer.id.", "producer.purgatory.", "queued.max.", "quota.", "remote.",
	"replica.", "replication.quota.", "request.timeout.", "reserved.broker.",
	"sasl.", "security.", "server.max.startup.", "share.", "socket.",
	"ssl.", "telemetry.", "topic.action.policy.", "transaction.", "transactional.id.",
	"unclean.leader.election.", "unstable.", "zookeeper.",
}

var kafkaKeys = map[string]bool{
	"allow.everyone.if.no.acl.found": true, "super.users": true,
	"node.id": true, "process.roles": true, "listeners": true,
	"host.name": true, "port": true, "early.start.listeners": true,
}

// isKafkaKey reports whether Kafka itself defines key.
func isKafkaKey(key string) bool {
	if kafkaKeys[key] {
		return true
	}
	for _, p := range kafkaKeyPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
