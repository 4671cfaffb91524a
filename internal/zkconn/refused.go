package zkconn

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

// refusedBackoff is the pause before the round that confirms every host
// refuses connections.
const refusedBackoff = 250 * time.Millisecond

// refusals watches a session's dials: once every host of the connect
// string has refused a connection (nothing listens on its port) with no
// dial succeeding in between, all is signalled, so that the session can
// fail at once instead of waiting out its connect timeout. A host that
// accepts and then says nothing is not refused: the timeout bounds it.
type refusals struct {
	hosts []string
	mu    sync.Mutex
	seen  map[string]error // the hosts that refused, since the last dial that connected
	all   chan struct{}
}

func newRefusals(hosts []string) *refusals {
	return &refusals{hosts: hosts, seen: map[string]error{}, all: make(chan struct{}, 1)}
}

// dialer wraps d, noting each dial's outcome.
func (r *refusals) dialer(d zk.Dialer) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		nc, err := d(network, addr, timeout)
		r.note(addr, err)
		return nc, err
	}
}

func (r *refusals) note(addr string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !errors.Is(err, syscall.ECONNREFUSED) {
		clear(r.seen)
		return
	}
	r.seen[addr] = err
	if len(r.seen) >= len(r.hosts) {
		clear(r.seen)
		select {
		case r.all <- struct{}{}:
		default:
		}
	}
}

// confirm waits refusedBackoff and dials every host once more: it returns
// the last refusal when each refuses again, nil when one accepts (the
// session goes on trying).
func (r *refusals) confirm(ctx context.Context) error {
	select {
	case <-time.After(refusedBackoff):
	case <-ctx.Done():
		return ctx.Err()
	}
	var last error
	for _, h := range r.hosts {
		c, err := (&net.Dialer{Timeout: refusedBackoff}).DialContext(ctx, "tcp", h)
		if err == nil {
			c.Close()
			return nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil
		}
		last = err
	}
	return last
}
