package zkconn

import (
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// handshakeConn bounds the wait for a new connection's connect response.
// go-zookeeper waits ten times its receive timeout for it (200 s with a
// 30 s session) and sets no deadline at all for its body, so a server
// that takes the connection and never answers stalls the session, and
// every watch on it, for minutes. ZooKeeper 3.8 does that while it is
// still loading its database after a restart: it refuses the connection
// ("ZooKeeperServer not running") and then fails to close it (a
// NullPointerException in its close path, ZOOKEEPER-5051). Until the connect response
// is read, every read deadline is at most the handshake's; then the
// client's last one is set, and later ones pass through.
type handshakeConn struct {
	net.Conn

	mu     sync.Mutex
	by     time.Time // the handshake's deadline; zero once it is over
	want   time.Time // the read deadline the client set last
	lenBuf [4]byte
	lenN   int
	remain int
}

func newHandshakeConn(c net.Conn, timeout time.Duration) *handshakeConn {
	h := &handshakeConn{Conn: c, by: time.Now().Add(timeout)}
	c.SetReadDeadline(h.by)
	return h
}

func (h *handshakeConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	h.mu.Lock()
	defer h.mu.Unlock()
	for b := p[:n]; len(b) > 0 && !h.by.IsZero(); {
		if h.lenN < 4 {
			k := copy(h.lenBuf[h.lenN:], b)
			h.lenN += k
			b = b[k:]
			if h.lenN == 4 {
				h.remain = int(binary.BigEndian.Uint32(h.lenBuf[:]))
			}
		} else {
			k := min(h.remain, len(b))
			h.remain -= k
			b = b[k:]
		}
		if h.lenN == 4 && h.remain == 0 {
			// The connect response is in: the client's deadline holds.
			h.by = time.Time{}
			h.Conn.SetReadDeadline(h.want)
		}
	}
	return n, err
}

// bound caps t at the handshake's deadline while it lasts (a zero t, no
// deadline, included).
func (h *handshakeConn) bound(t time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.want = t
	if !h.by.IsZero() && (t.IsZero() || t.After(h.by)) {
		return h.by
	}
	return t
}

func (h *handshakeConn) SetReadDeadline(t time.Time) error { return h.Conn.SetReadDeadline(h.bound(t)) }

func (h *handshakeConn) SetDeadline(t time.Time) error { return h.Conn.SetDeadline(h.bound(t)) }
