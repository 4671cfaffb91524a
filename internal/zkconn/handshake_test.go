package zkconn

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// hangBound is how long these tests wait before calling a read hung: a
// bound on a hang, not a speed claim.
const hangBound = 30 * time.Second

// TestHandshakeDeadline plays go-zookeeper's side of a connect against a
// server that answers in different ways: until the connect response is in,
// no read may wait past the handshake's deadline, however far (or absent)
// the deadline the client sets; after it, the client's deadlines hold.
func TestHandshakeDeadline(t *testing.T) {
	const handshake = 100 * time.Millisecond
	response := append(binary.BigEndian.AppendUint32(nil, 36), make([]byte, 36)...)
	tests := []struct {
		name   string
		server func(c net.Conn) // writes to the client, then waits
		// client reads as go-zookeeper does: a far deadline for the
		// length, none for the body, then none for the next frame.
		wantErrAt string // "length", "body", "next" or "" (all read)
	}{
		{"never answers", func(c net.Conn) {}, "length"},
		{"length, then nothing", func(c net.Conn) { c.Write(response[:4]) }, "body"},
		{"half the body, then nothing", func(c net.Conn) { c.Write(response[:20]) }, "body"},
		{"the response, then a frame after the handshake's deadline", func(c net.Conn) {
			c.Write(response[:7])
			c.Write(response[7:])
			time.Sleep(3 * handshake)
			c.Write([]byte{0, 0, 0, 0})
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			defer server.Close()
			go tt.server(server)
			h := newHandshakeConn(client, handshake)
			at, err := "", error(nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				var hdr [4]byte
				h.SetReadDeadline(time.Now().Add(time.Hour))
				if _, err = io.ReadFull(h, hdr[:]); err != nil {
					at = "length"
					return
				}
				h.SetReadDeadline(time.Time{})
				if _, err = io.ReadFull(h, make([]byte, binary.BigEndian.Uint32(hdr[:]))); err != nil {
					at = "body"
					return
				}
				if _, err = io.ReadFull(h, hdr[:]); err != nil {
					at = "next"
				}
			}()
			select {
			case <-done:
			case <-time.After(hangBound):
				t.Fatalf("the read still waits after %s", hangBound)
			}
			if at != tt.wantErrAt {
				t.Fatalf("read failed at %q (%v), want at %q", at, err, tt.wantErrAt)
			}
			var ne net.Error
			if at != "" && !(errors.As(err, &ne) && ne.Timeout()) {
				t.Fatalf("error at %s: %v, want a timeout", at, err)
			}
		})
	}
}

// stallProxy forwards connections to a server, except connection number
// stall (1-based), which it accepts, reads and never answers, like a
// ZooKeeper that took the connection while it could not serve it.
type stallProxy struct {
	ln     net.Listener
	target string
	stall  int32
	n      atomic.Int32

	mu    sync.Mutex
	conns []net.Conn
}

func newStallProxy(t *testing.T, target string, stall int32) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, target: target, stall: stall}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.drop() })
	return p
}

func (p *stallProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		if p.n.Add(1) == p.stall {
			go io.Copy(io.Discard, c)
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// drop closes every connection made so far.
func (p *stallProxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestReconnectPastASilentServer loses the watch session's connection and
// has its first reconnection taken by a server that never answers: the
// session is established again on the next attempt, within the request
// timeout rather than go-zookeeper's own 200 s, and a watch set then
// works. (Found after a ZooKeeper restart on a loaded machine: the sync's
// watch session sat in its handshake for minutes, so no change reached it.)
func TestReconnectPastASilentServer(t *testing.T) {
	p := newStallProxy(t, testbed.ZK(t), 2)
	ctx := context.Background()
	c, err := Dial(ctx, Options{Connect: p.ln.Addr().String(), NoMultiRead: true, Connections: 1, RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.drop()
	select {
	case <-c.Reconnected():
	case <-time.After(hangBound):
		t.Fatalf("no session within %s of losing the connection (connections made: %d)", hangBound, p.n.Load())
	}
	if n := p.n.Load(); n < 3 {
		t.Fatalf("reconnected after %d connections, want the silent one passed over", n)
	}
	if _, _, err := c.ExistsW("/"); err != nil {
		t.Fatalf("a watch after reconnecting: %v", err)
	}
}
