package zkgen

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// TreeWriter collects the generated znodes in memory. Like ZooKeeper it
// refuses a node whose parent does not exist or that already exists, so
// tests catch ordering mistakes. It is safe for concurrent use.
type TreeWriter struct {
	mu    sync.Mutex
	nodes map[string][]byte
}

// NewTreeWriter returns an empty TreeWriter.
func NewTreeWriter() *TreeWriter { return &TreeWriter{nodes: map[string][]byte{}} }

// Write implements Writer.
func (t *TreeWriter) Write(_ context.Context, _ int, nodes []Node) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, n := range nodes {
		if _, ok := t.nodes[n.Path]; ok {
			t.rollback(nodes[:i])
			return fmt.Errorf("zkgen: %s: node already exists", n.Path)
		}
		if parent := path.Dir(n.Path); parent != "/" {
			if _, ok := t.nodes[parent]; !ok {
				t.rollback(nodes[:i])
				return fmt.Errorf("zkgen: %s: parent does not exist", n.Path)
			}
		}
		d := []byte{} // ZooKeeper hands back zero-length data for a null create
		if n.Data != nil {
			d = append(d, n.Data...)
		}
		t.nodes[n.Path] = d
	}
	return nil
}

// rollback makes a failed batch atomic, as a ZooKeeper multi is.
func (t *TreeWriter) rollback(done []Node) {
	for _, n := range done {
		delete(t.nodes, n.Path)
	}
}

// Len is the number of znodes written so far.
func (t *TreeWriter) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.nodes)
}

// Tree returns the znodes as a sorted zktree.Tree. Czxid and Mzxid are the
// node's position in path order (1-based), so the tree is a pure function
// of the generator's Config.
func (t *TreeWriter) Tree() *zktree.Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := &zktree.Tree{Nodes: make([]zktree.Node, 0, len(t.nodes))}
	for p, d := range t.nodes {
		tr.Nodes = append(tr.Nodes, zktree.Node{Path: p, Data: d})
	}
	tr.Sort()
	for i := range tr.Nodes {
		tr.Nodes[i].Czxid = int64(i + 1)
		tr.Nodes[i].Mzxid = int64(i + 1)
	}
	return tr
}

// ZKWriter writes into a live ZooKeeper through one connection per worker,
// each batch as one atomic multi of creates, under an optional chroot.
type ZKWriter struct {
	conns  []*zk.Conn
	chroot string
	addr   string
}

// SplitAddress splits "host:port[,host:port...][/chroot]" into its server
// list and chroot ("" for none). go-zookeeper has no chroot support, so the
// generator prefixes paths itself.
func SplitAddress(addr string) (servers []string, chroot string, err error) {
	hosts := addr
	if i := strings.IndexByte(addr, '/'); i >= 0 {
		hosts, chroot = addr[:i], path.Clean(addr[i:])
		if chroot == "/" {
			chroot = ""
		}
	}
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			servers = append(servers, h)
		}
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("zkgen: %q: no ZooKeeper host", addr)
	}
	return servers, chroot, nil
}

// DialZK connects writers connections to the ensemble at addr
// ("host:port[/chroot]"), waiting up to timeout for each session.
func DialZK(addr string, writers int, timeout time.Duration) (*ZKWriter, error) {
	servers, chroot, err := SplitAddress(addr)
	if err != nil {
		return nil, err
	}
	w := &ZKWriter{chroot: chroot, addr: addr}
	for range max(1, writers) {
		c, err := Connect(servers, timeout)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("zkgen: %s: %w", addr, err)
		}
		w.conns = append(w.conns, c)
	}
	return w, nil
}

// Connect opens one quiet go-zookeeper session and waits until it is
// established or timeout passes.
func Connect(servers []string, timeout time.Duration) (*zk.Conn, error) {
	c, events, err := zk.Connect(servers, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return c, nil
			}
		case <-deadline:
			c.Close()
			return nil, fmt.Errorf("no session with %s within %s", strings.Join(servers, ","), timeout)
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// Prepare creates the chroot path if it is missing and refuses a chroot that
// already holds a Kafka tree (a /brokers node).
func (w *ZKWriter) Prepare() error {
	c := w.conns[0]
	if w.chroot != "" {
		parts := strings.Split(strings.TrimPrefix(w.chroot, "/"), "/")
		p := ""
		for _, part := range parts {
			p += "/" + part
			if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return fmt.Errorf("zkgen: create chroot %s: %w", p, err)
			}
		}
	}
	ok, _, err := c.Exists(w.chroot + "/brokers")
	if err != nil {
		return fmt.Errorf("zkgen: %s: %w", w.addr, err)
	}
	if ok {
		return fmt.Errorf("zkgen: %s already holds a Kafka tree (%s/brokers exists); use a fresh chroot", w.addr, w.chroot)
	}
	return nil
}

// Write implements Writer: one multi of creates on the worker's connection.
func (w *ZKWriter) Write(ctx context.Context, worker int, nodes []Node) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ops := make([]any, len(nodes))
	acl := zk.WorldACL(zk.PermAll)
	for i, n := range nodes {
		ops[i] = &zk.CreateRequest{Path: w.chroot + n.Path, Data: n.Data, Acl: acl}
	}
	res, err := w.conns[worker%len(w.conns)].Multi(ops...)
	if err != nil {
		for i, r := range res {
			if r.Error != nil && i < len(nodes) { // the first failing op; later ones report -2
				return fmt.Errorf("zkgen: create %s%s: %w", w.chroot, nodes[i].Path, r.Error)
			}
		}
		return fmt.Errorf("zkgen: multi of %d creates from %s%s: %w", len(nodes), w.chroot, nodes[0].Path, err)
	}
	return nil
}

// Close ends every session.
func (w *ZKWriter) Close() {
	for _, c := range w.conns {
		c.Close()
	}
}

// Conns returns the writer's sessions (for Walk and Delete).
func (w *ZKWriter) Conns() []*zk.Conn { return w.conns }

// Chroot returns the path prefix the writer writes under ("" for none).
func (w *ZKWriter) Chroot() string { return w.chroot }
