package zkconn

import (
	"context"
	"encoding/binary"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// flakyProxy forwards to a ZooKeeper server. Connection number cut (1-based)
// is closed after limit bytes from the server; with refuseAfter > 0, every
// connection after that number is refused.
type flakyProxy struct {
	ln          net.Listener
	target      string
	cut         int32
	limit       int64
	refuseAfter int32
	dropOp      int32 // when set, a request of this op code closes its connection
	conns       atomic.Int32
	wg          sync.WaitGroup
}

func newFlakyProxy(t *testing.T, target string, cut int32, limit int64, refuseAfter int32) *flakyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln, target: target, cut: cut, limit: limit, refuseAfter: refuseAfter}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *flakyProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		n := p.conns.Add(1)
		if p.refuseAfter > 0 && n > p.refuseAfter {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			if p.dropOp != 0 {
				copyRequests(s, c, p.dropOp)
			} else {
				_, _ = io.Copy(s, c)
			}
			s.Close()
			c.Close()
		}()
		go func() {
			defer p.wg.Done()
			if n == p.cut {
				_, _ = io.CopyN(c, s, p.limit)
			} else {
				_, _ = io.Copy(c, s)
			}
			c.Close()
			s.Close()
		}()
	}
}

// copyRequests forwards client frames until one is a request with op code
// drop (as a server that does not know it might do), or the stream ends.
func copyRequests(dst io.Writer, src io.Reader, drop int32) {
	for first := true; ; first = false {
		var hdr [4]byte
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
		if _, err := io.ReadFull(src, body); err != nil {
			return
		}
		if !first && len(body) >= 8 && int32(binary.BigEndian.Uint32(body[4:8])) == drop {
			return
		}
		if _, err := dst.Write(append(hdr[:], body...)); err != nil {
			return
		}
	}
}

// directRead dials the test bed's ZooKeeper and returns its address, the
// connection, and a full read through any source with the read's
// bookkeeping cut to what two reads of a quiet cluster share.
func directRead(t *testing.T) (string, *Conn, func(zkread.Source) *snapshot.Snapshot) {
	addr := testbed.ZK(t)
	direct, err := Dial(context.Background(), Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	return addr, direct, func(src zkread.Source) *snapshot.Snapshot {
		t.Helper()
		s, err := zkread.Read(context.Background(), src, zkread.Options{Full: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Read = snapshot.ReadInfo{Znodes: s.Read.Znodes, ZxidMax: s.Read.ZxidMax}
		s.Address = ""
		return s
	}
}

// TestConnectionLossDuringRead cuts the TCP connection in the middle of a
// read: the requests in flight are retried on the reconnected session and
// the snapshot equals a read without the cut (compared while the cluster is
// quiet: equal zxids before and after).
func TestConnectionLossDuringRead(t *testing.T) {
	addr, direct, read := directRead(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		noMulti bool
		cut     int32 // the connection reads go over
	}{
		{"one znode per request", true, 1},
		{"multiRead", false, 2}, // connection 1 is the go-zookeeper session that finds the server
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 5 {
				before := read(direct)
				p := newFlakyProxy(t, addr, tc.cut, 6000, 0)
				c, err := Dial(ctx, Options{Connect: p.ln.Addr().String(), Connections: 1, NoMultiRead: tc.noMulti})
				if err != nil {
					t.Fatal(err)
				}
				if c.MultiRead() == tc.noMulti {
					t.Fatalf("MultiRead() = %v with NoMultiRead %v", c.MultiRead(), tc.noMulti)
				}
				got := read(c)
				c.Close()
				if p.conns.Load() <= tc.cut {
					t.Fatalf("the connection was never cut (%d connections)", p.conns.Load())
				}
				after := read(direct)
				if before.Read.ZxidMax != after.Read.ZxidMax {
					continue // the cluster changed meanwhile; try again
				}
				if snapshot.Digest(got) != snapshot.Digest(before) || got.Read.Znodes != before.Read.Znodes {
					t.Fatalf("after reconnecting the snapshot differs: %d topics %d ACLs %d znodes; direct: %d %d %d",
						len(got.Topics), len(got.ACLs), got.Read.Znodes, len(before.Topics), len(before.ACLs), before.Read.Znodes)
				}
				return
			}
			t.Skip("the test bed kept changing during five attempts")
		})
	}
}

// TestMultiReadFallback: a server that does not answer multiRead (as
// ZooKeeper before 3.6) is read one znode per request, with the same
// result as a multiRead read.
func TestMultiReadFallback(t *testing.T) {
	addr, direct, read := directRead(t)
	if !direct.MultiRead() {
		t.Fatal("the test bed's ZooKeeper (3.8) answers multiRead, but Dial did not use it")
	}
	p := newFlakyProxy(t, addr, 0, 0, 0)
	p.dropOp = 22 // multiRead
	old, err := Dial(context.Background(), Options{Connect: p.ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if old.MultiRead() {
		t.Fatal("Dial kept multiRead on a server that drops it")
	}
	for range 5 {
		a, b := read(direct), read(old)
		if a.Read.ZxidMax != b.Read.ZxidMax {
			continue // the cluster changed in between
		}
		if snapshot.Digest(a) != snapshot.Digest(b) || a.Read.Znodes != b.Read.Znodes {
			t.Fatalf("multiRead and one-by-one reads differ: %d/%d topics, %d/%d ACLs", len(a.Topics), len(b.Topics), len(a.ACLs), len(b.ACLs))
		}
		return
	}
	t.Skip("the test bed kept changing during five attempts")
}

// TestConnectionLostForGood: the ensemble goes away mid-read; the read
// fails within the retry bound with one clear error naming the host.
func TestConnectionLostForGood(t *testing.T) {
	addr := testbed.ZK(t)
	for _, noMulti := range []bool{true, false} {
		cut := int32(1) // the go-zookeeper session; with multiRead, the multiRead session after it
		if !noMulti {
			cut = 2
		}
		p := newFlakyProxy(t, addr, cut, 6000, cut)
		c, err := Dial(context.Background(), Options{Connect: p.ln.Addr().String(), RetryTimeout: 2 * time.Second, Connections: 1, NoMultiRead: noMulti})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = zkread.Read(context.Background(), c, zkread.Options{Full: true})
		if err == nil || !strings.Contains(err.Error(), "lost the connection to ZooKeeper at "+p.ln.Addr().String()) {
			t.Fatalf("multiRead %v: err = %v", c.MultiRead(), err)
		}
	}
}
