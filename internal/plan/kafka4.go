package plan

import "strings"

// RemovedTopicConfigs are topic-level keys Kafka 4 no longer knows. Writing
// them to a 4.x cluster makes later config changes fail (KAFKA-19851), so
// the plan drops them with a finding.
var RemovedTopicConfigs = []string{
	"message.format.version",
	"message.downconversion.enable",
	"message.timestamp.difference.max.ms",
}

// RemovedBrokerConfigs are broker keys removed in Kafka 4 (besides the
// ZooKeeper-only ones matched by IsZooKeeperOnlyBrokerConfig).
var RemovedBrokerConfigs = []string{
	"log.message.format.version",
	"log.message.downconversion.enable",
	"log.message.timestamp.difference.max.ms",
	"offsets.commit.required.acks",
	"delegation.token.master.key",
	"metrics.jmx.blacklist",
	"metrics.jmx.whitelist",
	"auto.include.jmx.reporter",
	"inter.broker.protocol.version",
	"control.plane.listener.name",
	"controlled.shutdown.max.retries",
	"controlled.shutdown.retry.backoff.ms",
	"reserved.broker.max.id",
	"broker.id.generation.enable",
	"leader.imbalance.per.broker.percentage",
	"quota.producer.default",
	"quota.consumer.default",
}

// IsZooKeeperOnlyBrokerConfig reports keys that exist only in ZooKeeper mode:
// zookeeper.*, password.encoder.* and the AclAuthorizer's authorizer.zookeeper.*.
func IsZooKeeperOnlyBrokerConfig(key string) bool {
	return strings.HasPrefix(key, "zookeeper.") ||
		strings.HasPrefix(key, "password.encoder.") ||
		strings.HasPrefix(key, "authorizer.zookeeper.")
}

func isRemovedTopicConfig(key string) bool {
	for _, k := range RemovedTopicConfigs {
		if k == key {
			return true
		}
	}
	return false
}

func isRemovedBrokerConfig(key string) bool {
	if IsZooKeeperOnlyBrokerConfig(key) {
		return true
	}
	for _, k := range RemovedBrokerConfigs {
		// Listener-prefixed variants end with the key.
		if k == key {
			return true
		}
	}
	return false
}
