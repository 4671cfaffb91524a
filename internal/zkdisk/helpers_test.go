package zkdisk

import (
	"bytes"

	"encoding/binary"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// enc is a jute encoder for building test files.
type enc struct{ bytes.Buffer }

func (e *enc) int(v int32)  { binary.Write(&e.Buffer, binary.BigEndian, v) }
func (e *enc) long(v int64) { binary.Write(&e.Buffer, binary.BigEndian, v) }
func (e *enc) buf(b []byte) {
	if b == nil {
		e.int(-1)
		return
	}
	e.int(int32(len(b)))
	e.Write(b)
}
func (e *enc) str(s string) { e.buf([]byte(s)) }

// encodeSnapshot writes nodes as ZooKeeper's FileSnap does (no trailer),
// parents before children.
func encodeSnapshot(nodes map[string]*Node) []byte {
	var e enc
	e.int(snapMagic)
	e.int(fileVersion)
	e.long(7)
	e.int(0) // sessions
	e.int(0) // ACL cache
	paths := make([]string, 0, len(nodes))
	for p := range nodes {
		paths = append(paths, p)
	}
	slices.Sort(paths) // "/" < "/a" < "/a/b": parents first
	for _, p := range paths {
		n := nodes[p]
		if p == "/" {
			e.str("")
		} else {
			e.str(p)
		}
		e.buf(n.Data)
		for _, v := range []int64{n.ACL, n.Czxid, n.Mzxid, n.Ctime, n.Mtime} {
			e.long(v)
		}
		e.int(n.Version)
		e.int(n.Cversion)
		e.int(n.Aversion)
		e.long(n.EphemeralOwner)
		e.long(n.Pzxid)
	}
	e.str("/")
	e.long(int64(adler32.Checksum(e.Bytes())))
	e.str("/")
	return e.Bytes()
}

// logEntries lists a log file's entries (offset, zxid) up to its end.
func logEntries(t *testing.T, file string) []*Txn {
	t.Helper()
	l, err := OpenLog(file)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out []*Txn
	for {
		txn, err := l.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, txn)
	}
}

// copyDir copies the fixture files named into a fresh version-2 folder
// and returns the data dir.
func copyDir(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	v2 := filepath.Join(dir, "version-2")
	if err := os.Mkdir(v2, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(v2, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	fixtureDir  = "testdata/datadir"
	fixtureV2   = fixtureDir + "/version-2"
	fixtureLog  = fixtureV2 + "/log.1"
	fixtureSnap = fixtureV2 + "/snapshot.18d" // written by ZooKeeper 3.8.4 at zxid 0x18d, on a restart
	fixtureZero = fixtureV2 + "/snapshot.0"
)

// nodesOf turns a tree back into snapshot nodes (for encodeSnapshot).
func nodesOf(t *zktree.Tree) map[string]*Node {
	m := map[string]*Node{}
	for _, n := range t.Nodes {
		nd := &Node{Data: n.Data, Czxid: n.Czxid, Mzxid: n.Mzxid, Version: n.Version}
		if n.Ephemeral {
			nd.EphemeralOwner = 1
		}
		m[n.Path] = nd
	}
	return m
}

func ptr[T any](v T) *T { return &v }
