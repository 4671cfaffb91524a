package zkread

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// filtered is what a read of some entities must equal: a source that
// lists the directories and keeps the wanted names among their children
// (how change rounds read before WantedSource). It lists a wanted ACL
// root whole (its unknown resource types are findings) and keeps nothing
// of its resource types' directories not wanted.
type filtered struct {
	Source
	want map[string][]string
}

func aclRoot(p string) bool { return p == "/kafka-acl" || p == "/kafka-acl-extended/prefixed" }

func (f filtered) Children(p string) ([]string, error) {
	names, err := f.Source.Children(p)
	w, ok := f.want[p]
	if _, root := f.want[path.Dir(p)]; root && aclRoot(path.Dir(p)) && !ok {
		return nil, err
	}
	if ok && !aclRoot(p) && err == nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(w, n) })
	}
	return names, err
}

// wanting wants the same names through Wanted. It records a listing of a
// wanted directory but an ACL root (listed for its findings), and rejects a path naming a child listed in bad, as
// ZooKeeper's clients reject paths that are not valid.
type wanting struct {
	Source
	want map[string][]string
	bad  []string

	mu     sync.Mutex
	listed []string
}

func (w *wanting) Wanted(dir string) ([]string, bool) {
	n, ok := w.want[dir]
	return n, ok
}

var errInvalidPath = errors.New("zk: invalid path")

func (w *wanting) invalid(p string) bool {
	for dir := range w.want {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok && slices.Contains(w.bad, rest) {
			return true
		}
	}
	return false
}

func (w *wanting) Get(p string) ([]byte, zktree.Stat, error) {
	if w.invalid(p) {
		return nil, zktree.Stat{}, errInvalidPath
	}
	return w.Source.Get(p)
}

func (w *wanting) Children(p string) ([]string, error) {
	if w.invalid(p) {
		return nil, errInvalidPath
	}
	if _, ok := w.want[p]; ok && !aclRoot(p) {
		w.mu.Lock()
		w.listed = append(w.listed, p)
		w.mu.Unlock()
	}
	return w.Source.Children(p)
}

// TestWantedEqualsFiltered: reading the wanted children of entity
// directories (present ones, absent ones, names no znode can have, and
// the ACL resource types in both spellings) gives exactly the snapshot of
// listing those directories and keeping the wanted names — findings and
// the read's zxids included, nothing read as changed — without listing
// them.
func TestWantedEqualsFiltered(t *testing.T) {
	bad := []string{"", ".", "..", "a/b", "orders/partitions", "x\x00y", "\x01", "\u007f", "\u0085", "\ud7ff\uf8ff", "\ufff0", "\U0001F600", "\xff"}
	entities := func(names ...string) []string { return append(names, bad...) }
	for _, tc := range []struct {
		name string
		want map[string][]string
	}{
		{"topics present and absent", map[string][]string{
			"/brokers/topics": entities("orders", "legacy", "broken", "ghost"), "/config/topics": entities("orders", "legacy", "broken", "ghost"),
			"/admin/delete_topics": entities("orders", "legacy", "broken", "ghost")}},
		{"a config without its topic", map[string][]string{"/brokers/topics": {"ghost"}, "/config/topics": {"ghost"}, "/admin/delete_topics": {"ghost"}}},
		{"broker configs", map[string][]string{"/config/brokers": entities("1", "<default>", "9")}},
		{"users with clients, sanitized, default, malformed and absent", map[string][]string{
			"/config/users": entities("alice", "<default>", "%3Cdefault%3E", "User%20With%20Space", "CN%3Dfoo%2COU%3Dbar", "bob", "nobody", "bad%zz", "gone%zz")}},
		{"client and ip quotas", map[string][]string{"/config/clients": entities("app-1", "<default>", "bad%zz", "nobody"), "/config/ips": entities("%3A%3A1", "<default>", "10.9.9.9")}},
		{"ACL resource types in both spellings", map[string][]string{
			"/kafka-acl":       entities("Topic", "TOPIC", "Group", "GROUP", "User", "USER", "Cluster", "CLUSTER"),
			"/kafka-acl/Topic": entities("orders", "*", "bad-op", "nobody"), "/kafka-acl/TOPIC": {"orders"},
			"/kafka-acl/Group": {"g1"}, "/kafka-acl/User": {"User:alice"}, "/kafka-acl/Cluster": {"kafka-cluster"},
			"/kafka-acl-extended/prefixed":       entities("Topic", "TOPIC", "TransactionalId", "TRANSACTIONAL_ID"),
			"/kafka-acl-extended/prefixed/Topic": entities("orders-", "nobody-"), "/kafka-acl-extended/prefixed/TransactionalId": {"tx-"}}},
		{"nothing wanted", map[string][]string{"/brokers/topics": nil, "/config/topics": nil, "/config/users": nil, "/kafka-acl": nil,
			"/kafka-acl-extended/prefixed": nil, "/delegation_token/tokens": nil, "/consumers": nil, "/admin/delete_topics": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := handmadeTree(t)
			var start int64
			for _, n := range tree.Nodes {
				start = max(start, n.Mzxid)
			}
			src := &changingSource{Tree: tree, start: start} // a start zxid: nothing changed since
			ctx := context.Background()
			opt := Options{Full: true, Now: fixedNow, EncoderSecrets: []string{handmadeEncoderSecret}}
			want, err := Read(ctx, filtered{Source: src, want: tc.want}, opt)
			if err != nil {
				t.Fatal(err)
			}
			w := &wanting{Source: src, want: tc.want, bad: bad}
			got, err := Read(ctx, w, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.listed) > 0 {
				t.Errorf("listed %v, where the source wants names", w.listed)
			}
			if len(got.Read.Changed) > 0 {
				t.Errorf("read as changed during the read: %v", got.Read.Changed)
			}
			want.Read.Znodes, got.Read.Znodes = 0, 0 // the listings not made, the presence checks made
			secrets := cmp.Comparer(func(a, b secret.Secret) bool { return a.Ref() == b.Ref() && a.Known() == b.Known() })
			if d := cmp.Diff(want, got, secrets); d != "" {
				t.Errorf("a wanted read differs from a filtered listing (-filtered +wanted):\n%s", d)
			}
			full, err := Read(ctx, src, opt)
			if err != nil {
				t.Fatal(err)
			}
			full.Read.Znodes = 0
			if cmp.Equal(full, got, secrets) {
				t.Error("the wanted read is a whole read: a hollow case")
			}
		})
	}
}

// TestWantedAbsentEntity: a wanted name whose znode is missing reads as
// absent, not as a znode deleted during the read (which a listed one
// missing on its read is).
func TestWantedAbsentEntity(t *testing.T) {
	tree := handmadeTree(t)
	src := &changingSource{Tree: tree, gone: "/brokers/topics/orders"}
	s, err := Read(context.Background(), &wanting{Source: src, want: map[string][]string{"/brokers/topics": {"orders", "ghost", "legacy"}}}, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range s.Topics {
		names = append(names, tp.Name)
	}
	if !slices.Equal(names, []string{"legacy"}) || len(s.Read.Changed) > 0 || slices.Contains(findingIDs(s, "/"), "read-not-consistent") {
		t.Errorf("topics %v, changed %v, findings on / %v; want [legacy] and nothing changed", names, s.Read.Changed, findingIDs(s, "/"))
	}
	s, err = Read(context.Background(), src, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Read.Changed, []string{"/brokers/topics/orders"}) {
		t.Errorf("a listed topic missing on its read: changed %v, want it", s.Read.Changed)
	}
}

func TestZnodeName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"orders", true}, {"a.b", true}, {"...", true}, {".hidden", true}, {"User:alice", true}, {"<default>", true},
		{"%3Cdefault%3E", true}, {"*", true}, {"zookeeper", true}, {" ", true}, {"Ω", true}, {"\u00a0", true},
		{"\ud7ff", true}, {"\uf900", true}, {"\uffef", true},
		{"", false}, {".", false}, {"..", false}, {"a/b", false}, {"/", false}, {"x\x00", false}, {"\x1f", false},
		{"\u007f", false}, {"\u009f", false}, {"\ue000", false}, {"\uf8ff", false}, {"\ufff0", false}, {"\uffff", false},
		{"\U00010000", false}, {"\U0001F600", false}, {"\xff", false}, {"a\xc3", false},
	} {
		if got := znodeName(tc.name); got != tc.ok {
			t.Errorf("znodeName(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// TestListingsNotWaitedFor: the reads of Kafka's znodes do not wait for
// the root's listing, nor a wanted ACL's read for the listing of its
// root (made for the findings about unknown resource types); a root
// without Kafka's znodes is still ErrNotKafka, and one ZooKeeper ACLs deny
// listing still names the fix, both without reading on.
func TestListingsNotWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		list, after string
		want        map[string][]string
	}{
		{"/", "/cluster/id", nil},
		{"/", "/brokers/topics/orders", map[string][]string{"/brokers/topics": {"orders"}}},
		{"/kafka-acl", "/kafka-acl/Topic/orders", map[string][]string{"/kafka-acl": {"Topic"}, "/kafka-acl/Topic": {"orders"}}},
		{"/kafka-acl-extended/prefixed", "/kafka-acl-extended/prefixed/Topic/orders-",
			map[string][]string{"/kafka-acl-extended/prefixed": {"Topic"}, "/kafka-acl-extended/prefixed/Topic": {"orders-"}}},
	} {
		var src Source = &listingAfter{Tree: handmadeTree(t), list: tc.list, after: tc.after, read: make(chan struct{})}
		if tc.want != nil {
			src = &wanting{Source: src, want: tc.want}
		}
		s, err := Read(context.Background(), src, Options{})
		if err != nil {
			t.Errorf("listing %s: %v", tc.list, err)
			continue
		}
		if len(s.Topics) == 0 && len(s.ACLs) == 0 {
			t.Errorf("listing %s: read nothing", tc.list)
		}
	}
	// One worker: the root's listing is taken first, and its failure stops
	// the read before the rest is read.
	notKafka := &counting{Source: &zktree.Tree{Nodes: []zktree.Node{{Path: "/zookeeper"}, {Path: "/other"}, {Path: "/other/brokers"}}}}
	if _, err := Read(context.Background(), notKafka, Options{Workers: 1}); !errors.Is(err, ErrNotKafka) || notKafka.n != 2 {
		t.Errorf("a root without Kafka's znodes: err = %v after %d requests, want ErrNotKafka after 2 (/ read and listed)", err, notKafka.n)
	}
	denied := &counting{Source: rootDenied{handmadeTree(t)}}
	if _, err := Read(context.Background(), denied, Options{Workers: 1}); err == nil || !strings.Contains(err.Error(), "--zk-auth") || denied.n != 2 {
		t.Errorf("a root ACLs deny listing: err = %v after %d requests, want the fix named after 2", err, denied.n)
	}
	if _, err := Read(context.Background(), rootDenied{handmadeTree(t)}, Options{}); err == nil || !strings.Contains(err.Error(), "--zk-auth") {
		t.Errorf("a root ACLs deny listing, many workers: err = %v, want the fix named", err)
	}
}

// counting counts the requests made of it.
type counting struct {
	Source
	mu sync.Mutex
	n  int
}

func (c *counting) Get(p string) ([]byte, zktree.Stat, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Source.Get(p)
}

func (c *counting) Children(p string) ([]string, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Source.Children(p)
}

// listingAfter answers the listing of list only once after was read; a
// reader that waits for the listing before reading after gets an error
// instead, after a bound.
type listingAfter struct {
	*zktree.Tree
	list, after string
	once        sync.Once
	read        chan struct{}
}

func (l *listingAfter) Get(p string) ([]byte, zktree.Stat, error) {
	if p == l.after {
		l.once.Do(func() { close(l.read) })
	}
	return l.Tree.Get(p)
}

func (l *listingAfter) Children(p string) ([]string, error) {
	if p == l.list {
		select {
		case <-l.read:
		case <-time.After(20 * time.Second):
			return nil, fmt.Errorf("%s was listed before %s was read, which waited for the listing", l.list, l.after)
		}
	}
	return l.Tree.Children(p)
}

type rootDenied struct{ *zktree.Tree }

func (r rootDenied) Children(p string) ([]string, error) {
	if p == "/" {
		return nil, zktree.ErrNoAuth
	}
	return r.Tree.Children(p)
}

// held holds every request but the read of / until released, counting
// those held.
type held struct {
	Source
	n       atomic.Int32
	release chan struct{}
}

func (h *held) Get(p string) ([]byte, zktree.Stat, error) {
	if p == "/" {
		return h.Source.Get(p)
	}
	h.n.Add(1)
	<-h.release
	return h.Source.Get(p)
}

func (h *held) Children(p string) ([]string, error) {
	h.n.Add(1)
	<-h.release
	return h.Source.Children(p)
}

// TestWorkersStartAsNeeded: a read allowed 1,024 requests in flight (as
// through a multiRead connection) starts a worker per request it has to
// make, not 1,024 of them.
func TestWorkersStartAsNeeded(t *testing.T) {
	src := &held{Source: handmadeTree(t), release: make(chan struct{})}
	before := runtime.NumGoroutine()
	done := make(chan error, 1)
	go func() {
		_, err := Read(context.Background(), src, Options{Workers: 1024})
		done <- err
	}()
	// "/" is read, then the root's listing and the first reads are held
	// (about 20); whatever goroutines the read starts meanwhile are seen
	// within a while (a slower start would only go unseen).
	deadline := time.Now().Add(20 * time.Second)
	for src.n.Load() < 10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	running := 0
	for range 200 {
		running = max(running, runtime.NumGoroutine()-before)
		time.Sleep(time.Millisecond)
	}
	held := src.n.Load()
	close(src.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if held < 10 || running > 4*int(held)+20 {
		t.Errorf("%d goroutines running for %d requests in flight, want about one each", running, held)
	}
}

// rootReadAfter answers the read of / only once every path in lists was
// listed; a reader that lists them only after that read gets an error
// instead, after a bound.
type rootReadAfter struct {
	Source
	mu     sync.Mutex
	lists  []string
	listed chan struct{}
}

func (r *rootReadAfter) Get(p string) ([]byte, zktree.Stat, error) {
	if p == "/" {
		select {
		case <-r.listed:
		case <-time.After(20 * time.Second):
			return nil, zktree.Stat{}, fmt.Errorf("%v not listed before / was read, which waited for them", r.lists)
		}
	}
	return r.Source.Get(p)
}

func (r *rootReadAfter) Children(p string) ([]string, error) {
	r.mu.Lock()
	if i := slices.Index(r.lists, p); i >= 0 {
		r.lists = slices.Delete(r.lists, i, i+1)
		if len(r.lists) == 0 {
			close(r.listed)
		}
	}
	r.mu.Unlock()
	return r.Source.Children(p)
}

// TestWantedListsBesideRoot: a read of wanted names lists the root, the
// brokers, the ACL roots and the wanted users' client quotas beside the
// read of / (so their children are read in the same round trip as the
// wanted names), and reads the same as a filtered listing.
func TestWantedListsBesideRoot(t *testing.T) {
	want := map[string][]string{"/config/users": {"alice", "<default>", "nobody"}, "/kafka-acl": {"Topic"}, "/kafka-acl/Topic": {"orders"},
		"/kafka-acl-extended/prefixed": {"Topic"}, "/kafka-acl-extended/prefixed/Topic": {"orders-"}}
	tree := handmadeTree(t)
	src := &rootReadAfter{Source: tree, listed: make(chan struct{}), lists: []string{"/", "/brokers/ids", "/kafka-acl", "/kafka-acl-extended",
		"/kafka-acl-extended/prefixed", "/config/users/alice/clients", "/config/users/<default>/clients", "/config/users/nobody/clients"}}
	got, err := Read(context.Background(), &wanting{Source: src, want: want}, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Read(context.Background(), filtered{Source: tree, want: want}, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	ref.Read.Znodes, got.Read.Znodes = 0, 0
	if d := cmp.Diff(ref, got, cmp.Comparer(func(a, b secret.Secret) bool { return a.Ref() == b.Ref() })); d != "" {
		t.Errorf("(-filtered +wanted):\n%s", d)
	}
	if len(got.Brokers) == 0 || len(got.Quotas) == 0 || len(got.ACLs) == 0 {
		t.Errorf("read %d brokers, %d quotas, %d ACLs: a hollow case", len(got.Brokers), len(got.Quotas), len(got.ACLs))
	}
}
