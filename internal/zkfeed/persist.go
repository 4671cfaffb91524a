package zkfeed

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// The persistent mode (ZooKeeper 3.6+): one recursive persistent watch
// on each of the five paths, set once per session. A notification's
// NodeCreated event names it, so only the new notifications are read (in
// one multiRead), never a whole queue; a topic's creation, deletion and
// assignment change are told by the event's path alone, so nothing is
// set per topic. Events on one session arrive in the order ZooKeeper
// applied the changes.

// WatchSessions is a Conn that can also open sessions with persistent
// watches (zkconn.Conn.WatchSession): Start then uses those, and the
// one-shot watches only when the server refuses addWatch.
type WatchSessions interface {
	WatchSession() (*zkwire.Client, error)
}

// session is what the persistent mode needs of a ZooKeeper session
// (*zkwire.Client).
type session interface {
	AddWatch(p string, mode zkwire.WatchMode) error
	Events() <-chan zkwire.WatchEvent
	MultiRead(ops []zkwire.Op) ([]zkwire.Result, error)
	Err() error
	Close() error
}

// persistentPaths are watched recursively, in this order.
var persistentPaths = []string{configChanges, aclChanges, aclExtChanges, topicsPath, deleteTopics}

const (
	maxBatch    = 1024 // events handled in one go
	maxMultiOps = 128  // reads in one multiRead
)

// errNoAddWatch marks a server that refused addWatch: the feed falls back
// to one-shot watches.
type errNoAddWatch struct{ err error }

func (e errNoAddWatch) Error() string {
	return fmt.Sprintf("zkfeed: the ZooKeeper server refused addWatch (persistent watches need ZooKeeper 3.6 or later): %v", e.err)
}
func (e errNoAddWatch) Unwrap() error { return e.err }

// openSession opens a session and adds every persistent watch on it. A
// session that cannot be opened is an error; one whose server refuses
// addWatch is an errNoAddWatch.
func openSession(open func() (session, error)) (session, error) {
	s, err := open()
	if err != nil {
		return nil, err
	}
	for _, p := range persistentPaths {
		if err := s.AddWatch(p, zkwire.PersistentRecursive); err != nil {
			s.Close()
			if errors.Is(err, zkwire.ErrNoAuth) {
				return nil, fmt.Errorf("zkfeed: watching %s: %w", p, err)
			}
			return nil, errNoAddWatch{err: fmt.Errorf("watching %s: %w", p, err)}
		}
	}
	return s, nil
}

// runPersistent follows the session's events until ctx is done; when the
// server stops offering addWatch (an ensemble rolled back), it goes on
// with one-shot watches.
func (f *Feed) runPersistent(ctx context.Context, open func() (session, error)) {
	defer close(f.events)
	defer func() {
		if f.sess != nil {
			f.sess.Close()
		}
	}()
	for {
		var batch []zkwire.WatchEvent
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-f.sess.Events():
			if !ok {
				if !f.renew(ctx, open, f.sess.Err()) {
					return
				}
				if f.sess == nil {
					f.runOneShot(ctx)
					return
				}
				continue
			}
			batch = append(batch, ev)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-f.sess.Events():
				if !ok {
					break more // renewed on the next turn
				}
				batch = append(batch, ev)
			default:
				break more
			}
		}
		ev, err := f.persistentBatch(batch)
		if err != nil {
			if f.sess.Err() != nil {
				// The session ended while its notifications were read.
				if !f.renew(ctx, open, err) {
					return
				}
				if f.sess == nil {
					f.runOneShot(ctx)
					return
				}
				continue
			}
			ev = resyncFor(err)
		}
		if len(ev.Entities) == 0 && len(ev.Skipped) == 0 && !ev.Resync {
			continue
		}
		ev.Seen = time.Now()
		if !f.send(ctx, ev) {
			return
		}
	}
}

// renew replaces an ended session (why says how it ended): a new one with
// every watch added again, retrying with backoff, then a Resync event.
// When the server refuses addWatch now, the one-shot watches are armed
// instead and f.sess is nil. False when ctx is done first.
func (f *Feed) renew(ctx context.Context, open func() (session, error), why error) bool {
	f.sess.Close()
	f.sess = nil
	if !f.storm.wait(ctx) {
		return false
	}
	backoff := 50 * time.Millisecond
	for {
		s, err := openSession(open)
		if err == nil {
			f.sess = s
			break
		}
		var refused errNoAddWatch
		if errors.As(err, &refused) && errors.Is(err, zkwire.ErrUnimplemented) {
			f.setMode(false, err)
			if !f.rearm(ctx) {
				return false
			}
			break
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, rearmMaxBackoff)
	}
	ev := resyncFor(fmt.Errorf("zkfeed: the ZooKeeper watch session ended (%w): watches set again on a new session, and everything read again", why))
	ev.Seen = time.Now()
	return f.send(ctx, ev)
}

func (f *Feed) send(ctx context.Context, ev Event) bool {
	select {
	case f.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// told is what one watch event tells: an entity, and the znode to read
// for its zxid or (a notification) for the entity itself.
type told struct {
	entity Entity
	zxid   int64
	read   string // "" for none
	queue  string // read is a notification of this queue
	skip   bool   // the notification could not be made sense of
}

// tell says what a watch event means, false for the events that mean no
// change to sync: a queue's old notifications deleted, the partition
// state subtree of a topic, the watched paths themselves.
func tell(ev zkwire.WatchEvent) (told, bool) {
	dir, name := path.Dir(ev.Path), path.Base(ev.Path)
	zxid := max(ev.Zxid, 0) // ZooKeeper 3.9 sends the event's zxid, older servers -1
	switch dir {
	case configChanges, aclChanges, aclExtChanges:
		if ev.Type == zkwire.EventNodeCreated {
			return told{read: ev.Path, queue: dir}, true
		}
	case topicsPath:
		t := told{entity: Entity{Topic, name}, zxid: zxid}
		switch ev.Type {
		case zkwire.EventNodeCreated, zkwire.EventNodeDeleted:
			return t, true
		case zkwire.EventNodeDataChanged: // partitions added or reassigned
			if zxid == 0 {
				t.read = ev.Path // its mzxid
			}
			return t, true
		}
	case deleteTopics:
		switch ev.Type {
		case zkwire.EventNodeCreated:
			return told{entity: Entity{Deletion, name}, zxid: zxid}, true
		case zkwire.EventNodeDeleted: // the deletion finished
			return told{entity: Entity{Topic, name}, zxid: zxid}, true
		}
	}
	return told{}, false
}

// persistentBatch turns a batch of watch events into one Event, reading
// the new notifications (and the zxids a server before 3.9 does not send)
// in multiRead requests. Entities are in the order of the events, each
// once.
func (f *Feed) persistentBatch(batch []zkwire.WatchEvent) (Event, error) {
	var tolds []told
	var reads []zkwire.Op
	var readOf []int // reads[i] is for tolds[readOf[i]]
	for _, ev := range batch {
		t, ok := tell(ev)
		if !ok {
			continue
		}
		if t.read != "" {
			reads = append(reads, zkwire.Op{Path: t.read})
			readOf = append(readOf, len(tolds))
		}
		tolds = append(tolds, t)
	}
	res, err := multiRead(f.sess, reads)
	var skipped []Skipped
	var written time.Time
	if err != nil {
		return Event{}, fmt.Errorf("zkfeed: reading what the watch events tell of: %w", err)
	}
	for i, r := range res {
		t := &tolds[readOf[i]]
		switch {
		case t.queue != "" && errors.Is(r.Err, zkwire.ErrNoNode):
			// Brokers delete notifications after 15 minutes; one gone
			// before we read it cannot be known: read everything.
			return Event{}, &unreadable{path: t.read, err: errors.New("deleted before it was read")}
		case errors.Is(r.Err, zkwire.ErrNoNode):
			// A topic deleted after its change: the deletion's own event
			// follows.
		case r.Err != nil && t.queue != "":
			return Event{}, &unreadable{path: t.read, err: r.Err}
		case r.Err != nil:
			return Event{}, fmt.Errorf("zkfeed: reading %s: %w", t.read, r.Err)
		case t.queue != "":
			e, err := parseNotification(t.queue, r.Data)
			if err != nil {
				// Kafka's brokers leave such a notification out too.
				skipped = append(skipped, Skipped{Path: t.read, Err: err})
				t.skip = true
				continue
			}
			t.entity, t.zxid = e, r.Stat.Czxid
			if r.Stat.Ctime > 0 {
				if w := time.UnixMilli(r.Stat.Ctime); written.IsZero() || w.Before(written) {
					written = w
				}
			}
		default:
			t.zxid = r.Stat.Mzxid
		}
	}
	ev := Event{Skipped: skipped, Written: written}
	seen := map[Entity]bool{}
	for _, t := range tolds {
		if t.skip {
			continue
		}
		ev.Zxid = max(ev.Zxid, t.zxid)
		if !seen[t.entity] {
			seen[t.entity] = true
			ev.Entities = append(ev.Entities, t.entity)
		}
	}
	return ev, nil
}

// multiRead reads ops on s, maxMultiOps a request, the requests in
// flight together.
func multiRead(s session, ops []zkwire.Op) ([]zkwire.Result, error) {
	out := make([]zkwire.Result, len(ops))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for lo := 0; lo < len(ops); lo += maxMultiOps {
		hi := min(lo+maxMultiOps, len(ops))
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.MultiRead(ops[lo:hi])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				first = cmpErr(first, err)
				return
			}
			copy(out[lo:hi], res)
		}()
	}
	wg.Wait()
	return out, first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
