package zkdisk

import (
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Transaction types (ZooDefs.OpCode) found in transaction logs.
const (
	OpCreate          = 1
	OpDelete          = 2
	OpSetData         = 5
	OpSetACL          = 7
	OpCheck           = 13
	OpMulti           = 14
	OpCreate2         = 15
	OpReconfig        = 16
	OpCreateContainer = 19
	OpDeleteContainer = 20
	OpCreateTTL       = 21
	OpCreateSession   = -10
	OpCloseSession    = -11
	OpError           = -1
)

// Ephemeral owners ZooKeeper uses for containers and TTL nodes (EphemeralType).
const (
	containerOwner = int64(-1 << 63)       // 0x8000000000000000
	ttlOwnerBits   = int64(-0x100 << 48)   // 0xff00000000000000
	ttlMask        = int64(0xffffffffffff) // the TTL in ms
)

// Txn is one transaction-log entry.
type Txn struct {
	ClientID int64 // the session
	Cxid     int32
	Zxid     int64
	Time     int64 // ms since the epoch, the leader's clock
	Type     int32
	// Ops are the changes to the tree: one for a plain write, each sub-op
	// of a multi, none for session and error transactions. A failed multi
	// (one holding an error) has none: ZooKeeper applied nothing.
	Ops []Op
	// Offset is where the entry starts in its file, End where it ends.
	Offset, End int64
}

// Op is one change to the tree.
type Op struct {
	Type    int32
	Path    string
	Data    []byte
	Owner   int64 // ephemeral owner of a created node (0 for persistent)
	Version int32 // setData: the node's new version
}

// LogReader reads one transaction log file entry by entry, holding one
// entry in memory at a time.
type LogReader struct {
	st   *stream
	f    *infile.File
	DBID int64
	done bool
}

// OpenLog opens a transaction log file read-only and checks its header.
func OpenLog(path string) (*LogReader, error) { return openLog(path, nil) }

// openLog is OpenLog counting what it reads against b (nil: no cap).
func openLog(path string, b *budget) (*LogReader, error) {
	f, err := infile.Open(path, infile.ZKLog) // a regular file, read-only
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	l, err := newLogReader(path, f, fi.Size(), b)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.f = f
	return l, nil
}

// NewLogReader reads a transaction log from r (size bytes; -1 unknown);
// name names it in errors.
func NewLogReader(name string, r io.Reader, size int64) (*LogReader, error) {
	return newLogReader(name, r, size, nil)
}

func newLogReader(name string, r io.Reader, size int64, b *budget) (*LogReader, error) {
	st := newStream(name, r, size, nil)
	st.cap = b
	magic, err := st.int("file header magic")
	if err != nil {
		return nil, err
	}
	if magic != logMagic {
		return nil, &FormatError{File: name, Reason: fmt.Sprintf("not a ZooKeeper transaction log: magic %#x, want %#x (ZKLG)", uint32(magic), logMagic)}
	}
	ver, err := st.int("file header version")
	if err != nil {
		return nil, err
	}
	if ver != fileVersion {
		return nil, &FormatError{File: name, Offset: 4, Reason: fmt.Sprintf("transaction log format version %d; ZooKeeper 3.4-3.9 write %d", ver, fileVersion)}
	}
	l := &LogReader{st: st}
	if l.DBID, err = st.long("file header dbid"); err != nil {
		return nil, err
	}
	return l, nil
}

// Close closes the file.
func (l *LogReader) Close() error {
	if l.f != nil {
		return l.f.Close()
	}
	return nil
}

// Next returns the next entry, io.EOF at the end of the log (the file's end
// or the zero padding ZooKeeper preallocates), or a *FormatError for a
// damaged entry (bad checksum, short entry, unknown type). After an error
// Next returns io.EOF: entry boundaries past damage cannot be trusted.
func (l *LogReader) Next() (*Txn, error) {
	if l.done {
		return nil, io.EOF
	}
	t, err := l.next()
	if err != nil {
		l.done = true
	}
	return t, err
}

func (l *LogReader) next() (*Txn, error) {
	st := l.st
	at := st.off
	if st.atEOF() {
		return nil, io.EOF
	}
	crc, err := st.long("entry checksum")
	if err != nil {
		return nil, err
	}
	n, err := st.int("entry length")
	if err != nil {
		return nil, err
	}
	if n == 0 { // preallocated zeros: the end of what was written
		return nil, io.EOF
	}
	if n < 0 || n > maxBuffer || (st.left >= 0 && int64(n) > st.left) {
		if st.left >= 0 && int64(n) > st.left && n <= maxBuffer {
			return nil, &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("file ends inside entry (%d of %d bytes)", st.left, n), Truncated: true}
		}
		return nil, &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("entry length %d is out of range", n)}
	}
	b := make([]byte, n)
	if err := st.full(b, "entry"); err != nil {
		return nil, err
	}
	var eor [1]byte
	if err := st.full(eor[:], "entry end marker"); err != nil {
		return nil, err
	}
	if eor[0] != 'B' {
		return nil, &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("entry end marker %#x, want 'B' (a partly written entry)", eor[0]), Truncated: true}
	}
	if got := int64(adler32.Checksum(b)); got != crc {
		return nil, &FormatError{File: st.file, Offset: at, Reason: fmt.Sprintf("entry checksum mismatch: file says %#x, entry sums to %#x", crc, got)}
	}
	t, err := parseTxn(&slice{b: b, file: st.file, base: at + 12})
	if err != nil {
		var fe *FormatError
		if errors.Is(err, errShort) || !errors.As(err, &fe) {
			return nil, &FormatError{File: st.file, Offset: at, Reason: "entry too short for its transaction type"}
		}
		return nil, err
	}
	t.Offset, t.End = at, st.off
	return t, nil
}

// parseTxn decodes a TxnHeader and its record. A TxnDigest (3.6+) may
// follow the record; it is not needed and left unread.
func parseTxn(d *slice) (*Txn, error) {
	var t Txn
	var err error
	if t.ClientID, err = d.long(); err != nil {
		return nil, err
	}
	if t.Cxid, err = d.int(); err != nil {
		return nil, err
	}
	if t.Zxid, err = d.long(); err != nil {
		return nil, err
	}
	if t.Time, err = d.long(); err != nil {
		return nil, err
	}
	if t.Type, err = d.int(); err != nil {
		return nil, err
	}
	switch t.Type {
	case OpCreateSession, OpCloseSession, OpError:
		// createSession: timeout; closeSession: the session's ephemerals
		// (3.6+; older logs have none). Both are applied from the header:
		// closing a session deletes every node it owns.
		return &t, nil
	case OpMulti:
		n, err := d.int()
		if err != nil {
			return nil, err
		}
		if n < 0 || int64(n)*8 > int64(d.left()) {
			return nil, errShort
		}
		failed := false
		for range n {
			typ, err := d.int()
			if err != nil {
				return nil, err
			}
			b, err := d.buffer()
			if err != nil {
				return nil, err
			}
			if typ == OpError {
				failed = true
				continue
			}
			op, err := parseOp(typ, &slice{b: b, file: d.file, base: d.base + int64(d.off-len(b))}, t.ClientID)
			if err != nil {
				return nil, err
			}
			if op != nil {
				t.Ops = append(t.Ops, *op)
			}
		}
		if failed {
			t.Ops = nil
		}
		return &t, nil
	}
	op, err := parseOp(t.Type, d, t.ClientID)
	if err != nil {
		return nil, err
	}
	if op != nil {
		t.Ops = []Op{*op}
	}
	return &t, nil
}

// parseOp decodes one write record; nil for records that change nothing
// the tree holds (check, setACL: ACLs are not part of the tree).
func parseOp(typ int32, d *slice, session int64) (*Op, error) {
	op := Op{Type: typ}
	var err error
	switch typ {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL:
		if op.Path, err = d.string(); err != nil {
			return nil, err
		}
		if op.Data, err = d.buffer(); err != nil {
			return nil, err
		}
		if err = d.skipACLs(); err != nil {
			return nil, err
		}
		switch typ {
		case OpCreate, OpCreate2:
			eph, err := d.bool()
			if err != nil {
				return nil, err
			}
			if eph {
				op.Owner = session
			}
			// parentCVersion follows, except in a CreateTxnV0 (ZooKeeper 3.2).
		case OpCreateContainer:
			op.Owner = containerOwner
		case OpCreateTTL:
			if _, err = d.int(); err != nil { // parentCVersion
				return nil, err
			}
			ttl, err := d.long()
			if err != nil {
				return nil, err
			}
			op.Owner = ttlOwnerBits | ttl&ttlMask
		}
		op.Type = OpCreate
	case OpDelete, OpDeleteContainer:
		if op.Path, err = d.string(); err != nil {
			return nil, err
		}
		op.Type = OpDelete
	case OpSetData, OpReconfig:
		if op.Path, err = d.string(); err != nil {
			return nil, err
		}
		if op.Data, err = d.buffer(); err != nil {
			return nil, err
		}
		if op.Version, err = d.int(); err != nil {
			return nil, err
		}
		op.Type = OpSetData
	case OpSetACL, OpCheck:
		if _, err = d.string(); err != nil {
			return nil, err
		}
		return nil, nil
	default:
		return nil, d.errorf("unknown transaction type %d", typ)
	}
	return &op, nil
}
