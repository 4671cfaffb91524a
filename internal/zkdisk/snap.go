package zkdisk

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/maphash"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/snappy"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// File magics (FileHeader.magic) and the one format version ZooKeeper 3.4–3.9 write.
const (
	snapMagic   = 0x5a4b534e // "ZKSN"
	logMagic    = 0x5a4b4c47 // "ZKLG"
	fileVersion = 2
)

// Node is one znode as ZooKeeper persists it (DataNode with StatPersisted).
type Node struct {
	Data           []byte
	ACL            int64 // reference into the snapshot's ACL cache
	Czxid, Mzxid   int64
	Ctime, Mtime   int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	Pzxid          int64
}

// Snapshot is one parsed snapshot file.
type Snapshot struct {
	File string
	// Zxid is the last zxid applied when ZooKeeper began writing the
	// snapshot (from the file name). The snapshot is fuzzy: transactions
	// after it may be partly in it.
	Zxid     int64
	DBID     int64
	Sessions int
	// Nodes maps each absolute path ("/" for the root) to its znode.
	Nodes map[string]*Node
	// LastProcessedZxid is the last zxid applied when ZooKeeper finished
	// writing (3.9+ records it; 0 when absent).
	LastProcessedZxid int64
	// Digest is set when the snapshot holds the tree digest record 3.6+
	// writes, DigestZxid its zxid (0 for the empty digest ZooKeeper writes
	// when it has computed none).
	Digest     bool
	DigestZxid int64
	// Newest is the latest creation or change time (Unix ms) of any
	// znode in the file.
	Newest int64
	// statZxid is the highest zxid in any znode's stat (czxid, mzxid,
	// pzxid), of every znode in the file, those left out of Nodes too.
	statZxid int64
	// dropped holds the znodes in the file left out of Nodes (by path
	// hash), droppedOwners the ephemeral ones and their sessions.
	dropped       pathSet
	droppedOwners map[string]int64
}

// pathSet is a set of paths held as 64-bit hashes: what the replay needs
// to know of a znode it leaves out of the tree is only that it exists
// (a create below it applies, a second create of it does not), at 8 bytes
// and a map slot a znode instead of its path and data.
type pathSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
}

func (s *pathSet) hash(p string) uint64 {
	if s.m == nil {
		s.seed, s.m = maphash.MakeSeed(), map[uint64]struct{}{}
	}
	return maphash.String(s.seed, p)
}

func (s *pathSet) add(p string) { s.m[s.hash(p)] = struct{}{} }

func (s *pathSet) has(p string) bool {
	if len(s.m) == 0 {
		return false
	}
	_, ok := s.m[s.hash(p)]
	return ok
}

func (s *pathSet) remove(p string) {
	if len(s.m) > 0 {
		delete(s.m, s.hash(p))
	}
}

// compression returns how a snapshot file is compressed, from its suffix
// as ZooKeeper's SnapStream decides it.
func compression(name string) string {
	switch {
	case strings.HasSuffix(name, ".gz"):
		return "gz"
	case strings.HasSuffix(name, ".snappy"):
		return "snappy"
	}
	return ""
}

// ReadSnapshotFile parses a snapshot file, verifying its checksum, whole
// (under DefaultMaxBytes).
func ReadSnapshotFile(path string) (*Snapshot, error) {
	return readSnapshotFile(path, nil, newBudget(0))
}

// readSnapshotFile parses a snapshot file keeping in Nodes only the znodes
// keep reports (nil: all), under the read's budget.
func readSnapshotFile(path string, keep func(string) bool, b *budget) (*Snapshot, error) {
	f, err := infile.Open(path, infile.ZKSnapshot) // a regular file, read-only
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	s, err := parseSnapshot(path, f, fi.Size(), keep, b)
	if err != nil {
		return nil, err
	}
	s.Zxid, _ = zxidFromName(fileBase(path), "snapshot")
	return s, nil
}

// ParseSnapshot parses a snapshot from r; name (a file name) picks the
// decompression by its suffix and names the file in errors; size is the
// file's size, bounding lengths in an uncompressed file. At most
// DefaultMaxBytes are read (decompressed); more is a *CapError.
func ParseSnapshot(name string, r io.Reader, size int64) (*Snapshot, error) {
	return parseSnapshot(name, r, size, nil, newBudget(0))
}

// parseSnapshot is ParseSnapshot keeping only the znodes keep reports (nil:
// all) in Nodes, the others only counted (their zxids, their existence),
// under budget b.
func parseSnapshot(name string, r io.Reader, size int64, keep func(string) bool, b *budget) (*Snapshot, error) {
	left := size
	switch compression(name) {
	case "gz":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, &FormatError{File: name, Reason: "not a gzip stream: " + err.Error()}
		}
		defer zr.Close()
		r, left = zr, -1
	case "snappy":
		r, left = newXerialReader(name, r), -1
	}
	sum := adler32.New()
	st := newStream(name, r, left, sum)
	st.cap = b
	snap := &Snapshot{File: name, Nodes: map[string]*Node{}}
	exists := func(p string) bool {
		_, ok := snap.Nodes[p]
		return ok || snap.dropped.has(p)
	}

	magic, err := st.int("file header magic")
	if err != nil {
		return nil, err
	}
	if magic != snapMagic {
		return nil, &FormatError{File: name, Reason: fmt.Sprintf("not a ZooKeeper snapshot: magic %#x, want %#x (ZKSN)", uint32(magic), snapMagic)}
	}
	ver, err := st.int("file header version")
	if err != nil {
		return nil, err
	}
	if ver != fileVersion {
		return nil, &FormatError{File: name, Offset: 4, Reason: fmt.Sprintf("snapshot format version %d; ZooKeeper 3.4-3.9 write %d", ver, fileVersion)}
	}
	if snap.DBID, err = st.long("file header dbid"); err != nil {
		return nil, err
	}

	// Sessions: count, then (id, timeout) pairs.
	n, err := st.int("session count")
	if err != nil {
		return nil, err
	}
	if n < 0 || (st.left >= 0 && int64(n)*12 > st.left) {
		return nil, st.errorf(false, "session count %d is out of range", n)
	}
	for range n {
		if _, err := st.long("session id"); err != nil {
			return nil, err
		}
		if _, err := st.int("session timeout"); err != nil {
			return nil, err
		}
	}
	snap.Sessions = int(n)

	// ACL cache: count, then (ref, vector<ACL>). Kept out of the tree: the
	// reader works on data and stat.
	if n, err = st.int("ACL cache size"); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, st.errorf(false, "ACL cache size %d is negative", n)
	}
	for range n {
		if _, err := st.long("ACL reference"); err != nil {
			return nil, err
		}
		m, err := st.int("ACL list length")
		if err != nil {
			return nil, err
		}
		if m < -1 {
			return nil, st.errorf(false, "ACL list length %d is negative", m)
		}
		for range m {
			if _, err := st.int("ACL perms"); err != nil {
				return nil, err
			}
			if _, err := st.string("ACL scheme"); err != nil {
				return nil, err
			}
			if _, err := st.string("ACL id"); err != nil {
				return nil, err
			}
		}
	}

	// Nodes in pre-order, the root as "", ended by the path "/".
	for {
		at := st.off
		p, err := st.string("znode path")
		if err != nil {
			return nil, err
		}
		if p == "/" {
			break
		}
		if p == "" {
			p = "/"
		}
		// Left out while parsed: its data is read past, its stat counted.
		kept := keep == nil || keep(p)
		nd, err := readNode(st, kept)
		if err != nil {
			return nil, err
		}
		snap.Newest = max(snap.Newest, nd.Ctime, nd.Mtime)
		snap.statZxid = max(snap.statZxid, nd.Czxid, nd.Mzxid, nd.Pzxid)
		if p != "/" {
			if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
				return nil, &FormatError{File: name, Offset: at, Reason: fmt.Sprintf("bad znode path %q", p)}
			}
			if !exists(parentOf(p)) {
				return nil, &FormatError{File: name, Offset: at, Reason: fmt.Sprintf("znode %s comes before its parent", p)}
			}
		}
		if exists(p) {
			return nil, &FormatError{File: name, Offset: at, Reason: fmt.Sprintf("znode %s appears twice", p)}
		}
		if kept {
			snap.Nodes[p] = nd
			continue
		}
		snap.dropped.add(p)
		if nd.EphemeralOwner != 0 {
			if snap.droppedOwners == nil {
				snap.droppedOwners = map[string]int64{}
			}
			snap.droppedOwners[p] = nd.EphemeralOwner
		}
	}
	if !exists("/") {
		return nil, st.errorf(false, "snapshot has no root znode")
	}
	if err := seal(st, sum); err != nil {
		return nil, err
	}
	if err := trailer(st, sum, snap); err != nil {
		return nil, err
	}
	return snap, nil
}

// readNode reads a znode's data and stat; without keepData the data is
// read past, not kept.
func readNode(st *stream, keepData bool) (*Node, error) {
	var nd Node
	var err error
	if !keepData {
		err = st.skipBuffer("znode data")
	} else {
		nd.Data, err = st.buffer("znode data")
	}
	if err != nil {
		return nil, err
	}
	longs := []*int64{&nd.ACL, &nd.Czxid, &nd.Mzxid, &nd.Ctime, &nd.Mtime}
	for _, p := range longs {
		if *p, err = st.long("znode stat"); err != nil {
			return nil, err
		}
	}
	for _, p := range []*int32{&nd.Version, &nd.Cversion, &nd.Aversion} {
		if *p, err = st.int("znode stat"); err != nil {
			return nil, err
		}
	}
	if nd.EphemeralOwner, err = st.long("znode stat"); err != nil {
		return nil, err
	}
	if nd.Pzxid, err = st.long("znode stat"); err != nil {
		return nil, err
	}
	return &nd, nil
}

// seal checks the Adler32 checksum of everything read so far against the
// value that follows it (a long, then the string "/").
func seal(st *stream, sum interface{ Sum32() uint32 }) error {
	want := int64(sum.Sum32())
	at := st.off
	got, err := st.long("checksum")
	if err != nil {
		return err
	}
	p, err := st.string("checksum terminator")
	if err != nil {
		return err
	}
	if p != "/" {
		return &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("checksum terminator %q, want \"/\"", p)}
	}
	if got != want {
		return &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("checksum mismatch: file says %#x, content sums to %#x", got, want)}
	}
	return nil
}

// trailer reads what 3.6+ may write after the first seal, each part sealed
// again: the tree digest (zxid, version, digest), then 3.9's last processed
// zxid. Which parts are present depends on server settings, so each is
// told apart by its own checksum. The rest is at most a few dozen bytes.
func trailer(st *stream, sum interface{ Sum32() uint32 }, snap *Snapshot) error {
	rest, err := io.ReadAll(io.LimitReader(st.r, 4096))
	if err != nil {
		return st.errorf(false, "reading the snapshot trailer: %v", err)
	}
	if len(rest) == 4096 {
		return st.errorf(false, "unexpected bytes after the snapshot's checksum")
	}
	// sum is the running checksum up to here: continue it over the trailer.
	running := func(b []byte) uint32 { return adler32Update(sum.Sum32(), b) }
	off := 0
	sealed := func(end int) bool { // rest[off:end] followed by a valid seal
		if end+13 > len(rest) {
			return false
		}
		v := int64(binary.BigEndian.Uint64(rest[end:]))
		if binary.BigEndian.Uint32(rest[end+8:]) != 1 || rest[end+12] != '/' {
			return false
		}
		return v == int64(running(rest[:end]))
	}
	if off < len(rest) {
		// Digest: zxid, version, then a long (version ≥ 2) or a hex string.
		if len(rest) >= 12 {
			ver := int32(binary.BigEndian.Uint32(rest[8:]))
			end := 20
			if ver < 2 && len(rest) >= 16 {
				n := int(int32(binary.BigEndian.Uint32(rest[12:])))
				end = 16 + max(n, 0)
			}
			if sealed(end) {
				snap.Digest, snap.DigestZxid = true, int64(binary.BigEndian.Uint64(rest))
				off = end + 13
			}
		}
		if off+8+13 <= len(rest) && sealed(off+8) {
			snap.LastProcessedZxid = int64(binary.BigEndian.Uint64(rest[off:]))
			off += 8 + 13
		}
	}
	if off != len(rest) {
		return &FormatError{File: st.file, Offset: st.off + int64(off), Reason: fmt.Sprintf("%d bytes after the checksum that are neither a sealed digest nor a sealed last zxid", len(rest)-off)}
	}
	return nil
}

// adler32Update continues an Adler-32 checksum over more bytes.
func adler32Update(sum uint32, b []byte) uint32 {
	const mod = 65521
	a, c := sum&0xffff, sum>>16
	for _, x := range b {
		a = (a + uint32(x)) % mod
		c = (c + a) % mod
	}
	return c<<16 | a
}

// xerialReader decodes snappy-java's stream format (SnappyOutputStream, as
// ZooKeeper writes .snappy snapshots): an 8-byte magic, two version ints,
// then blocks of a big-endian length and a raw snappy block.
type xerialReader struct {
	name string
	r    io.Reader
	buf  []byte
	head bool
	err  error
}

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// maxSnappyBlock bounds one compressed or decoded block (snappy-java
// writes 32 KiB blocks).
const maxSnappyBlock = 64 << 20

func newXerialReader(name string, r io.Reader) *xerialReader { return &xerialReader{name: name, r: r} }

func (x *xerialReader) Read(p []byte) (int, error) {
	for len(x.buf) == 0 {
		if x.err != nil {
			return 0, x.err
		}
		x.err = x.fill()
	}
	n := copy(p, x.buf)
	x.buf = x.buf[n:]
	return n, nil
}

func (x *xerialReader) fill() error {
	var hdr [8]byte
	if !x.head {
		if _, err := io.ReadFull(x.r, hdr[:]); err != nil || string(hdr[:]) != string(xerialMagic) {
			return &FormatError{File: x.name, Reason: "not a snappy-java stream (no \\x82SNAPPY header)"}
		}
		if _, err := io.ReadFull(x.r, hdr[:]); err != nil {
			return &FormatError{File: x.name, Reason: "snappy-java header is short", Truncated: true}
		}
		x.head = true
	}
	var l [4]byte
	if _, err := io.ReadFull(x.r, l[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return &FormatError{File: x.name, Reason: "file ends inside a snappy block length", Truncated: true}
	}
	if l[0] == xerialMagic[0] { // a concatenated stream starts again with its header
		var more [12]byte
		if _, err := io.ReadFull(x.r, more[:]); err != nil || string(append(l[:], more[:4]...)) != string(xerialMagic) {
			return &FormatError{File: x.name, Reason: "bad snappy block length"}
		}
		return nil
	}
	n := binary.BigEndian.Uint32(l[:])
	if n > maxSnappyBlock {
		return &FormatError{File: x.name, Reason: fmt.Sprintf("snappy block of %d bytes is out of range", n)}
	}
	block, err := io.ReadAll(io.LimitReader(x.r, int64(n)))
	if err != nil || len(block) < int(n) {
		return &FormatError{File: x.name, Reason: "file ends inside a snappy block", Truncated: true}
	}
	// A snappy copy tag of 3 bytes yields at most 64: a block claiming to
	// decode to much more than 32 times its size is not one, and is refused
	// before anything is allocated for it.
	dl, err := snappy.DecodedLen(block)
	if err != nil || dl > maxSnappyBlock || dl > 32*len(block)+64 {
		return &FormatError{File: x.name, Reason: "bad snappy block"}
	}
	out, err := snappy.Decode(nil, block)
	if err != nil {
		return &FormatError{File: x.name, Reason: "bad snappy block: " + err.Error()}
	}
	x.buf = out
	return nil
}
