package zkdisk

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// liveRead reads the test bed's ZooKeeper until a read sees no change while
// it ran, so that it shows the state at its start zxid.
func liveRead(t *testing.T, full bool) (*snapshot.Snapshot, *zkconn.Conn) {
	t.Helper()
	conn, err := zkconn.Dial(context.Background(), zkconn.Options{Connect: testbed.ZK(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	for range 10 {
		s, err := zkread.Read(context.Background(), conn, zkread.Options{Full: full, Address: conn.Address()})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Read.Changed) == 0 {
			return s, conn
		}
	}
	t.Fatal("every live read saw znodes change while it ran")
	return nil, nil
}

func offlineRead(t *testing.T, opt Options, full bool) (*snapshot.Snapshot, *Result) {
	t.Helper()
	res, err := Read(opt)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := res.Tree("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := zkread.Read(context.Background(), Source{Tree: tree, Zxid: res.Zxid}, zkread.Options{Full: full})
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

// withoutBookkeeping drops what only says how a read was made: where from
// (address) and when (start and finish times). Everything else, the zxid
// bounds and the znode count included, must agree.
func withoutBookkeeping(s *snapshot.Snapshot) string {
	c := *s
	c.Address, c.Read.Started, c.Read.Finished, c.Read.Offline = "", "", "", nil
	b, _ := json.MarshalIndent(&c, "", " ")
	return string(b)
}

// The test bed's own data dir, read offline at the zxid a live read
// started at, gives the same Snapshot as that live read.
func TestTestBedOfflineEqualsLive(t *testing.T) {
	dataDir := testbed.ZKDataDir(t)
	for _, full := range []bool{false, true} {
		live, _ := liveRead(t, full)
		off, res := offlineRead(t, Options{DataDir: dataDir, Zxid: live.Read.StartZxid}, full)
		if res.Zxid != live.Read.StartZxid || len(res.Warnings) != 0 {
			t.Fatalf("full=%v: offline read reached %#x (want %#x), warnings %v", full, res.Zxid, live.Read.StartZxid, res.Warnings)
		}
		if live.Topic("orders") == nil || live.Read.Znodes < 50 {
			t.Fatalf("the test bed holds no legacy state (%d znodes); run testbed.sh legacy", live.Read.Znodes)
		}
		if d := cmp.Diff(withoutBookkeeping(live), withoutBookkeeping(off)); d != "" {
			t.Errorf("full=%v: offline read differs from the live one (-live +offline):\n%s", full, d)
		}
	}
}

// At the zxid before the legacy state created topic orders the topic is
// absent; at that zxid it is there.
func TestTestBedBeforeAChange(t *testing.T) {
	dataDir := testbed.ZKDataDir(t)
	_, conn := liveRead(t, false)
	_, st, err := conn.Get("/brokers/topics/orders")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := offlineRead(t, Options{DataDir: dataDir, Zxid: st.Czxid - 1}, false)
	at, _ := offlineRead(t, Options{DataDir: dataDir, Zxid: st.Czxid}, false)
	if before.Topic("orders") != nil || at.Topic("orders") == nil {
		t.Errorf("orders at zxid %#x: %v; at %#x: %v", st.Czxid-1, before.Topic("orders") != nil, st.Czxid, at.Topic("orders") != nil)
	}
}

// A copy of the test bed's data dir with its newest log cut inside the last
// entry reads to the entry before, with the damage reported.
func TestTestBedTruncatedLogTail(t *testing.T) {
	v2, err := versionDir(testbed.ZKDataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	live, _ := liveRead(t, false) // the files hold at least this much
	logs, err := listFiles(v2, "log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs in %s: %v", v2, err)
	}
	snaps, err := listFiles(v2, "snapshot")
	if err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(t.TempDir(), "version-2")
	os.Mkdir(copyDir, 0o755)
	copyPrefix := func(src string, n int64) {
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, n)
		if _, err := f.ReadAt(b, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, filepath.Base(src)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Only the oldest snapshot, so that the replay runs through the log.
	fi, err := os.Stat(snaps[0].path)
	if err != nil {
		t.Fatal(err)
	}
	copyPrefix(snaps[0].path, fi.Size())
	var lastLog string
	var cut *Txn
	for _, l := range logs {
		ents := logEntries(t, l.path)
		if len(ents) == 0 {
			continue
		}
		var end int64
		for _, e := range ents {
			if e.Zxid <= live.Read.StartZxid {
				end = e.End
			}
		}
		if end == 0 {
			continue
		}
		copyPrefix(l.path, end)
		lastLog = filepath.Join(copyDir, filepath.Base(l.path))
		for _, e := range ents {
			if e.End == end {
				cut = e
			}
		}
	}
	if cut == nil {
		t.Fatal("no log entries")
	}
	if err := os.Truncate(lastLog, cut.Offset+(cut.End-cut.Offset)/2); err != nil {
		t.Fatal(err)
	}
	res, err := Read(Options{DataDir: filepath.Dir(copyDir)})
	if err != nil {
		t.Fatalf("a truncated tail must not be fatal: %v", err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].File != lastLog || res.Warnings[0].Offset != cut.Offset ||
		!strings.Contains(res.Warnings[0].Message, "file ends inside entry") {
		t.Errorf("warnings %v, want one at %s offset %d", res.Warnings, lastLog, cut.Offset)
	}
	if res.Zxid != cut.Zxid-1 {
		t.Errorf("read to %#x, want %#x (the entry before the cut one)", res.Zxid, cut.Zxid-1)
	}
}
