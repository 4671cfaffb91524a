package zkgen

import (
	"encoding/json"
	"fmt"
	"os"
)

// Config is the size and shape of the generated cluster. Output depends only
// on Config, never on the number of writers or the batch size.
type Config struct {
	Topics             int   // topics, including a few internal ones at larger sizes
	PartitionsPerTopic int   // average partitions per topic (some topics get more, some fewer)
	ACLs               int   // ACL entries (grouped into one znode per resource pattern)
	QuotaEntities      int   // user, client-id, user+client-id and ip quota entities, defaults included
	ScramUsers         int   // users with SCRAM-SHA-256 and/or SCRAM-SHA-512 credentials
	Brokers            int   // broker ids 1..Brokers
	Seed               int64 // everything random derives from this
	// EncoderSecret is the password.encoder.secret used to encrypt the
	// per-broker password configs. Empty means DefaultEncoderSecret.
	EncoderSecret string
}

// DefaultEncoderSecret is the password.encoder.secret the generator uses
// when Config.EncoderSecret is empty. It is a test value, not a secret.
const DefaultEncoderSecret = "zkgen-password-encoder-secret"

// Small is a size for unit tests: every kind of znode appears, including the
// rare ones (topics without id, pending deletes, reassignments, odd ACLs).
func Small(seed int64) Config {
	return Config{Topics: 60, PartitionsPerTopic: 3, ACLs: 300, QuotaEntities: 60, ScramUsers: 30, Brokers: 4, Seed: seed}
}

// Full is the large-cluster size: 50,000 topics, 200,000 partitions,
// 100,000 ACL entries, 10,000 quota entities and 5,000 SCRAM users.
func Full(seed int64) Config {
	return Config{Topics: 50000, PartitionsPerTopic: 4, ACLs: 100000, QuotaEntities: 10000, ScramUsers: 5000, Brokers: 3, Seed: seed}
}

// Validate reports the first unusable setting.
func (c Config) Validate() error {
	switch {
	case c.Topics < 0 || c.ACLs < 0 || c.QuotaEntities < 0 || c.ScramUsers < 0:
		return fmt.Errorf("zkgen: counts must not be negative")
	case c.Topics > 0 && c.PartitionsPerTopic < 1:
		return fmt.Errorf("zkgen: --partitions-per-topic must be at least 1")
	case c.PartitionsPerTopic > 10000:
		return fmt.Errorf("zkgen: --partitions-per-topic %d is more than 10000", c.PartitionsPerTopic)
	case c.Brokers < 1:
		return fmt.Errorf("zkgen: --brokers must be at least 1")
	case c.Brokers > 1000:
		return fmt.Errorf("zkgen: --brokers %d is more than 1000", c.Brokers)
	}
	return nil
}

func (c Config) encoderSecret() string {
	if c.EncoderSecret == "" {
		return DefaultEncoderSecret
	}
	return c.EncoderSecret
}

// Summary counts what the generator wrote, per kind. It holds no secrets.
type Summary struct {
	Seed    int64 `json:"seed"`
	Znodes  int   `json:"znodes"`  // every znode written, parents included
	Brokers int   `json:"brokers"` // /brokers/ids/<id>

	Topics           int `json:"topics"`            // /brokers/topics/<t>
	InternalTopics   int `json:"internal_topics"`   // __consumer_offsets, __transaction_state
	Partitions       int `json:"partitions"`        // /brokers/topics/<t>/partitions/<p>/state
	TopicsWithoutID  int `json:"topics_without_id"` // topic znode v1 or v2 (written before IBP 2.8)
	PendingDeletes   int `json:"pending_deletes"`   // /admin/delete_topics/<t>
	Reassigning      int `json:"reassigning"`       // topics with non-empty adding/removing_replicas
	ReassigningParts int `json:"reassigning_partitions"`

	TopicConfigs         int `json:"topic_configs"`          // /config/topics/<t> (one per topic)
	TopicConfigsNonEmpty int `json:"topic_configs_nonempty"` // ... with at least one override
	TopicRemovedKeys     int `json:"topic_removed_keys"`     // overrides of keys removed in Kafka 4.0
	BrokerConfigs        int `json:"broker_configs"`         // /config/brokers/<id> and <default>
	BrokerPasswords      int `json:"broker_passwords"`       // encrypted password configs

	ACLEntries           int `json:"acl_entries"`
	ACLResources         int `json:"acl_resources"` // znodes under /kafka-acl/<T> and /kafka-acl-extended/prefixed/<T>
	ACLPrefixedResources int `json:"acl_prefixed_resources"`
	ACLDenyEntries       int `json:"acl_deny_entries"`

	Quotas           QuotaCounts `json:"quota_entities"`
	ScramUsers       int         `json:"scram_users"`
	ScramCredentials int         `json:"scram_credentials"` // one per user and mechanism

	DelegationTokens int `json:"delegation_tokens"` // /delegation_token/tokens/<id>
	ConfigChanges    int `json:"config_changes"`    // /config/changes/config_change_<n>
}

// QuotaCounts counts quota entities by shape. Defaults counts the entities
// of any shape that involve <default>.
type QuotaCounts struct {
	User       int `json:"user"`
	Client     int `json:"client"`
	UserClient int `json:"user_client"`
	IP         int `json:"ip"`
	Defaults   int `json:"defaults"`
}

// Total is the number of quota entities of all shapes.
func (q QuotaCounts) Total() int { return q.User + q.Client + q.UserClient + q.IP }

// WriteJSON writes the summary as indented JSON to file.
func (s Summary) WriteJSON(file string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("zkgen: write summary: %w", err)
	}
	return nil
}
