package zkconn

import (
	"context"
	"github.com/zkmigrate/zkmigrate/internal/testbed"
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
		go func() { defer p.wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
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

// TestConnectionLossDuringRead cuts the TCP connection in the middle of a
// read: the requests in flight are retried on the reconnected session and
// the snapshot equals a read without the cut (compared while the cluster is
// quiet: equal zxids before and after).
func TestConnectionLossDuringRead(t *testing.T) {
	addr := testbed.ZK(t)
	ctx := context.Background()
	direct, err := Dial(ctx, Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	read := func(src zkread.Source) *snapshot.Snapshot {
		t.Helper()
		s, err := zkread.Read(ctx, src, zkread.Options{Full: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Read = snapshot.ReadInfo{Znodes: s.Read.Znodes, ZxidMax: s.Read.ZxidMax}
		return s
	}
	for range 5 {
		before := read(direct)
		p := newFlakyProxy(t, addr, 1, 6000, 0)
		c, err := Dial(ctx, Options{Connect: p.ln.Addr().String(), Connections: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := read(c)
		c.Close()
		if p.conns.Load() < 2 {
			t.Fatalf("the connection was never cut (%d connections)", p.conns.Load())
		}
		after := read(direct)
		if before.Read.ZxidMax != after.Read.ZxidMax {
			continue // the cluster changed meanwhile; try again
		}
		got.Address, before.Address = "", ""
		if snapshot.Digest(got) != snapshot.Digest(before) || got.Read.Znodes != before.Read.Znodes {
			t.Fatalf("after reconnecting the snapshot differs: %d topics %d ACLs %d znodes; direct: %d %d %d",
				len(got.Topics), len(got.ACLs), got.Read.Znodes, len(before.Topics), len(before.ACLs), before.Read.Znodes)
		}
		return
	}
	t.Skip("the test bed kept changing during five attempts")
}

// TestConnectionLostForGood: the ensemble goes away mid-read; the read
// fails within the retry bound with one clear error naming the host.
func TestConnectionLostForGood(t *testing.T) {
	addr := testbed.ZK(t)
	p := newFlakyProxy(t, addr, 1, 6000, 1)
	c, err := Dial(context.Background(), Options{Connect: p.ln.Addr().String(), RetryTimeout: 2 * time.Second, Connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = zkread.Read(context.Background(), c, zkread.Options{Full: true})
	if err == nil || !strings.Contains(err.Error(), "lost the connection to ZooKeeper at "+p.ln.Addr().String()) {
		t.Fatalf("err = %v", err)
	}
}
