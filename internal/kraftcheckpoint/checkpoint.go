// Package kraftcheckpoint reads and extends a KRaft controller's bootstrap
// checkpoint (bootstrap.checkpoint, written by `kafka-storage format`): the
// metadata records a cluster whose metadata log is empty replays at its
// first start.
//
// The file is a KRaft snapshot: record batches of format v2 (CRC32C,
// varint records) starting at offset 0, a control batch with a
// SnapshotHeaderRecord first, data batches of metadata records (each value
// an unsigned-varint frame version, record type and record version, then
// the record), and a control batch with a SnapshotFooterRecord last. The
// reader is strict: a file it cannot parse completely (a bad CRC, a
// truncated batch, a record type or version it does not know) is an error,
// never a partial result.
package kraftcheckpoint

import (
	"errors"
	"fmt"
	"hash/crc32"
)

// FileName is the bootstrap checkpoint's name in a metadata log directory.
const FileName = "bootstrap.checkpoint"

// Metadata record types (apiKey of the metadata record schemas) that a
// bootstrap checkpoint holds.
const (
	TypeTopic               int16 = 2
	TypePartition           int16 = 3
	TypeDelegationToken     int16 = 10
	TypeUserScramCredential int16 = 11
	TypeFeatureLevel        int16 = 12
)

// Control record types (the key of a control record).
const (
	ControlSnapshotHeader int16 = 3
	ControlSnapshotFooter int16 = 4
)

// MetadataVersionFeature is the feature whose level is the metadata.version.
const MetadataVersionFeature = "metadata.version"

// MinScramMetadataVersion is the first metadata.version level with SCRAM
// records (3.5-IV2), as `kafka-storage format --add-scram` requires.
const MinScramMetadataVersion int16 = 11

// MinDelegationTokenMetadataVersion is the first metadata.version level with
// delegation tokens in KRaft (3.6-IV2).
const MinDelegationTokenMetadataVersion int16 = 14

// Checkpoint is a parsed bootstrap checkpoint. Batches hold the bytes they
// were read from, so that writing the checkpoint back keeps every record
// byte for byte.
type Checkpoint struct {
	Batches []Batch
}

// Batch is one record batch.
type Batch struct {
	Pos         int   // byte position in the file
	BaseOffset  int64 // offset of its first record
	LeaderEpoch int32
	Control     bool
	Records     []Record
	raw         []byte
}

// LastOffset is the offset of the batch's last record.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(len(b.Records)) - 1 }

// Record is one record of a batch: a control record (Control is its type)
// or a metadata record (Type and Version from its frame, and the decoded
// record when the type is one a bootstrap checkpoint holds).
type Record struct {
	Offset  int64
	Control int16 // control record type; 0 for a metadata record
	Type    int16 // metadata record type (apiKey)
	Version int16
	Key     []byte // the record's key (control records only)
	Value   []byte // the record's value as read

	Feature *FeatureLevel    // TypeFeatureLevel
	Scram   *ScramCredential // TypeUserScramCredential
	Token   *DelegationToken // TypeDelegationToken
	Topic   *Topic           // TypeTopic
	Part    *Partition       // TypePartition
}

// Topic is a TopicRecord: a topic's name and id.
type Topic struct {
	Name string
	ID   [16]byte
}

// Partition is a PartitionRecord (version 0): a partition's assignment and
// leadership at bootstrap.
type Partition struct {
	Partition        int32
	TopicID          [16]byte
	Replicas, ISR    []int32
	Removing, Adding []int32
	Leader           int32
	LeaderEpoch      int32
	PartitionEpoch   int32
}

// DelegationToken is a DelegationTokenRecord: a token's metadata. The
// token's HMAC is not in it: Kafka derives it from the token id and
// delegation.token.secret.key.
type DelegationToken struct {
	Owner, Requester string // principals, User:alice
	Renewers         []string
	IssueTimestamp   int64
	MaxTimestamp     int64
	ExpirationTime   int64
	TokenID          string
}

// FeatureLevel is a FeatureLevelRecord.
type FeatureLevel struct {
	Name  string
	Level int16
}

// Mechanism is a SCRAM mechanism as UserScramCredentialRecord numbers it.
type Mechanism int8

// The SCRAM mechanisms.
const (
	ScramSHA256 Mechanism = 1
	ScramSHA512 Mechanism = 2
)

// ParseMechanism returns the mechanism for its Kafka name (SCRAM-SHA-256).
func ParseMechanism(name string) (Mechanism, bool) {
	switch name {
	case "SCRAM-SHA-256":
		return ScramSHA256, true
	case "SCRAM-SHA-512":
		return ScramSHA512, true
	}
	return 0, false
}

// String is Kafka's name of the mechanism.
func (m Mechanism) String() string {
	switch m {
	case ScramSHA256:
		return "SCRAM-SHA-256"
	case ScramSHA512:
		return "SCRAM-SHA-512"
	}
	return fmt.Sprintf("mechanism %d", int8(m))
}

// ScramCredential is a UserScramCredentialRecord. Salt, StoredKey and
// ServerKey are secret: String, GoString and Format print the user and
// mechanism only.
type ScramCredential struct {
	Name       string
	Mechanism  Mechanism
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int32
}

// String names the user and mechanism, never the keys.
func (c ScramCredential) String() string {
	return fmt.Sprintf("User:%s %s (%d iterations)", c.Name, c.Mechanism, c.Iterations)
}

// GoString is String.
func (c ScramCredential) GoString() string { return c.String() }

// Format makes every fmt verb print String, including %+v and %#v.
func (c ScramCredential) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// Scram returns the checkpoint's SCRAM credentials in file order.
func (c *Checkpoint) Scram() []ScramCredential {
	var out []ScramCredential
	for _, b := range c.Batches {
		for _, r := range b.Records {
			if r.Scram != nil {
				out = append(out, *r.Scram)
			}
		}
	}
	return out
}

// Tokens returns the checkpoint's delegation tokens in file order.
func (c *Checkpoint) Tokens() []DelegationToken {
	var out []DelegationToken
	for _, b := range c.Batches {
		for _, r := range b.Records {
			if r.Token != nil {
				out = append(out, *r.Token)
			}
		}
	}
	return out
}

// Topics returns the checkpoint's topics in file order.
func (c *Checkpoint) Topics() []Topic {
	var out []Topic
	for _, b := range c.Batches {
		for _, r := range b.Records {
			if r.Topic != nil {
				out = append(out, *r.Topic)
			}
		}
	}
	return out
}

// Features returns the checkpoint's feature levels in file order.
func (c *Checkpoint) Features() []FeatureLevel {
	var out []FeatureLevel
	for _, b := range c.Batches {
		for _, r := range b.Records {
			if r.Feature != nil {
				out = append(out, *r.Feature)
			}
		}
	}
	return out
}

// MetadataVersion returns the metadata.version level the checkpoint sets.
func (c *Checkpoint) MetadataVersion() (int16, bool) {
	for _, f := range c.Features() {
		if f.Name == MetadataVersionFeature {
			return f.Level, true
		}
	}
	return 0, false
}

// Records returns every metadata (non-control) record in file order.
func (c *Checkpoint) Records() []Record {
	var out []Record
	for _, b := range c.Batches {
		if !b.Control {
			out = append(out, b.Records...)
		}
	}
	return out
}

// RecordTypeName is the schema name of a metadata record type, or "type N".
func RecordTypeName(t int16) string {
	if n, ok := recordNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", t)
}

// recordNames are the metadata record schemas of Kafka 4.1
// (metadata/src/main/resources/common/metadata/*.json), for display.
var recordNames = map[int16]string{
	0: "RegisterBrokerRecord", 1: "UnregisterBrokerRecord", 2: "TopicRecord", 3: "PartitionRecord",
	4: "ConfigRecord", 5: "PartitionChangeRecord", 7: "FenceBrokerRecord", 8: "UnfenceBrokerRecord",
	9: "RemoveTopicRecord", 10: "DelegationTokenRecord", 11: "UserScramCredentialRecord", 12: "FeatureLevelRecord",
	14: "ClientQuotaRecord", 15: "ProducerIdsRecord", 17: "BrokerRegistrationChangeRecord",
	18: "AccessControlEntryRecord", 19: "RemoveAccessControlEntryRecord", 20: "NoOpRecord",
	21: "ZkMigrationStateRecord", 22: "RemoveUserScramCredentialRecord", 23: "BeginTransactionRecord",
	24: "EndTransactionRecord", 25: "AbortTransactionRecord", 26: "RemoveDelegationTokenRecord",
	27: "RegisterControllerRecord",
}

// Batch layout (record batch format v2, DefaultRecordBatch).
const (
	offBaseOffset     = 0
	offLength         = 8
	offLeaderEpoch    = 12
	offMagic          = 16
	offCRC            = 17
	offAttributes     = 21
	offLastOffsetDelt = 23
	offBaseTimestamp  = 27
	offMaxTimestamp   = 35
	offProducerID     = 43
	offProducerEpoch  = 51
	offBaseSequence   = 53
	offRecordsCount   = 57
	batchHeaderSize   = 61
	logOverhead       = 12 // base offset and length

	attrCompression   = 0x07
	attrTransactional = 0x10
	attrControl       = 0x20
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// ErrEmpty is returned for a file without any batch.
var ErrEmpty = errors.New("kraftcheckpoint: the file holds no record batch (an empty or truncated bootstrap checkpoint)")

// Parse reads a whole bootstrap checkpoint. Every batch must be intact
// (length, magic 2, CRC32C, uncompressed), offsets must run from 0 without
// a gap, the first batch must be the snapshot header and the last the
// snapshot footer, and every metadata record must be a type and version
// this package knows (FeatureLevelRecord, UserScramCredentialRecord,
// DelegationTokenRecord, TopicRecord and PartitionRecord, version 0). Errors name the batch's byte position and the offset.
func Parse(data []byte) (*Checkpoint, error) {
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	c := &Checkpoint{}
	next := int64(0)
	for pos := 0; pos < len(data); {
		b, n, err := parseBatch(data, pos)
		if err != nil {
			return nil, err
		}
		if b.BaseOffset != next {
			return nil, fmt.Errorf("kraftcheckpoint: batch at byte %d starts at offset %d, want %d (offsets must run from 0 without a gap)", pos, b.BaseOffset, next)
		}
		next = b.LastOffset() + 1
		c.Batches = append(c.Batches, b)
		pos += n
	}
	first, last := c.Batches[0], c.Batches[len(c.Batches)-1]
	if !first.Control || first.Records[0].Control != ControlSnapshotHeader {
		return nil, errors.New("kraftcheckpoint: the first batch is not the snapshot header (not a bootstrap checkpoint)")
	}
	if len(c.Batches) < 2 || !last.Control || last.Records[len(last.Records)-1].Control != ControlSnapshotFooter {
		return nil, errors.New("kraftcheckpoint: the last batch is not the snapshot footer (a truncated bootstrap checkpoint)")
	}
	for i, b := range c.Batches {
		for j, r := range b.Records {
			switch {
			case r.Control == ControlSnapshotHeader && (i != 0 || j != 0):
				return nil, fmt.Errorf("kraftcheckpoint: a second snapshot header at offset %d", r.Offset)
			case r.Control == ControlSnapshotFooter && (i != len(c.Batches)-1 || j != len(b.Records)-1):
				return nil, fmt.Errorf("kraftcheckpoint: a snapshot footer at offset %d before the end", r.Offset)
			}
		}
	}
	return c, nil
}

// parseBatch reads the batch at pos and returns it with its size in bytes.
func parseBatch(data []byte, pos int) (Batch, int, error) {
	fail := func(format string, args ...any) (Batch, int, error) {
		return Batch{}, 0, fmt.Errorf("kraftcheckpoint: batch at byte %d: %s", pos, fmt.Sprintf(format, args...))
	}
	d := data[pos:]
	if len(d) < batchHeaderSize {
		return fail("truncated: %d bytes left, a batch header is %d", len(d), batchHeaderSize)
	}
	length := int64(be32(d[offLength:]))
	if length < batchHeaderSize-logOverhead {
		return fail("length %d is shorter than a batch header", length)
	}
	size := logOverhead + length
	if size > int64(len(d)) {
		return fail("truncated: length %d, but only %d bytes follow", length, len(d)-logOverhead)
	}
	d = d[:size]
	b := Batch{Pos: pos, BaseOffset: int64(be64(d[offBaseOffset:])), LeaderEpoch: int32(be32(d[offLeaderEpoch:])), raw: d}
	if d[offMagic] != 2 {
		return fail("magic %d, want 2 (record batch format v2)", d[offMagic])
	}
	if got, want := crc32.Checksum(d[offAttributes:], crc32c), be32(d[offCRC:]); got != want {
		return fail("CRC32C mismatch (stored %08x, computed %08x): the file is corrupt", want, got)
	}
	attr := be16(d[offAttributes:])
	if attr&attrCompression != 0 {
		return fail("compressed (codec %d); kafka-storage writes bootstrap checkpoints uncompressed", attr&attrCompression)
	}
	if attr&attrTransactional != 0 {
		return fail("transactional; a bootstrap checkpoint has no transactional batch")
	}
	b.Control = attr&attrControl != 0
	count := int32(be32(d[offRecordsCount:]))
	lastDelta := int32(be32(d[offLastOffsetDelt:]))
	if count <= 0 || count != lastDelta+1 {
		return fail("%d records with last offset delta %d", count, lastDelta)
	}
	if b.BaseOffset < 0 {
		return fail("negative base offset %d", b.BaseOffset)
	}
	r := reader{b: d[batchHeaderSize:]}
	for i := int32(0); i < count; i++ {
		rec, err := parseRecord(&r, b.Control)
		if err != nil {
			return fail("offset %d: %v", b.BaseOffset+int64(i), err)
		}
		if rec.Offset != int64(i) {
			return fail("record %d has offset delta %d", i, rec.Offset)
		}
		rec.Offset = b.BaseOffset + int64(i)
		b.Records = append(b.Records, rec)
	}
	if len(r.b) != 0 {
		return fail("%d bytes after the last of its %d records", len(r.b), count)
	}
	return b, int(size), nil
}

// parseRecord reads one record (DefaultRecord): its Offset is the offset
// delta.
func parseRecord(r *reader, control bool) (Record, error) {
	var rec Record
	n, err := r.varint()
	if err != nil {
		return rec, fmt.Errorf("record length: %v", err)
	}
	if n <= 0 || n > int64(len(r.b)) {
		return rec, fmt.Errorf("record length %d with %d bytes left", n, len(r.b))
	}
	rr := reader{b: r.take(int(n))}
	if _, err := rr.byte(); err != nil { // attributes (unused)
		return rec, err
	}
	if _, err := rr.varint(); err != nil {
		return rec, fmt.Errorf("timestamp delta: %v", err)
	}
	delta, err := rr.varint()
	if err != nil {
		return rec, fmt.Errorf("offset delta: %v", err)
	}
	rec.Offset = delta
	key, err := rr.varBytes()
	if err != nil {
		return rec, fmt.Errorf("key: %v", err)
	}
	value, err := rr.varBytes()
	if err != nil {
		return rec, fmt.Errorf("value: %v", err)
	}
	headers, err := rr.varint()
	if err != nil || headers != 0 {
		return rec, fmt.Errorf("%d headers; a bootstrap checkpoint's records have none", headers)
	}
	if len(rr.b) != 0 {
		return rec, fmt.Errorf("%d bytes after the record", len(rr.b))
	}
	if value == nil {
		return rec, errors.New("no value")
	}
	rec.Value = value
	if control {
		return rec, parseControl(&rec, key)
	}
	if key != nil {
		return rec, errors.New("a metadata record with a key")
	}
	return rec, parseMetadata(&rec)
}

// parseControl decodes a control record's key (version, type) and value.
func parseControl(rec *Record, key []byte) error {
	if len(key) != 4 {
		return fmt.Errorf("control record key of %d bytes, want 4", len(key))
	}
	if v := be16(key); v != 0 {
		return fmt.Errorf("control record key version %d, want 0", v)
	}
	rec.Key, rec.Control = key, int16(be16(key[2:]))
	r := reader{b: rec.Value}
	switch rec.Control {
	case ControlSnapshotHeader, ControlSnapshotFooter:
	default:
		return fmt.Errorf("control record type %d; a bootstrap checkpoint holds only the snapshot header (3) and footer (4)", rec.Control)
	}
	if _, err := r.int16(); err != nil { // the header's or footer's own version
		return err
	}
	if rec.Control == ControlSnapshotHeader {
		if _, err := r.int64(); err != nil { // last contained log timestamp
			return err
		}
	}
	if err := r.taggedFields(); err != nil {
		return err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the control record", len(r.b))
	}
	return nil
}

// knownType reports whether the reader decodes records of type t.
func knownType(t int16) bool {
	switch t {
	case TypeFeatureLevel, TypeUserScramCredential, TypeDelegationToken, TypeTopic, TypePartition:
		return true
	}
	return false
}

// parseMetadata decodes a metadata record's frame and, for the types a
// bootstrap checkpoint holds, the record.
func parseMetadata(rec *Record) error {
	r := reader{b: rec.Value}
	frame, err := r.uvarint()
	if err != nil {
		return fmt.Errorf("frame version: %v", err)
	}
	if frame != 1 {
		return fmt.Errorf("frame version %d, want 1", frame)
	}
	typ, err := r.uvarint()
	if err != nil || typ > 0x7fff {
		return fmt.Errorf("record type: bad varint")
	}
	ver, err := r.uvarint()
	if err != nil || ver > 0x7fff {
		return fmt.Errorf("record version: bad varint")
	}
	rec.Type, rec.Version = int16(typ), int16(ver)
	if !knownType(rec.Type) || rec.Version != 0 {
		return fmt.Errorf("%s version %d: not a record this tool knows in a bootstrap checkpoint (it reads FeatureLevelRecord, UserScramCredentialRecord, DelegationTokenRecord, TopicRecord and PartitionRecord, version 0)", RecordTypeName(rec.Type), rec.Version)
	}
	switch rec.Type {
	case TypeFeatureLevel:
		var f FeatureLevel
		if f.Name, err = r.compactString(); err != nil {
			return fmt.Errorf("FeatureLevelRecord name: %v", err)
		}
		if f.Level, err = r.int16(); err != nil {
			return fmt.Errorf("FeatureLevelRecord level: %v", err)
		}
		rec.Feature = &f
	case TypeUserScramCredential:
		var c ScramCredential
		if c.Name, err = r.compactString(); err != nil {
			return fmt.Errorf("UserScramCredentialRecord name: %v", err)
		}
		m, err := r.byte()
		if err != nil {
			return fmt.Errorf("UserScramCredentialRecord mechanism: %v", err)
		}
		c.Mechanism = Mechanism(m)
		if c.Mechanism != ScramSHA256 && c.Mechanism != ScramSHA512 {
			return fmt.Errorf("UserScramCredentialRecord for User:%s: unknown mechanism %d", c.Name, m)
		}
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{"salt", &c.Salt}, {"stored key", &c.StoredKey}, {"server key", &c.ServerKey}} {
			if *f.dst, err = r.compactBytes(); err != nil {
				return fmt.Errorf("UserScramCredentialRecord for User:%s: %s: %v", c.Name, f.name, err)
			}
		}
		if c.Iterations, err = r.int32(); err != nil {
			return fmt.Errorf("UserScramCredentialRecord for User:%s: iterations: %v", c.Name, err)
		}
		rec.Scram = &c
	case TypeDelegationToken:
		var t DelegationToken
		if t.Owner, err = r.compactString(); err != nil {
			return fmt.Errorf("DelegationTokenRecord owner: %v", err)
		}
		if t.Requester, err = r.compactString(); err != nil {
			return fmt.Errorf("DelegationTokenRecord requester: %v", err)
		}
		n, err := r.uvarint()
		if err != nil || n == 0 || n-1 > uint64(len(r.b)) {
			return fmt.Errorf("DelegationTokenRecord renewers: bad array length")
		}
		for i := uint64(0); i < n-1; i++ {
			s, err := r.compactString()
			if err != nil {
				return fmt.Errorf("DelegationTokenRecord renewer %d: %v", i, err)
			}
			t.Renewers = append(t.Renewers, s)
		}
		for _, f := range []*int64{&t.IssueTimestamp, &t.MaxTimestamp, &t.ExpirationTime} {
			if *f, err = r.int64(); err != nil {
				return fmt.Errorf("DelegationTokenRecord timestamps: %v", err)
			}
		}
		if t.TokenID, err = r.compactString(); err != nil {
			return fmt.Errorf("DelegationTokenRecord token id: %v", err)
		}
		rec.Token = &t
	case TypeTopic:
		var tp Topic
		if tp.Name, err = r.compactString(); err != nil {
			return fmt.Errorf("TopicRecord name: %v", err)
		}
		if len(r.b) < 16 {
			return errors.New("TopicRecord id: truncated")
		}
		copy(tp.ID[:], r.take(16))
		rec.Topic = &tp
	case TypePartition:
		var p Partition
		if p.Partition, err = r.int32(); err != nil {
			return fmt.Errorf("PartitionRecord id: %v", err)
		}
		if len(r.b) < 16 {
			return errors.New("PartitionRecord topic id: truncated")
		}
		copy(p.TopicID[:], r.take(16))
		for _, dst := range []*[]int32{&p.Replicas, &p.ISR, &p.Removing, &p.Adding} {
			if *dst, err = r.int32Array(); err != nil {
				return fmt.Errorf("PartitionRecord %d: %v", p.Partition, err)
			}
		}
		for _, dst := range []*int32{&p.Leader, &p.LeaderEpoch, &p.PartitionEpoch} {
			if *dst, err = r.int32(); err != nil {
				return fmt.Errorf("PartitionRecord %d: %v", p.Partition, err)
			}
		}
		rec.Part = &p
	}
	if err := r.taggedFields(); err != nil {
		return fmt.Errorf("%s: tagged fields: %v", RecordTypeName(rec.Type), err)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%s: %d bytes after the record", RecordTypeName(rec.Type), len(r.b))
	}
	return nil
}

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }
func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be64(b []byte) uint64 { return uint64(be32(b))<<32 | uint64(be32(b[4:])) }
