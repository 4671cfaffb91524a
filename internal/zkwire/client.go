// Package zkwire speaks just enough of ZooKeeper's client protocol to read
// many znodes per request and to follow them: a session (connect, digest or
// other auth, pings, close), multiRead (ZooKeeper 3.6+), which carries many
// getData and getChildren operations in one request and returns each one's
// result, and persistent watches (addWatch, ZooKeeper 3.6+), whose events
// arrive until the session ends. go-zookeeper offers neither; one request
// per znode costs the server and the client far more than the lookup
// itself, and a one-shot watch must be set again after every event.
//
// A Client never writes to ZooKeeper: it sends only connect, auth, ping,
// multiRead of reads, addWatch (which sets a watch) and closeSession.
package zkwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Op codes and error codes, as ZooDefs.OpCode and KeeperException.Code.
const (
	opGetData      = 4
	opGetChildren  = 8
	opPing         = 11
	opMultiRead    = 22
	opAuth         = 100
	opCloseSession = -11
	opError        = -1

	xidWatch = -1
	xidPing  = -2
	xidAuth  = -4

	codeNoNode     = -101
	codeNoAuth     = -102
	codeAuthFailed = -115
)

// Errors of one operation.
var (
	ErrNoNode = errors.New("zkwire: no node")
	ErrNoAuth = errors.New("zkwire: not authorized")
)

// ErrConnectionLost is wrapped by every error that ends a connection: the
// caller may dial a new session and send the request again.
var ErrConnectionLost = errors.New("zkwire: connection lost")

// ErrEventsOverflow is wrapped (with ErrConnectionLost) by the error
// that ends a connection whose watch events were not taken fast enough:
// events were dropped, so whatever they covered must be read again.
var ErrEventsOverflow = errors.New("zkwire: watch events overflowed")

// ErrSessionExpired marks a session the server expired: its watches are
// gone.
var ErrSessionExpired = errors.New("zkwire: session expired")

// ErrAuthFailed is returned by Connect when the server rejects the
// credentials.
var ErrAuthFailed = errors.New("zkwire: authentication failed")

// ServerError is an error code the server returned.
type ServerError struct{ Code int32 }

func (e *ServerError) Error() string { return fmt.Sprintf("zkwire: server error %d", e.Code) }

func codeErr(code int32) error {
	switch code {
	case 0:
		return nil
	case codeNoNode:
		return ErrNoNode
	case codeNoAuth:
		return ErrNoAuth
	}
	return &ServerError{Code: code}
}

// maxFrame bounds a reply the client accepts (ZooKeeper's own default
// jute.maxbuffer is 1 MiB per znode; a multiRead carries many).
const maxFrame = 256 << 20

// Op is one read: a znode's data, or with Children its children's names.
type Op struct {
	Path     string
	Children bool
}

// Result is one Op's outcome: Err is nil, ErrNoNode, ErrNoAuth or a
// *ServerError.
type Result struct {
	Data     []byte
	Stat     Stat
	Children []string
	Err      error
}

// Options say how to open a session.
type Options struct {
	// SessionTimeout is asked of the server; pings go every third of it.
	SessionTimeout time.Duration
	// RequestTimeout bounds the wait for every reply, the session
	// handshake's included: a server that does not answer within it (a
	// stopped process keeps its connections open) is taken as lost, and
	// the connection is closed. Two thirds of SessionTimeout when 0.
	RequestTimeout time.Duration
	// Auth is a list of scheme, credentials pairs sent after connecting.
	Auth [][2]string
	// MaxZxid, when set, is raised to the highest zxid in reply headers.
	MaxZxid *atomic.Int64
	// Chroot, when set ("/kafka"), roots every path: those the client
	// sends (MultiRead, AddWatch) are below it, and those of watch events
	// are given relative to it, as the Java client does.
	Chroot string
}

// Client is one ZooKeeper session on one connection. It is safe for
// concurrent use; requests are pipelined.
type Client struct {
	nc      net.Conn
	timeout time.Duration
	reqWait time.Duration // RequestTimeout
	maxZxid *atomic.Int64
	chroot  string

	wmu sync.Mutex // serialises frame writes
	buf []byte

	mu      sync.Mutex
	xid     int32
	pending map[int32]chan reply
	err     error // set once the connection is done

	// Watch events (watch.go), queued by the reply loop for pumpEvents.
	watching bool // AddWatch or Events was called
	evq      []WatchEvent
	evWake   chan struct{}
	events   chan WatchEvent
	evOnce   sync.Once

	done   chan struct{} // the connection ended
	closed chan struct{} // Close was called
	once   sync.Once
}

type reply struct {
	err  int32
	body []byte
	fail error // the connection ended
}

// Connect opens a session on nc (already dialled, TLS or not), sends the
// credentials and starts the reply and ping loops. nc is closed on error.
func Connect(nc net.Conn, opt Options) (*Client, error) {
	if opt.SessionTimeout <= 0 {
		opt.SessionTimeout = 30 * time.Second
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = opt.SessionTimeout * 2 / 3
	}
	c := &Client{nc: nc, timeout: opt.SessionTimeout, reqWait: opt.RequestTimeout, maxZxid: opt.MaxZxid, chroot: opt.Chroot,
		pending: map[int32]chan reply{}, done: make(chan struct{}), closed: make(chan struct{}),
		evWake: make(chan struct{}, 1), events: make(chan WatchEvent, 64)}
	br := bufio.NewReaderSize(nc, 64<<10)
	if err := c.handshake(br); err != nil {
		nc.Close()
		return nil, err
	}
	go c.readLoop(br)
	go c.pingLoop()
	for _, a := range opt.Auth {
		body := appendInt32(nil, 0)
		body = appendString(body, a[0])
		body = appendBuffer(body, []byte(a[1]))
		r, err := c.call(xidAuth, opAuth, body)
		if err == nil && r.err != 0 {
			err = codeErr(r.err)
			if r.err == codeAuthFailed {
				err = ErrAuthFailed
			}
		}
		if err != nil {
			c.Close()
			if errors.Is(err, ErrConnectionLost) {
				// servers close the connection on bad credentials
				return nil, fmt.Errorf("%w (%v)", ErrAuthFailed, err)
			}
			return nil, err
		}
	}
	return c, nil
}

func (c *Client) handshake(br *bufio.Reader) error {
	req := appendInt32(nil, 0) // protocol version
	req = appendInt64(req, 0)  // last zxid seen
	req = appendInt32(req, int32(c.timeout/time.Millisecond))
	req = appendInt64(req, 0) // session id: a new session
	req = appendBuffer(req, make([]byte, 16))
	c.nc.SetDeadline(time.Now().Add(c.reqWait))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(appendInt32(nil, int32(len(req)))); err != nil {
		return fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	if _, err := c.nc.Write(req); err != nil {
		return fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	frame, err := readFrame(br)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("%w: no answer from %s within %s", ErrConnectionLost, c.nc.RemoteAddr(), c.reqWait)
		}
		return err
	}
	d := decoder{b: frame}
	d.int32() // protocol version
	negotiated := d.int32()
	session := d.int64()
	d.buffer() // password
	if d.err != nil {
		return fmt.Errorf("zkwire: bad connect response: %v", d.err)
	}
	if session == 0 {
		return fmt.Errorf("%w: the server refused the session", ErrConnectionLost)
	}
	if negotiated > 0 {
		c.timeout = time.Duration(negotiated) * time.Millisecond
	}
	return nil
}

func readFrame(br *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	n := int32(binary.BigEndian.Uint32(hdr[:]))
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: reply of %d bytes", ErrConnectionLost, n)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(br, frame); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	return frame, nil
}

// readLoop hands each reply to the request with its xid until the
// connection ends, then fails every request still waiting.
func (c *Client) readLoop(br *bufio.Reader) {
	var err error
	for {
		c.nc.SetReadDeadline(time.Now().Add(c.timeout * 2 / 3))
		var frame []byte
		if frame, err = readFrame(br); err != nil {
			break
		}
		d := decoder{b: frame}
		xid, zxid, code := d.int32(), d.int64(), d.int32()
		if d.err != nil {
			err = fmt.Errorf("%w: reply header: %v", ErrConnectionLost, d.err)
			break
		}
		if c.maxZxid != nil && zxid > 0 {
			for cur := c.maxZxid.Load(); zxid > cur && !c.maxZxid.CompareAndSwap(cur, zxid); cur = c.maxZxid.Load() {
			}
		}
		if xid == xidPing {
			continue
		}
		if xid == xidWatch {
			ev, e := decodeWatchEvent(d.b)
			if e != nil {
				err = fmt.Errorf("%w: %v", ErrConnectionLost, e)
				break
			}
			ev.Path, ev.Zxid = c.rel(ev.Path), zxid
			if !c.queueEvent(ev) {
				err = fmt.Errorf("%w: %w: more than %d watch events were not taken", ErrConnectionLost, ErrEventsOverflow, maxQueuedEvents)
				break
			}
			continue
		}
		c.mu.Lock()
		ch := c.pending[xid]
		delete(c.pending, xid)
		c.mu.Unlock()
		if ch != nil {
			ch <- reply{err: code, body: d.b}
		}
	}
	c.fail(err)
}

// fail ends the connection with err and fails every waiting request.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	waiting := c.pending
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
	c.nc.Close()
	for _, ch := range waiting {
		ch <- reply{fail: err}
	}
}

func (c *Client) pingLoop() {
	t := time.NewTicker(c.timeout / 3)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if err := c.write(xidPing, opPing, nil); err != nil {
				return
			}
		}
	}
}

func (c *Client) write(xid, op int32, body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.buf = appendInt32(c.buf[:0], int32(8+len(body)))
	c.buf = appendInt32(c.buf, xid)
	c.buf = appendInt32(c.buf, op)
	c.buf = append(c.buf, body...)
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	if _, err := c.nc.Write(c.buf); err != nil {
		err = fmt.Errorf("%w: %v", ErrConnectionLost, err)
		c.fail(err)
		return err
	}
	return nil
}

// call sends one request and waits for its reply. xid 0 takes the next
// request number.
func (c *Client) call(xid, op int32, body []byte) (reply, error) {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return reply{}, err
	}
	if xid == 0 {
		c.xid++
		if c.xid <= 0 {
			c.xid = 1
		}
		xid = c.xid
	}
	c.pending[xid] = ch
	c.mu.Unlock()
	if err := c.write(xid, op, body); err != nil {
		return reply{}, err
	}
	timer := time.NewTimer(c.reqWait)
	defer timer.Stop()
	var r reply
	select {
	case r = <-ch:
	case <-timer.C:
		// A server that stopped answering: end the connection, so every
		// request on it fails now rather than waiting for the read deadline.
		c.fail(fmt.Errorf("%w: no answer from %s within %s", ErrConnectionLost, c.nc.RemoteAddr(), c.reqWait))
		r = <-ch
	}
	if r.fail != nil {
		return reply{}, r.fail
	}
	return r, nil
}

// MultiRead reads every op in one request. The error is about the request
// as a whole (a lost connection, a server that refuses the request); each
// op's own outcome is in its Result.
func (c *Client) MultiRead(ops []Op) ([]Result, error) {
	body := make([]byte, 0, 32*len(ops))
	for _, op := range ops {
		code := int32(opGetData)
		if op.Children {
			code = opGetChildren
		}
		body = appendInt32(body, code)
		body = appendBool(body, false)
		body = appendInt32(body, -1)
		body = appendString(body, c.full(op.Path))
		body = appendBool(body, false) // no watch
	}
	body = appendInt32(body, -1)
	body = appendBool(body, true)
	body = appendInt32(body, -1)
	r, err := c.call(0, opMultiRead, body)
	if err != nil {
		return nil, err
	}
	if r.err != 0 {
		return nil, codeErr(r.err)
	}
	return decodeMultiRead(r.body, len(ops))
}

// decodeMultiRead decodes a multiRead reply of n results.
func decodeMultiRead(body []byte, n int) ([]Result, error) {
	d := decoder{b: body}
	out := make([]Result, 0, n)
	for {
		typ, done, code := d.int32(), d.bool(), d.int32()
		if d.err != nil {
			return nil, fmt.Errorf("zkwire: multiRead reply: %v", d.err)
		}
		if done {
			break
		}
		if len(out) == n {
			return nil, fmt.Errorf("zkwire: multiRead reply has more than the %d results asked for", n)
		}
		var res Result
		switch typ {
		case opGetData:
			res.Data = d.buffer()
			res.Stat = d.stat()
		case opGetChildren:
			res.Children = d.strings()
		case opError:
			code = d.int32()
			res.Err = codeErr(code)
			if res.Err == nil {
				res.Err = &ServerError{Code: 0}
			}
		default:
			return nil, fmt.Errorf("zkwire: multiRead reply: result of type %d", typ)
		}
		out = append(out, res)
	}
	if len(out) != n {
		return nil, fmt.Errorf("zkwire: multiRead reply has %d results, not %d", len(out), n)
	}
	return out, nil
}

// Err returns why the connection ended, or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the session (closeSession, waiting briefly for its reply) and
// the connection.
func (c *Client) Close() error {
	if c.Err() == nil {
		done := make(chan struct{})
		go func() { c.call(0, opCloseSession, nil); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	c.fail(fmt.Errorf("%w: closed", ErrConnectionLost))
	c.once.Do(func() { close(c.closed) })
	return nil
}
