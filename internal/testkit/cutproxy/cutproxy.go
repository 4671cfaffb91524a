// Package cutproxy is a TCP proxy a test can cut: it forwards connections
// to a server until Cut, then closes every connection and refuses new ones
// until Restore. Tests put it between a client and a real server (sync and
// ZooKeeper) to lose the client's connections and sessions at a moment of
// their choosing, while others (Kafka's brokers) still reach the server.
package cutproxy

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP to a server until cut.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	down    bool
	conns   []net.Conn
	refusal int
}

// New listens on loopback and forwards every connection to target; it is
// closed (and cut) when the test ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.refusal++
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		go pipe(s, c)
		go pipe(c, s)
	}
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Refused is how many connections were refused while cut.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refusal
}
