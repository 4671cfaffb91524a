package zkdisk

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fuzzSeed(f *testing.F, file string) []byte {
	b, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// fuzzKeeps are the filters the fuzz targets read with: a chroot, a
// skip, both.
var fuzzKeeps = []func(string) bool{
	keeper("/a", nil),
	keeper("", func(p string) bool { return strings.HasPrefix(p, "/a/") }),
	keeper("/zookeeper", nil),
	keeper("/", func(p string) bool { return p == "/a" }),
}

// FuzzSnapshot: any bytes, plain or compressed, parse or fail with a
// FormatError; never a panic or an allocation beyond the input's bounds.
// Parsed under a chroot or a skip (mode picks which), the snapshot holds
// just the whole one's nodes that are kept, with the same fuzzy bound;
// under a small cap it fails with a CapError naming the file or parses
// the same.
func FuzzSnapshot(f *testing.F) {
	f.Add(fuzzSeed(f, fixtureZero), uint8(0))
	f.Add(fuzzSeed(f, fixtureSnap), uint8(0))
	f.Add(fuzzSeed(f, "testdata/compressed/snapshot.18d.gz"), uint8(1))
	f.Add(fuzzSeed(f, "testdata/compressed/snapshot.18d.snappy"), uint8(2))
	f.Add(fuzzSeed(f, "testdata/zk39/version-2/snapshot.2a"), uint8(0)) // 3.9: digest and last-zxid trailers
	f.Add(fuzzSeed(f, "testdata/zk34/version-2/snapshot.1a"), uint8(0)) // 3.4: no trailer
	f.Add(encodeSnapshot(map[string]*Node{"/": {}, "/a": {Data: []byte("x")}}), uint8(0))
	f.Add(encodeSnapshot(map[string]*Node{"/": {}, "/a": {Data: []byte("x")}, "/a/b": {Mzxid: 9}, "/a-b": {}, "/b": {}}), uint8(3))
	f.Add(encodeSnapshot(map[string]*Node{"/": {}, "/a": {}, "/a/b": {Pzxid: 9, EphemeralOwner: 5}, "/zookeeper": {}}), uint8(7))
	names := []string{"snapshot.1", "snapshot.1.gz", "snapshot.1.snappy"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		name := names[int(mode)%len(names)]
		keep := fuzzKeeps[int(mode/3)%len(fuzzKeeps)]
		s, err := ParseSnapshot(name, bytes.NewReader(data), int64(len(data)))
		ks, kerr := parseSnapshot(name, bytes.NewReader(data), int64(len(data)), keep, newBudget(0))
		c := int64(1) << (mode / 12 % 16) // 1 byte to 32 KiB
		cs, cerr := parseSnapshot(name, bytes.NewReader(data), int64(len(data)), nil, newBudget(c))
		if cerr != nil {
			var fe *FormatError
			var ce *CapError
			if !(errors.As(cerr, &fe) && fe.File == name) && !(errors.As(cerr, &ce) && ce.File == name && ce.Cap == c) {
				t.Fatalf("capped at %d: error %v (%T) does not name the file", c, cerr, cerr)
			}
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != name {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
			if kerr == nil {
				t.Fatalf("the whole snapshot fails (%v), the filtered one parses", err)
			}
			return
		}
		if _, ok := s.Nodes["/"]; !ok {
			t.Fatal("parsed a snapshot without a root")
		}
		for p := range s.Nodes {
			if p != "/" {
				if _, ok := s.Nodes[parentOf(p)]; !ok {
					t.Fatalf("znode %s without its parent", p)
				}
			}
		}
		if kerr != nil {
			t.Fatalf("the whole snapshot parses, the filtered one fails: %v", kerr)
		}
		want := map[string]*Node{}
		for p, n := range s.Nodes {
			if keep(p) {
				want[p] = n
			}
		}
		if d := cmp.Diff(want, ks.Nodes); d != "" {
			t.Fatalf("filtered (-want +got):\n%s", d)
		}
		if fuzzyEnd(ks) != fuzzyEnd(s) || ks.Newest != s.Newest {
			t.Fatalf("filtered: fuzzyEnd %#x, newest %d; whole %#x, %d", fuzzyEnd(ks), ks.Newest, fuzzyEnd(s), s.Newest)
		}
		if cerr == nil && !cmp.Equal(cs.Nodes, s.Nodes) {
			t.Fatal("capped: parsed other nodes")
		}
	})
}

// FuzzTxnLog: any bytes read as a transaction log give entries, then io.EOF
// or a FormatError naming the file; applying the entries never panics.
func FuzzTxnLog(f *testing.F) {
	log := fuzzSeed(f, fixtureLog)
	f.Add(log)
	f.Add(log[:4096])
	f.Add(log[:16])
	f.Add(fuzzSeed(f, "testdata/zk34/version-2/log.1"))  // 3.4: closeSession without paths
	f.Add(fuzzSeed(f, "testdata/zk39/version-2/log.2c")) // 3.9
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := NewLogReader("log.1", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != "log.1" {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		tr := newTree(&Snapshot{Nodes: map[string]*Node{"/": {}, "/a": {}}}, nil)
		keep := fuzzKeeps[len(data)%len(fuzzKeeps)]
		kt := newTree(emptySnapshot(keep), keep)
		kt.nodes = map[string]*Node{"/": {}}
		kt.dropped = pathSet{}
		if keep("/a") {
			kt.nodes["/a"] = &Node{}
		} else {
			kt.dropped.add("/a")
		}
		defer func() {
			want := map[string]*Node{}
			for p, n := range tr.nodes {
				if keep(p) {
					want[p] = n
				}
			}
			if d := cmp.Diff(want, kt.nodes); d != "" {
				t.Fatalf("replayed with a filter (-want +got):\n%s", d)
			}
		}()
		for i := 0; ; i++ {
			txn, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.File != "log.1" || fe.Offset < 16 || fe.Offset > int64(len(data)) {
					t.Fatalf("error %v does not name the file and an offset in it", err)
				}
				if _, err := l.Next(); err != io.EOF {
					t.Fatalf("Next after damage: %v, want io.EOF", err)
				}
				break
			}
			tr.apply(txn)
			kt.apply(txn)
		}
	})
}
