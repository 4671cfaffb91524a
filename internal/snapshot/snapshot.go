// Package snapshot holds the one model of Kafka cluster metadata that every
// stage shares: zkread fills it from ZooKeeper, kread fills it from a live
// cluster through the admin protocol, plan compares two of them, check audits
// one. It is plain data: sorted, deterministic, JSON-serialisable, with
// secrets held by reference (see secret.Secret). It does no I/O beyond encoding.
package snapshot

import "github.com/zkmigrate/zkmigrate/internal/secret"

// FormatVersion is the version of the snapshot file schema written by Save.
const FormatVersion = 1

// Source kinds recorded in Snapshot.Source.
const (
	SourceZooKeeper = "zookeeper"
	SourceKafka     = "kafka"
)

// Snapshot is a cluster's metadata at (about) one moment.
type Snapshot struct {
	Format    int      `json:"format"`
	Source    string   `json:"source"`            // SourceZooKeeper or SourceKafka
	Address   string   `json:"address,omitempty"` // connect string or bootstrap, without credentials
	ClusterID string   `json:"cluster_id,omitempty"`
	Read      ReadInfo `json:"read"`

	Controller *Controller `json:"controller,omitempty"`
	Migration  *Migration  `json:"migration,omitempty"`
	Features   []Feature   `json:"features,omitempty"`
	Brokers    []Broker    `json:"brokers,omitempty"`

	Topics        []Topic        `json:"topics,omitempty"`
	BrokerConfigs []BrokerConfig `json:"broker_configs,omitempty"`
	Quotas        []Quota        `json:"quotas,omitempty"`
	ScramUsers    []ScramUser    `json:"scram_users,omitempty"`
	ACLs          []ACL          `json:"acls,omitempty"`
	// ClientMetrics are the client-metrics subscriptions (KIP-714) and
	// GroupConfigs the per-group configs (KIP-848), each with its dynamic
	// configs only. Only a KRaft cluster read through the admin protocol
	// has them; ZooKeeper never does.
	ClientMetrics []NamedConfigs `json:"client_metrics,omitempty"`
	GroupConfigs  []NamedConfigs `json:"group_configs,omitempty"`

	DelegationTokens    []DelegationToken     `json:"delegation_tokens,omitempty"`
	PendingDeletes      []string              `json:"pending_deletes,omitempty"`
	LegacyReassignments []PartitionAssignment `json:"legacy_reassignments,omitempty"`
	PreferredElections  []TopicPartition      `json:"preferred_elections,omitempty"`
	// Reassignments lists reassignments in progress as reported by a live
	// cluster (ListPartitionReassignments); ZooKeeper snapshots carry them in
	// Partition.Adding/Removing instead.
	Reassignments   []PartitionAssignment `json:"reassignments,omitempty"`
	ConsumerGroups  []LegacyConsumerGroup `json:"consumer_groups,omitempty"`
	ProducerIDBlock *ProducerIDBlock      `json:"producer_id_block,omitempty"`

	// StaticConfigs are the server.properties files given with --broker-config.
	StaticConfigs []StaticConfig `json:"static_configs,omitempty"`

	// Findings are problems met while reading: malformed or unreadable znodes,
	// znodes that changed during the read, files that could not be parsed.
	Findings []Finding `json:"findings,omitempty"`
}

// ReadInfo records how and when the snapshot was read.
type ReadInfo struct {
	Mode     string `json:"mode,omitempty"` // "migration" or "full" for ZooKeeper reads
	Started  string `json:"started,omitempty"`
	Finished string `json:"finished,omitempty"`
	// ZxidMin and ZxidMax bound the ZooKeeper transaction ids seen (mzxid of
	// every znode read); a read is not point-in-time.
	ZxidMin int64 `json:"zxid_min,omitempty"`
	ZxidMax int64 `json:"zxid_max,omitempty"`
	// StartZxid is the highest zxid known when the read began; znodes with a
	// higher mzxid changed while the tool read.
	StartZxid int64    `json:"start_zxid,omitempty"`
	Changed   []string `json:"changed,omitempty"` // paths modified during the read
	Znodes    int      `json:"znodes,omitempty"`  // znodes read
	// Offline is set for a read of ZooKeeper's own files (--zk-data-dir).
	Offline *OfflineRead `json:"offline,omitempty"`
}

// OfflineRead records where an offline read of a ZooKeeper data directory
// came from and which point in its history it shows.
type OfflineRead struct {
	DataDir  string `json:"data_dir"`            // the version-2 folder holding the snapshots
	LogDir   string `json:"log_dir,omitempty"`   // the transaction logs' folder, when apart
	Chroot   string `json:"chroot,omitempty"`    // the Kafka chroot read
	Snapshot string `json:"snapshot,omitempty"`  // the snapshot file the replay started from ("": the empty tree; ZooKeeper 3.4 may have none)
	Zxid     int64  `json:"zxid"`                // the last transaction applied
	ZxidTime string `json:"zxid_time,omitempty"` // its time (RFC 3339), when a transaction was applied
	Applied  int    `json:"applied,omitempty"`   // transactions replayed after the snapshot
}

// Controller is /controller (ZooKeeper) or the active controller (Kafka).
type Controller struct {
	BrokerID int32 `json:"broker_id"`
	// KRaftControllerEpoch is -1 for a ZooKeeper controller; ≥ 0 means a KRaft
	// controller has taken over (a KIP-866 migration is in progress).
	KRaftControllerEpoch int32 `json:"kraft_controller_epoch"`
	Epoch                int32 `json:"epoch,omitempty"` // /controller_epoch
}

// Migration is the /migration znode (KIP-866).
type Migration struct {
	KRaftControllerID    int32 `json:"kraft_controller_id"`
	KRaftControllerEpoch int32 `json:"kraft_controller_epoch"`
	KRaftMetadataOffset  int64 `json:"kraft_metadata_offset"`
	KRaftMetadataEpoch   int32 `json:"kraft_metadata_epoch"`
}

// Feature is one finalized feature level from /feature.
type Feature struct {
	Name     string `json:"name"`
	MinLevel int16  `json:"min_level,omitempty"`
	MaxLevel int16  `json:"max_level"`
	Enabled  bool   `json:"enabled"`
}

// Broker is one registered broker.
type Broker struct {
	ID        int32    `json:"id"`
	Host      string   `json:"host,omitempty"`
	Port      int32    `json:"port,omitempty"`
	Endpoints []string `json:"endpoints,omitempty"` // "SASL_PLAINTEXT://h:9092"
	Rack      string   `json:"rack,omitempty"`
	Version   int      `json:"version,omitempty"` // registration JSON version
}

// Topic is a topic with its partitions and dynamic config overrides.
type Topic struct {
	Name string `json:"name"`
	// ID is the topic id (base64url Uuid), empty when the cluster never
	// assigned one (IBP < 2.8).
	ID         string      `json:"id,omitempty"`
	Partitions []Partition `json:"partitions"`
	Configs    []Config    `json:"configs,omitempty"` // dynamic overrides only, sorted by key
	Internal   bool        `json:"internal,omitempty"`
}

// Partition is one partition's replica assignment and (when read) state.
type Partition struct {
	ID       int32   `json:"id"`
	Replicas []int32 `json:"replicas"`
	// Adding and Removing are the in-progress reassignment sets (KIP-455).
	// During a reassignment Replicas is the full set; the target is
	// Replicas minus Removing.
	Adding   []int32 `json:"adding,omitempty"`
	Removing []int32 `json:"removing,omitempty"`
	// State is present in full reads only.
	State *PartitionState `json:"state,omitempty"`
}

// PartitionState is /brokers/topics/<t>/partitions/<p>/state.
type PartitionState struct {
	Leader              int32   `json:"leader"`
	LeaderEpoch         int32   `json:"leader_epoch"`
	ISR                 []int32 `json:"isr"`
	ControllerEpoch     int32   `json:"controller_epoch"`
	LeaderRecoveryState int8    `json:"leader_recovery_state,omitempty"`
	PartitionEpoch      int32   `json:"partition_epoch"` // znode version
}

// Config is one configuration entry. Sensitive entries carry a Secret and no
// Value.
type Config struct {
	Key       string         `json:"key"`
	Value     string         `json:"value,omitempty"`
	Sensitive bool           `json:"sensitive,omitempty"`
	Secret    *secret.Secret `json:"secret,omitempty"`
	// Source is set for configs read from a live cluster
	// (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, ...), empty otherwise.
	Source string `json:"source,omitempty"`
}

// BrokerConfig holds the dynamic configs of one broker, or of the cluster
// default when Broker is "" (ZooKeeper's <default>).
type BrokerConfig struct {
	Broker  string   `json:"broker"`
	Configs []Config `json:"configs"`
}

// NamedConfigs is a named config resource with its configs: a
// client-metrics subscription or a group.
type NamedConfigs struct {
	Name    string   `json:"name"`
	Configs []Config `json:"configs"`
}

// Quota entity component types, as the admin protocol names them.
const (
	EntityUser     = "user"
	EntityClientID = "client-id"
	EntityIP       = "ip"
)

// EntityComponent is one part of a client-quota entity. Default means the
// default entity of that type (ZooKeeper <default>, admin protocol null name).
type EntityComponent struct {
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	Default bool   `json:"default,omitempty"`
}

// QuotaEntity identifies a client-quota entity; components are ordered user,
// client-id, ip.
type QuotaEntity []EntityComponent

// Quota is one client-quota entity with its values (producer_byte_rate, ...).
type Quota struct {
	Entity QuotaEntity        `json:"entity"`
	Values map[string]float64 `json:"values"`
}

// ScramUser is a user with SCRAM credentials.
type ScramUser struct {
	Name        string            `json:"name"` // decoded user name, without "User:"
	Credentials []ScramCredential `json:"credentials"`
}

// ScramCredential is one mechanism's credential. The salted keys are never
// held: Secret references where they live (and, from a credentials file, the
// password to set).
type ScramCredential struct {
	Mechanism  string         `json:"mechanism"` // SCRAM-SHA-256 or SCRAM-SHA-512
	Iterations int32          `json:"iterations"`
	Secret     *secret.Secret `json:"secret,omitempty"`
}

// ACL is one access-control entry on one resource pattern. Names use Kafka's
// PascalCase spellings as ZooKeeper stores them.
type ACL struct {
	ResourceType string `json:"resource_type"` // Topic, Group, Cluster, TransactionalId, DelegationToken, User
	ResourceName string `json:"resource_name"`
	PatternType  string `json:"pattern_type"` // LITERAL or PREFIXED
	Principal    string `json:"principal"`    // User:alice
	Host         string `json:"host"`         // * or an IP
	Operation    string `json:"operation"`    // Read, Write, All, ...
	Permission   string `json:"permission"`   // Allow or Deny
}

// DelegationToken is the metadata of one token; the HMAC is never stored.
type DelegationToken struct {
	TokenID         string   `json:"token_id"`
	Owner           string   `json:"owner"`
	Requester       string   `json:"requester,omitempty"`
	Renewers        []string `json:"renewers,omitempty"`
	IssueTimestamp  int64    `json:"issue_timestamp"`
	MaxTimestamp    int64    `json:"max_timestamp"`
	ExpiryTimestamp int64    `json:"expiry_timestamp"`
}

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// PartitionAssignment is a requested replica list for a partition.
type PartitionAssignment struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
	Adding    []int32 `json:"adding,omitempty"`
	Removing  []int32 `json:"removing,omitempty"`
}

// LegacyConsumerGroup is a group of the old Scala consumer under /consumers.
type LegacyConsumerGroup struct {
	Group   string   `json:"group"`
	Topics  []string `json:"topics,omitempty"`  // topics with committed offsets
	Offsets int      `json:"offsets,omitempty"` // committed partition offsets
}

// ProducerIDBlock is /latest_producer_id_block.
type ProducerIDBlock struct {
	Broker     int32 `json:"broker"`
	BlockStart int64 `json:"block_start"`
	BlockEnd   int64 `json:"block_end"`
}

// StaticConfig is one server.properties file given with --broker-config.
type StaticConfig struct {
	File     string   `json:"file"`
	BrokerID string   `json:"broker_id,omitempty"` // broker.id or node.id when set
	Configs  []Config `json:"configs"`             // sorted; secrets by reference
}

// Severity of a finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding is a fact worth knowing, with a stable id.
type Finding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Resource string `json:"resource"` // znode path, file:line, topic, ...
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
}
