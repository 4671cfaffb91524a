package zkfeed

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkwire"
	"github.com/zkmigrate/zkmigrate/internal/zkwire/zkwiretest"
)

// memSession is a session with persistent watches on a memZK: the events
// ZooKeeper 3.8 sends (header zxid -1) for every znode at or below a
// recursively watched path, never NodeChildrenChanged.
type memSession struct {
	z       *memZK
	watches []string
	events  chan zkwire.WatchEvent
	err     error
	reads   int // multiRead requests
	ops     int // reads in them
	// gate, when set, holds the next multiRead: it sends on gate once
	// called and reads from it before answering.
	gate chan struct{}
}

// open opens a new session on z (the feed's opener).
func (z *memZK) open() (session, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	s := &memSession{z: z, events: make(chan zkwire.WatchEvent, 1<<14)}
	z.sessions = append(z.sessions, s)
	return s, nil
}

// persistentEvent sends ev to every session watching p; z.mu is held.
func (z *memZK) persistentEvent(typ zkwire.EventType, p string) {
	for _, s := range z.sessions {
		for _, w := range s.watches {
			if p == w || strings.HasPrefix(p, w+"/") {
				s.events <- zkwire.WatchEvent{Type: typ, State: 3, Path: p, Zxid: -1}
				break
			}
		}
	}
}

func (s *memSession) AddWatch(p string, mode zkwire.WatchMode) error {
	s.z.mu.Lock()
	defer s.z.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if mode != zkwire.PersistentRecursive {
		return fmt.Errorf("memSession: mode %d", mode)
	}
	s.watches = append(s.watches, p)
	return nil
}

func (s *memSession) Events() <-chan zkwire.WatchEvent { return s.events }

func (s *memSession) MultiRead(ops []zkwire.Op) ([]zkwire.Result, error) {
	s.z.mu.Lock()
	gate := s.gate
	s.gate = nil
	s.z.mu.Unlock()
	if gate != nil {
		gate <- struct{}{}
		<-gate
	}
	s.z.mu.Lock()
	defer s.z.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	s.reads++
	s.ops += len(ops)
	var out []zkwire.Result
	for _, op := range ops {
		d, ok := s.z.data[op.Path]
		if !ok {
			out = append(out, zkwire.Result{Err: zkwire.ErrNoNode})
			continue
		}
		out = append(out, zkwire.Result{Data: d, Stat: zkwire.Stat{Czxid: s.z.czxid[op.Path], Mzxid: s.z.mzxid[op.Path]}})
	}
	return out, nil
}

func (s *memSession) Err() error {
	s.z.mu.Lock()
	defer s.z.mu.Unlock()
	return s.err
}

func (s *memSession) Close() error {
	s.z.mu.Lock()
	defer s.z.mu.Unlock()
	s.endLocked(errors.New("closed"))
	return nil
}

// endLocked ends the session, as a lost connection does; z.mu is held.
func (s *memSession) endLocked(err error) {
	if s.err == nil {
		s.err = err
		close(s.events)
	}
	s.z.sessions = slices.DeleteFunc(s.z.sessions, func(o *memSession) bool { return o == s })
}

// endSessions ends every open session.
func (z *memZK) endSessions(err error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	for _, s := range slices.Clone(z.sessions) {
		s.endLocked(err)
	}
}

func (z *memZK) oneShotWatches() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	n := 0
	for _, w := range z.watch {
		n += len(w)
	}
	for _, w := range z.child {
		n += len(w)
	}
	return n
}

func stdZK() *memZK {
	return newMemZK("/config", configChanges, aclChanges, "/brokers", topicsPath, "/admin", deleteTopics)
}

// expect takes the next event, which must be no resync and name exactly
// want, in order.
func expect(t *testing.T, f *Feed, what string, want ...Entity) Event {
	t.Helper()
	ev := next(t, f)
	if ev.Resync || !slices.Equal(ev.Entities, want) {
		t.Fatalf("%s: event %+v, want %v", what, ev, want)
	}
	return ev
}

// TestPersistentFeedInMemory: with persistent watches each entity kind is
// told by its event alone (the notification read, nothing listed), the
// noise (old notifications deleted, the partition state subtree) is left
// out, and no one-shot watch is ever set on the Conn.
func TestPersistentFeedInMemory(t *testing.T) {
	z := stdZK()
	z.set(topicsPath+"/old", `{}`)
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/old"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := start(ctx, z, z.open)
	if err != nil {
		t.Fatal(err)
	}
	if p, why := f.Mode(); !p || why != nil {
		t.Fatalf("Mode = %v, %v; want persistent", p, why)
	}

	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"brokers/<default>"}`)
	ev := expect(t, f, "config notification", Entity{Config, "brokers/<default>"})
	if want := z.czxid[configChanges+"/config_change_0000000001"]; ev.Zxid != want {
		t.Errorf("config notification zxid %d, want its czxid %d", ev.Zxid, want)
	}
	// Kafka's cleanup of old notifications tells of nothing.
	z.remove(configChanges + "/config_change_0000000000")
	z.notify(aclChanges, "acl_changes_", `Topic:orders`)
	expect(t, f, "ACL notification after a cleanup", Entity{ACL, "Topic:LITERAL:orders"})
	// The extended queue created after Start (an authorizer configured
	// later): its creation tells of nothing, its notifications do.
	z.set(aclExtChanges, "")
	z.notify(aclExtChanges, "acl_changes_", `{"version":1,"resourceType":"GROUP","name":"g-","patternType":"PREFIXED"}`)
	expect(t, f, "extended ACL notification", Entity{ACL, "Group:PREFIXED:g-"})

	// A topic created, its partition state written, then reassigned.
	z.set(topicsPath+"/new", `{}`)
	expect(t, f, "topic created", Entity{Topic, "new"})
	z.set(topicsPath+"/new/partitions", "")
	z.set(topicsPath+"/new/partitions/0", "")
	z.set(topicsPath+"/new/partitions/0/state", `{"leader":1}`)
	z.set(topicsPath+"/new/partitions/0/state", `{"leader":2}`)
	z.set(topicsPath+"/new", `{"partitions":{}}`)
	ev = expect(t, f, "topic reassigned (after partition state noise)", Entity{Topic, "new"})
	if ev.Zxid != z.mzxid[topicsPath+"/new"] {
		t.Errorf("reassignment zxid %d, want the znode's mzxid %d", ev.Zxid, z.mzxid[topicsPath+"/new"])
	}

	// Marked for deletion, deleted, the mark removed.
	z.set(deleteTopics+"/old", "")
	expect(t, f, "marked for deletion", Entity{Deletion, "old"})
	z.remove(topicsPath + "/old")
	expect(t, f, "topic deleted", Entity{Topic, "old"})
	z.remove(deleteTopics + "/old")
	expect(t, f, "deletion finished", Entity{Topic, "old"})

	// A notification the feed cannot make sense of is skipped and named
	// once, with no resync, and the feed goes on.
	z.notify(configChanges, "config_change_", `not json`)
	if ev := next(t, f); ev.Resync || len(ev.Skipped) != 1 || ev.Skipped[0].Path != configChanges+"/config_change_0000000002" {
		t.Fatalf("bad notification gave %+v, want it skipped and named, no resync", ev)
	}
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"users/alice"}`)
	expect(t, f, "notification after a skipped one", Entity{Config, "users/alice"})

	if n := z.oneShotWatches(); n != 0 {
		t.Errorf("%d one-shot watches set in persistent mode", n)
	}
	cancel()
	for range f.Events() {
	}
}

// TestPersistentFeedBatches: notifications that arrive together are read
// in multiRead requests of at most maxMultiOps (not one request each, and
// the queue never listed) and reported in order in one event.
func TestPersistentFeedBatches(t *testing.T) {
	const n = 300
	z := stdZK()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := start(ctx, z, z.open)
	if err != nil {
		t.Fatal(err)
	}
	// A topic's change whose read the feed is held in while the n
	// notifications arrive: it then finds them all waiting.
	z.set(topicsPath+"/t", `{}`)
	expect(t, f, "topic created", Entity{Topic, "t"})
	z.mu.Lock()
	s := z.sessions[0]
	gate := make(chan struct{})
	s.gate = gate
	z.mu.Unlock()
	z.set(topicsPath+"/t", `{"partitions":{}}`)
	<-gate
	var want []Entity
	z.mu.Lock()
	for i := range n {
		z.zxid++
		p := path.Join(configChanges, "config_change_"+pad10(i))
		z.data[p] = []byte(`{"version":2,"entity_path":"topics/t` + itoa(i) + `"}`)
		z.czxid[p] = z.zxid
		z.persistentEvent(zkwire.EventNodeCreated, p)
		want = append(want, Entity{Config, "topics/t" + itoa(i)})
	}
	s.reads, s.ops = 0, 0 // the topic's read, held, is counted once let go
	z.mu.Unlock()
	gate <- struct{}{}
	expect(t, f, "topic reassigned", Entity{Topic, "t"})
	ev := expect(t, f, "a burst of notifications", want...)
	if ev.Zxid != z.zxid {
		t.Errorf("zxid %d, want the newest notification's %d", ev.Zxid, z.zxid)
	}
	z.mu.Lock()
	reads, ops := s.reads-1, s.ops-1
	z.mu.Unlock()
	if ops != n || reads > (n+maxMultiOps-1)/maxMultiOps {
		t.Errorf("%d notifications read in %d multiRead requests (%d reads); want %d requests at most", n, reads, ops, (n+maxMultiOps-1)/maxMultiOps)
	}
}

// TestPersistentFeedSessionEnds: a session that ends (connection lost,
// expired) gives one resync, after a new session has its watches, so a
// change made afterwards is seen.
func TestPersistentFeedSessionEnds(t *testing.T) {
	z := stdZK()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := start(ctx, z, z.open)
	if err != nil {
		t.Fatal(err)
	}
	z.endSessions(errors.New("zkwire: connection lost: EOF"))
	ev := next(t, f)
	if !ev.Resync || ev.Err == nil || !strings.Contains(ev.Err.Error(), "connection lost: EOF") {
		t.Fatalf("after the session ended %+v, want a resync saying why", ev)
	}
	z.set(topicsPath+"/fresh", `{}`)
	expect(t, f, "topic created on the new session", Entity{Topic, "fresh"})
	z.mu.Lock()
	open := len(z.sessions)
	z.mu.Unlock()
	if open != 1 {
		t.Errorf("%d sessions open, want the new one only", open)
	}
}

// refusingZK is a memZK whose sessions refuse addWatch with refusal after
// the first ok ones (ZooKeeper 3.5 answers UNIMPLEMENTED).
type refusingZK struct {
	*memZK
	mu      sync.Mutex
	ok      int // sessions that accept addWatch
	refusal error
}

type refusingSession struct {
	*memSession
	refusal error
}

func (s refusingSession) AddWatch(p string, mode zkwire.WatchMode) error { return s.refusal }

func (z *refusingZK) open() (session, error) {
	s, err := z.memZK.open()
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.ok > 0 {
		z.ok--
		return s, err
	}
	return refusingSession{memSession: s.(*memSession), refusal: z.refusal}, err
}

// TestFeedFallsBackToOneShot: a server that refuses addWatch, at Start
// or on a later session (an ensemble rolled back), is followed with
// one-shot watches, and Mode says why.
func TestFeedFallsBackToOneShot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ok      int
		refusal error
	}{
		{"at start, unimplemented", 0, zkwire.ErrUnimplemented},
		{"at start, connection closed", 0, fmt.Errorf("%w: EOF", zkwire.ErrConnectionLost)},
		{"on a new session", 1, zkwire.ErrUnimplemented},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := &refusingZK{memZK: stdZK(), ok: tc.ok, refusal: tc.refusal}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f, err := start(ctx, z.memZK, z.open)
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok > 0 {
				if p, _ := f.Mode(); !p {
					t.Fatal("not persistent while the server accepts addWatch")
				}
				z.endSessions(errors.New("connection lost"))
				if ev := next(t, f); !ev.Resync {
					t.Fatalf("after the session ended %+v, want a resync", ev)
				}
			}
			p, why := f.Mode()
			if p || !errors.Is(why, tc.refusal) || !strings.Contains(why.Error(), "refused addWatch") {
				t.Fatalf("Mode = %v, %v; want one-shot, naming the refusal", p, why)
			}
			z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/orders"}`)
			expect(t, f, "config change with one-shot watches", Entity{Config, "topics/orders"})
			z.set(topicsPath+"/fresh", `{}`)
			expect(t, f, "topic created with one-shot watches", Entity{Topic, "fresh"})
			if z.oneShotWatches() == 0 {
				t.Error("no one-shot watch set after the fallback")
			}
		})
	}
}

// wireZK is a memZK offering zkwire sessions to a fake server that
// answers addWatch with UNIMPLEMENTED and closes the connection, as
// ZooKeeper 3.5 does: Start finds the refusal through the real client.
type wireZK struct {
	*memZK
	t *testing.T
}

func (z wireZK) WatchSession() (*zkwire.Client, error) {
	nc := zkwiretest.Serve(z.t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
		if op == 106 { // addWatch
			s.Reply(xid, 0, -6, nil)
			s.Conn.Close()
		}
	})
	return zkwire.Connect(nc, zkwire.Options{SessionTimeout: 4 * time.Second})
}

func TestStartFallsBackOnZooKeeper35(t *testing.T) {
	z := wireZK{memZK: stdZK(), t: t}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Start(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	if p, why := f.Mode(); p || !errors.Is(why, zkwire.ErrUnimplemented) {
		t.Fatalf("Mode = %v, %v; want one-shot after UNIMPLEMENTED", p, why)
	}
	z.set(deleteTopics+"/gone", "")
	expect(t, f, "pending deletion with one-shot watches", Entity{Deletion, "gone"})
}

// An opener that cannot open a session at all fails Start (the ensemble
// is out of reach), rather than hiding it behind one-shot watches.
func TestStartFailsWhenNoSession(t *testing.T) {
	z := stdZK()
	_, err := start(context.Background(), z, func() (session, error) { return nil, errors.New("zkconn: cannot reach ZooKeeper at h:1") })
	if err == nil || !strings.Contains(err.Error(), "h:1") {
		t.Fatalf("Start = %v, want the session's error", err)
	}
}

// TestJunkNotificationsAskNoResync: a burst of notifications no broker
// could read (3,000 of them, as an attacker with write access to
// ZooKeeper could make) is skipped, each named once, with no resync: it
// used to cost a full round each.
func TestJunkNotificationsAskNoResync(t *testing.T) {
	const junk = 3000
	z := stdZK()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := start(ctx, z, z.open)
	if err != nil {
		t.Fatal(err)
	}
	for i := range junk {
		z.notify(configChanges, "config_change_", fmt.Sprintf(`{"version":%d}`, 100+i))
	}
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/orders"}`)
	skipped := map[string]bool{}
	for {
		ev := next(t, f)
		if ev.Resync {
			t.Fatalf("a resync (%s: %v) after %d junk notifications", ev.Cause, ev.Err, len(skipped))
		}
		for _, s := range ev.Skipped {
			if skipped[s.Path] {
				t.Fatalf("%s named twice", s.Path)
			}
			skipped[s.Path] = true
		}
		if slices.Contains(ev.Entities, Entity{Config, "topics/orders"}) {
			break
		}
	}
	if len(skipped) != junk {
		t.Errorf("%d notifications named skipped; want %d", len(skipped), junk)
	}
}

// TestResyncNamesItsCause: each resync says why — the watch session
// ended, its events overflowed, a notification was gone before it was
// read (naming it) — and a session that keeps ending right after it
// began is renewed after a growing wait rather than at once.
func TestResyncNamesItsCause(t *testing.T) {
	z := stdZK()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := start(ctx, z, z.open)
	if err != nil {
		t.Fatal(err)
	}
	z.endSessions(fmt.Errorf("%w: EOF", zkwire.ErrConnectionLost))
	if ev := next(t, f); !ev.Resync || ev.Cause != CauseReconnected {
		t.Fatalf("session ended: %+v; want a resync, cause %s", ev, CauseReconnected)
	}
	z.endSessions(fmt.Errorf("%w: %w: too many", zkwire.ErrConnectionLost, zkwire.ErrEventsOverflow))
	if ev := next(t, f); !ev.Resync || ev.Cause != CauseOverflow {
		t.Fatalf("events overflowed: %+v; want a resync, cause %s", ev, CauseOverflow)
	}
	if f.storm.backoff == 0 {
		t.Error("a session that ended right after the one before was renewed with no wait planned")
	}
	// A notification deleted between its event and its read.
	z.mu.Lock()
	gate := make(chan struct{})
	z.sessions[0].gate = gate
	z.mu.Unlock()
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/orders"}`)
	<-gate
	z.mu.Lock()
	var gone string
	for p := range z.data {
		if strings.HasPrefix(p, configChanges+"/") {
			gone = p
		}
	}
	z.mu.Unlock()
	z.remove(gone)
	gate <- struct{}{}
	if ev := next(t, f); !ev.Resync || ev.Cause != CauseUnreadable || ev.Path != gone {
		t.Fatalf("notification gone before its read: %+v; want a resync, cause %s, naming %s", ev, CauseUnreadable, gone)
	}
}
