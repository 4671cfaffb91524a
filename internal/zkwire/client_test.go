package zkwire

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/zkwire/zkwiretest"
)

type fakeServer = zkwiretest.Server

func startFake(t *testing.T, handle zkwiretest.Handler) net.Conn { return zkwiretest.Serve(t, handle) }

// errorResult appends a multiRead error result.
func errorResult(r []byte, code int32) []byte {
	r = appendInt32(r, opError)
	r = appendBool(r, false)
	r = appendInt32(r, code)
	return appendInt32(r, code)
}

// endResults appends the MultiHeader that ends a multiRead reply.
func endResults(r []byte) []byte {
	r = appendInt32(r, -1)
	r = appendBool(r, true)
	return appendInt32(r, -1)
}

// The multiRead request is MultiOperationRecord's encoding: per op a
// MultiHeader(type, false, -1) and the request (path, watch), then
// MultiHeader(-1, true, -1).
func TestMultiReadRequestEncoding(t *testing.T) {
	var got []byte
	var gotOp int32
	nc := startFake(t, func(s *fakeServer, xid, op int32, body []byte) {
		if op == opPing {
			return
		}
		got, gotOp = body, op
		s.Reply(xid, 7, 0, endResults(errorResult(errorResult(nil, codeNoNode), codeNoNode)))
	})
	c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.MultiRead([]Op{{Path: "/a"}, {Path: "/b", Children: true}}); err != nil {
		t.Fatal(err)
	}
	want := "00000004" + "00" + "ffffffff" + "00000002" + hex.EncodeToString([]byte("/a")) + "00" +
		"00000008" + "00" + "ffffffff" + "00000002" + hex.EncodeToString([]byte("/b")) + "00" +
		"ffffffff" + "01" + "ffffffff"
	if gotOp != opMultiRead || hex.EncodeToString(got) != want {
		t.Fatalf("op %d body\n got %x\nwant %s", gotOp, got, want)
	}
}

// multiReply builds a reply of data, children and error results.
func multiReply() []byte {
	r := appendInt32(nil, opGetData)
	r = appendBool(r, false)
	r = appendInt32(r, 0)
	r = appendBuffer(r, []byte(`{"version":1}`))
	for _, v := range []int64{11, 12, 13, 14} { // czxid mzxid ctime mtime
		r = appendInt64(r, v)
	}
	r = appendInt32(r, 3) // version
	r = appendInt32(r, 0)
	r = appendInt32(r, 0)
	r = appendInt64(r, 99) // ephemeral owner
	r = appendInt32(r, 13)
	r = appendInt32(r, 0)
	r = appendInt64(r, 15)

	r = appendInt32(r, opGetChildren)
	r = appendBool(r, false)
	r = appendInt32(r, 0)
	r = appendInt32(r, 2)
	r = appendString(r, "b")
	r = appendString(r, "a")

	return endResults(errorResult(errorResult(r, codeNoNode), codeNoAuth))
}

func TestDecodeMultiRead(t *testing.T) {
	got, err := decodeMultiRead(multiReply(), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Data: []byte(`{"version":1}`), Stat: Stat{Czxid: 11, Mzxid: 12, Ctime: 13, Mtime: 14, Version: 3, EphemeralOwner: 99, DataLength: 13, Pzxid: 15}},
		{Children: []string{"b", "a"}},
		{Err: ErrNoNode},
		{Err: ErrNoAuth},
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) })); d != "" {
		t.Fatal(d)
	}

	full := multiReply()
	for _, tc := range []struct {
		name string
		body []byte
		n    int
		want string
	}{
		{"truncated", full[:len(full)-5], 4, "ends early"},
		{"fewer results than asked", full, 5, "has 4 results, not 5"},
		{"more results than asked", full, 3, "more than the 3"},
		{"unknown result type", append(appendInt32(nil, 99), 0, 0, 0, 0, 0), 1, "type 99"},
		{"vector longer than the reply", append(append(appendInt32(nil, opGetChildren), 0, 0, 0, 0, 0), appendInt32(nil, 1<<30)...), 1, "bad vector length"},
	} {
		if _, err := decodeMultiRead(tc.body, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Replies reach their requests whatever order the server answers in, and
// the highest zxid seen is kept.
func TestRepliesMatchedByXid(t *testing.T) {
	held := make(chan [2]int32, 2)
	nc := startFake(t, func(s *fakeServer, xid, op int32, body []byte) {
		if op != opMultiRead {
			return
		}
		held <- [2]int32{xid, int32(len(body))}
		if len(held) < 2 {
			return
		}
		a, b := <-held, <-held
		for _, x := range [][2]int32{b, a} { // answer the second first
			r := appendInt32(nil, opGetData)
			r = appendBool(r, false)
			r = appendInt32(r, 0)
			r = appendBuffer(r, []byte{byte(x[1])}) // the request's body length identifies it
			r = append(r, make([]byte, 68)...)      // stat
			s.Reply(x[0], int64(100+x[0]), 0, endResults(r))
		}
	})
	var maxZxid atomic.Int64
	c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second, MaxZxid: &maxZxid})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	results := make(chan []byte, 2)
	for _, p := range []string{"/short", "/a-longer-path"} {
		go func() {
			res, err := c.MultiRead([]Op{{Path: p}})
			if err != nil {
				t.Error(err)
				results <- nil
				return
			}
			if want := byte(len(p) + 23); res[0].Data[0] != want {
				t.Errorf("%s got the reply to a %d-byte request", p, res[0].Data[0])
			}
			results <- res[0].Data
		}()
	}
	<-results
	<-results
	if maxZxid.Load() < 101 {
		t.Fatalf("max zxid %d", maxZxid.Load())
	}
}

// A connection that ends fails the requests waiting on it with
// ErrConnectionLost, and later requests too.
func TestConnectionLostFailsRequests(t *testing.T) {
	nc := startFake(t, func(s *fakeServer, xid, op int32, body []byte) {
		if op == opMultiRead {
			s.Conn.Close()
		}
	})
	c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.MultiRead([]Op{{Path: "/"}}); !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.MultiRead([]Op{{Path: "/"}}); !errors.Is(err, ErrConnectionLost) || c.Err() == nil {
		t.Fatalf("after the loss: err = %v, Err() = %v", err, c.Err())
	}
}

// Rejected credentials are ErrAuthFailed, whether the server answers
// AuthFailed or just closes the connection.
func TestAuthFailed(t *testing.T) {
	for _, closeOnly := range []bool{false, true} {
		nc := startFake(t, func(s *fakeServer, xid, op int32, body []byte) {
			if op != opAuth {
				return
			}
			d := decoder{b: body}
			d.int32()
			if scheme := d.string(); scheme != "digest" || string(d.buffer()) != "u:p" {
				t.Errorf("auth packet %q", body)
			}
			if !closeOnly {
				s.Reply(xidAuth, 0, codeAuthFailed, nil)
			}
			s.Conn.Close()
		})
		_, err := Connect(nc, Options{Auth: [][2]string{{"digest", "u:p"}}})
		if !errors.Is(err, ErrAuthFailed) {
			t.Errorf("close only %v: err = %v", closeOnly, err)
		}
	}
}

// A server that refuses the session (id 0) is an error, not a client.
func TestSessionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		readFrame(bufio.NewReader(nc))
		resp := appendInt32(nil, 0)
		resp = appendInt32(resp, 0)
		resp = appendInt64(resp, 0)
		resp = appendBuffer(resp, nil)
		nc.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(resp))), resp...))
		io.Copy(io.Discard, nc)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Connect(nc, Options{}); err == nil || !strings.Contains(err.Error(), "refused the session") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzDecodeMultiRead: any reply body decodes to exactly n results or an
// error, never a panic.
func FuzzDecodeMultiRead(f *testing.F) {
	f.Add(multiReply(), 4)
	f.Add([]byte{}, 1)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		res, err := decodeMultiRead(body, n)
		if err == nil && len(res) != n {
			t.Fatalf("%d results for %d ops", len(res), n)
		}
	})
}

// A server that stops answering (its connection stays open) fails the
// request within RequestTimeout, naming the server, instead of waiting
// for the read deadline or forever.
func TestRequestTimeoutOnSilentServer(t *testing.T) {
	nc := zkwiretest.Serve(t, nil) // opens the session, never answers a request
	cl, err := Connect(nc, Options{SessionTimeout: 4 * time.Second, RequestTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	done := make(chan error, 1)
	go func() { _, err := cl.MultiRead([]Op{{Path: "/"}}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "no answer from "+nc.RemoteAddr().String()) {
			t.Fatalf("MultiRead = %v, want a lost connection naming %s", err, nc.RemoteAddr())
		}
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("MultiRead still waiting on a silent server")
	}
	if cl.Err() == nil {
		t.Error("the connection is still open after a request got no answer")
	}
}
