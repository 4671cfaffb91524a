package zkdisk

import (
	"bytes"
	"hash/adler32"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The trailers after a snapshot's sealed tree differ by version and
// settings: none (3.4, 3.5), the tree digest (3.6+, as the fixture from
// 3.8.4), digest and last processed zxid (3.9), or the zxid alone (3.9
// with digests off). Each must read the same tree.
func TestSnapshotTrailers(t *testing.T) {
	raw, err := os.ReadFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadSnapshotFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	if !want.Digest || want.LastProcessedZxid != 0 {
		t.Fatalf("fixture trailer: digest %v, last zxid %#x", want.Digest, want.LastProcessedZxid)
	}
	tree := raw[:len(raw)-33] // the tree and its seal
	sealed := func(prefix []byte, v int64) []byte {
		var e enc
		e.Write(prefix)
		e.long(v)
		e.long(int64(adler32.Checksum(e.Bytes())))
		e.str("/")
		return e.Bytes()
	}
	for _, tc := range []struct {
		name     string
		file     []byte
		digest   bool
		lastZxid int64
	}{
		{"3.5: no trailer", tree, false, 0},
		{"3.6: digest", raw, true, 0},
		{"3.9: digest and last zxid", sealed(raw, 0x190), true, 0x190},
		{"3.9: last zxid only", sealed(tree, 0x190), false, 0x190},
	} {
		s, err := ParseSnapshot("snapshot.18d", bytes.NewReader(tc.file), int64(len(tc.file)))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Digest != tc.digest || s.LastProcessedZxid != tc.lastZxid {
			t.Errorf("%s: digest %v, last zxid %#x", tc.name, s.Digest, s.LastProcessedZxid)
		}
		if d := cmp.Diff(want.Nodes, s.Nodes); d != "" {
			t.Errorf("%s: nodes differ:\n%s", tc.name, d)
		}
	}
	// The 3.9 last zxid bounds the fuzzy window.
	s, _ := ParseSnapshot("snapshot.18d", bytes.NewReader(sealed(raw, 0x1000)), -1)
	if got := fuzzyEnd(s); got != 0x1000 {
		t.Errorf("fuzzy end %#x, want the recorded last zxid", got)
	}
}

// Transaction records of every kind and version decode to the changes
// ZooKeeper applies.
func TestParseTxn(t *testing.T) {
	const session = 0x1234
	hdr := func(typ int32) *enc {
		var e enc
		e.long(session)
		e.int(7)
		e.long(0x42)
		e.long(1700000000000)
		e.int(typ)
		return &e
	}
	acl := func(e *enc) { e.int(1); e.int(31); e.str("world"); e.str("anyone") }
	create := func(typ int32, eph bool, v0, digest bool) []byte {
		e := hdr(typ)
		e.str("/a")
		e.buf([]byte("x"))
		acl(e)
		e.WriteByte(map[bool]byte{true: 1, false: 0}[eph])
		if !v0 {
			e.int(3)
		}
		if digest {
			e.int(2)
			e.long(99)
		}
		return e.Bytes()
	}
	sub := func(typ int32, body func(*enc)) func(*enc) {
		return func(e *enc) {
			var b enc
			body(&b)
			e.int(typ)
			e.buf(b.Bytes())
		}
	}
	multi := func(ops ...func(*enc)) []byte {
		e := hdr(OpMulti)
		e.int(int32(len(ops)))
		for _, op := range ops {
			op(e)
		}
		return e.Bytes()
	}
	subCreate := sub(OpCreate, func(e *enc) { e.str("/m"); e.buf(nil); acl(e); e.WriteByte(0); e.int(0) })
	subSet := sub(OpSetData, func(e *enc) { e.str("/m"); e.buf([]byte("v")); e.int(4) })
	subErr := sub(OpError, func(e *enc) { e.int(-101) })
	ttl := hdr(OpCreateTTL)
	ttl.str("/t")
	ttl.buf(nil)
	acl(ttl)
	ttl.int(0)
	ttl.long(60000)
	container := hdr(OpCreateContainer)
	container.str("/c")
	container.buf(nil)
	acl(container)
	container.int(0)
	set := hdr(OpSetData)
	set.str("/a")
	set.buf([]byte("y"))
	set.int(5)
	del := hdr(OpDeleteContainer)
	del.str("/c")
	closeOld := hdr(OpCloseSession) // 3.5: no paths
	closeNew := hdr(OpCloseSession) // 3.6+: the session's ephemerals
	closeNew.int(1)
	closeNew.str("/e")
	setACL := hdr(OpSetACL)
	setACL.str("/a")
	acl(setACL)
	setACL.int(1)
	for _, tc := range []struct {
		name string
		b    []byte
		ops  []Op
		err  bool
	}{
		{"create", create(OpCreate, false, false, false), []Op{{Type: OpCreate, Path: "/a", Data: []byte("x")}}, false},
		{"create ephemeral with digest", create(OpCreate2, true, false, true), []Op{{Type: OpCreate, Path: "/a", Data: []byte("x"), Owner: session}}, false},
		{"create v0", create(OpCreate, false, true, false), []Op{{Type: OpCreate, Path: "/a", Data: []byte("x")}}, false},
		{"create ttl", ttl.Bytes(), []Op{{Type: OpCreate, Path: "/t", Owner: ttlOwnerBits | 60000}}, false},
		{"create container", container.Bytes(), []Op{{Type: OpCreate, Path: "/c", Owner: containerOwner}}, false},
		{"set data", set.Bytes(), []Op{{Type: OpSetData, Path: "/a", Data: []byte("y"), Version: 5}}, false},
		{"delete container", del.Bytes(), []Op{{Type: OpDelete, Path: "/c"}}, false},
		{"set acl", setACL.Bytes(), nil, false},
		{"close session 3.5", closeOld.Bytes(), nil, false},
		{"close session 3.6", closeNew.Bytes(), nil, false},
		{"multi", multi(subCreate, subSet), []Op{{Type: OpCreate, Path: "/m"}, {Type: OpSetData, Path: "/m", Data: []byte("v"), Version: 4}}, false},
		{"failed multi", multi(subErr, subErr), nil, false},
		{"unknown type", hdr(99).Bytes(), nil, true},
		{"short", create(OpCreate, false, false, false)[:40], nil, true},
	} {
		txn, err := parseTxn(&slice{b: tc.b, file: "log.1"})
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		if err != nil {
			continue
		}
		if txn.Zxid != 0x42 || txn.ClientID != session || txn.Time != 1700000000000 {
			t.Errorf("%s: header %+v", tc.name, txn)
		}
		if d := cmp.Diff(tc.ops, txn.Ops); d != "" {
			t.Errorf("%s: ops (-want +got):\n%s", tc.name, d)
		}
	}
}

// Replay follows ZooKeeper's DataTree: ephemerals go with their session,
// a failed multi changes nothing, and replays are idempotent.
func TestApply(t *testing.T) {
	tr := newTree(&Snapshot{Nodes: map[string]*Node{"/": {}}}, nil)
	txns := []*Txn{
		{Zxid: 1, Type: OpCreate, Ops: []Op{{Type: OpCreate, Path: "/p", Data: []byte("1")}}},
		{Zxid: 2, ClientID: 9, Type: OpCreate, Ops: []Op{{Type: OpCreate, Path: "/p/e", Owner: 9}}},
		{Zxid: 3, Type: OpCreate, Ops: []Op{{Type: OpCreate, Path: "/p", Data: []byte("again")}}}, // exists: skipped
		{Zxid: 4, Type: OpCreate, Ops: []Op{{Type: OpCreate, Path: "/q/orphan"}}},                 // no parent: skipped
		{Zxid: 5, Type: OpSetData, Ops: []Op{{Type: OpSetData, Path: "/p", Data: []byte("2"), Version: 1}}},
		{Zxid: 6, Type: OpSetData, Ops: []Op{{Type: OpSetData, Path: "/gone", Data: []byte("x"), Version: 1}}},
		{Zxid: 7, Type: OpMulti}, // a failed multi carries no ops
		{Zxid: 8, ClientID: 9, Type: OpCloseSession},
		{Zxid: 9, Type: OpDelete, Ops: []Op{{Type: OpDelete, Path: "/nothing"}}},
	}
	for _, txn := range txns {
		tr.apply(txn)
	}
	want := map[string]*Node{
		"/":  {Pzxid: 1, Cversion: 1},
		"/p": {Data: []byte("2"), Czxid: 1, Mzxid: 5, Version: 1, Pzxid: 8, Cversion: 1},
	}
	if d := cmp.Diff(want, tr.nodes); d != "" {
		t.Errorf("tree (-want +got):\n%s", d)
	}
	if len(tr.ephemerals[9]) != 0 {
		t.Errorf("session 9 still owns %v", tr.ephemerals[9])
	}
}
