package kraftcheckpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
)

// MaxBatchBytes bounds the records of one batch this package writes
// (Kafka's own writer uses 8 MiB batches; a smaller bound keeps each well
// inside it).
const MaxBatchBytes = 1 << 20

// Bytes returns the checkpoint as it was read.
func (c *Checkpoint) Bytes() []byte {
	var out []byte
	for _, b := range c.Batches {
		out = append(out, b.raw...)
	}
	return out
}

// Validate checks a credential before it is written: a user name, a known
// mechanism, a salt, keys of the mechanism's digest size and positive
// iterations. Errors name the user and mechanism, never a key.
func (c ScramCredential) Validate() error {
	var size int
	switch c.Mechanism {
	case ScramSHA256:
		size = 32
	case ScramSHA512:
		size = 64
	default:
		return fmt.Errorf("User:%s: unknown SCRAM mechanism %d", c.Name, int8(c.Mechanism))
	}
	switch {
	case c.Name == "":
		return errors.New("a SCRAM credential without a user name")
	case len(c.Salt) == 0:
		return fmt.Errorf("User:%s %s: empty salt", c.Name, c.Mechanism)
	case len(c.StoredKey) != size || len(c.ServerKey) != size:
		return fmt.Errorf("User:%s %s: stored key of %d bytes and server key of %d bytes, want %d each", c.Name, c.Mechanism, len(c.StoredKey), len(c.ServerKey), size)
	case c.Iterations <= 0:
		return fmt.Errorf("User:%s %s: %d iterations", c.Name, c.Mechanism, c.Iterations)
	}
	return nil
}

// ScramValue is the metadata record value of a UserScramCredentialRecord
// (frame version 1, type 11, version 0).
func ScramValue(c ScramCredential) []byte {
	w := writer{}
	w.uvarint(1)
	w.uvarint(uint64(TypeUserScramCredential))
	w.uvarint(0)
	w.compactBytes([]byte(c.Name))
	w.int8(int8(c.Mechanism))
	w.compactBytes(c.Salt)
	w.compactBytes(c.StoredKey)
	w.compactBytes(c.ServerKey)
	w.int32(c.Iterations)
	w.uvarint(0) // no tagged fields
	return w.b
}

// DelegationTokenValue is the metadata record value of a
// DelegationTokenRecord (frame version 1, type 10, version 0).
func DelegationTokenValue(t DelegationToken) []byte {
	w := writer{}
	w.uvarint(1)
	w.uvarint(uint64(TypeDelegationToken))
	w.uvarint(0)
	w.compactBytes([]byte(t.Owner))
	w.compactBytes([]byte(t.Requester))
	w.uvarint(uint64(len(t.Renewers)) + 1)
	for _, r := range t.Renewers {
		w.compactBytes([]byte(r))
	}
	w.int64(t.IssueTimestamp)
	w.int64(t.MaxTimestamp)
	w.int64(t.ExpirationTime)
	w.compactBytes([]byte(t.TokenID))
	w.uvarint(0) // no tagged fields
	return w.b
}

// TopicValue is the metadata record value of a TopicRecord (version 0).
func TopicValue(t Topic) []byte {
	w := writer{}
	w.uvarint(1)
	w.uvarint(uint64(TypeTopic))
	w.uvarint(0)
	w.compactBytes([]byte(t.Name))
	w.b = append(w.b, t.ID[:]...)
	w.uvarint(0)
	return w.b
}

// PartitionValue is the metadata record value of a PartitionRecord
// (version 0: no directories, no eligible leader replicas).
func PartitionValue(p Partition) []byte {
	w := writer{}
	w.uvarint(1)
	w.uvarint(uint64(TypePartition))
	w.uvarint(0)
	w.int32(p.Partition)
	w.b = append(w.b, p.TopicID[:]...)
	for _, a := range [][]int32{p.Replicas, p.ISR, p.Removing, p.Adding} {
		w.uvarint(uint64(len(a)) + 1)
		for _, v := range a {
			w.int32(v)
		}
	}
	w.int32(p.Leader)
	w.int32(p.LeaderEpoch)
	w.int32(p.PartitionEpoch)
	w.uvarint(0)
	return w.b
}

// Append returns the checkpoint's bytes with creds added: every batch but
// the footer byte for byte, then the credentials in new data batches at the
// next offsets, then the footer batch (its record unchanged) at the offset
// after them. The checkpoint itself is not changed. Each credential must
// pass Validate.
func (c *Checkpoint) Append(creds []ScramCredential, now time.Time) ([]byte, error) {
	var values [][]byte
	for _, cr := range creds {
		if err := cr.Validate(); err != nil {
			return nil, fmt.Errorf("kraftcheckpoint: %v", err)
		}
		values = append(values, ScramValue(cr))
	}
	return c.AppendValues(values, now)
}

// AppendValues is Append for metadata record values already encoded
// (ScramValue, DelegationTokenValue).
func (c *Checkpoint) AppendValues(values [][]byte, now time.Time) ([]byte, error) {
	if len(c.Batches) < 2 {
		return nil, errors.New("kraftcheckpoint: append to a checkpoint that was not parsed")
	}
	footer := c.Batches[len(c.Batches)-1]
	var out []byte
	for _, b := range c.Batches[:len(c.Batches)-1] {
		out = append(out, b.raw...)
	}
	ts := now.UnixMilli()
	next := footer.BaseOffset
	var pending []encRecord
	size := 0
	flush := func() {
		if len(pending) == 0 {
			return
		}
		out = append(out, encodeBatch(next, footer.LeaderEpoch, false, ts, pending)...)
		next += int64(len(pending))
		pending, size = nil, 0
	}
	for _, v := range values {
		if size > 0 && size+len(v) > MaxBatchBytes {
			flush()
		}
		pending = append(pending, encRecord{value: v})
		size += len(v) + 16
	}
	flush()
	var frecs []encRecord
	for _, r := range footer.Records {
		frecs = append(frecs, encRecord{key: r.Key, value: r.Value})
	}
	out = append(out, encodeBatch(next, footer.LeaderEpoch, true, ts, frecs)...)
	return out, nil
}

type encRecord struct{ key, value []byte }

// encodeBatch writes one uncompressed v2 record batch.
func encodeBatch(base int64, epoch int32, control bool, ts int64, recs []encRecord) []byte {
	b := make([]byte, batchHeaderSize, batchHeaderSize+64*len(recs))
	binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(base))
	binary.BigEndian.PutUint32(b[offLeaderEpoch:], uint32(epoch))
	b[offMagic] = 2
	var attr uint16
	if control {
		attr |= attrControl
	}
	binary.BigEndian.PutUint16(b[offAttributes:], attr)
	binary.BigEndian.PutUint32(b[offLastOffsetDelt:], uint32(len(recs)-1))
	binary.BigEndian.PutUint64(b[offBaseTimestamp:], uint64(ts))
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(ts))
	binary.BigEndian.PutUint64(b[offProducerID:], ^uint64(0))    // -1
	binary.BigEndian.PutUint16(b[offProducerEpoch:], ^uint16(0)) // -1
	binary.BigEndian.PutUint32(b[offBaseSequence:], ^uint32(0))  // -1
	binary.BigEndian.PutUint32(b[offRecordsCount:], uint32(len(recs)))
	for i, r := range recs {
		body := writer{}
		body.int8(0)   // attributes
		body.varint(0) // timestamp delta
		body.varint(int64(i))
		body.varBytes(r.key)
		body.varBytes(r.value)
		body.varint(0) // headers
		rec := writer{b: b}
		rec.varint(int64(len(body.b)))
		b = append(rec.b, body.b...)
	}
	binary.BigEndian.PutUint32(b[offLength:], uint32(len(b)-logOverhead))
	binary.BigEndian.PutUint32(b[offCRC:], crc32.Checksum(b[offAttributes:], crc32c))
	return b
}
