package zkconn

import (
	"bufio"
	"net"
	"runtime"
	"sync"
	"time"
)

// batchConn cuts system calls on a pipelined ZooKeeper connection.
// go-zookeeper writes every request with its own Write and reads every
// reply with two reads (length, then body): one to three system calls per
// request, which on loopback cost more CPU than the reader's own parsing.
// batchConn reads through a buffer, and its Write only appends to a pending
// buffer that one goroutine writes out: requests queued while a write is
// in the kernel leave together in the next one.
//
// Write deadlines are the flusher's (timeout per write); go-zookeeper's own
// are ignored. A failed write closes the connection, so the reply loop
// fails and go-zookeeper reconnects as it does after its own write errors;
// every later Write returns the error.
type batchConn struct {
	net.Conn
	r       *bufio.Reader
	timeout time.Duration

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	spare   []byte
	err     error
	closed  bool
	done    chan struct{}
}

// maxPending bounds the bytes queued but not yet written; Write waits
// beyond it. Callers bound it anyway (requests in flight), so it only
// matters when the server stops reading.
const maxPending = 1 << 20

// batchEnough is a write big enough not to wait for more.
const batchEnough = 16 << 10

func newBatchConn(c net.Conn, timeout time.Duration) *batchConn {
	b := &batchConn{Conn: c, r: bufio.NewReaderSize(c, 64<<10), timeout: timeout, done: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	go b.flushLoop()
	return b
}

func (b *batchConn) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.pending) > maxPending && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.closed {
		return 0, net.ErrClosed
	}
	b.pending = append(b.pending, p...)
	b.cond.Broadcast()
	return len(p), nil
}

func (b *batchConn) flushLoop() {
	defer close(b.done)
	for {
		b.mu.Lock()
		for len(b.pending) == 0 && !b.closed {
			b.cond.Wait()
		}
		if b.closed {
			b.mu.Unlock()
			return
		}
		if len(b.pending) < batchEnough {
			// let the requests already on their way join this write
			b.mu.Unlock()
			runtime.Gosched()
			b.mu.Lock()
		}
		out := b.pending
		b.pending = b.spare[:0]
		b.cond.Broadcast() // writers waiting for room
		b.mu.Unlock()

		b.Conn.SetWriteDeadline(time.Now().Add(b.timeout))
		_, err := b.Conn.Write(out)

		b.mu.Lock()
		b.spare = out[:0]
		if err != nil {
			b.err = err
			b.cond.Broadcast()
			b.mu.Unlock()
			b.Conn.Close()
			return
		}
		b.mu.Unlock()
	}
}

// SetWriteDeadline is ignored: the flusher sets its own per write.
func (b *batchConn) SetWriteDeadline(time.Time) error { return nil }

// SetDeadline sets only the read deadline (see SetWriteDeadline).
func (b *batchConn) SetDeadline(t time.Time) error { return b.Conn.SetReadDeadline(t) }

// Close stops the flusher, dropping what it has not written, and closes
// the connection.
func (b *batchConn) Close() error {
	b.mu.Lock()
	b.closed = true
	b.cond.Broadcast()
	b.mu.Unlock()
	err := b.Conn.Close()
	<-b.done
	return err
}
