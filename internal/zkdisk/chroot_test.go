package zkdisk

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// kept lists the paths of the tree a read holds (before Result.Tree).
func kept(r *Result) []string {
	var out []string
	for _, n := range r.tree.Nodes {
		out = append(out, n.Path)
	}
	return out
}

// siblingsDir writes a data dir whose snapshot has siblings that sort
// beside /k (/k-x, /k.y, /k0) and ZooKeeper's own /zookeeper.
func siblingsDir(t *testing.T) string {
	t.Helper()
	paths := []string{"/", "/k", "/k-x", "/k-x/a", "/k.y", "/k/a", "/k/a/b", "/k/b", "/k/brokers", "/k/brokers/topics", "/k/brokers/topics/t",
		"/k/brokers/topics/t/partitions", "/k/brokers/topics/t/partitions/0", "/k0", "/k0/a", "/ka", "/ka/b", "/l", "/zookeeper", "/zookeeper/quota"}
	nodes := map[string]*Node{}
	for i, p := range paths {
		nodes[p] = &Node{Data: []byte(p), Czxid: int64(i + 1), Mzxid: int64(i + 1)}
	}
	nodes["/k0/a"].Mzxid = 0x90 // the highest zxid, outside every chroot below but /
	dir := t.TempDir()
	v2 := filepath.Join(dir, "version-2")
	os.Mkdir(v2, 0o755)
	if err := os.WriteFile(filepath.Join(v2, "snapshot.20"), encodeSnapshot(nodes), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestChrootRead: a read under a chroot keeps only the chroot, what is
// below it and its ancestors, and gives the same tree under it as a read
// of the whole tree; the fuzzy bound is the whole snapshot's.
func TestChrootRead(t *testing.T) {
	sib := siblingsDir(t)
	for _, tc := range []struct {
		dir, chroot string
		keep        []string // nil: every node
	}{
		{sib, "/k", []string{"/", "/k", "/k/a", "/k/a/b", "/k/b", "/k/brokers", "/k/brokers/topics", "/k/brokers/topics/t", "/k/brokers/topics/t/partitions", "/k/brokers/topics/t/partitions/0"}},
		{sib, "/k/", []string{"/", "/k", "/k/a", "/k/a/b", "/k/b", "/k/brokers", "/k/brokers/topics", "/k/brokers/topics/t", "/k/brokers/topics/t/partitions", "/k/brokers/topics/t/partitions/0"}},
		{sib, "/k/a", []string{"/", "/k", "/k/a", "/k/a/b"}},
		{sib, "/k-x", []string{"/", "/k-x", "/k-x/a"}},
		{sib, "/k0", []string{"/", "/k0", "/k0/a"}},
		{sib, "/zookeeper", []string{"/", "/zookeeper", "/zookeeper/quota"}},
		{sib, "/", nil},
		{sib, "", nil},
		{fixtureDir, "/brokers", nil},
		{fixtureDir, "/brokers/topics", nil},
		{fixtureDir, "/config", nil},
		{fixtureDir, "/zookeeper", nil},
	} {
		t.Run(filepath.Base(tc.dir)+tc.chroot, func(t *testing.T) {
			whole := mustRead(t, Options{DataDir: tc.dir})
			got := mustRead(t, Options{DataDir: tc.dir, Chroot: tc.chroot})
			if d := cmp.Diff(mustTree(t, whole, tc.chroot), mustTree(t, got, tc.chroot)); d != "" {
				t.Errorf("(-whole tree's chroot +chroot read):\n%s", d)
			}
			if got.Zxid != whole.Zxid || got.Applied != whole.Applied || got.Snapshot != whole.Snapshot || !cmp.Equal(got.Warnings, whole.Warnings) {
				t.Errorf("read %#x/%d/%s/%v, want %#x/%d/%s/%v", got.Zxid, got.Applied, got.Snapshot, got.Warnings, whole.Zxid, whole.Applied, whole.Snapshot, whole.Warnings)
			}
			want := tc.keep
			c := strings.TrimSuffix(tc.chroot, "/")
			if want == nil {
				for _, p := range kept(whole) {
					if c == "" || p == "/" || p == c || strings.HasPrefix(p, c+"/") || strings.HasPrefix(c, p+"/") {
						want = append(want, p)
					}
				}
			}
			if d := cmp.Diff(want, kept(got)); d != "" {
				t.Errorf("nodes kept (-want +got):\n%s", d)
			}
			if c != "" && c != "/zookeeper" && strings.Contains(strings.Join(kept(got), " "), "/zookeeper") {
				t.Errorf("a read under %s keeps /zookeeper", c)
			}
		})
	}
}

// TestSkipWhileParsing: skipped znodes are left out of the parsed
// snapshot itself (not only the result), with the fuzzy bound unchanged
// when the highest zxid is in one of them; and left out of a replay's
// creates, the result the same as filtering the whole tree.
func TestSkipWhileParsing(t *testing.T) {
	sib := filepath.Join(siblingsDir(t), "version-2", "snapshot.20")
	whole, err := ReadSnapshotFile(sib)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		chroot string
		skip   func(string) bool
	}{
		{"skip /k0", "", func(p string) bool { return strings.HasPrefix(p, "/k0") }},
		{"chroot /k", "/k", nil},
		{"chroot /k, partitions skipped", "/k", func(p string) bool { return strings.HasPrefix(p, "/k/brokers/topics/t/") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep := keeper(tc.chroot, tc.skip)
			s, err := readSnapshotFile(sib, keep, newBudget(0))
			if err != nil {
				t.Fatal(err)
			}
			for p := range whole.Nodes {
				if _, ok := s.Nodes[p]; ok != keep(p) {
					t.Errorf("%s: parsed %v, kept %v", p, ok, keep(p))
				}
			}
			if got, want := fuzzyEnd(s), fuzzyEnd(whole); got != want || want != 0x90 {
				t.Errorf("fuzzyEnd %#x, want %#x (0x90)", got, want)
			}
		})
	}
	// Through the logs: the fixture's topics are created by its log.
	skip := func(p string) bool { return strings.HasPrefix(p, "/brokers/topics/") }
	for _, snap := range []string{fixtureZero, fixtureSnap} {
		t.Run("replay from "+filepath.Base(snap), func(t *testing.T) {
			dir := copyDir(t, snap, fixtureLog)
			all := mustRead(t, Options{DataDir: dir})
			got := mustRead(t, Options{DataDir: dir, Skip: skip})
			var want []string
			for _, p := range kept(all) {
				if !skip(p) {
					want = append(want, p)
				}
			}
			if len(want) == len(kept(all)) {
				t.Fatal("nothing skipped")
			}
			if d := cmp.Diff(want, kept(got)); d != "" {
				t.Errorf("(-filtered +skipped while replaying):\n%s", d)
			}
			st := newTree(emptySnapshot(keeper("", skip)), keeper("", skip))
			logs, _ := listFiles(filepath.Join(dir, "version-2"), "log")
			replay(st, logs, 0, all.Zxid, nil)
			for p := range st.nodes {
				if skip(p) {
					t.Errorf("the replay holds skipped %s", p)
				}
			}
		})
	}
}

// gzipBomb returns a gzip snapshot of a few MB that expands to about
// nodes*size bytes: znodes /b<i> (below the root, or below /other) of
// size zero bytes each, as concatenated gzip members (one compressed
// block of zeros, repeated).
func gzipBomb(t *testing.T, nodes, size int, parent string) []byte {
	t.Helper()
	member := func(b []byte) []byte {
		var out bytes.Buffer
		w, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	var head enc
	head.int(snapMagic)
	head.int(fileVersion)
	head.long(7)
	head.int(0)
	head.int(0)
	head.str("")
	head.buf([]byte{})
	stat(&head)
	var out bytes.Buffer
	out.Write(member(head.Bytes()))
	if parent != "" {
		var p enc
		p.str(parent)
		p.buf([]byte{})
		stat(&p)
		out.Write(member(p.Bytes()))
	}
	const chunk = 8 << 20
	zeros := member(make([]byte, chunk))
	for i := range nodes {
		var n enc
		n.str(fmt.Sprintf("%s/b%d", parent, i))
		n.int(int32(size))
		out.Write(member(n.Bytes()))
		for range size / chunk {
			out.Write(zeros)
		}
		var st enc
		stat(&st)
		out.Write(member(st.Bytes()))
	}
	return out.Bytes()
}

// stat writes a znode's stat: 5 longs (acl, czxid, mzxid, ctime, mtime),
// 3 ints (versions), 2 longs (ephemeral owner, pzxid).
func stat(e *enc) {
	for range 5 {
		e.long(0)
	}
	for range 3 {
		e.int(0)
	}
	e.long(0)
	e.long(0)
}

// TestCap: a gzip bomb snapshot (a few MB expanding to GBs) is refused
// under the read's cap, quickly and without the memory it expands to;
// the cap counts the logs too and names the file.
func TestCap(t *testing.T) {
	const MiB = 1 << 20
	for _, tc := range []struct {
		name          string
		nodes, size   int    // the bomb's znodes, and their size
		parent        string // "" below the root; else below it
		chroot        string
		cap           int64
		wantCap       string
		maxAlloc      int64 // bytes allocated by the read at most
		maxCompressed int
	}{
		{"huge znodes under a small cap", 16, 256*MiB - 8*MiB, "", "", 64 * MiB, "64 MiB", 32 * MiB, 8 * MiB},
		{"8 MiB znodes under a small cap", 300, 8 * MiB, "", "", 64 * MiB, "64 MiB", 192 * MiB, 8 * MiB},
		{"outside the chroot, default cap", 9, 248 * MiB, "/other", "/kafka", 0, "1 GiB", 64 * MiB, 8 * MiB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bomb := gzipBomb(t, tc.nodes, tc.size, tc.parent)
			if len(bomb) > tc.maxCompressed || int64(tc.nodes)*int64(tc.size) < 2<<30 {
				t.Fatalf("the bomb is %d bytes, expanding to %d", len(bomb), int64(tc.nodes)*int64(tc.size))
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "snapshot.10.gz"), bomb, 0o644)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Read(Options{DataDir: dir, Chroot: tc.chroot, MaxBytes: tc.cap})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var ce *CapError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "zookeeper data dir: snapshot.10.gz: more than "+tc.wantCap+" decompressed (cap)") {
				t.Fatalf("Read: %v, want a CapError naming snapshot.10.gz and %s", err, tc.wantCap)
			}
			if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > tc.maxAlloc {
				t.Errorf("allocated %d MiB, want at most %d MiB", alloc/MiB, tc.maxAlloc/MiB)
			}
			if took > 20*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	// The logs count too.
	dir := copyDir(t, fixtureZero, fixtureLog)
	fi, _ := os.Stat(fixtureLog)
	_, err := Read(Options{DataDir: dir, MaxBytes: fi.Size() / 2})
	if err == nil || !strings.Contains(err.Error(), "zookeeper data dir: log.1: more than") {
		t.Errorf("a log over the cap: %v", err)
	}
	if _, err := Read(Options{DataDir: dir, MaxBytes: 2 * fi.Size()}); err != nil {
		t.Errorf("under the cap: %v", err)
	}
}
