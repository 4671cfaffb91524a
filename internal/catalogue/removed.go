package catalogue

import "strings"

// RemovedKey is a config key a Kafka release no longer defines. Written to
// such a cluster it is refused, or (carried by an in-place upgrade) it makes
// every later config change of the resource fail (KAFKA-19851); so plans
// drop it and the check reports it.
type RemovedKey struct {
	Scope Scope
	Key   string
	// Removed is the first release line without the key.
	Removed Version
	// ZooKeeperOnly marks a ZooKeeper-mode setting: KRaft never read it.
	ZooKeeperOnly bool
	// Replacement says what to do instead, for people.
	Replacement string
}

// RemovedPrefix is a family of ZooKeeper-mode keys removed together.
type RemovedPrefix struct {
	Prefix      string
	Removed     Version
	Replacement string
}

// RemovedKeys are the topic and broker keys a ZooKeeper-mode cluster (Kafka
// up to 3.9) may hold and a Kafka 4 release no longer defines, besides the
// families of RemovedPrefixes. The list is the difference of Kafka's own
// ConfigDefs (testdata/kafka: 3.9.1 against 4.0.1 and 4.1.1), plus two keys
// removed in 3.0 that old server.properties files still carry; the
// catalogue's tests fail when it and Kafka's key lists disagree.
var RemovedKeys = []RemovedKey{
	// Topic keys, removed in 4.0 (KIP-724, KIP-937; the 4.0 upgrade notes).
	{ScopeTopic, "message.format.version", V4_0, false, "Kafka 4 always writes record format v2; delete the override."},
	{ScopeTopic, "message.downconversion.enable", V4_0, false, "Down-conversion is gone in Kafka 4; delete the override."},
	{ScopeTopic, "message.timestamp.difference.max.ms", V4_0, false, "Use message.timestamp.before.max.ms and message.timestamp.after.max.ms (KIP-937), then delete the override."},

	// Broker keys removed in 4.0 (the 4.0 upgrade notes).
	{ScopeBroker, "log.message.format.version", V4_0, false, "Kafka 4 always writes record format v2; drop it."},
	{ScopeBroker, "log.message.downconversion.enable", V4_0, false, "Down-conversion is gone in Kafka 4 (clients older than 0.11 cannot fetch); drop it."},
	{ScopeBroker, "log.message.timestamp.difference.max.ms", V4_0, false, "Use log.message.timestamp.before.max.ms and log.message.timestamp.after.max.ms (KIP-937)."},
	{ScopeBroker, "delegation.token.master.key", V4_0, false, "Set delegation.token.secret.key to the same value (tokens are validated with it)."},
	{ScopeBroker, "offsets.commit.required.acks", V4_0, false, "Drop it; offset commits always wait for all in-sync replicas (KIP-1041)."},
	{ScopeBroker, "metrics.jmx.blacklist", V4_0, false, "Use metrics.jmx.exclude."},
	{ScopeBroker, "metrics.jmx.whitelist", V4_0, false, "Use metrics.jmx.include."},
	{ScopeBroker, "auto.include.jmx.reporter", V4_0, false, "Drop it; list org.apache.kafka.common.metrics.JmxReporter in metric.reporters if it was false (the default list includes it)."},
	{ScopeBroker, "eligible.leader.replicas.enable", V4_0, false, "Drop it; Kafka 4 turns eligible leader replicas on with the eligible.leader.replicas.version feature (kafka-features upgrade --feature eligible.leader.replicas.version=1)."},

	// ZooKeeper-mode broker keys removed in 4.0 (zk2kraft "Configurations").
	{ScopeBroker, "inter.broker.protocol.version", V4_0, true, "Remove it; KRaft uses the metadata.version feature instead: kafka-features upgrade --metadata <version> once every node runs the new software."},
	{ScopeBroker, "broker.id.generation.enable", V4_0, true, "Remove it and set node.id explicitly on every KRaft node (generated broker ids do not exist in KRaft)."},
	{ScopeBroker, "reserved.broker.max.id", V4_0, true, "Remove it; set node.id explicitly on every KRaft node."},
	{ScopeBroker, "controlled.shutdown.max.retries", V4_0, true, "Remove it; KRaft controlled shutdown has no retry count."},
	{ScopeBroker, "controlled.shutdown.retry.backoff.ms", V4_0, true, "Remove it; KRaft controlled shutdown has no retry backoff."},
	{ScopeBroker, "leader.imbalance.per.broker.percentage", V4_0, true, "Remove it; KRaft does not read it."},
	{ScopeBroker, "control.plane.listener.name", V4_0, true, "Remove it (and its listener, if it served nothing else) and configure controller.listener.names."},
	{ScopeBroker, "zookeeper.metadata.migration.enable", V4_0, true, "Keep it only while a KIP-866 migration runs; remove it (and zookeeper.connect) when the brokers restart in KRaft mode."},

	// Broker keys removed in 4.1.
	{ScopeBroker, "group.coordinator.new.enable", V4_1, false, "Drop it; Kafka 4 always runs the new group coordinator (KIP-848)."},
	{ScopeBroker, "group.share.max.groups", V4_1, false, "Drop it; share groups (KIP-932) were early access before 4.1, which no longer defines this setting (see the 4.1 group.share.* configs)."},
	{ScopeBroker, "metadata.log.segment.min.bytes", V4_1, false, "Drop it; an internal setting Kafka 4.1 no longer defines (metadata.log.segment.bytes remains)."},
	{ScopeBroker, "share.fetch.max.fetch.records", V4_1, false, "Drop it; Kafka 4.1 no longer defines it (a 4.0-only share-group setting)."},

	// Broker keys removed in 3.0, still found in old server.properties.
	{ScopeBroker, "quota.producer.default", V3_0, false, "Removed in 3.0: set a default client quota instead (kafka-configs --alter --entity-type clients --entity-default --add-config producer_byte_rate=...)."},
	{ScopeBroker, "quota.consumer.default", V3_0, false, "Removed in 3.0: set a default client quota instead (kafka-configs --alter --entity-type clients --entity-default --add-config consumer_byte_rate=...)."},
}

// RemovedPrefixes are the ZooKeeper-mode broker key families removed in
// 4.0: the ZooKeeper client, the password encoder and AclAuthorizer's own
// ZooKeeper settings.
var RemovedPrefixes = []RemovedPrefix{
	{"zookeeper.", V4_0, "Remove it from the KRaft configs; KRaft nodes use controller.quorum.bootstrap.servers (or controller.quorum.voters) instead of ZooKeeper."},
	{"password.encoder.", V4_0, "Remove it; KRaft stores dynamic broker passwords in clear in the metadata log (protect the log directories), so there is no encoder."},
	{"authorizer.zookeeper.", V4_0, "Remove it with AclAuthorizer; StandardAuthorizer keeps ACLs in the metadata log."},
}

var removedIndex = func() map[Scope]map[string]RemovedKey {
	m := map[Scope]map[string]RemovedKey{ScopeTopic: {}, ScopeBroker: {}}
	for _, r := range RemovedKeys {
		if _, dup := m[r.Scope][r.Key]; dup {
			panic("catalogue: removed key listed twice: " + r.Key)
		}
		m[r.Scope][r.Key] = r
	}
	return m
}()

// Removed returns the removal of key in scope that applies to a target
// version: an exact key of RemovedKeys, else (brokers) a RemovedPrefixes
// family, as a RemovedKey with ZooKeeperOnly set. ok is false when target
// still defines the key.
func Removed(scope Scope, key string, target Version) (r RemovedKey, ok bool) {
	if r, ok := removedIndex[scope][key]; ok {
		return r, target.AtLeast(r.Removed)
	}
	if scope != ScopeBroker {
		return RemovedKey{}, false
	}
	for _, p := range RemovedPrefixes {
		if strings.HasPrefix(key, p.Prefix) {
			return RemovedKey{Scope: scope, Key: key, Removed: p.Removed, ZooKeeperOnly: true, Replacement: p.Replacement}, target.AtLeast(p.Removed)
		}
	}
	return RemovedKey{}, false
}
