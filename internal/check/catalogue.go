package check

// Rule is one entry of the catalogue: a kind of finding with a stable id.
type Rule struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Severity string `json:"severity"` // default severity
	// SeverityNote documents a rule whose severity depends on the finding
	// (for example on the target version); empty when it never varies.
	SeverityNote string `json:"severity_note,omitempty"`
	Title        string `json:"title"` // what it detects, one line
	Why          string `json:"why"`   // why it matters
	Fix          string `json:"fix"`   // the generic fix; findings may be more specific
	Ref          string `json:"ref,omitempty"`
}

// Categories, in catalogue order.
const (
	CatRead     = "Reading the source"
	CatKRaft    = "KRaft readiness"
	CatKafka4   = "Kafka 4 configuration"
	CatCarry    = "What the admin protocol cannot carry"
	CatACL      = "ACL hygiene"
	CatTopic    = "Topic health"
	CatPolicy   = "TopicActionPolicy"
	CatCross    = "ZooKeeper versus the brokers (--zookeeper with --source-bootstrap-server)"
	idReadIssue = "READ-PROBLEM"
)

// Catalogue returns every rule, in documentation order. Ids never change
// meaning; a retired id is not reused.
func Catalogue() []Rule { return append([]Rule(nil), rules...) }

// Lookup returns the rule with the given id.
func Lookup(id string) (Rule, bool) {
	r, ok := byID[id]
	return r, ok
}

var byID = func() map[string]Rule {
	m := make(map[string]Rule, len(rules))
	for _, r := range rules {
		if _, dup := m[r.ID]; dup {
			panic("check: duplicate rule id " + r.ID)
		}
		m[r.ID] = r
	}
	return m
}()

var rules = []Rule{
	{
		ID: idReadIssue, Category: CatRead, Severity: SeverityWarning,
		SeverityNote: "as reported by the reader",
		Title:        "A problem met while reading the source: a malformed or unreadable znode, a znode that changed during the read, a file that could not be parsed.",
		Why:          "Whatever could not be read is missing from every other check, and from any plan built on this snapshot.",
		Fix:          "Fix or remove the named znode or file (or grant the tool read access to it) and run the check again; a znode that changed during the read needs only a second read.",
	},

	// KRaft readiness.
	{
		ID: "KRAFT-MIGRATION-ZNODE", Category: CatKRaft, Severity: SeverityError,
		Title: "The /migration znode exists: a KIP-866 ZooKeeper-to-KRaft migration was started on this cluster.",
		Why:   "A migration in progress means KRaft controllers may already own the metadata; reading or recreating it from ZooKeeper could act on a state that is no longer authoritative, and a second migration cannot start over an existing one.",
		Fix:   "Finish the KIP-866 migration, or roll it back as Kafka's docs describe (\"Reverting to ZooKeeper mode\": delete /controller and /migration while the brokers are in ZooKeeper mode) before using this cluster as a source.",
		Ref:   "KIP-866; kafka-zk-model §1.15",
	},
	{
		ID: "KRAFT-CONTROLLER", Category: CatKRaft, Severity: SeverityError,
		Title: "/controller is held by a KRaft controller (kraftControllerEpoch ≥ 0).",
		Why:   "A KRaft controller writes /controller only during a KIP-866 migration: the ZooKeeper brokers are being driven by KRaft and ZooKeeper is no longer the source of truth.",
		Fix:   "Complete or revert the KIP-866 migration first; the audit of a ZooKeeper source is meaningful only while a ZooKeeper controller is active.",
		Ref:   "kafka-zk-model §1.10",
	},
	{
		ID: "KRAFT-PENDING-DELETE", Category: CatKRaft, Severity: SeverityWarning,
		Title: "A topic is marked for deletion (/admin/delete_topics) and the deletion has not finished.",
		Why:   "KIP-866 does not migrate topics that are being deleted (\"brokers will reconcile their logs\"), and a deletion that stays pending usually means delete.topic.enable=false or an offline replica; the topic's data and metadata are in limbo.",
		Fix:   "Let the deletion finish (bring the replicas' brokers online, set delete.topic.enable=true) or, if the topic must stay, remove /admin/delete_topics/<topic> while no controller acts on it; then run the check again.",
		Ref:   "kafka-zk-model §1.8, §5.2",
	},
	{
		ID: "KRAFT-PENDING-NOTIFICATIONS", Category: CatKRaft, Severity: SeverityInfo,
		Title: "Change-notification znodes are queued (/config/changes, /kafka-acl-changes, /isr_change_notification, ...).",
		Why:   "Brokers delete these sequential znodes once every broker has processed them (config and ACL changes after 15 minutes); entries left mean a recent change, or a broker that has not caught up. They are ZooKeeper-mode plumbing: nothing in them is migrated, and the changes they announce are already in the config and ACL znodes that are read.",
		Fix:   "Nothing to migrate. If the queue does not drain, check that every broker is up and connected to ZooKeeper before the cutover.",
		Ref:   "kafka-zk-model §1.7, §1.9",
	},
	{
		ID: "KRAFT-LEGACY-REASSIGNMENT", Category: CatKRaft, Severity: SeverityWarning,
		Title: "/admin/reassign_partitions holds a legacy (pre-2.4) partition reassignment.",
		Why:   "The legacy znode is not migrated; a reassignment still listed there has not completed, and its replica moves will be lost or left half done.",
		Fix:   "Wait for the reassignment to finish (kafka-reassign-partitions --verify) or cancel it, so the znode disappears before the move.",
		Ref:   "kafka-zk-model §1.8, §5.2",
	},
	{
		ID: "KRAFT-REASSIGNMENT", Category: CatKRaft, Severity: SeverityWarning,
		Title: "Partitions are in the middle of a reassignment (adding or removing replicas).",
		Why:   "A recreated topic gets the reassignment's target replicas (assignment minus removing replicas), so the data movement restarts on the new cluster; an in-place migration carries the half-finished state across.",
		Fix:   "Let the reassignment complete (kafka-reassign-partitions --verify) or cancel it before the move.",
		Ref:   "KIP-455; kafka-zk-model §1.3",
	},
	{
		ID: "KRAFT-TOPIC-NO-ID", Category: CatKRaft, Severity: SeverityError,
		Title: "A topic has no topic id (the cluster has never run a controller with inter.broker.protocol.version ≥ 2.8).",
		Why:   "The KIP-866 migration reads every topic's id and fails on a topic without one; Kafka 4 uses topic ids everywhere.",
		Fix:   "Upgrade the brokers and inter.broker.protocol.version to at least 2.8 (3.x recommended) and restart the controller: it assigns ids to every topic. Recreating through the admin protocol assigns new ids anyway.",
		Ref:   "KIP-516; kafka-zk-model §1.3, §5.1",
	},
	{
		ID: "KRAFT-IBP-TOO-OLD", Category: CatKRaft, Severity: SeverityError,
		Title: "inter.broker.protocol.version is below 3.3.",
		Why:   "Kafka 4.0 requires the software and metadata.version to be at least 3.3 before an in-place upgrade, and the KIP-866 migration needs 3.4 or later; older clusters can only move by recreating metadata through the admin protocol.",
		Fix:   "Roll the brokers to 3.9 and raise inter.broker.protocol.version step by step (at least 3.6 for a KIP-866 migration with 3.9 controllers), or move with zkmigrate to a new cluster.",
		Ref:   "Kafka 4.0 upgrade notes; kafka-zk-model §5.3, §5.4",
	},
	{
		ID: "KRAFT-IBP-MIGRATION", Category: CatKRaft, Severity: SeverityWarning,
		Title: "inter.broker.protocol.version is below 3.6-IV1, the lowest from which a 3.9 KRaft controller starts a KIP-866 migration.",
		Why:   "Brokers need IBP ≥ 3.4 to enable zookeeper.metadata.migration.enable, a 3.9 controller refuses to begin below 3.6-IV1, and the brokers' IBP must equal the KRaft metadata.version.",
		Fix:   "Raise inter.broker.protocol.version to 3.6 or later (3.9 preferred) with a rolling restart before an in-place migration; not needed when recreating on a new cluster.",
		Ref:   "kafka-zk-model §5.3",
	},
	{
		ID: "KRAFT-IBP-MIXED", Category: CatKRaft, Severity: SeverityWarning,
		Title: "The server.properties files set different inter.broker.protocol.version values.",
		Why:   "Migrating ZooKeeper brokers register with metadata.version = [IBP, IBP]; the KRaft controller refuses any broker whose IBP is not the finalized metadata.version.",
		Fix:   "Finish the IBP roll so every broker has the same value before the move.",
		Ref:   "kafka-zk-model §5.3",
	},
	{
		ID: "KRAFT-JBOD-IBP", Category: CatKRaft, Severity: SeverityWarning,
		Title: "A broker uses several log.dirs (JBOD) with inter.broker.protocol.version below 3.7-IV2.",
		Why:   "A ZooKeeper broker with more than one log directory may enable the KIP-866 migration only with IBP ≥ 3.7-IV2.",
		Fix:   "Raise inter.broker.protocol.version to 3.7 or later before an in-place migration.",
		Ref:   "kafka-zk-model §5.3",
	},
	{
		ID: "KRAFT-ZK-SETTING", Category: CatKRaft, Severity: SeverityWarning,
		Title: "server.properties sets a ZooKeeper-only broker setting that KRaft and Kafka 4 no longer read.",
		Why:   "Kafka 4 removed the ZooKeeper settings (zookeeper.*, password.encoder.*, authorizer.zookeeper.*, broker.id.generation.enable, reserved.broker.max.id, inter.broker.protocol.version, ...); left in place they are ignored, and their intent (for example the IBP, or generated broker ids) has to be expressed differently in KRaft.",
		Fix:   "Remove the setting from the KRaft broker and controller configs; the finding names the KRaft replacement when there is one.",
		Ref:   "zk2kraft \"Configurations\"; kafka-zk-model §5.4",
	},
	{
		ID: "KRAFT-CONTROL-PLANE-LISTENER", Category: CatKRaft, Severity: SeverityError,
		Title: "server.properties sets control.plane.listener.name.",
		Why:   "KRaft brokers refuse to start with control.plane.listener.name; controller traffic uses controller.listener.names instead.",
		Fix:   "Remove control.plane.listener.name (and its listener, if it served nothing else) and configure controller.listener.names.",
		Ref:   "Kafka 3.9 ops docs, \"Migrating brokers to KRaft\"; kafka-zk-model §5.3",
	},
	{
		ID: "KRAFT-AUTHORIZER", Category: CatKRaft, Severity: SeverityError,
		Title: "authorizer.class.name names a ZooKeeper authorizer (kafka.security.authorizer.AclAuthorizer or kafka.security.auth.SimpleAclAuthorizer).",
		Why:   "AclAuthorizer stores ACLs in ZooKeeper and was removed in Kafka 4.0 (SimpleAclAuthorizer already in 3.0): a broker configured with it does not start.",
		Fix:   "Set authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer on the KRaft brokers and controllers; keep super.users and allow.everyone.if.no.acl.found, which it reads the same way.",
		Ref:   "KAFKA-17614; kafka-zk-model §5.3, §5.4",
	},
	{
		ID: "KRAFT-CUSTOM-AUTHORIZER", Category: CatKRaft, Severity: SeverityInfo,
		Title: "authorizer.class.name names a custom authorizer.",
		Why:   "A custom authorizer that extends AclAuthorizer or keeps state in ZooKeeper will not work in KRaft, and in KRaft it also runs on the controllers.",
		Fix:   "Confirm the class supports KRaft (no ZooKeeper access, ClusterMetadataAuthorizer if it stores ACLs) and deploy it to the controllers too.",
		Ref:   "zk2kraft",
	},
	{
		ID: "KRAFT-POLICY-CLASS", Category: CatKRaft, Severity: SeverityWarning,
		Title: "A server-side policy class is configured (create.topic.policy.class.name or alter.config.policy.class.name).",
		Why:   "In KRaft the policies run on the controllers, never on the brokers, and behave differently: CreateTopics with configs also calls the AlterConfigPolicy; IncrementalAlterConfigs passes resulting values of changed keys only (all keys for BROKER resources); CLIENT_METRICS resources reach AlterConfigPolicy.",
		Fix:   "Put the policy jar and the two keys on every KRaft controller, review the policy for the behaviour changes, and run `migrate policy convert` to express it as a TopicActionPolicy the tool can evaluate itself.",
		Ref:   "kafka-zk-model §6.2; zk2kraft \"Policy Class Deployment\"",
	},
	{
		ID: "KRAFT-PASSWORD-NO-SECRET", Category: CatKRaft, Severity: SeverityError,
		Title: "A dynamic broker password config is stored encrypted in ZooKeeper and its value is not known (no password.encoder.secret, or it did not decrypt), or the source was read through the admin protocol, which never returns it.",
		Why:   "KRaft stores broker passwords in clear in the metadata log: they must be sent decrypted. Without the secret the admin protocol cannot carry them, and a KIP-866 controller without the same encoder secret copies the ciphertext as if it were the password.",
		Fix:   "Give the encoder secret (--password-encoder-secret-file, the brokers' password.encoder.secret), or set the passwords again on the KRaft cluster with kafka-configs --alter.",
		Ref:   "kafka-zk-model §4.4",
	},
	{
		ID: "KRAFT-NO-BROKER-CONFIG", Category: CatKRaft, Severity: SeverityInfo,
		Title: "No server.properties was given, so the broker-setting checks did not run.",
		Why:   "The authorizer class, inter.broker.protocol.version, ZooKeeper-only settings, policy classes and static Kafka 4 removals live only in the brokers' server.properties, not in ZooKeeper.",
		Fix:   "Run the check again with --broker-config for each broker's server.properties.",
	},

	// Kafka 4 configuration.
	{
		ID: "K4-TOPIC-CONFIG-REMOVED", Category: CatKafka4, Severity: SeverityError,
		Title: "A topic override uses a config removed in Kafka 4 (message.format.version, message.downconversion.enable, message.timestamp.difference.max.ms).",
		Why:   "Kafka 4 no longer knows these keys; if they reach 4.0 metadata (in-place upgrade), every later config change to the topic fails with InvalidConfigurationException on 4.0 and on 4.1/4.2 releases without the KAFKA-19851 fix. zkmigrate drops them when recreating.",
		Fix:   "Delete the override before the upgrade: kafka-configs --alter --entity-type topics --entity-name <topic> --delete-config <key> (the finding names the replacement, if any).",
		Ref:   "KIP-724, KIP-937, KAFKA-19851; kafka-zk-model §5.4",
	},
	{
		ID: "K4-BROKER-CONFIG-REMOVED", Category: CatKafka4, Severity: SeverityError,
		Title: "A dynamic broker config (in ZooKeeper) uses a key removed in Kafka 4.",
		Why:   "Removed keys carried into 4.0 metadata make later config changes fail (KAFKA-19851), and the setting no longer has any effect.",
		Fix:   "Delete it: kafka-configs --alter --entity-type brokers (--entity-name <id> | --entity-default) --delete-config <key>, and set the replacement the finding names.",
		Ref:   "Kafka 4.0 upgrade notes; kafka-zk-model §5.4",
	},
	{
		ID: "K4-STATIC-CONFIG-REMOVED", Category: CatKafka4, Severity: SeverityWarning,
		Title: "server.properties sets a broker config removed in Kafka 4.",
		Why:   "Kafka 4 ignores the key, so the behaviour it configured silently changes (for example delegation tokens need delegation.token.secret.key, JMX filters need metrics.jmx.exclude/include).",
		Fix:   "Remove the key from the Kafka 4 config and set the replacement the finding names.",
		Ref:   "Kafka 4.0 upgrade notes; kafka-zk-model §5.4",
	},
	{
		ID: "K4-TOPIC-SEGMENT-BYTES", Category: CatKafka4, Severity: SeverityError,
		SeverityNote: "error when the target is 4.1 or later, warning for a 4.0 target",
		Title:        "A topic sets segment.bytes below 1 MiB (1048576).",
		Why:          "From Kafka 4.1 the topic-level segment.bytes minimum is 1 MiB (KAFKA-19080): creating or altering the topic with the old value is refused.",
		Fix:          "Raise segment.bytes to at least 1048576 (or delete the override) before the move, or migrate with --raise-to-target-minimums, which creates the topic with 1048576 and names the change.",
		Ref:          "KAFKA-19080; kafka-zk-model §5.4",
	},
	{
		ID: "K4-LOG-SEGMENT-BYTES", Category: CatKafka4, Severity: SeverityError,
		Title: "The broker's log.segment.bytes is below 1 MiB (1048576).",
		Why:   "Kafka 4.0 raised the minimum of log.segment.bytes to 1 MB; a broker with a lower value does not start, and a dynamic value is refused.",
		Fix:   "Set log.segment.bytes to at least 1048576.",
		Ref:   "Kafka 4.0 upgrade notes",
	},
	{
		ID: "K4-REMOTE-THREAD-POOL", Category: CatKafka4, Severity: SeverityError,
		Title: "A remote.log.manager.*thread.pool.size config is -1.",
		Why:   "In Kafka 4.0 -1 is no longer valid for remote.log.manager.copier.thread.pool.size and remote.log.manager.expiration.thread.pool.size (the defaults became 10).",
		Fix:   "Remove the setting (to take the default) or give it a positive size.",
		Ref:   "Kafka 4.0 upgrade notes",
	},
	{
		ID: "K4-BROKER-CONFIG-BELOW-MINIMUM", Category: CatKafka4, Severity: SeverityError,
		Title: "A broker config is below a minimum the target raised (metadata.log.segment.bytes below 8 MiB on 4.1), besides the floors with ids of their own.",
		Why:   "The target refuses the value: a broker or controller with it in its config does not start, and a dynamic value is refused.",
		Fix:   "Raise the value to at least the minimum the finding names, or remove it to take the default.",
		Ref:   "the releases' ConfigDef validators (internal/catalogue Floors)",
	},

	// What the admin protocol cannot carry.
	{
		ID: "CARRY-SCRAM", Category: CatCarry, Severity: SeverityWarning,
		Title: "A SCRAM user's credentials cannot be recreated: the passwords are not known.",
		Why:   "ZooKeeper holds only salt, StoredKey and ServerKey; AlterUserScramCredentials needs the SaltedPassword, which cannot be derived from them. Only the in-place KIP-866 migration copies SCRAM credentials.",
		Fix:   "Supply the passwords (--scram-credentials) or have the users set new ones on the target (kafka-configs --alter --add-config 'SCRAM-SHA-512=[password=...]').",
		Ref:   "KIP-554; kafka-zk-model §3.2",
	},
	{
		ID: "CARRY-DELEGATION-TOKEN", Category: CatCarry, Severity: SeverityWarning,
		Title: "A delegation token exists; it cannot be recreated with the same id and HMAC.",
		Why:   "CreateDelegationToken always issues a new token id and HMAC; clients holding the old token fail to authenticate on the new cluster.",
		Fix:   "Have the owners request new tokens on the target (kafka-delegation-tokens --create) and hand them to the clients at cutover.",
		Ref:   "kafka-zk-model §1.14, §8",
	},
	{
		ID: "CARRY-TOPIC-ID", Category: CatCarry, Severity: SeverityInfo,
		Title: "Topic ids change when topics are recreated through the admin protocol.",
		Why:   "KRaft assigns a random id to each created topic; clients and tools that cache topic ids (fetch sessions, tiered storage, external catalogues) see new topics.",
		Fix:   "Nothing to do for most clients; update anything that stores topic ids. Only an in-place KIP-866 migration keeps them.",
		Ref:   "KIP-516; kafka-zk-model §8",
	},
	{
		ID: "CARRY-TIERED-STORAGE", Category: CatCarry, Severity: SeverityError,
		Title: "A topic uses tiered storage (remote.storage.enable=true).",
		Why:   "Remote log segments are keyed by topic id; a recreated topic gets a new id, which orphans the remote data. zkmigrate treats these topics as blockers.",
		Fix:   "Move tiered topics with an in-place KIP-866 migration (which keeps ids), or copy their data with MirrorMaker 2 and accept a new remote store.",
		Ref:   "KIP-405; SPEC (Kafka-internal and tiered topics)",
	},

	// ACL hygiene.
	{
		ID: "ACL-CLUSTER-CREATE", Category: CatACL, Severity: SeverityWarning,
		Title: "A principal holds Create (or All) on the Cluster resource.",
		Why:   "Since Kafka 2.0 (KIP-277) CreateTopics is authorized per topic: Topic:Create on the names a principal needs is enough, while Cluster:Create lets it create any topic.",
		Fix:   "Grant Create on the principal's topics (a PREFIXED pattern usually fits) and remove the Cluster grant.",
		Ref:   "KIP-277; kafka-zk-model §7.1",
	},
	{
		ID: "ACL-HOST-NEVER-MATCHES", Category: CatACL, Severity: SeverityWarning,
		SeverityNote: "warning for an Allow entry, error for a Deny entry (the deny silently protects nothing)",
		Title:        "An ACL's host is a hostname, a CIDR range or an IP in a form Kafka never produces, so it never matches.",
		Why:          "Kafka compares the ACL host as a string with the client address as Java prints it (InetAddress.getHostAddress: dotted IPv4, full uncompressed IPv6); hostnames, CIDRs and compressed IPv6 never match that string.",
		Fix:          "Replace the host with * or with one entry per exact client IP address (the finding gives Java's form where the address is valid).",
		Ref:          "kafka-zk-model §2.2",
	},
	{
		ID: "ACL-UNCHECKED-OPERATION", Category: CatACL, Severity: SeverityWarning,
		Title: "An ACL grants or denies an operation Kafka never checks on that resource type (for example Write on a Group).",
		Why:   "CreateAcls accepts any operation on any resource type, but the authorizer only ever asks for the supported pairs: the entry has no effect, and was probably meant for another resource type.",
		Fix:   "Delete the entry, or recreate it with an operation the resource type supports (the finding lists them).",
		Ref:   "AclEntry.supportedOperations; kafka-zk-model §2.2",
	},
	{
		ID: "ACL-DENY-SHADOWS-ALLOW", Category: CatACL, Severity: SeverityWarning,
		Title: "An Allow entry is cancelled by a Deny entry for the same principal (or User:*), operation (or All) and a pattern that covers it.",
		Why:   "Deny beats Allow in Kafka's authorizers, so the Allow entry has no effect; usually one of the two is a mistake.",
		Fix:   "Delete whichever entry is wrong; if the deny is meant for other principals, narrow it to them.",
		Ref:   "kafka-zk-model §2.2",
	},

	// Topic health.
	{
		ID: "TOPIC-RF-BELOW-MIN-ISR", Category: CatTopic, Severity: SeverityWarning,
		Title: "A topic's replication factor is below its min.insync.replicas.",
		Why:   "Producers with acks=all (the default since Kafka 3.0) can never write to the topic: every write fails with NOT_ENOUGH_REPLICAS. Recreating the topic as it is carries the problem to the new cluster.",
		Fix:   "Increase the replication factor (kafka-reassign-partitions) or lower the topic's min.insync.replicas to at most its replication factor.",
	},
	{
		ID: "TOPIC-LEGACY-CONSUMER-OFFSETS", Category: CatTopic, Severity: SeverityInfo,
		Title: "Consumer offsets of the old Scala consumer are stored under /consumers.",
		Why:   "Nothing migrates /consumers (not KIP-866, not the admin protocol), and clients that old (before 2.1) cannot talk to Kafka 4 at all (KIP-896).",
		Fix:   "If the group is still used, move it to the Java consumer and commit its offsets to Kafka (kafka-consumer-groups --reset-offsets) before the move; otherwise ignore or delete the old znodes.",
		Ref:   "KIP-896; kafka-zk-model §1.16",
	},

	// Policy.
	{
		ID: "POLICY-VIOLATION", Category: CatPolicy, Severity: SeverityError,
		Title: "An existing topic violates a rule of the TopicActionPolicy given with --policy.",
		Why:   "zkmigrate evaluates the policy on every planned change; a topic that violates it is blocked and not created on the target.",
		Fix:   "Bring the topic in line with the rule on the source (or change the rule) before planning the move.",
	},

	// Cross-check: ZooKeeper's state against what the brokers serve.
	{
		ID: "CROSS-CLUSTER-ID", Category: CatCross, Severity: SeverityError,
		Title: "ZooKeeper and the brokers given belong to different clusters (their cluster ids differ).",
		Why:   "Comparing two clusters says nothing about either; nothing else was compared.",
		Fix:   "Give the ZooKeeper connect string (with its chroot) and the bootstrap servers of the same cluster.",
	},
	{
		ID: "CROSS-BROKER", Category: CatCross, Severity: SeverityWarning,
		Title: "A broker is registered in ZooKeeper and not served in Metadata (or the other way round), or its rack differs.",
		Why:   "The brokers' view of the cluster is behind ZooKeeper's: a broker starting or stopping, or a metadata cache that did not catch up. Plans place replicas on the brokers they see.",
		Fix:   "Wait for brokers that are starting or stopping and run the check again; a difference that stays points at a broker whose metadata cache is stuck (restart it).",
	},
	{
		ID: "CROSS-TOPIC-NOT-SERVED", Category: CatCross, Severity: SeverityWarning,
		Title: "A topic is in ZooKeeper (/brokers/topics) but the brokers do not serve it in Metadata, and it is not being deleted.",
		Why:   "The controller never loaded it (created directly in ZooKeeper while no controller ran, or a controller that fails on it); clients cannot use it, yet a migration from ZooKeeper would recreate it.",
		Fix:   "Look at the controller log for the topic; exclude it from the migration (--topics) if nobody can use it today.",
	},
	{
		ID: "CROSS-TOPIC-DELETING", Category: CatCross, Severity: SeverityInfo,
		Title: "A topic marked for deletion (/admin/delete_topics) is still in ZooKeeper; the brokers no longer serve it.",
		Why:   "In ZooKeeper mode the brokers drop a topic from Metadata as soon as its deletion starts, while ZooKeeper keeps it until every replica is deleted; the admin protocol cannot see such a topic at all.",
		Fix:   "Bring the brokers holding its replicas online so the deletion finishes (see KRAFT-PENDING-DELETE).",
	},
	{
		ID: "CROSS-TOPIC-NOT-IN-ZK", Category: CatCross, Severity: SeverityWarning,
		Title: "The brokers serve a topic that ZooKeeper does not hold.",
		Why:   "The brokers' metadata cache is behind ZooKeeper (the topic was deleted), or the ZooKeeper connect string names another chroot; a migration from ZooKeeper would not carry the topic.",
		Fix:   "Check --zookeeper's chroot; run the check again after the deletion has propagated.",
	},
	{
		ID: "CROSS-TOPIC-ID", Category: CatCross, Severity: SeverityError,
		Title: "A topic's id in ZooKeeper differs from the id the brokers serve.",
		Why:   "The topic was deleted and recreated under the same name and the brokers still serve the old one; clients that use topic ids fail against it.",
		Fix:   "Restart the brokers that serve the old id, then run the check again.",
	},
	{
		ID: "CROSS-PARTITIONS", Category: CatCross, Severity: SeverityWarning,
		Title: "A topic has a different number of partitions in ZooKeeper than the brokers serve.",
		Why:   "Partitions added in ZooKeeper that the controller did not pick up (or not yet): producers cannot write to them, yet a migration from ZooKeeper creates them.",
		Fix:   "Check the controller log; run the check again once the controller has processed the change.",
	},
	{
		ID: "CROSS-REPLICAS", Category: CatCross, Severity: SeverityWarning,
		Title: "A partition's replica list (order included: the first is the preferred leader) differs between ZooKeeper and what the brokers serve.",
		Why:   "An assignment written to ZooKeeper that the controller did not apply; the layout a plan copies from ZooKeeper is not the one in use.",
		Fix:   "Let reassignments finish and run the check again; a difference that stays points at the controller.",
	},
	{
		ID: "CROSS-REASSIGNMENT", Category: CatCross, Severity: SeverityWarning,
		Title: "The replicas being added or removed by a reassignment differ between ZooKeeper and ListPartitionReassignments.",
		Why:   "A reassignment started or finished on one side only: the controller has not processed it yet, or it stalled.",
		Fix:   "Let reassignments finish (kafka-reassign-partitions --verify) before the cutover.",
	},
	{
		ID: "CROSS-CONFIG-NOT-SERVED", Category: CatCross, Severity: SeverityWarning,
		Title: "A dynamic topic or broker config is set in ZooKeeper but the brokers do not serve it.",
		Why:   "The brokers never picked it up: a key they do not know (a typo, or a config of another Kafka version), a broker config that cannot be changed dynamically, or a change notification not processed. A migration from ZooKeeper would set it on the target, where it may be refused or change behaviour that never ran.",
		Fix:   "Remove the key (kafka-configs --delete-config) if it is not wanted, or exclude it from the migration; otherwise find why the brokers ignore it (their log names invalid dynamic configs).",
	},
	{
		ID: "CROSS-CONFIG-NOT-IN-ZK", Category: CatCross, Severity: SeverityWarning,
		Title: "The brokers serve a dynamic config override that ZooKeeper does not hold.",
		Why:   "The brokers have not processed a deletion yet, or another ZooKeeper chroot is being read.",
		Fix:   "Check --zookeeper's chroot; run the check again after the change has propagated.",
	},
	{
		ID: "CROSS-CONFIG-VALUE", Category: CatCross, Severity: SeverityWarning,
		Title: "A dynamic config's value in ZooKeeper differs from the value the brokers serve (compared by its Kafka type).",
		Why:   "A change the brokers have not picked up, or one they rejected; the value a migration carries from ZooKeeper is not the one in effect.",
		Fix:   "Run the check again after the change has propagated; a difference that stays means the brokers refused the value (their log says why).",
	},
	{
		ID: "CROSS-BROKER-CONFIG-OFFLINE", Category: CatCross, Severity: SeverityInfo,
		Title: "ZooKeeper holds dynamic configs of a broker that is not running, so no broker serves them.",
		Why:   "A broker that left the cluster (or is down) keeps its /config/brokers/<id> znode; the admin protocol cannot describe a broker that is not running, so only a ZooKeeper read sees these configs.",
		Fix:   "If the broker is gone for good, delete its configs (kafka-configs --entity-type brokers --entity-name <id> --delete-config ...) or leave them out of the migration; if it comes back, nothing to do.",
	},
	{
		ID: "CROSS-ACL", Category: CatCross, Severity: SeverityWarning,
		Title: "An ACL binding is in ZooKeeper and not served by DescribeAcls, or the other way round.",
		Why:   "The authorizer's cache is behind ZooKeeper (an ACL change notification not processed) or the brokers keep their ACLs elsewhere (authorizer.zookeeper.url); the ACLs in force are not those a migration copies.",
		Fix:   "Check authorizer.zookeeper.url in server.properties (--broker-config); run the check again after the change has propagated.",
	},
	{
		ID: "CROSS-QUOTA", Category: CatCross, Severity: SeverityWarning,
		Title: "A client-quota entity or value in ZooKeeper differs from what DescribeClientQuotas serves.",
		Why:   "A quota change the brokers have not picked up; the quotas in force are not those a migration copies.",
		Fix:   "Run the check again after the change has propagated.",
	},
	{
		ID: "CROSS-SCRAM", Category: CatCross, Severity: SeverityWarning,
		Title: "A SCRAM user, mechanism or iteration count in ZooKeeper differs from what DescribeUserScramCredentials serves.",
		Why:   "A credential change the brokers have not picked up: users authenticate against what the brokers hold.",
		Fix:   "Run the check again after the change has propagated.",
	},
	{
		ID: "CROSS-DELEGATION-TOKEN", Category: CatCross, Severity: SeverityInfo,
		Title: "A delegation token is in ZooKeeper and not served by DescribeDelegationToken, or the other way round.",
		Why:   "Expired tokens are removed by the brokers on a schedule, and their token cache follows ZooKeeper through change notifications; either side may be briefly behind.",
		Fix:   "Nothing, unless it stays: then check the brokers' delegation.token.secret.key and their log.",
	},
}
