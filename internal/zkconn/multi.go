package zkconn

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// multiPool reads through zkwire sessions with multiRead (ZooKeeper 3.6+):
// concurrent Get and Children calls are gathered into one request per
// session, so the server handles one request for many znodes.
type multiPool struct {
	dial  func() (*zkwire.Client, error)
	slots []*multiSlot
	next  atomic.Uint32
	quit  chan struct{}
	once  sync.Once
}

// maxMultiOps bounds the operations in one multiRead.
const maxMultiOps = 128

type multiSlot struct {
	pool *multiPool
	ops  chan *multiOp
	mu   sync.Mutex
	cl   *zkwire.Client
}

type multiOp struct {
	op  zkwire.Op
	res chan multiResult
}

type multiResult struct {
	zkwire.Result
	err error // the request as a whole failed
}

var errPoolClosed = errors.New("zkconn: connection closed")

// newMultiPool starts n slots; first, already connected, is the first
// slot's session. The others connect on first use.
func newMultiPool(n int, first *zkwire.Client, dial func() (*zkwire.Client, error)) *multiPool {
	p := &multiPool{dial: dial, quit: make(chan struct{})}
	for i := range n {
		s := &multiSlot{pool: p, ops: make(chan *multiOp, 4*maxMultiOps)}
		if i == 0 {
			s.cl = first
		}
		p.slots = append(p.slots, s)
		go s.loop()
	}
	return p
}

// read runs one operation, waiting for it until the given time; the error
// is about the request (a lost connection, no answer), the Result's Err
// about the znode.
func (p *multiPool) read(op zkwire.Op, until time.Time) (zkwire.Result, error) {
	s := p.slots[int(p.next.Add(1))%len(p.slots)]
	m := &multiOp{op: op, res: make(chan multiResult, 1)}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case s.ops <- m:
	case <-p.quit:
		return zkwire.Result{}, errPoolClosed
	case <-t.C:
		return zkwire.Result{}, errNoAnswer
	}
	select {
	case r := <-m.res:
		return r.Result, r.err
	case <-p.quit: // closed while the operation waited
		return zkwire.Result{}, errPoolClosed
	case <-t.C:
		return zkwire.Result{}, errNoAnswer
	}
}

func (p *multiPool) close() {
	p.once.Do(func() {
		close(p.quit)
		for _, s := range p.slots {
			s.mu.Lock()
			if s.cl != nil {
				s.cl.Close()
			}
			s.mu.Unlock()
		}
	})
}

// loop gathers the operations waiting on this slot into one multiRead and
// sends it without waiting for the reply, so several are in flight.
func (s *multiSlot) loop() {
	for {
		var first *multiOp
		select {
		case first = <-s.ops:
		case <-s.pool.quit:
			return
		}
		runtime.Gosched() // let the callers already on their way join
		batch := []*multiOp{first}
	gather:
		for len(batch) < maxMultiOps {
			select {
			case m := <-s.ops:
				batch = append(batch, m)
			default:
				break gather
			}
		}
		cl, err := s.client()
		if err != nil {
			for _, m := range batch {
				m.res <- multiResult{err: err}
			}
			continue
		}
		go send(cl, batch)
	}
}

func send(cl *zkwire.Client, batch []*multiOp) {
	ops := make([]zkwire.Op, len(batch))
	for i, m := range batch {
		ops[i] = m.op
	}
	res, err := cl.MultiRead(ops)
	for i, m := range batch {
		if err != nil {
			m.res <- multiResult{err: err}
		} else {
			m.res <- multiResult{Result: res[i]}
		}
	}
}

// client returns the slot's session, opening a new one when the last has
// ended (reads need no session continuity).
func (s *multiSlot) client() (*zkwire.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.pool.quit:
		return nil, errPoolClosed
	default:
	}
	if s.cl != nil && s.cl.Err() == nil {
		return s.cl, nil
	}
	cl, err := s.pool.dial()
	if err != nil {
		s.cl = nil
		return nil, err
	}
	s.cl = cl
	return cl, nil
}

// wireDialer returns a function opening one zkwire session, rooted at
// chroot ("" for the server's root): it tries the hosts in turn, from
// start onwards on the first call.
func wireDialer(hosts []string, start int, dialRaw func(network, addr string, timeout time.Duration) (net.Conn, error),
	opt Options, scheme, cred, chroot string, maxZxid *atomic.Int64) func() (*zkwire.Client, error) {
	var auth [][2]string
	if scheme != "" {
		auth = [][2]string{{scheme, cred}}
	}
	var next atomic.Int64
	next.Store(int64(start) - 1)
	return func() (*zkwire.Client, error) {
		var last error
		for range hosts {
			host := hosts[int(next.Add(1))%len(hosts)]
			nc, err := dialRaw("tcp", host, opt.ConnectTimeout)
			if err != nil {
				last = err
				continue
			}
			cl, err := zkwire.Connect(nc, zkwire.Options{SessionTimeout: opt.SessionTimeout, RequestTimeout: opt.RequestTimeout, Auth: auth, MaxZxid: maxZxid, Chroot: chroot})
			if errors.Is(err, zkwire.ErrAuthFailed) {
				return nil, fmt.Errorf("zkconn: ZooKeeper at %s rejected the --zk-auth credentials (scheme %s)", host, scheme)
			}
			if err != nil {
				last = err
				continue
			}
			return cl, nil
		}
		return nil, last
	}
}

// startMulti opens the first multiRead session and, when its server
// answers a multiRead of path, a pool of n sessions
// (DefaultMultiConnections when 0); nil when the ensemble does not offer
// multiRead or the session cannot be opened.
func startMulti(dial func() (*zkwire.Client, error), path string, n int) *multiPool {
	first, err := dial()
	if err != nil {
		return nil
	}
	if probeMultiRead(first, path) != nil {
		first.Close()
		return nil
	}
	if n <= 0 {
		n = DefaultMultiConnections
	}
	return newMultiPool(n, first, dial)
}

// probeTimeout bounds the wait for the first multiRead: ZooKeeper before
// 3.6 drops a request of an unknown type without answering.
const probeTimeout = 5 * time.Second

// probeMultiRead reports whether the server answers multiRead, reading
// path with it.
func probeMultiRead(cl *zkwire.Client, path string) error {
	done := make(chan error, 1)
	go func() {
		_, err := cl.MultiRead([]zkwire.Op{{Path: path}})
		done <- err // a znode's own error (no node, no auth) is still an answer
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(probeTimeout):
		cl.Close()
		return fmt.Errorf("no answer within %s", probeTimeout)
	}
}
