// Package zkfeed follows a Kafka cluster's metadata changes in ZooKeeper
// through ZooKeeper's own change feed: watches on the notification queues
// Kafka writes (/config/changes, /kafka-acl-changes,
// /kafka-acl-extended-changes), on the topics (/brokers/topics) and on
// pending deletions (/admin/delete_topics). It reports which entities
// changed, never their state: the caller re-reads those (zkread) and plans
// for just them.
//
// On ZooKeeper 3.6 and later the watches are persistent and recursive
// (persist.go): set once per session, each event names the notification
// or topic it is about, and only new notifications are read. On older
// servers, which refuse addWatch, they are one-shot watches on the
// queues, the topic list and each topic's assignment znode; a one-shot
// watch is re-armed by the same request that reads what it covers, so no
// change falls between two reads.
//
// When watches are lost (the session expired, the connection was closed)
// the feed says so with a Resync event, sets everything again and goes
// on: the caller re-reads everything. Nothing here writes to ZooKeeper.
package zkfeed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// Conn is what the feed needs of a ZooKeeper connection (zkconn.Conn
// dialed with NoMultiRead) for one-shot watches. Each W method reads and
// sets a one-shot watch in one request; its channel receives once: nil
// when the watch fired, an error when it never will (watches lost). A
// Conn that is also a WatchSessions gets persistent watches when its
// server has them.
type Conn interface {
	ChildrenW(p string) ([]string, <-chan error, error)
	GetW(p string) ([]byte, zktree.Stat, <-chan error, error)
	ExistsW(p string) (bool, <-chan error, error)
	Get(p string) ([]byte, zktree.Stat, error)
}

// Kind is what sort of entity changed.
type Kind string

// The kinds of entity the feed reports.
const (
	// Topic: /brokers/topics/<name> was created, deleted, or its
	// partitions or replica assignment changed.
	Topic Kind = "topic"
	// Config: /config/<type>/<name> changed (a topic's or broker's
	// configs, a client quota, a user's quotas or SCRAM credentials). Name
	// is the entity path as Kafka writes it: "topics/t1",
	// "brokers/<default>", "users/alice/clients/app-1", "ips/10.0.0.1".
	Config Kind = "config"
	// ACL: the ACLs of one resource changed. Name is
	// "<ResourceType>:<PatternType>:<resource name>", the resource type
	// spelled as in the /kafka-acl paths ("Topic", "Group", ...).
	ACL Kind = "acl"
	// Deletion: a topic was marked for deletion (/admin/delete_topics/<name>).
	Deletion Kind = "pending-deletion"
)

// Entity names one thing whose state must be read again.
type Entity struct {
	Kind Kind
	Name string
}

func (e Entity) String() string { return string(e.Kind) + " " + e.Name }

// Event is one batch of changes the feed saw.
type Event struct {
	// Entities changed; read them again.
	Entities []Entity
	// Zxid is the newest ZooKeeper transaction among the znodes that told
	// of the changes (0 when none carried one, as for deletions).
	Zxid int64
	// Seen is when the feed learned of them.
	Seen time.Time
	// Written is when ZooKeeper wrote the earliest of the notifications
	// the feed read for them (their ctime, by the ZooKeeper server's
	// clock); zero when it read none (a topic's own events, one-shot
	// watches).
	Written time.Time
	// Resync: the feed may have missed changes (watches lost, or a
	// notification it could not read): read everything again. Cause says
	// why, Path names the notification when one could not be read, and
	// Err tells the detail.
	Resync bool
	Cause  Cause
	Path   string
	Err    error
	// Skipped are notifications the feed read and could not make sense
	// of (not JSON, a form Kafka does not write): each is left out, as
	// Kafka's own brokers leave it out, and named here once.
	Skipped []Skipped
}

// Skipped is a notification left out.
type Skipped struct {
	Path string
	Err  error
}

// Cause says why the feed asked for everything to be read again.
type Cause string

// The causes of a resync.
const (
	// CauseSessionExpired: ZooKeeper expired the session the watches were
	// on (one-shot watches).
	CauseSessionExpired Cause = "session-expired"
	// CauseReconnected: the watch session's connection ended or was
	// established again; the watches were set again on a new one.
	CauseReconnected Cause = "reconnected"
	// CauseUnreadable: a notification could not be read (deleted before
	// it was read, or its read failed): Path names it.
	CauseUnreadable Cause = "unreadable-notification"
	// CauseOverflow: watch events came faster than they were taken and
	// the server's were dropped.
	CauseOverflow Cause = "feed-overflow"
)

// unreadable is the error of a notification that could not be read.
type unreadable struct {
	path string
	err  error
}

func (u *unreadable) Error() string { return fmt.Sprintf("zkfeed: notification %s: %v", u.path, u.err) }
func (u *unreadable) Unwrap() error { return u.err }

// resyncFor is the Resync event for err: its Cause (and Path) from what
// err wraps.
func resyncFor(err error) Event {
	ev := Event{Resync: true, Err: err, Cause: CauseReconnected}
	var u *unreadable
	switch {
	case errors.As(err, &u):
		ev.Cause, ev.Path = CauseUnreadable, u.path
	case errors.Is(err, zkwire.ErrEventsOverflow):
		ev.Cause = CauseOverflow
	case errors.Is(err, zkwire.ErrSessionExpired):
		ev.Cause = CauseSessionExpired
	}
	return ev
}

// Reconnection storms: a watch session that ends within stableSession of
// the one before is renewed only after a wait, 250 ms and doubling up to
// stormMaxBackoff while it goes on; one that lived longer is renewed at
// once.
const (
	stableSession   = 10 * time.Second
	stormFirst      = 250 * time.Millisecond
	stormMaxBackoff = 30 * time.Second
)

// storm paces renewals of the watches (see stableSession).
type storm struct {
	last    time.Time // the last renewal
	backoff time.Duration
}

// wait returns once the next renewal may begin (false: ctx ended first).
func (s *storm) wait(ctx context.Context) bool {
	if !s.last.IsZero() && time.Since(s.last) < stableSession {
		if s.backoff == 0 {
			s.backoff = stormFirst
		} else {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(s.backoff):
			}
			s.backoff = min(2*s.backoff, stormMaxBackoff)
		}
	} else {
		s.backoff = 0
	}
	s.last = time.Now()
	return true
}

// The notification queues and the paths the feed watches.
const (
	configChanges   = "/config/changes"
	aclChanges      = "/kafka-acl-changes"
	aclExtChanges   = "/kafka-acl-extended-changes"
	topicsPath      = "/brokers/topics"
	deleteTopics    = "/admin/delete_topics"
	armWorkers      = 32
	readWorkers     = 32 // notifications read at once
	rearmMaxBackoff = 2 * time.Second
)

// Feed is a running change feed. Read Events until it is closed (when the
// context given to Start is done).
type Feed struct {
	conn   Conn
	events chan Event
	fires  chan fire
	done   <-chan struct{} // Start's context's

	modeMu     sync.Mutex
	persistent bool  // following with persistent watches
	fallback   error // why not, when the server refused them

	// The persistent mode's session, owned by runPersistent.
	sess session

	// The one-shot mode's, owned by runOneShot (and Start before it begins).
	lastSeq   map[string]int64 // queue path -> highest sequence seen
	topics    map[string]bool  // topics with a data watch armed
	deletions map[string]bool
	epoch     int // bumped when watches are lost; fires of older epochs are dropped

	storm storm // renewals of the watches, paced
}

// fire is one watch firing (or being lost).
type fire struct {
	what  string // a queue path, topicsPath, deleteTopics, or topicsPath/<name>
	err   error
	epoch int
}

// Start sets every watch and returns once they are all set: any change
// made after Start returns is reported on Events. The caller reads the
// full state after Start (not before), so nothing falls between that read
// and the feed. The feed stops, closing Events, when ctx is done.
//
// When conn is a WatchSessions, the watches are persistent ones on a
// session of their own, and conn's one-shot watches are used only if the
// server refuses addWatch (Mode says which).
func Start(ctx context.Context, conn Conn) (*Feed, error) {
	var open func() (session, error)
	if ws, ok := conn.(WatchSessions); ok {
		open = func() (session, error) {
			cl, err := ws.WatchSession()
			if err != nil {
				return nil, err
			}
			return cl, nil
		}
	}
	return start(ctx, conn, open)
}

// start is Start with the persistent sessions' opener (nil for none).
func start(ctx context.Context, conn Conn, open func() (session, error)) (*Feed, error) {
	f := &Feed{conn: conn, events: make(chan Event, 64), fires: make(chan fire, 1024), done: ctx.Done()}
	if open != nil {
		s, err := openSession(open)
		var refused errNoAddWatch
		switch {
		case err == nil:
			f.sess = s
			f.setMode(true, nil)
			go f.runPersistent(ctx, open)
			return f, nil
		case !errors.As(err, &refused):
			return nil, err
		}
		f.setMode(false, err)
	}
	if err := f.armAll(); err != nil {
		return nil, err
	}
	go func() {
		defer close(f.events)
		f.runOneShot(ctx)
	}()
	return f, nil
}

// Mode says how the feed follows ZooKeeper: persistent watches, or
// one-shot ones and, when the server refused persistent watches, its
// answer (nil when the Conn offers none).
func (f *Feed) Mode() (persistent bool, fallback error) {
	f.modeMu.Lock()
	defer f.modeMu.Unlock()
	return f.persistent, f.fallback
}

func (f *Feed) setMode(persistent bool, fallback error) {
	f.modeMu.Lock()
	f.persistent, f.fallback = persistent, fallback
	f.modeMu.Unlock()
}

// Events delivers what changed, in the order the feed learned it.
func (f *Feed) Events() <-chan Event { return f.events }

// armAll sets every watch from scratch, taking what is there now as the
// baseline (the caller's full read covers it).
func (f *Feed) armAll() error {
	f.lastSeq = map[string]int64{}
	f.topics = map[string]bool{}
	f.deletions = map[string]bool{}
	for _, q := range []string{configChanges, aclChanges, aclExtChanges} {
		names, err := f.armChildren(q)
		if err != nil {
			return err
		}
		f.lastSeq[q] = maxSeq(names)
	}
	names, err := f.armChildren(deleteTopics)
	if err != nil {
		return err
	}
	for _, n := range names {
		f.deletions[n] = true
	}
	names, err = f.armChildren(topicsPath)
	if err != nil {
		return err
	}
	return f.armTopics(names)
}

// armChildren lists p and watches its children; a missing p is watched
// for creation and lists as empty.
func (f *Feed) armChildren(p string) ([]string, error) {
	for {
		names, ch, err := f.conn.ChildrenW(p)
		if err == nil {
			f.forward(p, ch)
			return names, nil
		}
		if !errors.Is(err, zktree.ErrNoNode) {
			return nil, fmt.Errorf("zkfeed: watching %s: %w", p, err)
		}
		ok, ch, err := f.conn.ExistsW(p)
		if err != nil {
			return nil, fmt.Errorf("zkfeed: watching %s: %w", p, err)
		}
		if !ok {
			f.forward(p, ch)
			return nil, nil
		}
		// Created between the two calls: that watch fires at once; list again.
	}
}

// armTopics sets a data watch on each topic's assignment znode, a few at
// a time. A topic deleted meanwhile is left out (its deletion was or will
// be seen on the topic list).
func (f *Feed) armTopics(names []string) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		next     = make(chan string)
	)
	for range min(armWorkers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				_, _, ch, err := f.conn.GetW(path.Join(topicsPath, t))
				mu.Lock()
				switch {
				case err == nil:
					f.topics[t] = true
					f.forward(path.Join(topicsPath, t), ch)
				case errors.Is(err, zktree.ErrNoNode):
				case firstErr == nil:
					firstErr = fmt.Errorf("zkfeed: watching %s/%s: %w", topicsPath, t, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, t := range names {
		next <- t
	}
	close(next)
	wg.Wait()
	return firstErr
}

// forward passes one watch's outcome to run, tagged with the epoch it was
// armed in.
func (f *Feed) forward(what string, ch <-chan error) {
	epoch := f.epoch
	go func() {
		select {
		case err := <-ch:
			select {
			case f.fires <- fire{what: what, err: err, epoch: epoch}:
			case <-f.done:
			}
		case <-f.done:
		}
	}()
}

// errReconnected is the Err of the resync that follows a reconnection.
var errReconnected = errors.New("zkfeed: the ZooKeeper connection was lost and established again: every watch armed and everything read again")

// runOneShot follows the one-shot watches until ctx is done.
func (f *Feed) runOneShot(ctx context.Context) {
	var reconnected <-chan struct{}
	if r, ok := f.conn.(interface{ Reconnected() <-chan struct{} }); ok {
		reconnected = r.Reconnected()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-reconnected:
			// The watches re-sent on reconnection are not trusted: arm
			// everything again, and have everything read again.
			if !f.storm.wait(ctx) || !f.rearm(ctx) {
				return
			}
			ev := resyncFor(errReconnected)
			ev.Seen = time.Now()
			select {
			case f.events <- ev:
			case <-ctx.Done():
				return
			}
		case fr := <-f.fires:
			if fr.epoch != f.epoch {
				continue
			}
			ev, err := f.handle(fr)
			if err == nil && fr.err != nil {
				err = fr.err
			}
			if err != nil {
				ev = resyncFor(err)
				if fr.err != nil && !f.storm.wait(ctx) || !f.rearm(ctx) {
					return
				}
			}
			if len(ev.Entities) == 0 && len(ev.Skipped) == 0 && !ev.Resync {
				continue
			}
			ev.Seen = time.Now()
			select {
			case f.events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}
}

// rearm, after watches were lost, arms everything again, retrying with
// backoff until it succeeds or ctx is done.
func (f *Feed) rearm(ctx context.Context) bool {
	f.epoch++
	backoff := 50 * time.Millisecond
	for {
		if err := f.armAll(); err == nil {
			return true
		}
		f.epoch++ // drop fires of the half-armed attempt
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, rearmMaxBackoff)
	}
}

// handle re-arms the watch that fired, reading what it covers, and says
// what changed. A watch that was lost (fr.err) is not handled: the
// caller re-arms everything.
func (f *Feed) handle(fr fire) (Event, error) {
	if fr.err != nil {
		return Event{}, nil
	}
	switch {
	case fr.what == configChanges || fr.what == aclChanges || fr.what == aclExtChanges:
		return f.queue(fr.what)
	case fr.what == topicsPath:
		return f.topicList()
	case fr.what == deleteTopics:
		return f.deletionList()
	default:
		return f.topic(strings.TrimPrefix(fr.what, topicsPath+"/"))
	}
}

// queue reads the notifications added to q since the last one seen: all
// of them at once (the requests are in flight together on the session),
// then in sequence order.
func (f *Feed) queue(q string) (Event, error) {
	names, err := f.armChildren(q)
	if err != nil {
		return Event{}, err
	}
	last := f.lastSeq[q]
	var fresh []string
	for _, n := range names {
		if seqOf(n) > last {
			fresh = append(fresh, n)
		}
	}
	slices.SortFunc(fresh, func(a, b string) int { return cmp.Compare(seqOf(a), seqOf(b)) })
	type got struct {
		data []byte
		st   zktree.Stat
		err  error
	}
	read := make([]got, len(fresh))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(readWorkers, len(fresh)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				g := &read[i]
				g.data, g.st, g.err = f.conn.Get(path.Join(q, fresh[i]))
			}
		}()
	}
	for i := range fresh {
		next <- i
	}
	close(next)
	wg.Wait()
	var ev Event
	for i, n := range fresh {
		p, g := path.Join(q, n), read[i]
		if errors.Is(g.err, zktree.ErrNoNode) {
			// Brokers delete notifications after 15 minutes; one gone
			// before we read it cannot be known: read everything.
			return ev, &unreadable{path: p, err: errors.New("deleted before it was read")}
		}
		if g.err != nil {
			return ev, &unreadable{path: p, err: g.err}
		}
		e, err := parseNotification(q, g.data)
		if err != nil {
			// Kafka's brokers leave such a notification out too.
			ev.Skipped = append(ev.Skipped, Skipped{Path: p, Err: err})
			f.lastSeq[q] = seqOf(n)
			continue
		}
		ev.Entities = append(ev.Entities, e)
		ev.Zxid = max(ev.Zxid, g.st.Czxid)
		f.lastSeq[q] = seqOf(n)
	}
	return ev, nil
}

// topicList finds topics created or deleted since the list was last read.
func (f *Feed) topicList() (Event, error) {
	names, err := f.armChildren(topicsPath)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	now := map[string]bool{}
	var created []string
	for _, t := range names {
		now[t] = true
		if !f.topics[t] {
			created = append(created, t)
		}
	}
	for t := range f.topics {
		if !now[t] {
			delete(f.topics, t)
			ev.Entities = append(ev.Entities, Entity{Topic, t})
		}
	}
	if err := f.armTopics(created); err != nil {
		return ev, err
	}
	for _, t := range created {
		ev.Entities = append(ev.Entities, Entity{Topic, t})
	}
	sortEntities(ev.Entities)
	return ev, nil
}

// topic re-arms one topic's data watch after it fired.
func (f *Feed) topic(t string) (Event, error) {
	if !f.topics[t] {
		return Event{}, nil // deleted: the topic list reported it
	}
	_, st, ch, err := f.conn.GetW(path.Join(topicsPath, t))
	switch {
	case errors.Is(err, zktree.ErrNoNode):
		delete(f.topics, t)
		return Event{Entities: []Entity{{Topic, t}}}, nil
	case err != nil:
		return Event{}, fmt.Errorf("zkfeed: watching %s/%s: %w", topicsPath, t, err)
	}
	f.forward(path.Join(topicsPath, t), ch)
	return Event{Entities: []Entity{{Topic, t}}, Zxid: st.Mzxid}, nil
}

// deletionList finds topics newly marked for deletion, and those whose
// deletion finished (reported as topic changes).
func (f *Feed) deletionList() (Event, error) {
	names, err := f.armChildren(deleteTopics)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	now := map[string]bool{}
	for _, t := range names {
		now[t] = true
		if !f.deletions[t] {
			ev.Entities = append(ev.Entities, Entity{Deletion, t})
		}
	}
	for t := range f.deletions {
		if !now[t] {
			ev.Entities = append(ev.Entities, Entity{Topic, t})
		}
	}
	f.deletions = now
	sortEntities(ev.Entities)
	return ev, nil
}

func sortEntities(es []Entity) {
	slices.SortFunc(es, func(a, b Entity) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// seqOf is the sequence number ZooKeeper appended to a sequential znode's
// name (its last ten digits), or -1.
func seqOf(name string) int64 {
	if len(name) < 10 {
		return -1
	}
	n, err := strconv.ParseInt(name[len(name)-10:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func maxSeq(names []string) int64 {
	m := int64(-1)
	for _, n := range names {
		m = max(m, seqOf(n))
	}
	return m
}
