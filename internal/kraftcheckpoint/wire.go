package kraftcheckpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
)

var errShort = errors.New("truncated")

// reader decodes Kafka's wire types from a byte slice; every method fails
// rather than reading past the end.
type reader struct{ b []byte }

func (r *reader) take(n int) []byte {
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() (byte, error) {
	if len(r.b) < 1 {
		return 0, errShort
	}
	return r.take(1)[0], nil
}

func (r *reader) int16() (int16, error) {
	if len(r.b) < 2 {
		return 0, errShort
	}
	return int16(be16(r.take(2))), nil
}

func (r *reader) int32() (int32, error) {
	if len(r.b) < 4 {
		return 0, errShort
	}
	return int32(be32(r.take(4))), nil
}

func (r *reader) int64() (int64, error) {
	if len(r.b) < 8 {
		return 0, errShort
	}
	return int64(be64(r.take(8))), nil
}

// varint is a zigzag varint (records' lengths, deltas).
func (r *reader) varint() (int64, error) {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		return 0, errors.New("bad varint")
	}
	r.b = r.b[n:]
	return v, nil
}

// uvarint is an unsigned varint of at most 32 bits (compact lengths,
// frame fields, tags).
func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 0xffffffff {
		return 0, errors.New("bad unsigned varint")
	}
	r.b = r.b[n:]
	return v, nil
}

// varBytes is a record's key or value: a varint length (-1: null), then
// the bytes.
func (r *reader) varBytes() ([]byte, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n == -1 {
		return nil, nil
	}
	if n < 0 || n > int64(len(r.b)) {
		return nil, fmt.Errorf("length %d with %d bytes left", n, len(r.b))
	}
	return r.take(int(n)), nil
}

// compactBytes is a flexible-version bytes field: unsigned varint length+1.
func (r *reader) compactBytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("null, where the schema does not allow it")
	}
	n--
	if n > uint64(len(r.b)) {
		return nil, fmt.Errorf("length %d with %d bytes left", n, len(r.b))
	}
	return r.take(int(n)), nil
}

// int32Array is a flexible-version non-nullable []int32.
func (r *reader) int32Array() ([]int32, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("null array, where the schema does not allow it")
	}
	n--
	if n*4 > uint64(len(r.b)) {
		return nil, fmt.Errorf("array of %d with %d bytes left", n, len(r.b))
	}
	out := make([]int32, 0, n)
	for i := uint64(0); i < n; i++ {
		v, _ := r.int32()
		out = append(out, v)
	}
	return out, nil
}

func (r *reader) compactString() (string, error) {
	b, err := r.compactBytes()
	return string(b), err
}

// taggedFields skips a flexible message's tagged fields (none are defined
// for the records read here; unknown ones are allowed, as Kafka allows
// them).
func (r *reader) taggedFields() error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		if _, err := r.uvarint(); err != nil {
			return err
		}
		size, err := r.uvarint()
		if err != nil {
			return err
		}
		if size > uint64(len(r.b)) {
			return fmt.Errorf("tagged field of %d bytes with %d left", size, len(r.b))
		}
		r.take(int(size))
	}
	return nil
}

// writer appends Kafka's wire types.
type writer struct{ b []byte }

func (w *writer) int8(v int8)   { w.b = append(w.b, byte(v)) }
func (w *writer) int16(v int16) { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *writer) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *writer) varint(v int64) {
	w.b = binary.AppendVarint(w.b, v)
}
func (w *writer) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) compactBytes(b []byte) {
	w.uvarint(uint64(len(b)) + 1)
	w.b = append(w.b, b...)
}
func (w *writer) varBytes(b []byte) {
	if b == nil {
		w.varint(-1)
		return
	}
	w.varint(int64(len(b)))
	w.b = append(w.b, b...)
}
