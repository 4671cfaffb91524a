package zkgen

import (
	"encoding/base64"
	"encoding/json"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"math/rand/v2"
	"strconv"
)

// Default is Kafka's name for the default entity in /config/<type>/<default>
// (ZooKeeperInternals.DEFAULT_STRING). It is stored unescaped.
const Default = "<default>"

// Sanitize encodes a user principal or client id the way Kafka's
// Sanitizer.sanitize does; it is the reader's own encoder, so the generator
// and the reader can never disagree.
func Sanitize(s string) string { return zkread.Sanitize(s) }

// newUUID returns a Kafka Uuid string from rng: 16 random bytes with the
// version-4 and variant bits java.util.UUID.randomUUID sets, base64url
// without padding (22 characters). Like Uuid.randomUuid it never starts
// with '-'.
func newUUID(rng *rand.Rand) string {
	for {
		var b [16]byte
		for i := 0; i < 16; i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		s := base64.RawURLEncoding.EncodeToString(b[:])
		if s[0] != '-' {
			return s
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("zkgen: marshal: " + err.Error()) // only our own fixed types are marshalled
	}
	return b
}

// topicZNode is /brokers/topics/<t>. Version 1 has only partitions, version
// 2 adds adding/removing_replicas, version 3 adds topic_id.
type topicZNode struct {
	Version          int              `json:"version"`
	Partitions       map[string][]int `json:"partitions"`
	AddingReplicas   map[string][]int `json:"adding_replicas,omitempty"`
	RemovingReplicas map[string][]int `json:"removing_replicas,omitempty"`
	TopicID          string           `json:"topic_id,omitempty"`
}

func (t topicZNode) encode() []byte {
	if t.Version >= 2 {
		// always written as objects, empty when nothing is moving
		if t.AddingReplicas == nil {
			t.AddingReplicas = map[string][]int{}
		}
		if t.RemovingReplicas == nil {
			t.RemovingReplicas = map[string][]int{}
		}
		b := mustJSON(struct {
			Version          int              `json:"version"`
			Partitions       map[string][]int `json:"partitions"`
			AddingReplicas   map[string][]int `json:"adding_replicas"`
			RemovingReplicas map[string][]int `json:"removing_replicas"`
			TopicID          string           `json:"topic_id,omitempty"`
		}(t))
		return b
	}
	return mustJSON(struct {
		Version    int              `json:"version"`
		Partitions map[string][]int `json:"partitions"`
	}{t.Version, t.Partitions})
}

// partitionState is /brokers/topics/<t>/partitions/<p>/state.
type partitionState struct {
	ControllerEpoch     int   `json:"controller_epoch"`
	Leader              int   `json:"leader"`
	Version             int   `json:"version"`
	LeaderEpoch         int   `json:"leader_epoch"`
	ISR                 []int `json:"isr"`
	LeaderRecoveryState int   `json:"leader_recovery_state,omitempty"` // written only when RECOVERING (1)
}

// configZNode is /config/<type>/<entity>: all values are strings.
func configZNode(cfg map[string]string) []byte {
	if cfg == nil {
		cfg = map[string]string{}
	}
	return mustJSON(struct {
		Version int               `json:"version"`
		Config  map[string]string `json:"config"`
	}{1, cfg})
}

// aclEntry is one entry of an ACL znode's "acls" list.
type aclEntry struct {
	Principal      string `json:"principal"`
	PermissionType string `json:"permissionType"`
	Operation      string `json:"operation"`
	Host           string `json:"host"`
}

func aclZNode(entries []aclEntry) []byte {
	return mustJSON(struct {
		Version int        `json:"version"`
		ACLs    []aclEntry `json:"acls"`
	}{1, entries})
}

type featureRange struct {
	MinVersion int `json:"min_version"`
	MaxVersion int `json:"max_version"`
}

// brokerZNode is /brokers/ids/<id>, version 5.
type brokerZNode struct {
	Features    map[string]featureRange `json:"features"`
	ListenerMap map[string]string       `json:"listener_security_protocol_map"`
	Endpoints   []string                `json:"endpoints"`
	Rack        string                  `json:"rack,omitempty"`
	JMXPort     int                     `json:"jmx_port"`
	Port        int                     `json:"port"`
	Host        *string                 `json:"host"`
	Timestamp   string                  `json:"timestamp"`
	Version     int                     `json:"version"`
}

func clusterIDZNode(id string) []byte {
	return mustJSON(struct {
		Version string `json:"version"`
		ID      string `json:"id"`
	}{"1", id})
}

func controllerZNode(broker int, ts int64) []byte {
	return mustJSON(struct {
		Version              int    `json:"version"`
		BrokerID             int    `json:"brokerid"`
		Timestamp            string `json:"timestamp"`
		KRaftControllerEpoch int    `json:"kraftControllerEpoch"`
	}{2, broker, strconv.FormatInt(ts, 10), -1})
}

// metadataVersion is the 3.9-IV0 feature level, what a 3.9 ZK controller
// finalizes.
const metadataVersion = 21

func featureZNode() []byte {
	type level struct {
		MaxVersionLevel int `json:"max_version_level"`
	}
	return mustJSON(struct {
		Version  int              `json:"version"`
		Status   int              `json:"status"`
		Features map[string]level `json:"features"`
	}{2, 1, map[string]level{"metadata.version": {metadataVersion}}})
}

func producerIDBlockZNode(broker int, start int64) []byte {
	return mustJSON(struct {
		Version    int    `json:"version"`
		Broker     int    `json:"broker"`
		BlockStart string `json:"block_start"`
		BlockEnd   string `json:"block_end"`
	}{1, broker, strconv.FormatInt(start, 10), strconv.FormatInt(start+999, 10)})
}
