package zkfeed

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// memZK is a ZooKeeper tree in memory with one-shot watches, for the
// feed's own logic (sequence tracking, re-arming, lost watches). The live
// test proves the feed against Kafka writing a real ZooKeeper.
type memZK struct {
	mu    sync.Mutex
	data  map[string][]byte
	zxid  int64
	czxid map[string]int64
	mzxid map[string]int64
	child map[string][]chan error
	watch map[string][]chan error
	seq   map[string]int
	// sessions with persistent watches (persist_test.go)
	sessions []*memSession
}

func newMemZK(paths ...string) *memZK {
	z := &memZK{data: map[string][]byte{}, czxid: map[string]int64{}, mzxid: map[string]int64{}, child: map[string][]chan error{}, watch: map[string][]chan error{}, seq: map[string]int{}}
	for _, p := range paths {
		z.data[p] = nil
	}
	return z
}

func (z *memZK) children(p string) []string {
	var out []string
	for k := range z.data {
		if path.Dir(k) == p && k != p {
			out = append(out, path.Base(k))
		}
	}
	slices.Sort(out)
	return out
}

func (z *memZK) ChildrenW(p string) ([]string, <-chan error, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if _, ok := z.data[p]; !ok {
		return nil, nil, zktree.ErrNoNode
	}
	ch := make(chan error, 1)
	z.child[p] = append(z.child[p], ch)
	return z.children(p), ch, nil
}

func (z *memZK) GetW(p string) ([]byte, zktree.Stat, <-chan error, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	d, ok := z.data[p]
	if !ok {
		return nil, zktree.Stat{}, nil, zktree.ErrNoNode
	}
	ch := make(chan error, 1)
	z.watch[p] = append(z.watch[p], ch)
	return d, zktree.Stat{Czxid: z.czxid[p], Mzxid: z.zxid}, ch, nil
}

func (z *memZK) ExistsW(p string) (bool, <-chan error, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	_, ok := z.data[p]
	ch := make(chan error, 1)
	z.watch[p] = append(z.watch[p], ch)
	return ok, ch, nil
}

func (z *memZK) Get(p string) ([]byte, zktree.Stat, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	d, ok := z.data[p]
	if !ok {
		return nil, zktree.Stat{}, zktree.ErrNoNode
	}
	return d, zktree.Stat{Czxid: z.czxid[p]}, nil
}

func fireAll(m map[string][]chan error, p string, err error) {
	for _, ch := range m[p] {
		ch <- err
	}
	delete(m, p)
}

// set creates or changes p, firing the watches ZooKeeper would.
func (z *memZK) set(p string, data string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.zxid++
	typ := zkwire.EventNodeDataChanged
	if _, ok := z.data[p]; !ok {
		z.czxid[p] = z.zxid
		fireAll(z.child, path.Dir(p), nil)
		typ = zkwire.EventNodeCreated
	}
	z.data[p] = []byte(data)
	z.mzxid[p] = z.zxid
	fireAll(z.watch, p, nil)
	z.persistentEvent(typ, p)
}

// notify appends a sequential notification under q.
func (z *memZK) notify(q, prefix, data string) {
	z.mu.Lock()
	n := z.seq[q]
	z.seq[q]++
	z.mu.Unlock()
	z.set(path.Join(q, prefix+pad10(n)), data)
}

func pad10(n int) string {
	s := strings.Repeat("0", 10) + itoa(n)
	return s[len(s)-10:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func (z *memZK) remove(p string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.zxid++
	delete(z.data, p)
	fireAll(z.watch, p, nil)
	fireAll(z.child, p, nil)
	fireAll(z.child, path.Dir(p), nil)
	z.persistentEvent(zkwire.EventNodeDeleted, p)
}

// expire loses every watch, as a session expiry does.
func (z *memZK) expire() {
	z.mu.Lock()
	defer z.mu.Unlock()
	lost := errors.New("session expired")
	for p := range z.watch {
		fireAll(z.watch, p, lost)
	}
	for p := range z.child {
		fireAll(z.child, p, lost)
	}
	for _, s := range z.sessions {
		s.endLocked(lost)
	}
	z.sessions = nil
}

func next(t *testing.T, f *Feed) Event {
	t.Helper()
	select {
	case ev := <-f.Events():
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return Event{}
}

func TestFeedInMemory(t *testing.T) {
	z := newMemZK("/config", configChanges, aclChanges, "/brokers", topicsPath, "/admin", deleteTopics)
	z.set(topicsPath+"/old", `{}`)
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/old"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Start(ctx, z)
	if err != nil {
		t.Fatal(err)
	}

	// A notification from before Start is the baseline, not a change.
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/old"}`)
	if ev := next(t, f); !slices.Equal(ev.Entities, []Entity{{Config, "topics/old"}}) {
		t.Fatalf("first event %+v, want only the new notification", ev)
	}
	// The ACL queue appears after Start (an authorizer configured later).
	z.set(aclExtChanges, "")
	z.notify(aclExtChanges, "acl_changes_", `{"version":1,"resourceType":"GROUP","name":"g-","patternType":"PREFIXED"}`)
	for ev := next(t, f); !slices.Contains(ev.Entities, Entity{ACL, "Group:PREFIXED:g-"}); ev = next(t, f) {
	}
	// A topic created, then its assignment changed: its watch was armed.
	z.set(topicsPath+"/new", `{}`)
	if ev := next(t, f); !slices.Equal(ev.Entities, []Entity{{Topic, "new"}}) {
		t.Fatalf("event %+v, want topic new", ev)
	}
	z.set(topicsPath+"/new", `{"partitions":{}}`)
	if ev := next(t, f); !slices.Equal(ev.Entities, []Entity{{Topic, "new"}}) || ev.Zxid == 0 {
		t.Fatalf("event %+v, want topic new with a zxid", ev)
	}
	// Marked for deletion, then gone.
	z.set(deleteTopics+"/old", "")
	if ev := next(t, f); !slices.Equal(ev.Entities, []Entity{{Deletion, "old"}}) {
		t.Fatalf("event %+v, want the pending deletion of old", ev)
	}

	// Watches lost: one resync, then changes are seen again.
	z.expire()
	if ev := next(t, f); !ev.Resync || ev.Err == nil {
		t.Fatalf("after expiry %+v, want a resync with its reason", ev)
	}
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"brokers/<default>"}`)
	for ev := next(t, f); !slices.Contains(ev.Entities, Entity{Config, "brokers/<default>"}); ev = next(t, f) {
		if ev.Resync {
			t.Fatalf("second resync: %v", ev.Err)
		}
	}

	// A notification the feed cannot make sense of is skipped, named
	// once, and asks for no resync; the feed goes on.
	z.notify(configChanges, "config_change_", `not json`)
	ev := next(t, f)
	if ev.Resync || len(ev.Skipped) != 1 || ev.Skipped[0].Path != configChanges+"/config_change_0000000003" || ev.Skipped[0].Err == nil {
		t.Fatalf("bad notification gave %+v, want it skipped and named, no resync", ev)
	}
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"users/alice"}`)
	expect(t, f, "notification after a skipped one", Entity{Config, "users/alice"})

	cancel()
	for range f.Events() {
	}
}

// reconnZK is a memZK whose connection can be lost and established again,
// losing its watches without a word: as the re-sent watches of a
// go-zookeeper session were seen to do after a ZooKeeper restart.
type reconnZK struct {
	*memZK
	reconnected chan struct{}
}

func (z *reconnZK) Reconnected() <-chan struct{} { return z.reconnected }

// reconnect drops every watch silently and signals the reconnection.
func (z *reconnZK) reconnect() {
	z.mu.Lock()
	z.child, z.watch = map[string][]chan error{}, map[string][]chan error{}
	z.mu.Unlock()
	z.reconnected <- struct{}{}
}

// TestFeedReconnected: after a reconnection the feed trusts no watch: it
// asks for a resync (naming why) and arms everything again, so a change
// made afterwards is seen although the old watches are gone.
func TestFeedReconnected(t *testing.T) {
	z := &reconnZK{memZK: newMemZK("/config", configChanges, aclChanges, "/brokers", topicsPath, "/admin", deleteTopics), reconnected: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Start(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	z.reconnect()
	if ev := next(t, f); !ev.Resync || !errors.Is(ev.Err, errReconnected) {
		t.Fatalf("after a reconnection %+v, want a resync naming it", ev)
	}
	z.notify(configChanges, "config_change_", `{"version":2,"entity_path":"topics/orders"}`)
	if ev := next(t, f); ev.Resync || !slices.Equal(ev.Entities, []Entity{{Config, "topics/orders"}}) {
		t.Fatalf("change after the reconnection: %+v, want config topics/orders", ev)
	}
	z.set(topicsPath+"/fresh", `{}`)
	if ev := next(t, f); !slices.Equal(ev.Entities, []Entity{{Topic, "fresh"}}) {
		t.Fatalf("topic created after the reconnection: %+v, want topic fresh", ev)
	}
}

// barrierZK is a memZK whose reads of notifications wait until n of them
// are in flight at once (or give up with an error after a while).
type barrierZK struct {
	*memZK
	n        int
	mu       sync.Mutex
	inFlight int
	most     int
	all      chan struct{}
}

func (z *barrierZK) Get(p string) ([]byte, zktree.Stat, error) {
	if path.Dir(p) != configChanges {
		return z.memZK.Get(p)
	}
	z.mu.Lock()
	z.inFlight++
	z.most = max(z.most, z.inFlight)
	if z.inFlight == z.n {
		close(z.all)
	}
	z.mu.Unlock()
	defer func() { z.mu.Lock(); z.inFlight--; z.mu.Unlock() }()
	select {
	case <-z.all:
		return z.memZK.Get(p)
	case <-time.After(2 * time.Second):
		return nil, zktree.Stat{}, errors.New("read alone: the other notifications were not read beside it")
	}
}

// TestFeedReadsNotificationsAtOnce: the notifications a fire of a queue's
// watch finds are read together (they used to be read one after another,
// a round trip each), and reported in sequence order.
func TestFeedReadsNotificationsAtOnce(t *testing.T) {
	const n = 20
	z := &barrierZK{memZK: newMemZK("/config", configChanges, aclChanges, "/brokers", topicsPath, "/admin", deleteTopics), n: n, all: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Start(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	// n notifications land before the feed lists the queue: one fire.
	var want []Entity
	z.memZK.mu.Lock()
	for i := range n {
		name := "topics/t" + itoa(i)
		z.zxid++
		p := path.Join(configChanges, "config_change_"+pad10(i))
		z.data[p] = []byte(`{"version":2,"entity_path":"` + name + `"}`)
		z.czxid[p] = z.zxid
		want = append(want, Entity{Config, name})
	}
	fireAll(z.child, configChanges, nil)
	z.memZK.mu.Unlock()
	ev := next(t, f)
	if ev.Resync || !slices.Equal(ev.Entities, want) {
		t.Fatalf("event %+v (most reads in flight %d); want the %d notifications in order, read together", ev, z.most, n)
	}
}
