package zkconn

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// ErrWatchLost is what a watch channel carries when the watch will never
// fire: the session expired or the connection was closed. Everything it
// covered must be read again.
var ErrWatchLost = errors.New("zkconn: watch lost")

// Watches need a go-zookeeper session: a Conn dialed with multiRead has
// none. Dial with NoMultiRead (one connection is enough) for watching.
var errNoWatchSession = errors.New("zkconn: watches need a connection dialed with NoMultiRead")

// watchSession is the one session watches are set on, so that they all
// live and expire together.
func (c *Conn) watchSession() (*zk.Conn, error) {
	if len(c.pool) == 0 {
		return nil, errNoWatchSession
	}
	return c.pool[0], nil
}

// fired turns go-zookeeper's watch channel into one that carries nil when
// the watch fired (the znode or its children changed, or it was deleted)
// and an error wrapping ErrWatchLost when it never will.
func fired(ch <-chan zk.Event) <-chan error {
	out := make(chan error, 1)
	go func() {
		ev, ok := <-ch
		switch {
		case !ok:
			out <- ErrWatchLost
		case errors.Is(ev.Err, zk.ErrSessionExpired) || ev.State == zk.StateExpired:
			out <- fmt.Errorf("%w on %s: %w", ErrWatchLost, ev.Path, zkwire.ErrSessionExpired)
		case ev.Type == zk.EventNotWatching || ev.Err != nil:
			out <- fmt.Errorf("%w on %s: %v", ErrWatchLost, ev.Path, ev.Err)
		default:
			out <- nil
		}
	}()
	return out
}

// ChildrenW returns a znode's children and sets a one-shot watch on them
// in the same request, so no change falls between the read and the watch.
// The channel receives once: nil when the children change (or the znode
// is deleted), an ErrWatchLost error when the watch is gone. A missing
// znode is zktree.ErrNoNode, with no watch set.
func (c *Conn) ChildrenW(p string) ([]string, <-chan error, error) {
	z, err := c.watchSession()
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var ch <-chan zk.Event
	err = c.do(func(until time.Time) error {
		return c.bounded(z, until, func(z *zk.Conn) (e error) { names, _, ch, e = z.ChildrenW(c.full(p)); return e })
	})
	if err != nil {
		return nil, nil, mapErr(err)
	}
	return names, fired(ch), nil
}

// GetW returns a znode's data and stat and sets a one-shot watch on it
// (see ChildrenW). A missing znode is zktree.ErrNoNode, with no watch set.
func (c *Conn) GetW(p string) ([]byte, zktree.Stat, <-chan error, error) {
	z, err := c.watchSession()
	if err != nil {
		return nil, zktree.Stat{}, nil, err
	}
	var data []byte
	var st *zk.Stat
	var ch <-chan zk.Event
	err = c.do(func(until time.Time) error {
		return c.bounded(z, until, func(z *zk.Conn) (e error) { data, st, ch, e = z.GetW(c.full(p)); return e })
	})
	if err != nil {
		return nil, zktree.Stat{}, nil, mapErr(err)
	}
	return data, zktree.Stat{Czxid: st.Czxid, Mzxid: st.Mzxid, Version: st.Version, Ephemeral: st.EphemeralOwner != 0}, fired(ch), nil
}

// ExistsW reports whether a znode exists and sets a one-shot watch that
// fires when it is created, changed or deleted.
func (c *Conn) ExistsW(p string) (bool, <-chan error, error) {
	z, err := c.watchSession()
	if err != nil {
		return false, nil, err
	}
	var ok bool
	var ch <-chan zk.Event
	err = c.do(func(until time.Time) error {
		return c.bounded(z, until, func(z *zk.Conn) (e error) { ok, _, ch, e = z.ExistsW(c.full(p)); return e })
	})
	if err != nil {
		return false, nil, mapErr(err)
	}
	return ok, fired(ch), nil
}

// WatchSession opens a new zkwire session for persistent watches
// (ZooKeeper 3.6+: zkwire's AddWatch, Events) and the reads that follow
// their events (MultiRead), with the Conn's TLS, credentials and timeouts;
// its paths are relative to the chroot, as the Conn's are. Each call is a
// new session, on the next host in turn: the caller closes it, and after
// it ends (its Events closed) opens another and adds its watches again.
func (c *Conn) WatchSession() (*zkwire.Client, error) {
	if c.watchDial == nil {
		return nil, errors.New("zkconn: closed")
	}
	cl, err := c.watchDial()
	if err != nil {
		return nil, fmt.Errorf("zkconn: opening a watch session on %s: %w", strings.Join(c.hosts, ","), err)
	}
	return cl, nil
}
