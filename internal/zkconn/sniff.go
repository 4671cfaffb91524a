package zkconn

import (
	"encoding/binary"
	"net"
	"sync/atomic"
)

// zxidConn wraps a connection to a ZooKeeper server and records the highest
// zxid in the reply headers it reads. A reply header is xid(4) zxid(8)
// err(4) after the 4-byte frame length; the zxid is the server's last
// committed transaction when it answered. The first frame after dialing is
// the connect response, which has no such header.
type zxidConn struct {
	net.Conn
	max *atomic.Int64

	first  bool // still inside the connect response
	lenBuf [4]byte
	lenN   int
	remain int // body bytes left in the current frame
	head   [12]byte
	headN  int
}

func newZxidConn(c net.Conn, max *atomic.Int64) *zxidConn {
	return &zxidConn{Conn: c, max: max, first: true}
}

func (c *zxidConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.feed(p[:n])
	return n, err
}

func (c *zxidConn) feed(b []byte) {
	for len(b) > 0 {
		if c.remain == 0 {
			k := copy(c.lenBuf[c.lenN:], b)
			c.lenN += k
			b = b[k:]
			if c.lenN == 4 {
				c.lenN = 0
				c.remain = int(binary.BigEndian.Uint32(c.lenBuf[:]))
				c.headN = 0
				if c.remain == 0 {
					c.first = false
				}
			}
			continue
		}
		k := min(c.remain, len(b))
		if c.headN < len(c.head) {
			c.headN += copy(c.head[c.headN:], b[:k])
		}
		c.remain -= k
		b = b[k:]
		if c.remain == 0 {
			if !c.first && c.headN == len(c.head) {
				z := int64(binary.BigEndian.Uint64(c.head[4:12]))
				for {
					cur := c.max.Load()
					if z <= cur || c.max.CompareAndSwap(cur, z) {
						break
					}
				}
			}
			c.first = false
		}
	}
}
