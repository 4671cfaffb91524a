package zkwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ZooKeeper's jute encoding: big-endian integers, a string or buffer as
// an int32 length (-1 for null) and its bytes, a bool as one byte.

func appendInt32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func appendInt64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendString(b []byte, s string) []byte {
	b = appendInt32(b, int32(len(s)))
	return append(b, s...)
}

func appendBuffer(b []byte, p []byte) []byte {
	b = appendInt32(b, int32(len(p)))
	return append(b, p...)
}

// errShort is a reply that ends before its fields do.
var errShort = errors.New("zkwire: reply ends early")

// decoder reads jute fields from a reply, remembering the first error so
// callers check once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = errShort
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) int32() int32 {
	v := d.take(4)
	if v == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(v))
}

func (d *decoder) int64() int64 {
	v := d.take(8)
	if v == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

func (d *decoder) bool() bool {
	v := d.take(1)
	return v != nil && v[0] != 0
}

// buffer returns a copy-free slice of the reply (nil for a null buffer).
func (d *decoder) buffer() []byte {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		d.err = fmt.Errorf("zkwire: negative length %d", n)
		return nil
	}
	return d.take(int(n))
}

func (d *decoder) string() string { return string(d.buffer()) }

func (d *decoder) strings() []string {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < -1 || int(n) > len(d.b)/4 { // every string takes at least its length
		d.err = fmt.Errorf("zkwire: bad vector length %d", n)
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
	}
	return out
}

// Stat is a znode's stat as the server sends it.
type Stat struct {
	Czxid, Mzxid, Ctime, Mtime  int64
	Version, Cversion, Aversion int32
	EphemeralOwner              int64
	DataLength, NumChildren     int32
	Pzxid                       int64
}

func (d *decoder) stat() Stat {
	return Stat{Czxid: d.int64(), Mzxid: d.int64(), Ctime: d.int64(), Mtime: d.int64(),
		Version: d.int32(), Cversion: d.int32(), Aversion: d.int32(), EphemeralOwner: d.int64(),
		DataLength: d.int32(), NumChildren: d.int32(), Pzxid: d.int64()}
}
