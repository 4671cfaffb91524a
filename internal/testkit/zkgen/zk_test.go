package zkgen

import (
	"bytes"
	"context"
	"fmt"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestZooKeeperRoundTrip writes a small cluster into a unique chroot of a
// real ZooKeeper, reads it back with go-zookeeper and compares it with the
// same cluster generated in memory; then deletes it.
func TestZooKeeperRoundTrip(t *testing.T) {
	addr := strings.TrimSuffix(testbed.ZK(t), "/") + fmt.Sprintf("/zkgen-test-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := Small(7)

	w, err := DialZK(addr, 3, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close) // after the Delete below: cleanups run last-in first-out
	if err := w.Prepare(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Delete(context.Background(), w.Conns(), w.Chroot(), 200); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	sum, err := Generate(ctx, cfg, w, Options{Writers: 3, Batch: 50})
	if err != nil {
		t.Fatal(err)
	}
	mem, memSum := generate(t, cfg, Options{})
	if sum != memSum {
		t.Errorf("summaries differ:\nzk  %+v\nmem %+v", sum, memSum)
	}

	got := map[string][]byte{}
	var mu sync.Mutex
	st, err := Walk(ctx, w.Conns(), w.Chroot(), WalkOptions{InFlight: 16, Visit: func(p string, data []byte, s *zk.Stat) {
		mu.Lock()
		got[strings.TrimPrefix(p, w.Chroot())] = data
		mu.Unlock()
		if s.EphemeralOwner != 0 {
			t.Errorf("%s: ephemeral", p)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if int(st.Znodes) != len(mem.Nodes) || len(got) != sum.Znodes {
		t.Errorf("read back %d znodes (%d distinct), generated %d, summary %d", st.Znodes, len(got), len(mem.Nodes), sum.Znodes)
	}
	for _, n := range mem.Nodes {
		d, ok := got[n.Path]
		switch {
		case !ok:
			t.Errorf("%s: missing in ZooKeeper", n.Path)
		case !bytes.Equal(d, n.Data):
			t.Errorf("%s: ZooKeeper has %q, memory %q", n.Path, d, n.Data)
		}
	}

	// a second run into the same chroot is refused before writing anything
	w2, err := DialZK(addr, 1, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if err := w2.Prepare(); err == nil || !strings.Contains(err.Error(), "already holds a Kafka tree") {
		t.Errorf("Prepare on a used chroot: %v", err)
	}
}

// TestZooKeeperDelete checks Delete removes a generated tree and refuses
// the root.
func TestZooKeeperDelete(t *testing.T) {
	addr := strings.TrimSuffix(testbed.ZK(t), "/") + fmt.Sprintf("/zkgen-test-del-%d", os.Getpid())
	w, err := DialZK(addr, 2, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Prepare(); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Topics: 12, PartitionsPerTopic: 2, ACLs: 10, QuotaEntities: 10, ScramUsers: 2, Brokers: 2, Seed: 3}
	if _, err := Generate(context.Background(), cfg, w, Options{Writers: 2, Batch: 20}); err != nil {
		t.Fatal(err)
	}
	if err := Delete(context.Background(), w.Conns(), "/", 10); err == nil {
		t.Error("Delete of / was not refused")
	}
	if err := Delete(context.Background(), w.Conns(), w.Chroot(), 7); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := w.Conns()[0].Exists(w.Chroot()); err != nil || ok {
		t.Errorf("%s still exists (%v)", w.Chroot(), err)
	}
}
