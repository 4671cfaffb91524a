package snapshot

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
)

// Encode writes s as indented JSON. Secrets appear as references only. It
// marshals one topic, ACL, ... at a time, never the whole snapshot at once.
func Encode(w io.Writer, s *Snapshot) error {
	return jsonfile.EncodeIndent(w, s)
}

// Decode reads a snapshot written by Encode or Save (plain JSON, or zstd or
// gzip compressed) and checks its format version. It decodes one element of
// each list at a time, so the input is never held whole beside the model,
// and reads at most infile.Snapshot's cap of decompressed bytes.
// Kafka's password-type configs are held by reference even when the file
// holds their values (see holdSecretsByReference). The content is checked
// (Validate: legal topic names, nothing listed twice).
func Decode(r io.Reader) (*Snapshot, error) {
	c, err := infile.NewContent("", r, infile.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	defer c.Close()
	if err := c.Expect(); err != nil {
		return nil, err
	}
	return decode(c)
}

// decode reads a snapshot from its decompressed content.
func decode(r io.Reader) (*Snapshot, error) {
	var s Snapshot
	if err := jsonfile.Decode(r, &s); err != nil {
		var ie *infile.Error
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	if s.Format == 0 {
		return nil, errors.New("field format: missing; not a snapshot file written by migrate snapshot --out")
	}
	if s.Format > FormatVersion {
		return nil, fmt.Errorf("snapshot format %d not supported (this tool reads up to %d)", s.Format, FormatVersion)
	}
	holdSecretsByReference(&s)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Load reads a snapshot file (infile.OpenContent: a regular file within
// infile.Snapshot's cap, decompressed bytes included), naming the file in
// any error; an error is an *infile.Error (the file is at fault).
func Load(path string) (*Snapshot, error) {
	c, err := infile.OpenContent(path, infile.Snapshot)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Expect(); err != nil {
		return nil, err
	}
	s, err := decode(c)
	if err != nil {
		return nil, infile.Wrap(path, infile.Snapshot, fmt.Errorf("%s: %w", path, err))
	}
	return s, nil
}

// Read is Decode with name (a file name) leading every error.
func Read(name string, r io.Reader) (*Snapshot, error) {
	s, err := Decode(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Save writes a snapshot file atomically (temporary file, then rename), so a
// failed write never leaves a half-written snapshot. The file is compact
// JSON, zstd-compressed unless its name ends in .json (jsonfile.Compressed;
// `zstd -dc FILE` shows a compressed one; Load reads either whatever the
// name).
func Save(path string, s *Snapshot) error {
	return jsonfile.Write(path, 0o600, s)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return jsonfile.WriteAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Digest returns a SHA-256 over the snapshot's metadata (not its read times),
// for the audit trail. Secrets contribute their reference only.
func Digest(s *Snapshot) string {
	c := *s
	c.Read = ReadInfo{}
	h := sha256.New()
	_ = jsonfile.Encode(h, &c) // the bytes json.Encoder writes, one element at a time
	return hex.EncodeToString(h.Sum(nil))
}

// Sort puts every list of s in its canonical order, so that equal metadata
// always encodes to equal bytes.
func (s *Snapshot) Sort() {
	slices.SortFunc(s.Features, func(a, b Feature) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	for i := range s.Topics {
		t := &s.Topics[i]
		slices.SortFunc(t.Partitions, func(a, b Partition) int { return int(a.ID) - int(b.ID) })
		SortConfigs(t.Configs)
	}
	slices.SortFunc(s.Topics, func(a, b Topic) int { return strings.Compare(a.Name, b.Name) })
	for i := range s.BrokerConfigs {
		SortConfigs(s.BrokerConfigs[i].Configs)
	}
	slices.SortFunc(s.BrokerConfigs, func(a, b BrokerConfig) int { return compareBrokerNames(a.Broker, b.Broker) })
	for _, list := range [][]NamedConfigs{s.ClientMetrics, s.GroupConfigs} {
		for i := range list {
			SortConfigs(list[i].Configs)
		}
		slices.SortFunc(list, func(a, b NamedConfigs) int { return strings.Compare(a.Name, b.Name) })
	}
	slices.SortFunc(s.Quotas, func(a, b Quota) int { return strings.Compare(a.Entity.String(), b.Entity.String()) })
	for i := range s.ScramUsers {
		slices.SortFunc(s.ScramUsers[i].Credentials, func(a, b ScramCredential) int { return strings.Compare(a.Mechanism, b.Mechanism) })
	}
	slices.SortFunc(s.ScramUsers, func(a, b ScramUser) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.ACLs, CompareACLs)
	s.ACLs = slices.Compact(s.ACLs)
	slices.SortFunc(s.DelegationTokens, func(a, b DelegationToken) int { return strings.Compare(a.TokenID, b.TokenID) })
	slices.Sort(s.PendingDeletes)
	sortAssignments(s.LegacyReassignments)
	sortAssignments(s.Reassignments)
	slices.SortFunc(s.PreferredElections, func(a, b TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition) - int(b.Partition)
	})
	slices.SortFunc(s.ConsumerGroups, func(a, b LegacyConsumerGroup) int { return strings.Compare(a.Group, b.Group) })
	for i := range s.StaticConfigs {
		SortConfigs(s.StaticConfigs[i].Configs)
	}
	slices.SortFunc(s.StaticConfigs, func(a, b StaticConfig) int { return strings.Compare(a.File, b.File) })
	slices.Sort(s.Read.Changed)
	slices.SortStableFunc(s.Findings, func(a, b Finding) int {
		if c := strings.Compare(a.Resource, b.Resource); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func sortAssignments(as []PartitionAssignment) {
	slices.SortFunc(as, func(a, b PartitionAssignment) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition) - int(b.Partition)
	})
}

// compareBrokerNames orders "" (the cluster default) first, then broker ids
// numerically.
func compareBrokerNames(a, b string) int {
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	case aerr == nil && berr == nil:
		return ai - bi
	}
	return strings.Compare(a, b)
}

// SortConfigs sorts configs by key.
func SortConfigs(cs []Config) {
	slices.SortFunc(cs, func(a, b Config) int { return strings.Compare(a.Key, b.Key) })
}

// Topic returns the named topic, or nil.
func (s *Snapshot) Topic(name string) *Topic {
	i, ok := slices.BinarySearchFunc(s.Topics, name, func(t Topic, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return nil
	}
	return &s.Topics[i]
}

// ReplicationFactor returns the replica count of the first partition (the
// target count during a reassignment).
func (t *Topic) ReplicationFactor() int {
	if len(t.Partitions) == 0 {
		return 0
	}
	return len(t.Partitions[0].TargetReplicas())
}

// TargetReplicas returns the replicas the partition ends with: during a
// reassignment Replicas minus Removing, otherwise Replicas.
func (p *Partition) TargetReplicas() []int32 {
	if len(p.Removing) == 0 {
		return p.Replicas
	}
	out := make([]int32, 0, len(p.Replicas))
	for _, r := range p.Replicas {
		if !slices.Contains(p.Removing, r) {
			out = append(out, r)
		}
	}
	return out
}

// ConfigMap returns the configs as key → value (sensitive values as "").
func ConfigMap(cs []Config) map[string]string {
	m := make(map[string]string, len(cs))
	for _, c := range cs {
		m[c.Key] = c.Value
	}
	return m
}

// String renders an entity the way kafka-configs does:
// "user=alice,client-id=<default>". It identifies the entity: a name that is
// literally "<default>" renders sanitized (%3Cdefault%3E).
func (e QuotaEntity) String() string {
	var b strings.Builder
	for i, c := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.Type)
		b.WriteByte('=')
		switch {
		case c.Default:
			b.WriteString("<default>")
		case c.Name == "<default>":
			// A principal literally named <default> is written the way
			// Kafka stores it, so it never reads as the default entity.
			b.WriteString("%3Cdefault%3E")
		default:
			b.WriteString(c.Name)
		}
	}
	return b.String()
}

// CompareACLs is the one order of ACLs: by resource (CompareACLResource),
// then principal, host, operation and permission, as their Keys sort
// (without building the keys).
func CompareACLs(a, b ACL) int {
	return cmp.Or(CompareACLResource(a, b.ResourceType, b.PatternType, b.ResourceName), strings.Compare(a.Principal, b.Principal),
		strings.Compare(a.Host, b.Host), strings.Compare(a.Operation, b.Operation), strings.Compare(a.Permission, b.Permission))
}

// CompareACLResource orders a's resource against one given by its type,
// pattern type and name: the first three keys of CompareACLs.
func CompareACLResource(a ACL, typ, pattern, name string) int {
	return cmp.Or(strings.Compare(a.ResourceType, typ), strings.Compare(a.PatternType, pattern), strings.Compare(a.ResourceName, name))
}

// Key is a string that identifies the ACL exactly and sorts by resource
// first.
func (a ACL) Key() string {
	return strings.Join([]string{a.ResourceType, a.PatternType, a.ResourceName, a.Principal, a.Host, a.Operation, a.Permission}, "\x00")
}

// String renders an ACL for people: "Allow User:alice Read on Topic:LITERAL:orders from *".
func (a ACL) String() string {
	return a.Permission + " " + a.Principal + " " + a.Operation + " on " + a.ResourceType + ":" + a.PatternType + ":" + a.ResourceName + " from " + a.Host
}
