package zkread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// VersionError reports a znode whose format version this reader does not
// know. Parsers return it together with a best-effort value: the reader
// records a warning and keeps the value.
type VersionError struct {
	Version int
	Known   string // e.g. "1-3"
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("zkread: unknown format version %d (this reader knows %s)", e.Version, e.Known)
}

// flexInt is a JSON number or a string holding a number (Kafka writes
// several numbers as strings).
type flexInt struct {
	v   int64
	set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	f.v, f.set = n, true
	return nil
}

func decodeJSON(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("zkread: empty data, want JSON")
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("zkread: field %s is a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("zkread: bad JSON: %w", err)
	}
	return nil
}

func checkVersion(v flexInt, lo, hi int) error {
	if !v.set {
		return errors.New("zkread: no version field")
	}
	if v.v < int64(lo) || v.v > int64(hi) {
		known := strconv.Itoa(lo)
		if hi != lo {
			known += "-" + strconv.Itoa(hi)
		}
		return &VersionError{Version: int(v.v), Known: known}
	}
	return nil
}

// ParseClusterID parses /cluster/id: {"version":"1","id":"..."}.
func ParseClusterID(data []byte) (string, error) {
	var z struct {
		Version flexInt `json:"version"`
		ID      string  `json:"id"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return "", err
	}
	if z.ID == "" {
		return "", errors.New("zkread: no id")
	}
	return z.ID, checkVersion(z.Version, 1, 1)
}

// ParseController parses /controller (v1, or v2 with kraftControllerEpoch).
// Epoch is not set: it lives in /controller_epoch.
func ParseController(data []byte) (snapshot.Controller, error) {
	var z struct {
		Version              flexInt         `json:"version"`
		BrokerID             *int32          `json:"brokerid"`
		KRaftControllerEpoch *int32          `json:"kraftControllerEpoch"`
		Timestamp            json.RawMessage `json:"timestamp"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.Controller{}, err
	}
	if z.BrokerID == nil {
		return snapshot.Controller{}, errors.New("zkread: no brokerid")
	}
	c := snapshot.Controller{BrokerID: *z.BrokerID, KRaftControllerEpoch: -1}
	if z.KRaftControllerEpoch != nil {
		c.KRaftControllerEpoch = *z.KRaftControllerEpoch
	}
	return c, checkVersion(z.Version, 1, 2)
}

// ParseControllerEpoch parses /controller_epoch, a decimal integer as text.
func ParseControllerEpoch(data []byte) (int32, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("zkread: controller epoch %q is not an integer", truncate(string(data)))
	}
	return int32(n), nil
}

// ParseMigration parses /migration (KIP-866, version 0).
func ParseMigration(data []byte) (snapshot.Migration, error) {
	var z struct {
		Version              flexInt `json:"version"`
		KRaftControllerID    *int32  `json:"kraft_controller_id"`
		KRaftControllerEpoch *int32  `json:"kraft_controller_epoch"`
		KRaftMetadataOffset  *int64  `json:"kraft_metadata_offset"`
		KRaftMetadataEpoch   *int32  `json:"kraft_metadata_epoch"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.Migration{}, err
	}
	if z.KRaftControllerID == nil || z.KRaftControllerEpoch == nil || z.KRaftMetadataOffset == nil || z.KRaftMetadataEpoch == nil {
		return snapshot.Migration{}, errors.New("zkread: missing kraft_* fields")
	}
	m := snapshot.Migration{KRaftControllerID: *z.KRaftControllerID, KRaftControllerEpoch: *z.KRaftControllerEpoch,
		KRaftMetadataOffset: *z.KRaftMetadataOffset, KRaftMetadataEpoch: *z.KRaftMetadataEpoch}
	return m, checkVersion(z.Version, 0, 0)
}

// ParseFeatures parses /feature (v1 with min_version_level, v2 without).
func ParseFeatures(data []byte) ([]snapshot.Feature, error) {
	var z struct {
		Version  flexInt `json:"version"`
		Status   *int    `json:"status"`
		Features map[string]struct {
			Min *int16 `json:"min_version_level"`
			Max *int16 `json:"max_version_level"`
		} `json:"features"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return nil, err
	}
	if z.Status == nil {
		return nil, errors.New("zkread: no status")
	}
	var out []snapshot.Feature
	for name, f := range z.Features {
		if f.Max == nil {
			return nil, fmt.Errorf("zkread: feature %q has no max_version_level", name)
		}
		ft := snapshot.Feature{Name: name, MaxLevel: *f.Max, Enabled: *z.Status == 1}
		if f.Min != nil {
			ft.MinLevel = *f.Min
		}
		out = append(out, ft)
	}
	slices.SortFunc(out, func(a, b snapshot.Feature) int { return strings.Compare(a.Name, b.Name) })
	return out, checkVersion(z.Version, 1, 2)
}

// ParseBroker parses /brokers/ids/<id> (v1–v5). A v1 registration's
// host/port becomes a PLAINTEXT endpoint, as Kafka's decoder does.
func ParseBroker(id int32, data []byte) (snapshot.Broker, error) {
	var z struct {
		Version   flexInt  `json:"version"`
		Host      *string  `json:"host"`
		Port      *int32   `json:"port"`
		Endpoints []string `json:"endpoints"`
		Rack      *string  `json:"rack"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.Broker{}, err
	}
	b := snapshot.Broker{ID: id, Endpoints: z.Endpoints, Version: int(z.Version.v)}
	if z.Host != nil {
		b.Host = *z.Host
	}
	if z.Port != nil && *z.Port >= 0 {
		b.Port = *z.Port
	}
	if z.Rack != nil {
		b.Rack = *z.Rack
	}
	if z.Version.v <= 1 && len(b.Endpoints) == 0 {
		if b.Host == "" || b.Port == 0 {
			return b, errors.New("zkread: v1 broker registration without host and port")
		}
		b.Endpoints = []string{"PLAINTEXT://" + joinHostPort(b.Host, b.Port)}
	}
	if len(b.Endpoints) == 0 {
		return b, errors.New("zkread: broker registration without endpoints")
	}
	return b, checkVersion(z.Version, 1, 5)
}

func joinHostPort(h string, p int32) string {
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(int(p))
}

// ParseTopic parses /brokers/topics/<t> (v1, v2 with adding/removing
// replicas, v3 with topic_id). Partitions come back sorted.
func ParseTopic(name string, data []byte) (snapshot.Topic, error) {
	t := snapshot.Topic{Name: name, Internal: catalogue.IsInternalTopic(name)}
	z, err := decodeTopic(data)
	if err != nil {
		return t, err
	}
	if z.Partitions == nil {
		return t, errors.New("zkread: no partitions")
	}
	if z.TopicID != nil {
		t.ID = *z.TopicID
	}
	t.Partitions = make([]snapshot.Partition, 0, len(z.Partitions))
	for k, reps := range z.Partitions {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil || p < 0 {
			return t, fmt.Errorf("zkread: partition key %q is not a partition number", k)
		}
		if reps == nil {
			reps = []int32{}
		}
		t.Partitions = append(t.Partitions, snapshot.Partition{ID: int32(p), Replicas: reps, Adding: z.Adding[k], Removing: z.Removing[k]})
	}
	for _, m := range []map[string][]int32{z.Adding, z.Removing} {
		for k := range m {
			if _, ok := z.Partitions[k]; !ok {
				return t, fmt.Errorf("zkread: reassignment of partition %q, which is not in partitions", k)
			}
		}
	}
	slices.SortFunc(t.Partitions, func(a, b snapshot.Partition) int { return int(a.ID) - int(b.ID) })
	return t, checkVersion(z.Version, 1, 3)
}

// ParsePartitionState parses /brokers/topics/<t>/partitions/<p>/state; the
// partition epoch is the znode's version.
func ParsePartitionState(data []byte, znodeVersion int32) (snapshot.PartitionState, error) {
	var z struct {
		Version             flexInt `json:"version"`
		Leader              *int32  `json:"leader"`
		LeaderEpoch         *int32  `json:"leader_epoch"`
		ISR                 []int32 `json:"isr"`
		ControllerEpoch     *int32  `json:"controller_epoch"`
		LeaderRecoveryState int8    `json:"leader_recovery_state"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.PartitionState{}, err
	}
	if z.Leader == nil || z.LeaderEpoch == nil || z.ControllerEpoch == nil || z.ISR == nil {
		return snapshot.PartitionState{}, errors.New("zkread: partition state needs leader, leader_epoch, isr and controller_epoch")
	}
	s := snapshot.PartitionState{Leader: *z.Leader, LeaderEpoch: *z.LeaderEpoch, ISR: z.ISR,
		ControllerEpoch: *z.ControllerEpoch, LeaderRecoveryState: z.LeaderRecoveryState, PartitionEpoch: znodeVersion}
	return s, checkVersion(z.Version, 1, 1)
}

// ParseEntityConfig parses /config/<type>/<entity>:
// {"version":1,"config":{"k":"v",...}}. Null or empty data is an empty map,
// as ConfigEntityZNode.decode has it. Error messages never quote values.
func ParseEntityConfig(data []byte) (map[string]string, error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return map[string]string{}, nil
	}
	if z, ok := fastConfig(data); ok {
		if z.Config == nil {
			z.Config = map[string]string{}
		}
		return z.Config, checkVersion(z.Version, 1, 1)
	}
	var z configJSON
	if err := json.Unmarshal(data, &z); err != nil {
		// Say which key is not a string; never quote a value.
		var raw struct {
			Config map[string]json.RawMessage `json:"config"`
		}
		if json.Unmarshal(data, &raw) != nil {
			return nil, errors.New("zkread: bad JSON in config znode")
		}
		for _, k := range slices.Sorted(maps.Keys(raw.Config)) {
			var v string
			if json.Unmarshal(raw.Config[k], &v) != nil {
				return nil, fmt.Errorf("zkread: config %q is not a string", k)
			}
		}
		return nil, errors.New("zkread: bad config znode")
	}
	if z.Config == nil {
		z.Config = map[string]string{}
	}
	return z.Config, checkVersion(z.Version, 1, 1)
}

// ParseReassignPartitions parses the legacy /admin/reassign_partitions.
func ParseReassignPartitions(data []byte) ([]snapshot.PartitionAssignment, error) {
	var z struct {
		Version    flexInt `json:"version"`
		Partitions []struct {
			Topic     string  `json:"topic"`
			Partition *int32  `json:"partition"`
			Replicas  []int32 `json:"replicas"`
		} `json:"partitions"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return nil, err
	}
	out := make([]snapshot.PartitionAssignment, 0, len(z.Partitions))
	for _, p := range z.Partitions {
		if p.Topic == "" || p.Partition == nil {
			return nil, errors.New("zkread: entry without topic or partition")
		}
		out = append(out, snapshot.PartitionAssignment{Topic: p.Topic, Partition: *p.Partition, Replicas: p.Replicas})
	}
	return out, checkVersion(z.Version, 1, 1)
}

// ParsePartitionList parses {"version":1,"partitions":[{"topic":..,"partition":..}]}
// (/admin/preferred_replica_election and /isr_change_notification entries).
func ParsePartitionList(data []byte) ([]snapshot.TopicPartition, error) {
	var z struct {
		Version    flexInt `json:"version"`
		Partitions []struct {
			Topic     string `json:"topic"`
			Partition *int32 `json:"partition"`
		} `json:"partitions"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return nil, err
	}
	out := make([]snapshot.TopicPartition, 0, len(z.Partitions))
	for _, p := range z.Partitions {
		if p.Topic == "" || p.Partition == nil {
			return nil, errors.New("zkread: entry without topic or partition")
		}
		out = append(out, snapshot.TopicPartition{Topic: p.Topic, Partition: *p.Partition})
	}
	return out, checkVersion(z.Version, 1, 1)
}

// ParseProducerIDBlock parses /latest_producer_id_block (start and end are
// strings holding numbers).
func ParseProducerIDBlock(data []byte) (snapshot.ProducerIDBlock, error) {
	var z struct {
		Version flexInt `json:"version"`
		Broker  flexInt `json:"broker"`
		Start   flexInt `json:"block_start"`
		End     flexInt `json:"block_end"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.ProducerIDBlock{}, err
	}
	if !z.Broker.set || !z.Start.set || !z.End.set {
		return snapshot.ProducerIDBlock{}, errors.New("zkread: needs broker, block_start and block_end")
	}
	b := snapshot.ProducerIDBlock{Broker: int32(z.Broker.v), BlockStart: z.Start.v, BlockEnd: z.End.v}
	return b, checkVersion(z.Version, 1, 1)
}

// ParseDelegationToken parses /delegation_token/tokens/<id> (v1; v3 adds
// tokenRequester). Principals are desanitized; a v1 token's requester is its
// owner.
func ParseDelegationToken(id string, data []byte) (snapshot.DelegationToken, error) {
	var z struct {
		Version   flexInt  `json:"version"`
		Owner     string   `json:"owner"`
		Requester *string  `json:"tokenRequester"`
		Renewers  []string `json:"renewers"`
		Issue     flexInt  `json:"issueTimestamp"`
		Max       flexInt  `json:"maxTimestamp"`
		Expiry    flexInt  `json:"expiryTimestamp"`
		TokenID   string   `json:"tokenId"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return snapshot.DelegationToken{}, err
	}
	if z.Owner == "" || !z.Issue.set || !z.Max.set || !z.Expiry.set {
		return snapshot.DelegationToken{}, errors.New("zkread: token needs owner and issue, max and expiry timestamps")
	}
	t := snapshot.DelegationToken{TokenID: z.TokenID, IssueTimestamp: z.Issue.v, MaxTimestamp: z.Max.v, ExpiryTimestamp: z.Expiry.v}
	if t.TokenID == "" {
		t.TokenID = id
	}
	var err error
	if t.Owner, err = Desanitize(z.Owner); err != nil {
		return t, err
	}
	t.Requester = t.Owner
	if z.Requester != nil {
		if t.Requester, err = Desanitize(*z.Requester); err != nil {
			return t, err
		}
	}
	for _, r := range z.Renewers {
		d, err := Desanitize(r)
		if err != nil {
			return t, err
		}
		t.Renewers = append(t.Renewers, d)
	}
	if z.Version.set && z.Version.v == 2 {
		return t, &VersionError{Version: 2, Known: "1, 3"}
	}
	return t, checkVersion(z.Version, 1, 3)
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
