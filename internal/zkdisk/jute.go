package zkdisk

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"path/filepath"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// maxBuffer bounds one jute buffer or string (ZooKeeper's jute.maxbuffer is
// 1 MiB by default; servers may raise it).
const maxBuffer = 256 << 20

// FormatError is a damaged or malformed file: which file, at which byte
// offset (of the decompressed stream for a compressed snapshot), and what.
type FormatError struct {
	File   string
	Offset int64
	Reason string
	// Truncated is set when the file ends inside a record (a short tail),
	// as opposed to bytes that are present but wrong.
	Truncated bool
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Reason)
}

// stream decodes jute's big-endian encoding from a reader, counting the
// offset and feeding the consumed bytes to an optional checksum.
type stream struct {
	r    *bufio.Reader
	file string
	off  int64
	left int64 // bytes left in the stream when known, else -1
	sum  hash.Hash32
	tmp  [8]byte
	cap  *budget // the bytes the whole read may still take; nil: no cap
}

func newStream(file string, r io.Reader, size int64, sum hash.Hash32) *stream {
	return &stream{r: bufio.NewReaderSize(r, 64<<10), file: file, left: size, sum: sum}
}

// DefaultMaxBytes caps what one Read takes from a data directory, the
// snapshot and the logs together, after decompression: 1 GiB. A Kafka
// cluster's metadata at 50,000 topics is a 111 MB snapshot or a 95 MB log
// (docs/benchmarks.md), about a tenth of it; a compressed snapshot
// expanding past the cap is refused before it costs more time or memory.
const DefaultMaxBytes = 1 << 30

// budget is what is left of a read's cap on the bytes it takes.
type budget struct{ cap, left int64 }

func newBudget(max int64) *budget {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	return &budget{cap: max, left: max}
}

// CapError is a read stopped by its cap on the bytes taken (Options.MaxBytes).
type CapError struct {
	File string
	Cap  int64
}

func (e *CapError) Error() string {
	return fmt.Sprintf("zookeeper data dir: %s: more than %s decompressed (cap): the snapshot and logs a read replays may take at most %s together",
		filepath.Base(e.File), infile.Size(e.Cap), infile.Size(e.Cap))
}

// take counts n more bytes against the cap, before they are read (or
// memory is allocated for them).
func (s *stream) take(n int64) error {
	if s.cap == nil {
		return nil
	}
	if n > s.cap.left {
		s.cap.left = -1
		return &CapError{File: s.file, Cap: s.cap.cap}
	}
	s.cap.left -= n
	return nil
}

func (s *stream) errorf(truncated bool, format string, args ...any) error {
	return &FormatError{File: s.file, Offset: s.off, Reason: fmt.Sprintf(format, args...), Truncated: truncated}
}

// full reads exactly len(b) bytes; a short read is a truncation error naming what.
func (s *stream) full(b []byte, what string) error {
	if err := s.take(int64(len(b))); err != nil {
		return err
	}
	n, err := io.ReadFull(s.r, b)
	if s.sum != nil {
		s.sum.Write(b[:n])
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			e := s.errorf(true, "file ends inside %s (%d of %d bytes)", what, n, len(b))
			s.off += int64(n)
			return e
		}
		return s.errorf(false, "reading %s: %v", what, err)
	}
	s.off += int64(n)
	if s.left >= 0 {
		s.left -= int64(n)
	}
	return nil
}

func (s *stream) int(what string) (int32, error) {
	if err := s.full(s.tmp[:4], what); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(s.tmp[:4])), nil
}

func (s *stream) long(what string) (int64, error) {
	if err := s.full(s.tmp[:8], what); err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(s.tmp[:8])), nil
}

// bufferLength reads a buffer's length prefix, -1 for a null buffer, and
// refuses one out of range or past the end of the file.
func (s *stream) bufferLength(what string) (int32, error) {
	at := s.off
	n, err := s.int(what + " length")
	if err != nil || n == -1 {
		return n, err
	}
	if n >= 0 && n <= maxBuffer && s.left >= 0 && int64(n) > s.left {
		return 0, &FormatError{File: s.file, Offset: at, Reason: fmt.Sprintf("file ends inside %s (%d of %d bytes)", what, s.left, n), Truncated: true}
	}
	if n < 0 || n > maxBuffer {
		return 0, &FormatError{File: s.file, Offset: at, Reason: fmt.Sprintf("%s length %d is out of range (%d bytes left)", what, n, s.left)}
	}
	return n, nil
}

// buffer reads a length-prefixed byte buffer; length -1 is null (nil). The
// length is checked against the bytes left (when known) and maxBuffer, and
// memory grows with the bytes actually read, so a lying length on a short
// file costs no more than the file.
func (s *stream) buffer(what string) ([]byte, error) {
	n, err := s.bufferLength(what)
	if err != nil || n == -1 {
		return nil, err
	}
	if n <= 64<<10 {
		b := make([]byte, n)
		return b, s.full(b, what)
	}
	if err := s.take(int64(n)); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(s.r, int64(n)))
	if s.sum != nil {
		s.sum.Write(b)
	}
	s.off += int64(len(b))
	if s.left >= 0 {
		s.left -= int64(len(b))
	}
	if err != nil {
		return nil, s.errorf(false, "reading %s: %v", what, err)
	}
	if len(b) < int(n) {
		return nil, s.errorf(true, "file ends inside %s (%d of %d bytes)", what, len(b), n)
	}
	return b, nil
}

// skipBuffer reads past a length-prefixed buffer without keeping it (the
// data of a znode left out of the tree), checksummed and counted as buffer
// counts it.
func (s *stream) skipBuffer(what string) error {
	n, err := s.bufferLength(what)
	if err != nil || n == -1 {
		return err
	}
	if err := s.take(int64(n)); err != nil {
		return err
	}
	var w io.Writer = io.Discard
	if s.sum != nil {
		w = s.sum
	}
	got, err := io.CopyN(w, s.r, int64(n))
	s.off += got
	if s.left >= 0 {
		s.left -= got
	}
	if got < int64(n) {
		if err == nil || errors.Is(err, io.EOF) {
			return s.errorf(true, "file ends inside %s (%d of %d bytes)", what, got, n)
		}
		return s.errorf(false, "reading %s: %v", what, err)
	}
	return nil
}

func (s *stream) string(what string) (string, error) {
	b, err := s.buffer(what)
	return string(b), err
}

// atEOF reports whether the stream has no more bytes.
func (s *stream) atEOF() bool {
	_, err := s.r.Peek(1)
	return err != nil
}

// slice decodes jute from a byte slice (one transaction-log entry).
type slice struct {
	b    []byte
	off  int
	file string
	base int64 // file offset of b[0], for messages
}

var errShort = errors.New("short record")

func (d *slice) errorf(format string, args ...any) error {
	return &FormatError{File: d.file, Offset: d.base + int64(d.off), Reason: fmt.Sprintf(format, args...)}
}

func (d *slice) left() int { return len(d.b) - d.off }

func (d *slice) int() (int32, error) {
	if d.left() < 4 {
		return 0, errShort
	}
	v := int32(binary.BigEndian.Uint32(d.b[d.off:]))
	d.off += 4
	return v, nil
}

func (d *slice) long() (int64, error) {
	if d.left() < 8 {
		return 0, errShort
	}
	v := int64(binary.BigEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v, nil
}

func (d *slice) bool() (bool, error) {
	if d.left() < 1 {
		return false, errShort
	}
	v := d.b[d.off] != 0
	d.off++
	return v, nil
}

// buffer returns a copy of a length-prefixed buffer (nil for length -1).
func (d *slice) buffer() ([]byte, error) {
	n, err := d.int()
	if err != nil {
		return nil, err
	}
	if n == -1 {
		return nil, nil
	}
	if n < 0 || int(n) > d.left() {
		return nil, errShort
	}
	b := append(make([]byte, 0, n), d.b[d.off:d.off+int(n)]...) // empty, not null, for length 0
	d.off += int(n)
	return b, nil
}

func (d *slice) string() (string, error) {
	n, err := d.int()
	if err != nil {
		return "", err
	}
	if n == -1 {
		return "", nil
	}
	if n < 0 || int(n) > d.left() {
		return "", errShort
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s, nil
}

// skipACLs skips a vector of ACLs (int perms, string scheme, string id).
func (d *slice) skipACLs() error {
	n, err := d.int()
	if err != nil {
		return err
	}
	if n == -1 {
		return nil
	}
	if n < 0 || int64(n)*12 > int64(d.left()) {
		return errShort
	}
	for range n {
		if _, err := d.int(); err != nil {
			return err
		}
		if _, err := d.string(); err != nil {
			return err
		}
		if _, err := d.string(); err != nil {
			return err
		}
	}
	return nil
}
