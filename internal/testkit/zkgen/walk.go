package zkgen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
)

// WalkOptions tune Walk.
type WalkOptions struct {
	// InFlight is the number of requests kept in flight, spread over the
	// connections (default 64). 1 reads one znode at a time.
	InFlight int
	// Skip, if set, prunes a path and its subtree before it is read.
	Skip func(path string) bool
	// Visit, if set, receives every znode below root (root excluded),
	// possibly from several goroutines at once. data is not reused and may
	// be kept.
	Visit func(path string, data []byte, st *zk.Stat)
	// Expand, if set, decides what to read after a znode's data: more
	// paths to read directly (without listing), and whether to list its
	// children. Without it every znode with children is listed. It lets a
	// walk read exactly the znodes a Kafka-aware reader reads.
	Expand func(path string, data []byte, st *zk.Stat) (direct []string, list bool)
}

// WalkStats counts what a walk read.
type WalkStats struct {
	Znodes   int64 // znodes whose data was read (root excluded)
	Requests int64 // Get and Children requests sent
	Bytes    int64 // znode data bytes received
}

// Walk reads every znode below root with go-zookeeper alone: one Get per
// znode, plus one Children per znode that has children (the Get's stat says
// so), with InFlight requests pipelined over conns. It is the "raw limit"
// the snapshot reader is measured against, and how tests read a generated
// tree back.
func Walk(ctx context.Context, conns []*zk.Conn, root string, opt WalkOptions) (WalkStats, error) {
	if len(conns) == 0 {
		return WalkStats{}, errors.New("zkgen: walk: no connection")
	}
	if opt.InFlight < 1 {
		opt.InFlight = 64
	}
	root = strings.TrimSuffix(root, "/")
	w := &walker{ctx: ctx, opt: opt, root: root}
	w.cond = sync.NewCond(&w.mu)
	w.push(root)
	stop := context.AfterFunc(ctx, func() { w.fail(ctx.Err()) })
	defer stop()
	var wg sync.WaitGroup
	for i := range opt.InFlight {
		c := conns[i%len(conns)]
		wg.Go(func() { w.work(c) })
	}
	wg.Wait()
	return WalkStats{Znodes: w.znodes.Load(), Requests: w.requests.Load(), Bytes: w.bytes.Load()}, w.err
}

type walker struct {
	ctx     context.Context
	opt     WalkOptions
	root    string
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []string
	pending int
	err     error

	znodes, requests, bytes atomic.Int64
}

func (w *walker) push(p string) {
	w.mu.Lock()
	w.stack = append(w.stack, p)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *walker) work(c *zk.Conn) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 && w.err == nil {
			w.cond.Wait()
		}
		if w.pending == 0 || w.err != nil {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		p := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()
		if err := w.visit(c, p); err != nil {
			w.fail(err)
		}
		w.mu.Lock()
		w.pending--
		done := w.pending == 0
		w.mu.Unlock()
		if done {
			w.cond.Broadcast()
		}
	}
}

func (w *walker) visit(c *zk.Conn, p string) error {
	zp := cmp.Or(p, "/")
	data, st, err := c.Get(zp)
	w.requests.Add(1)
	if errors.Is(err, zk.ErrNoNode) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("zkgen: get %s: %w", zp, err)
	}
	if p != w.root {
		w.znodes.Add(1)
		w.bytes.Add(int64(len(data)))
		if w.opt.Visit != nil {
			w.opt.Visit(p, data, st)
		}
	}
	list := st.NumChildren > 0
	if w.opt.Expand != nil && p != w.root {
		var direct []string
		direct, list = w.opt.Expand(p, data, st)
		for _, d := range direct {
			w.push(d)
		}
	}
	if !list {
		return nil
	}
	names, _, err := c.Children(zp)
	w.requests.Add(1)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("zkgen: list %s: %w", zp, err)
	}
	for _, n := range names {
		child := p + "/" + n
		if w.opt.Skip != nil && w.opt.Skip(child) {
			continue
		}
		w.push(child)
	}
	return nil
}

// Delete removes root and everything below it, deepest znodes first, in
// multi batches over conns. It is for cleaning up generated test trees.
func Delete(ctx context.Context, conns []*zk.Conn, root string, batch int) error {
	root = strings.TrimSuffix(root, "/")
	if root == "" || root == "/zookeeper" || strings.HasPrefix(root, "/zookeeper/") {
		return fmt.Errorf("zkgen: refusing to delete %q", cmp.Or(root, "/"))
	}
	if batch < 1 {
		batch = 500
	}
	var mu sync.Mutex
	var paths []string
	_, err := Walk(ctx, conns, root, WalkOptions{Visit: func(p string, _ []byte, _ *zk.Stat) {
		mu.Lock()
		paths = append(paths, p)
		mu.Unlock()
	}})
	if err != nil {
		return err
	}
	paths = append(paths, root)
	depth := func(p string) int { return strings.Count(p, "/") }
	slices.SortFunc(paths, func(a, b string) int { return cmp.Or(depth(b)-depth(a), strings.Compare(a, b)) })
	// one level at a time; within a level the batches go out in parallel
	for len(paths) > 0 {
		d := depth(paths[0])
		n := 0
		for n < len(paths) && depth(paths[n]) == d {
			n++
		}
		level := paths[:n]
		paths = paths[n:]
		var wg sync.WaitGroup
		errs := make(chan error, len(conns))
		next := atomic.Int64{}
		for _, c := range conns {
			wg.Go(func() {
				for {
					i := int(next.Add(int64(batch))) - batch
					if i >= len(level) || ctx.Err() != nil {
						return
					}
					chunk := level[i:min(i+batch, len(level))]
					ops := make([]any, len(chunk))
					for j, p := range chunk {
						ops[j] = &zk.DeleteRequest{Path: p, Version: -1}
					}
					if _, err := c.Multi(ops...); err != nil {
						errs <- fmt.Errorf("zkgen: delete below %s: %w", root, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
