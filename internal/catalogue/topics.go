package catalogue

import "slices"

// InternalTopics are the topics Kafka itself creates and owns: the group
// and transaction coordinators' logs, the share-group state (KIP-932), the
// KRaft metadata log, and tiered storage's metadata topic. A move never
// creates, copies or deletes them. The names are Kafka's
// (org.apache.kafka.common.internals.Topic, 3.9 and 4.1;
// TopicBasedRemoteLogMetadataManagerConfig for __remote_log_metadata).
var InternalTopics = []string{"__consumer_offsets", "__transaction_state", "__cluster_metadata", "__remote_log_metadata", "__share_group_state"}

// IsInternalTopic reports whether name is a Kafka-internal topic.
func IsInternalTopic(name string) bool { return slices.Contains(InternalTopics, name) }
