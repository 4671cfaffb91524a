package infile

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// AuditDB is the audit trail's SQLite database: the tool does not read it
// through this package, but names it when one is given where another kind
// of file is wanted.
var AuditDB = Kind{"audit database", 0}

// identifyLen is how much of a file Identify looks at.
const identifyLen = 64 << 10

// Identify tells which of the tool's kinds of file content starting with
// head (decompressed) holds, from its first bytes: a plan file, a
// snapshot file, a captured ZooKeeper tree, a receipt file, a SCRAM
// credentials file (JSON, told apart by their members), a bootstrap
// checkpoint (a Kafka record batch), an audit key (an ed25519 PEM key), a
// key or trust store (other PEM), ZooKeeper's snapshot and transaction log
// files, an audit database (SQLite). ok is false when it cannot tell.
func Identify(head []byte) (k Kind, ok bool) {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return AuditDB, true
	case bytes.HasPrefix(head, []byte("ZKSN")):
		return ZKSnapshot, true
	case bytes.HasPrefix(head, []byte("ZKLG")):
		return ZKLog, true
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN ")):
		return identifyPEM(trimmed)
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		return identifyJSON(trimmed)
	case isRecordBatch(head):
		return Checkpoint, true
	}
	return Kind{}, false
}

// isRecordBatch: a Kafka record batch (v2) at offset 0, as a KRaft
// checkpoint starts: base offset 0, a positive length, magic 2.
func isRecordBatch(b []byte) bool {
	if len(b) < 61 || !bytes.Equal(b[:8], make([]byte, 8)) || b[16] != 2 {
		return false
	}
	n := int32(b[8])<<24 | int32(b[9])<<16 | int32(b[10])<<8 | int32(b[11])
	return n >= 49
}

// identifyPEM: an ed25519 key (PKCS #8 private, 48 bytes; PKIX public, 44
// bytes) is an audit key; any other PEM is a TLS key or certificate.
func identifyPEM(b []byte) (Kind, bool) {
	blk, _ := pem.Decode(b)
	if blk != nil && (blk.Type == "PRIVATE KEY" && len(blk.Bytes) == 48 || blk.Type == "PUBLIC KEY" && len(blk.Bytes) == 44) {
		return Key, true
	}
	return Store, true
}

// identifyJSON tells the tool's JSON files apart by the members of their
// top-level object (a receipt file: of its first line; a credentials
// file: of its array's first object). A value cut off by the end of head
// ends the look.
func identifyJSON(b []byte) (Kind, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	tok, err := d.Token()
	if err != nil {
		return Kind{}, false
	}
	if tok == json.Delim('[') {
		if tok, err = d.Token(); err != nil || tok != json.Delim('{') {
			return Kind{}, false
		}
		m := members(d)
		if _, ok := m["user"]; ok {
			if _, ok := m["mechanism"]; ok {
				return Credentials, true
			}
		}
		return Kind{}, false
	}
	m := members(d)
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := m[n]; ok {
				return true
			}
		}
		return false
	}
	source := m["source"]
	switch {
	case has("nodes") && !has("format"):
		return Tree, true
	case has("run") && has("seq") && has("head"):
		return Receipts, true
	case has("fingerprint"), source == '{' && has("changes", "reverts", "options"):
		return Plan, true
	case source == '"', !has("source") && has("format") && has("brokers", "topics", "acls", "broker_configs", "scram_users", "quotas", "read"):
		return Snapshot, true
	}
	return Kind{}, false
}

// members reads an object's members after its '{': each name and the first
// byte of its value, until the object ends or the input is cut off.
func members(d *json.Decoder) map[string]byte {
	m := map[string]byte{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return m
		}
		name, ok := tok.(string)
		if !ok {
			return m
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			m[name] = 0
			return m
		}
		m[name] = v[0]
	}
	return m
}

// WrongKindError is a file given where one kind of file is wanted that
// holds another of the tool's kinds (a plan given as a snapshot): the
// command names where that kind goes.
type WrongKindError struct {
	Path      string
	Want, Got Kind
}

func (e *WrongKindError) Error() string {
	return fmt.Sprintf("%s is %s, not %s", e.Path, article(e.Got.Name), article(e.Want.Name))
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// Expect refuses content that holds another of the tool's kinds of file
// than its own (Identify): an *Error holding a *WrongKindError. Content
// Identify cannot place is left to the kind's parser.
func (c *Content) Expect() error {
	head, err := c.Peek(identifyLen)
	if err != nil && len(head) == 0 && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		var ie *Error
		if errors.As(err, &ie) {
			return ie
		}
		return readErr(c.Path, c.Kind, err)
	}
	return ExpectBytes(c.Path, c.Kind, head)
}

// ExpectBytes is Expect for a file of kind k read whole (b, or its first
// bytes; compressed ones are looked at decompressed).
func ExpectBytes(path string, k Kind, b []byte) error {
	if Detect(b) != Plain {
		// A compressed file (a plan or snapshot file the tool wrote): what
		// it holds is its decompressed start.
		c, err := NewContent(path, bytes.NewReader(b), Unrestricted)
		if err != nil {
			return nil
		}
		defer c.Close()
		b, _ = c.Peek(identifyLen)
	}
	if len(b) > identifyLen {
		b = b[:identifyLen]
	}
	if got, ok := Identify(b); ok && got != k {
		return &Error{Path: path, Kind: k, Err: &WrongKindError{Path: path, Want: k, Got: got}}
	}
	return nil
}

// ExpectFile is ExpectBytes for the file at path as it is now, for a file
// the tool is about to append to (a receipt file): a file that does not
// exist yet, or is empty, is any kind.
func ExpectFile(path string, k Kind) error {
	f, err := Open(path, Unrestricted)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	head := make([]byte, identifyLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return readErr(path, k, err)
	}
	return ExpectBytes(path, k, head[:n])
}
