package syncer

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// traced records the calls a read makes of its source: what, when, how
// much came back.
type traced struct {
	zkread.Source
	mu    sync.Mutex
	t0    time.Time
	calls []call
}

type call struct {
	list       bool
	path       string
	start, end time.Duration
	names      int
	bytes      int
}

func (t *traced) record(c call) {
	t.mu.Lock()
	t.calls = append(t.calls, c)
	t.mu.Unlock()
}

func (t *traced) Get(p string) ([]byte, zktree.Stat, error) {
	s := time.Since(t.t0)
	d, st, err := t.Source.Get(p)
	t.record(call{path: p, start: s, end: time.Since(t.t0), bytes: len(d)})
	return d, st, err
}

func (t *traced) Children(p string) ([]string, error) {
	s := time.Since(t.t0)
	n, err := t.Source.Children(p)
	b := 0
	for _, x := range n {
		b += len(x) + 4
	}
	t.record(call{list: true, path: p, start: s, end: time.Since(t.t0), names: len(n), bytes: b})
	return n, err
}

func (t *traced) LastZxid() int64 { return t.Source.(zkread.ZxidSource).LastZxid() }
func (t *traced) InFlight() int   { return t.Source.(zkread.InFlightHint).InFlight() }

// scopedBench is a generated cluster of ZKM_BENCH_SCOPED_TOPICS topics
// (default 3,000) with every other kind of entity, written into a chroot
// of the test bed's ZooKeeper, and a change round's scope in it.
type scopedBench struct {
	conn  *zkconn.Conn
	full  *snapshot.Snapshot
	scope Scope
}

func setUpScopedBench(b *testing.B) *scopedBench {
	n := 3000
	if v := os.Getenv("ZKM_BENCH_SCOPED_TOPICS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			b.Fatalf("ZKM_BENCH_SCOPED_TOPICS=%q: want a number of topics, at least 100", v)
		}
	}
	ctx := context.Background()
	addr := strings.TrimSuffix(testbed.ZK(b), "/") + fmt.Sprintf("/zkm-scoped-bench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	w, err := zkgen.DialZK(addr, 4, 15*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Close)
	if err := w.Prepare(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := zkgen.Delete(context.Background(), w.Conns(), w.Chroot(), 500); err != nil {
			b.Errorf("cleanup: %v", err)
		}
	})
	cfg := zkgen.Config{Topics: n, PartitionsPerTopic: 1, ACLs: 600, QuotaEntities: 100, ScramUsers: 60, Brokers: 3, Seed: 18}
	if _, err := zkgen.Generate(ctx, cfg, w, zkgen.Options{Writers: 4}); err != nil {
		b.Fatal(err)
	}
	conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: addr})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(conn.Close)
	full, err := zkread.Read(ctx, conn, zkread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return &scopedBench{conn: conn, full: full, scope: NewScope(lagScope(full))}
}

// lagScope picks about the entities of a change round of the lag
// benchmark at 100 changes/s (docs/benchmarks.md): topics created,
// reconfigured or grown, ACL resources, users with SCRAM and client
// quotas, and a few names ZooKeeper does not have (deleted since).
func lagScope(s *snapshot.Snapshot) []zkfeed.Entity {
	var out []zkfeed.Entity
	for i, t := range s.Topics {
		if i%(len(s.Topics)/20+1) == 0 {
			out = append(out, zkfeed.Entity{Kind: zkfeed.Topic, Name: t.Name}, zkfeed.Entity{Kind: zkfeed.Config, Name: "topics/" + t.Name})
		}
	}
	seen := map[string]bool{}
	for _, a := range s.ACLs {
		e := a.ResourceType + ":" + a.PatternType + ":" + a.ResourceName
		if !seen[e] && len(seen) < 8 {
			seen[e] = true
			out = append(out, zkfeed.Entity{Kind: zkfeed.ACL, Name: e})
		}
	}
	users := 0
	for _, q := range s.Quotas {
		if users < 8 && len(q.Entity) > 0 && !q.Entity[0].Default {
			users++
			typ := map[string]string{snapshot.EntityUser: "users", snapshot.EntityClientID: "clients", snapshot.EntityIP: "ips"}[q.Entity[0].Type]
			out = append(out, zkfeed.Entity{Kind: zkfeed.Config, Name: typ + "/" + zkread.Sanitize(q.Entity[0].Name)})
		}
	}
	for i, u := range s.ScramUsers {
		if i < 4 {
			out = append(out, zkfeed.Entity{Kind: zkfeed.Config, Name: "users/" + zkread.Sanitize(u.Name)})
		}
	}
	return append(out, zkfeed.Entity{Kind: zkfeed.Topic, Name: "gone-topic"}, zkfeed.Entity{Kind: zkfeed.ACL, Name: "Topic:LITERAL:gone-topic"},
		zkfeed.Entity{Kind: zkfeed.Config, Name: "users/gone-user"})
}

// BenchmarkScopedRead times a change round's re-read of its entities
// (about 50, as in the lag benchmark at 100 changes/s) from the test bed's
// ZooKeeper, in a generated cluster of ZKM_BENCH_SCOPED_TOPICS topics, and
// reports the requests it makes and the bytes that come back.
// ZKM_BENCH_SCOPED_TRACE=1 logs the last read's requests.
func BenchmarkScopedRead(b *testing.B) {
	sb := setUpScopedBench(b)
	ctx := context.Background()
	b.Logf("%d topics; scope of %d entities", len(sb.full.Topics), sb.scope.Size())
	one := NewScope(sb.scope.Entities()[:2]) // a topic's notification: the topic and its config
	for _, sc := range []struct {
		name  string
		scope Scope
	}{{"entities=2", one}, {fmt.Sprintf("entities=%d", sb.scope.Size()), sb.scope}} {
		b.Run(sc.name, func(b *testing.B) {
			var calls, bytes int
			var last []call
			for b.Loop() {
				tr := &traced{Source: sb.conn, t0: time.Now()}
				if _, err := zkread.Read(ctx, scopedSource{Source: tr, scope: sc.scope}, zkread.Options{}); err != nil {
					b.Fatal(err)
				}
				calls += len(tr.calls)
				for _, c := range tr.calls {
					bytes += c.bytes
				}
				last = tr.calls
			}
			b.ReportMetric(float64(calls)/float64(b.N), "requests")
			b.ReportMetric(float64(bytes)/float64(b.N), "bytes-back")
			if os.Getenv("ZKM_BENCH_SCOPED_TRACE") != "" {
				slices.SortFunc(last, func(a, b call) int { return int(a.start - b.start) })
				var out strings.Builder
				for _, c := range last {
					op := "get "
					if c.list {
						op = "list"
					}
					fmt.Fprintf(&out, "%s %-60s %7.2f–%7.2f ms %6d names %8d bytes\n", op, c.path, float64(c.start.Microseconds())/1000, float64(c.end.Microseconds())/1000, c.names, c.bytes)
				}
				b.Logf("the last read's requests:\n%s", out.String())
			}
		})
	}
}

// slowTree answers every request after a fixed delay, like a server a
// round trip away; a read's time over the delay is its round trips.
type slowTree struct {
	*zktree.Tree
	rtt time.Duration
}

func (s slowTree) Get(p string) ([]byte, zktree.Stat, error) {
	time.Sleep(s.rtt)
	return s.Tree.Get(p)
}

func (s slowTree) Children(p string) ([]string, error) {
	time.Sleep(s.rtt)
	return s.Tree.Children(p)
}

// BenchmarkScopedReadRoundTrips counts the sequential round trips of a
// change round's re-read (the scope of BenchmarkScopedRead) over a
// generated tree whose every request takes 20 ms: the read's time in
// units of 20 ms (a little more on a loaded machine).
func BenchmarkScopedReadRoundTrips(b *testing.B) {
	ctx := context.Background()
	w := zkgen.NewTreeWriter()
	if _, err := zkgen.Generate(ctx, zkgen.Config{Topics: 3000, PartitionsPerTopic: 1, ACLs: 600, QuotaEntities: 100, ScramUsers: 60, Brokers: 3, Seed: 18}, w, zkgen.Options{}); err != nil {
		b.Fatal(err)
	}
	tree := w.Tree()
	full, err := zkread.Read(ctx, tree, zkread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const rtt = 20 * time.Millisecond
	src := scopedSource{Source: slowTree{Tree: tree, rtt: rtt}, scope: NewScope(lagScope(full))}
	start := time.Now()
	for b.Loop() {
		if _, err := zkread.Read(ctx, src, zkread.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(rtt), "round-trips")
}

// BenchmarkPatch times patching the model of a 5,000-topic source (2,000
// ACL bindings, 500 quota entities, 300 SCRAM users) with a change round's
// re-read of the scope of BenchmarkScopedRead.
func BenchmarkPatch(b *testing.B) {
	ctx := context.Background()
	w := zkgen.NewTreeWriter()
	if _, err := zkgen.Generate(ctx, zkgen.Config{Topics: 5000, PartitionsPerTopic: 1, ACLs: 2000, QuotaEntities: 500, ScramUsers: 300, Brokers: 3, Seed: 18}, w, zkgen.Options{}); err != nil {
		b.Fatal(err)
	}
	tree := w.Tree()
	full, err := zkread.Read(ctx, tree, zkread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	scope := NewScope(lagScope(full))
	part, err := zkread.Read(ctx, scopedSource{Source: tree, scope: scope}, zkread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Patch(full, scope, part)
	}
}
