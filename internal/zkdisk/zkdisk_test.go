package zkdisk

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/snappy/xerial"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func mustRead(t *testing.T, opt Options) *Result {
	t.Helper()
	r, err := Read(opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustTree(t *testing.T, r *Result, chroot string) *zktree.Tree {
	t.Helper()
	tr, err := r.Tree(chroot)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Replaying the whole log of the test bed's ZooKeeper over its first, empty
// snapshot gives the tree ZooKeeper itself wrote at that zxid.
func TestReplayEqualsZooKeeperSnapshot(t *testing.T) {
	want := mustRead(t, Options{DataDir: fixtureDir})
	if want.Snapshot != fixtureSnap || want.Zxid != 0x18d || want.Applied != 0 || len(want.Warnings) != 0 {
		t.Fatalf("newest point: snapshot %s zxid %#x applied %d warnings %v", want.Snapshot, want.Zxid, want.Applied, want.Warnings)
	}
	got := mustRead(t, Options{DataDir: copyDir(t, fixtureZero, fixtureLog)})
	if got.Zxid != 0x18d || got.Applied != 0x18d || len(got.Warnings) != 0 {
		t.Fatalf("replay: zxid %#x applied %d warnings %v", got.Zxid, got.Applied, got.Warnings)
	}
	wt, gt := mustTree(t, want, ""), mustTree(t, got, "")
	if len(wt.Nodes) < 100 {
		t.Fatalf("fixture tree has only %d znodes", len(wt.Nodes))
	}
	if d := cmp.Diff(wt, gt); d != "" {
		t.Errorf("replayed tree differs from ZooKeeper's snapshot (-snapshot +replay):\n%s", d)
	}
	if got.Time.IsZero() || !want.Time.IsZero() {
		t.Errorf("times: replay %v, snapshot only %v", got.Time, want.Time)
	}
}

// The data dir may be given as dataDir or as its version-2 folder, and the
// logs apart from the snapshots.
func TestDirForms(t *testing.T) {
	split := copyDir(t, fixtureZero)
	logs := copyDir(t, fixtureLog)
	for name, opt := range map[string]Options{
		"dataDir":   {DataDir: fixtureDir, Zxid: 0x100},
		"version-2": {DataDir: fixtureV2, Zxid: 0x100},
		"split":     {DataDir: split, LogDir: filepath.Join(logs, "version-2"), Zxid: 0x100},
	} {
		r := mustRead(t, opt)
		if r.Zxid != 0x100 || r.Applied != 0x100 {
			t.Errorf("%s: zxid %#x applied %d", name, r.Zxid, r.Applied)
		}
	}
	if _, err := Read(Options{DataDir: fixtureDir, Zxid: 0x200}); err == nil || !strings.Contains(err.Error(), "zxid 0x200 is past the last transaction") {
		t.Errorf("zxid past the end: %v", err)
	}
	// The logs hold the whole history (from zxid 1): any point can be read,
	// from the empty tree if need be.
	if r, err := Read(Options{DataDir: copyDir(t, fixtureSnap, fixtureLog), Zxid: 0x20}); err != nil || r.Snapshot != "" || r.Zxid != 0x20 {
		t.Errorf("zxid before the only snapshot, whole log: %v", err)
	}
	// Only late files: a point before them cannot be read.
	late := copyDir(t, "testdata/zk39/version-2/snapshot.2a", "testdata/zk39/version-2/log.2c")
	if _, err := Read(Options{DataDir: late, Time: ptr(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))}); err == nil || !strings.Contains(err.Error(), "2020-01-01T00:00:00Z is before the oldest transaction in the logs (zxid 0x2c at ") {
		t.Errorf("time before the logs: %v", err)
	}
	if _, err := Read(Options{DataDir: late, Zxid: 0x20}); err == nil || !strings.Contains(err.Error(), "no valid snapshot at or before zxid 0x20") {
		t.Errorf("zxid before every snapshot: %v", err)
	}
	if _, err := Read(Options{DataDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no ZooKeeper snapshot or log files") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestCompressedSnapshotsReadTheSame(t *testing.T) {
	plain, err := ReadSnapshotFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	tmp := t.TempDir()
	os.WriteFile(filepath.Join(tmp, "snapshot.18d.gz"), gz.Bytes(), 0o644)
	os.WriteFile(filepath.Join(tmp, "snapshot.18d.snappy"), xerial.Encode(nil, raw), 0o644)
	for _, f := range []string{
		"testdata/compressed/snapshot.18d.gz",     // written by ZooKeeper 3.8.4, zookeeper.snapshot.compression.method=gz
		"testdata/compressed/snapshot.18d.snappy", // ... =snappy (snappy-java framing)
		filepath.Join(tmp, "snapshot.18d.gz"),
		filepath.Join(tmp, "snapshot.18d.snappy"),
	} {
		s, err := ReadSnapshotFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if s.Zxid != 0x18d || len(s.Nodes) != len(plain.Nodes) {
			t.Errorf("%s: zxid %#x, %d znodes, want %d", f, s.Zxid, len(s.Nodes), len(plain.Nodes))
		}
		if d := cmp.Diff(plain.Nodes, s.Nodes); d != "" {
			t.Errorf("%s differs from the plain snapshot:\n%s", f, d)
		}
	}
	// A compressed snapshot in the data dir is read like a plain one.
	dir := copyDir(t, "testdata/compressed/snapshot.18d.gz", fixtureLog)
	r := mustRead(t, Options{DataDir: dir})
	if filepath.Base(r.Snapshot) != "snapshot.18d.gz" || r.Zxid != 0x18d {
		t.Errorf("read %s at %#x", r.Snapshot, r.Zxid)
	}
}

// At a zxid or time before a change the change is absent; at it, present.
func TestPointInTime(t *testing.T) {
	snap, err := ReadSnapshotFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	const topic = "/brokers/topics/orders"
	n := snap.Nodes[topic]
	if n == nil {
		t.Fatalf("fixture has no %s", topic)
	}
	has := func(r *Result) bool { _, _, err := r.tree.Get(topic); return err == nil }
	for _, tc := range []struct {
		name string
		opt  Options
		want bool
	}{
		{"zxid before", Options{Zxid: n.Czxid - 1}, false},
		{"zxid at", Options{Zxid: n.Czxid}, true},
		{"time before", Options{Time: ptr(time.UnixMilli(n.Ctime - 1))}, false},
		{"time at", Options{Time: ptr(time.UnixMilli(n.Ctime))}, true},
		{"newest", Options{}, true},
	} {
		tc.opt.DataDir = fixtureDir
		r := mustRead(t, tc.opt)
		if has(r) != tc.want {
			t.Errorf("%s: %s present %v, want %v (zxid %#x)", tc.name, topic, has(r), tc.want, r.Zxid)
		}
		if tc.opt.Zxid > 0 && r.Zxid != tc.opt.Zxid {
			t.Errorf("%s: read to %#x, want %#x", tc.name, r.Zxid, tc.opt.Zxid)
		}
		if tc.opt.Zxid > 0 && r.Snapshot != fixtureZero {
			t.Errorf("%s: started from %s, want the snapshot before the point", tc.name, r.Snapshot)
		}
		if len(r.Warnings) != 0 {
			t.Errorf("%s: warnings %v", tc.name, r.Warnings)
		}
	}
}

func TestChroot(t *testing.T) {
	r := mustRead(t, Options{DataDir: fixtureDir})
	tr := mustTree(t, r, "/brokers")
	if _, _, err := tr.Get("/topics/orders"); err != nil {
		t.Errorf("chroot /brokers: /topics/orders: %v", err)
	}
	if _, _, err := tr.Get("/brokers"); !errors.Is(err, zktree.ErrNoNode) {
		t.Errorf("chroot /brokers: /brokers: %v", err)
	}
	if _, err := r.Tree("/kafka"); err == nil || !strings.Contains(err.Error(), "chroot /kafka: no such znode") {
		t.Errorf("missing chroot: %v", err)
	}
}

// TestChrootRun: the subtree under a chroot is the chroot as "/" and every
// node below it, paths relative, whatever sorts beside it (siblings that
// start with its name, with '-' or '0' after it), as filtering the whole
// tree gives it.
func TestChrootRun(t *testing.T) {
	paths := []string{"/", "/k", "/k-x", "/k-x/a", "/k.y", "/k/a", "/k/a/b", "/k/b", "/k0", "/k0/a", "/ka", "/ka/b", "/l", "/zookeeper"}
	whole := &zktree.Tree{}
	for i, p := range paths {
		whole.Nodes = append(whole.Nodes, zktree.Node{Path: p, Data: []byte(p), Czxid: int64(i)})
	}
	whole.Sort()
	r := &Result{tree: whole}
	for _, chroot := range []string{"/k", "/k/", "/k/a", "/k-x", "/k0", "/l", "/zookeeper"} {
		c := strings.TrimSuffix(chroot, "/")
		want := &zktree.Tree{}
		for _, n := range whole.Nodes {
			if n.Path == c || strings.HasPrefix(n.Path, c+"/") {
				n.Path = strings.TrimPrefix(n.Path, c)
				if n.Path == "" {
					n.Path = "/"
				}
				want.Nodes = append(want.Nodes, n)
			}
		}
		want.Sort()
		got := mustTree(t, r, chroot)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("chroot %s (-filtered +got):\n%s", chroot, d)
		}
	}
	for _, chroot := range []string{"/j", "/k/c", "/m", "/k-"} {
		if _, err := r.Tree(chroot); err == nil || !strings.Contains(err.Error(), "no such znode") {
			t.Errorf("chroot %s: %v", chroot, err)
		}
	}
}

// A damaged log is reported with its file and offset, and the replay stops
// at the last transaction before the damage.
func TestDamagedLog(t *testing.T) {
	raw, err := os.ReadFile(fixtureLog)
	if err != nil {
		t.Fatal(err)
	}
	ents := logEntries(t, fixtureLog)
	k := len(ents) * 2 / 3
	bad := ents[k]
	for _, tc := range []struct {
		name   string
		edit   func([]byte) []byte
		reason string // "" for no warning
		zxid   int64
	}{
		{"truncated inside an entry", func(b []byte) []byte { return b[:bad.Offset+20] }, "file ends inside entry", bad.Zxid - 1},
		{"truncated inside the length", func(b []byte) []byte { return b[:bad.Offset+10] }, "file ends inside entry length", bad.Zxid - 1},
		{"truncated at an entry boundary", func(b []byte) []byte { return b[:bad.Offset] }, "", bad.Zxid - 1},
		{"zero padding", func(b []byte) []byte { return append(b[:bad.Offset], make([]byte, 4096)...) }, "", bad.Zxid - 1},
		{"flipped byte", func(b []byte) []byte { b[bad.Offset+30] ^= 0x55; return b }, "entry checksum mismatch", bad.Zxid - 1},
		{"no end marker", func(b []byte) []byte { b[ents[k+1].Offset-1] = 0; return b }, "entry end marker", bad.Zxid - 1},
		{"huge length", func(b []byte) []byte { b[bad.Offset+8] = 0x7f; return b }, "entry length", bad.Zxid - 1},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, "not a ZooKeeper transaction log", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, fixtureZero)
			logFile := filepath.Join(dir, "version-2", "log.1")
			if err := os.WriteFile(logFile, tc.edit(bytes.Clone(raw)), 0o644); err != nil {
				t.Fatal(err)
			}
			r := mustRead(t, Options{DataDir: dir})
			if r.Zxid != tc.zxid {
				t.Errorf("read to %#x, want %#x", r.Zxid, tc.zxid)
			}
			if tc.reason == "" {
				if len(r.Warnings) != 0 {
					t.Errorf("warnings %v", r.Warnings)
				}
				return
			}
			if len(r.Warnings) != 1 {
				t.Fatalf("warnings %v, want one", r.Warnings)
			}
			w := r.Warnings[0]
			wantOff := bad.Offset
			if tc.name == "bad magic" {
				wantOff = 0
			}
			if w.File != logFile || !strings.Contains(w.Message, tc.reason) || w.Offset < wantOff || w.Offset > wantOff+12 {
				t.Errorf("warning %v, want %s at offset %d: %s", w, logFile, wantOff, tc.reason)
			}
		})
	}
}

// A damaged newest snapshot is skipped, with a warning, for the one before.
func TestDamagedSnapshot(t *testing.T) {
	raw, err := os.ReadFile(fixtureSnap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, reason string
		edit         func([]byte) []byte
	}{
		{"truncated", "file ends inside", func(b []byte) []byte { return b[:len(b)/2] }},
		{"flipped byte", "", func(b []byte) []byte { b[len(b)/2] ^= 0x01; return b }},
		// The fixture ends with the tree's seal, then 3.6+'s sealed digest (33 bytes).
		{"bad checksum", "checksum mismatch", func(b []byte) []byte { b[len(b)-33-13] ^= 0x01; return b }},
		{"bad digest checksum", "after the checksum", func(b []byte) []byte { b[len(b)-13] ^= 0x01; return b }},
		{"trailing bytes", "after the checksum", func(b []byte) []byte { return append(b, 1, 2, 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, fixtureZero, fixtureLog)
			snapFile := filepath.Join(dir, "version-2", "snapshot.18d")
			os.WriteFile(snapFile, tc.edit(bytes.Clone(raw)), 0o644)
			_, err := ReadSnapshotFile(snapFile)
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != snapFile || !strings.Contains(fe.Reason, tc.reason) {
				t.Fatalf("ReadSnapshotFile: %v, want a FormatError naming the file: %s", err, tc.reason)
			}
			r := mustRead(t, Options{DataDir: dir})
			if r.Snapshot != filepath.Join(dir, "version-2", "snapshot.0") || r.Zxid != 0x18d {
				t.Errorf("read %s to %#x", r.Snapshot, r.Zxid)
			}
			if len(r.Warnings) != 1 || r.Warnings[0].File != snapFile {
				t.Errorf("warnings %v", r.Warnings)
			}
		})
	}
}

// A fuzzy snapshot holds some transactions after its zxid. Replaying them
// again (creates of nodes that exist, deletes of nodes that are gone, data
// set again) must give the tree at the end, as ZooKeeper's restart does;
// a point inside the fuzzy window comes from the snapshot before.
func TestFuzzySnapshot(t *testing.T) {
	ents := logEntries(t, fixtureLog)
	// The window: the snapshot is named after zxid z but was written while
	// the transactions up to z+40 applied, so it holds them all.
	z := ents[len(ents)/2].Zxid
	end := z + 40
	at := func(zxid int64) *zktree.Tree {
		r := mustRead(t, Options{DataDir: copyDir(t, fixtureZero, fixtureLog), Zxid: zxid})
		return r.tree
	}
	dir := copyDir(t, fixtureZero, fixtureLog)
	fuzzy := filepath.Join(dir, "version-2", "snapshot."+strings.TrimPrefix(hex(z), "0x"))
	if err := os.WriteFile(fuzzy, encodeSnapshot(replayed(t, end)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := mustTree(t, mustRead(t, Options{DataDir: fixtureDir}), "")
	r := mustRead(t, Options{DataDir: dir})
	if r.Snapshot != fuzzy || len(r.Warnings) != 0 {
		t.Fatalf("read from %s, warnings %v", r.Snapshot, r.Warnings)
	}
	if d := cmp.Diff(want, mustTree(t, r, "")); d != "" {
		t.Errorf("replay over the fuzzy snapshot differs (-want +got):\n%s", d)
	}
	// Inside the window the snapshot is not usable: the older one is.
	r = mustRead(t, Options{DataDir: dir, Zxid: z + 10})
	if r.Snapshot != filepath.Join(dir, "version-2", "snapshot.0") || r.Zxid != z+10 {
		t.Errorf("inside the window: read %s to %#x", r.Snapshot, r.Zxid)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, "using an older snapshot") {
		t.Errorf("inside the window: warnings %v", r.Warnings)
	}
	if d := cmp.Diff(at(z+10), mustTree(t, r, "")); d != "" {
		t.Errorf("inside the window (-want +got):\n%s", d)
	}
}

func hex(z int64) string { return fmt.Sprintf("%#x", z) }

// replayed is the fixture's tree at zxid as the replay holds it, with each
// ephemeral's real owner (a tree keeps only whether it is ephemeral).
func replayed(t *testing.T, zxid int64) map[string]*Node {
	t.Helper()
	snap, err := ReadSnapshotFile(fixtureZero)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := listFiles(fixtureV2, "log")
	if err != nil {
		t.Fatal(err)
	}
	st := newTree(snap, nil)
	if last, _, _, _, ws, err := replay(st, logs, snap.Zxid, zxid, nil); err != nil || last != zxid || len(ws) != 0 {
		t.Fatalf("replay to %#x reached %#x: %v %v", zxid, last, ws, err)
	}
	return st.nodes
}

// Options.Skip leaves exactly the nodes it names out of the tree; the rest
// is the tree read without it.
func TestSkip(t *testing.T) {
	all := mustTree(t, mustRead(t, Options{DataDir: fixtureDir}), "")
	skip := func(p string) bool { return strings.HasPrefix(p, "/brokers/topics/") }
	got := mustTree(t, mustRead(t, Options{DataDir: fixtureDir, Skip: skip}), "")
	want := &zktree.Tree{}
	for _, n := range all.Nodes {
		if !skip(n.Path) {
			want.Nodes = append(want.Nodes, n)
		}
	}
	if len(want.Nodes) == len(all.Nodes) {
		t.Fatal("the fixture has no topics")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-filtered +skipped):\n%s", d)
	}
}

// TestTimeBeforeHistory: a time before everything a directory holds is
// refused (ErrBeforeHistory), whether the logs start at zxid 1 or there is
// no log, only a snapshot; Go's zero time is such a time, not "no time"
// (it read the newest state).
func TestTimeBeforeHistory(t *testing.T) {
	for _, dir := range []string{fixtureDir, filepath.Join("testdata", "compressed"), filepath.Join("testdata", "zk39")} {
		for _, at := range []time.Time{{}, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)} {
			_, err := Read(Options{DataDir: dir, Time: &at})
			if !errors.Is(err, ErrBeforeHistory) {
				t.Errorf("%s at %s: error %v, want one before the history", dir, at, err)
			}
		}
	}
}
