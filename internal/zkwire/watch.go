package zkwire

import (
	"errors"
	"fmt"
	"strings"
)

// WatchMode is addWatch's mode (ZooDefs.AddWatchModes).
type WatchMode int32

// The persistent watch modes (ZooKeeper 3.6+). A persistent watch stays
// set until the session ends. On its own path it reports what a data
// watch and a child watch would; recursive, it reports NodeCreated,
// NodeDeleted and NodeDataChanged of the path and of every znode below
// it, and never NodeChildrenChanged.
const (
	Persistent          WatchMode = 0
	PersistentRecursive WatchMode = 1
)

// EventType is a watch event's type (Watcher.Event.EventType).
type EventType int32

// The event types a server sends.
const (
	EventNone                EventType = -1
	EventNodeCreated         EventType = 1
	EventNodeDeleted         EventType = 2
	EventNodeDataChanged     EventType = 3
	EventNodeChildrenChanged EventType = 4
)

func (t EventType) String() string {
	switch t {
	case EventNone:
		return "None"
	case EventNodeCreated:
		return "NodeCreated"
	case EventNodeDeleted:
		return "NodeDeleted"
	case EventNodeDataChanged:
		return "NodeDataChanged"
	case EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	}
	return fmt.Sprintf("EventType(%d)", int32(t))
}

// WatchEvent is one watch notification (WatcherEvent, sent with xid -1).
type WatchEvent struct {
	Type EventType
	// State is the keeper state the server reports (3, SyncConnected).
	State int32
	// Path is the znode the event is about, relative to Options.Chroot.
	Path string
	// Zxid is the transaction that caused the event, from the reply
	// header: ZooKeeper 3.9 sends it, older servers send -1.
	Zxid int64
}

// ErrUnimplemented is a request the server does not know (ZooKeeper
// before 3.6 answers addWatch so, then closes the connection).
var ErrUnimplemented = errors.New("zkwire: request not implemented by the server")

const (
	opAddWatch        = 106
	codeUnimplemented = -6
	// maxQueuedEvents bounds the watch events received but not yet taken
	// from Events; past it the connection is ended (the caller, having
	// lost events, reads everything again) rather than memory growing.
	maxQueuedEvents = 1 << 20
)

// decodeWatchEvent decodes a WatcherEvent body (type, state, path).
func decodeWatchEvent(body []byte) (WatchEvent, error) {
	d := decoder{b: body}
	ev := WatchEvent{Type: EventType(d.int32()), State: d.int32(), Path: d.string()}
	if d.err != nil {
		return WatchEvent{}, fmt.Errorf("zkwire: watch event: %v", d.err)
	}
	return ev, nil
}

// encodeWatchEvent is decodeWatchEvent's inverse (for tests and the fake
// server).
func encodeWatchEvent(ev WatchEvent) []byte {
	b := appendInt32(nil, int32(ev.Type))
	b = appendInt32(b, ev.State)
	return appendString(b, ev.Path)
}

// AddWatch sets a persistent watch on p (ZooKeeper 3.6+; addWatch sets a
// watch, it writes nothing). Its events arrive on Events until the
// session ends. A server that does not know addWatch gives
// ErrUnimplemented (or ends the connection: ErrConnectionLost).
func (c *Client) AddWatch(p string, mode WatchMode) error {
	c.startEvents()
	body := appendString(nil, c.full(p))
	body = appendInt32(body, int32(mode))
	r, err := c.call(0, opAddWatch, body)
	if err != nil {
		return err
	}
	if r.err == codeUnimplemented {
		return ErrUnimplemented
	}
	return codeErr(r.err)
}

// Events delivers the session's watch events in the order the server sent
// them. It is closed once the connection has ended (Err says why) and
// the events received before were taken, or at once by Close.
func (c *Client) Events() <-chan WatchEvent {
	c.startEvents()
	return c.events
}

func (c *Client) startEvents() {
	c.evOnce.Do(func() {
		c.mu.Lock()
		c.watching = true
		c.mu.Unlock()
		go c.pumpEvents()
	})
}

// queueEvent keeps a watch event for Events; false when too many wait.
func (c *Client) queueEvent(ev WatchEvent) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.watching {
		return true // no watch was added: nothing asked for it
	}
	if len(c.evq) >= maxQueuedEvents {
		return false
	}
	c.evq = append(c.evq, ev)
	select {
	case c.evWake <- struct{}{}:
	default:
	}
	return true
}

// pumpEvents moves queued events to the Events channel: the reply loop
// never waits for the caller, who may be waiting for a reply itself.
func (c *Client) pumpEvents() {
	defer close(c.events)
	// deliver sends what is queued and says how many it sent; false when
	// the client closed meanwhile.
	deliver := func() (int, bool) {
		c.mu.Lock()
		q := c.evq
		c.evq = nil
		c.mu.Unlock()
		for _, ev := range q {
			select {
			case c.events <- ev:
			case <-c.closed:
				return 0, false
			}
		}
		return len(q), true
	}
	for {
		n, ok := deliver()
		if !ok {
			return
		}
		if n > 0 {
			continue
		}
		select {
		case <-c.evWake:
		case <-c.done:
			deliver()
			return
		}
	}
}

// full roots p at the chroot.
func (c *Client) full(p string) string {
	if c.chroot == "" {
		return p
	}
	if p == "/" {
		return c.chroot
	}
	return c.chroot + p
}

// rel is the inverse of full for a path the server sent.
func (c *Client) rel(p string) string {
	if c.chroot == "" {
		return p
	}
	if p == c.chroot {
		return "/"
	}
	if rest, ok := strings.CutPrefix(p, c.chroot); ok && strings.HasPrefix(rest, "/") {
		return rest
	}
	return p
}
