package zkdisk

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

func fuzzSeed(f *testing.F, file string) []byte {
	b, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzSnapshot: any bytes, plain or compressed, parse or fail with a
// FormatError; never a panic or an allocation beyond the input's bounds.
func FuzzSnapshot(f *testing.F) {
	f.Add(fuzzSeed(f, fixtureZero), uint8(0))
	f.Add(fuzzSeed(f, fixtureSnap), uint8(0))
	f.Add(fuzzSeed(f, "testdata/compressed/snapshot.18d.gz"), uint8(1))
	f.Add(fuzzSeed(f, "testdata/compressed/snapshot.18d.snappy"), uint8(2))
	f.Add(fuzzSeed(f, "testdata/zk39/version-2/snapshot.2a"), uint8(0)) // 3.9: digest and last-zxid trailers
	f.Add(fuzzSeed(f, "testdata/zk34/version-2/snapshot.1a"), uint8(0)) // 3.4: no trailer
	f.Add(encodeSnapshot(map[string]*Node{"/": {}, "/a": {Data: []byte("x")}}), uint8(0))
	names := []string{"snapshot.1", "snapshot.1.gz", "snapshot.1.snappy"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		name := names[int(mode)%len(names)]
		s, err := ParseSnapshot(name, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != name {
				t.Fatalf("error %v (%T) does not name the file", err, err)
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
		tr := newTree(&Snapshot{Nodes: map[string]*Node{"/": {}}})
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
		}
	})
}
