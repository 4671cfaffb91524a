package zkdisk

import (
	"context"
	"fmt"
	"hash/adler32"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// logWriter writes what zkgen generates as a ZooKeeper transaction log:
// one multi of creates per batch, as a ZooKeeper server logs a client's
// multi, and keeps the tree it wrote for comparison.
type logWriter struct {
	mu   sync.Mutex
	f    *os.File
	zxid int64
	tree *zkgen.TreeWriter
}

func newLogWriter(t testing.TB, dir string) *logWriter {
	v2 := filepath.Join(dir, "version-2")
	if err := os.MkdirAll(v2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v2, "snapshot.0"), encodeSnapshot(map[string]*Node{"/": {}}), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(v2, "log.1"))
	if err != nil {
		t.Fatal(err)
	}
	var e enc
	e.int(logMagic)
	e.int(fileVersion)
	e.long(7)
	f.Write(e.Bytes())
	return &logWriter{f: f, tree: zkgen.NewTreeWriter()}
}

func (w *logWriter) Write(ctx context.Context, worker int, nodes []zkgen.Node) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.tree.Write(ctx, worker, nodes); err != nil {
		return err
	}
	w.zxid++
	var txn enc
	txn.long(0x100 + int64(worker)) // session
	txn.int(int32(w.zxid))
	txn.long(w.zxid)
	txn.long(1700000000000 + w.zxid)
	txn.int(OpMulti)
	txn.int(int32(len(nodes)))
	for _, n := range nodes {
		var c enc
		c.str(n.Path)
		c.buf(n.Data)
		c.int(1)
		c.int(31)
		c.str("world")
		c.str("anyone")
		c.WriteByte(0)
		c.int(0)
		txn.int(OpCreate)
		txn.buf(c.Bytes())
	}
	var e enc
	e.long(int64(adler32.Checksum(txn.Bytes())))
	e.buf(txn.Bytes())
	e.WriteByte('B')
	_, err := w.f.Write(e.Bytes())
	return err
}

// generatedDataDir writes a zkgen cluster as a data dir: an empty
// snapshot.0 and one log holding every create.
func generatedDataDir(t testing.TB, cfg zkgen.Config) (string, *zktree.Tree, zkgen.Summary) {
	dir := t.TempDir()
	w := newLogWriter(t, dir)
	sum, err := zkgen.Generate(context.Background(), cfg, w, zkgen.Options{Writers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, w.tree.Tree(), sum
}

// TestGeneratedDataDir: a generated cluster's transaction log, replayed,
// gives the tree the generator wrote, and zkread finds in it what the
// generator says it wrote.
func TestGeneratedDataDir(t *testing.T) {
	dir, want, sum := generatedDataDir(t, zkgen.Small(3))
	res, err := Read(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("warnings %v", res.Warnings)
	}
	got, err := res.Tree("")
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string][]byte{}
	for _, n := range got.Nodes {
		if n.Path != "/" {
			paths[n.Path] = n.Data
		}
	}
	if len(paths) != len(want.Nodes) {
		t.Errorf("replayed %d znodes, generator wrote %d", len(paths), len(want.Nodes))
	}
	for _, n := range want.Nodes {
		d, ok := paths[n.Path]
		if !ok || string(d) != string(n.Data) {
			t.Errorf("%s: replayed %q (present %v), wrote %q", n.Path, d, ok, n.Data)
		}
	}
	s, err := zkread.Read(context.Background(), Source{Tree: got, Zxid: res.Zxid}, zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Topics) != sum.Topics || len(s.ScramUsers) != sum.ScramUsers || len(s.Quotas) != sum.Quotas.Total() {
		t.Errorf("read %d topics, %d SCRAM users, %d quotas; generator wrote %d, %d, %d", len(s.Topics), len(s.ScramUsers), len(s.Quotas), sum.Topics, sum.ScramUsers, sum.Quotas.Total())
	}
}

// BenchmarkReadDataDir reads a generated data dir (ZKM_BENCH_ZKDISK_TOPICS
// topics, default 2,000; zkgen.Full's shape otherwise) two ways: all from the
// transaction log over an empty snapshot, and all from one snapshot, each
// through zkread to the Snapshot.
func BenchmarkReadDataDir(b *testing.B) {
	topics := 2000
	if v := os.Getenv("ZKM_BENCH_ZKDISK_TOPICS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			b.Fatalf("ZKM_BENCH_ZKDISK_TOPICS=%q: want a number of topics (at least 10)", v)
		}
		topics = n
	}
	full := zkgen.Full(1)
	cfg := zkgen.Config{Topics: topics, PartitionsPerTopic: 4, ACLs: 2 * topics, QuotaEntities: topics / 5, ScramUsers: topics / 10, Brokers: 3, Seed: 1}
	if topics == full.Topics {
		cfg = full
	}
	logDir, _, sum := generatedDataDir(b, cfg)
	res, err := Read(Options{DataDir: logDir})
	if err != nil {
		b.Fatal(err)
	}
	snapDir := filepath.Join(b.TempDir(), "version-2")
	os.MkdirAll(snapDir, 0o755)
	name := filepath.Join(snapDir, fmt.Sprintf("snapshot.%x", res.Zxid))
	if err := os.WriteFile(name, encodeSnapshot(nodesOf(res.tree)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, dir string }{{"log", logDir}, {"snapshot", filepath.Dir(snapDir)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := Read(Options{DataDir: c.dir})
				if err != nil {
					b.Fatal(err)
				}
				tree, err := r.Tree("")
				if err != nil {
					b.Fatal(err)
				}
				s, err := zkread.Read(context.Background(), Source{Tree: tree, Zxid: r.Zxid}, zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Topics) != sum.Topics {
					b.Fatalf("read %d topics, wrote %d", len(s.Topics), sum.Topics)
				}
				b.ReportMetric(float64(len(tree.Nodes)), "znodes/op")
			}
		})
	}
}

// TestWriteBenchDataDirs writes the data dirs bench/datadir.sh measures
// into $ZKM_BENCH_ZKDISK_OUT, from zkgen.Full(1): log, an empty
// snapshot.0 and one log.1 with every create, and snap, one snapshot of
// the same tree and no log. Without it (CI), the same from zkgen.Small(1)
// into a temporary directory. Either way both forms must read back as the
// same tree, so the benchmark compares like with like.
func TestWriteBenchDataDirs(t *testing.T) {
	out, cfg := os.Getenv("ZKM_BENCH_ZKDISK_OUT"), zkgen.Full(1)
	if out == "" {
		out, cfg = t.TempDir(), zkgen.Small(1)
	}
	logDir := filepath.Join(out, "log")
	w := newLogWriter(t, logDir)
	if _, err := zkgen.Generate(context.Background(), cfg, w, zkgen.Options{Writers: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.f.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := Read(Options{DataDir: logDir})
	if err != nil {
		t.Fatal(err)
	}
	snapDir := filepath.Join(out, "snap", "version-2")
	if err := os.MkdirAll(snapDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snapDir, fmt.Sprintf("snapshot.%x", res.Zxid)), encodeSnapshot(nodesOf(res.tree)), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := Read(Options{DataDir: filepath.Dir(snapDir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.tree.Nodes) < cfg.Topics || len(snap.tree.Nodes) != len(res.tree.Nodes) || snap.Zxid != res.Zxid {
		t.Fatalf("log form: %d znodes at zxid %#x; snap form: %d at %#x; want the same tree, with every topic", len(res.tree.Nodes), res.Zxid, len(snap.tree.Nodes), snap.Zxid)
	}
	for i, n := range res.tree.Nodes {
		if m := snap.tree.Nodes[i]; m.Path != n.Path || string(m.Data) != string(n.Data) {
			t.Fatalf("znode %d: log form %s, snap form %s", i, n.Path, m.Path)
		}
	}
}
