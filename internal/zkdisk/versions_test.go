package zkdisk

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Data dirs written by real ZooKeeper 3.4.14 and 3.9.3 servers (standalone,
// snapCount=4, so that snapshots were taken in the background while
// transactions went on: fuzzy ones): creates, setData, delete, a multi and
// a failed multi, sequential and ephemeral znodes, a session closed and
// one expired, setACL, restarts. 3.4 wrote no snapshot until its 26th
// transaction and no startup snapshot; 3.9 wrote the digest and
// last-processed-zxid trailers.
//
// From every snapshot in the dir, replaying the rest of the logs must give
// the tree replayed from the very start.
func TestRealZooKeeperVersions(t *testing.T) {
	for _, v := range []string{"zk34", "zk39"} {
		t.Run(v, func(t *testing.T) {
			v2 := filepath.Join("testdata", v, "version-2")
			want := mustRead(t, Options{DataDir: v2})
			if len(want.Warnings) != 0 {
				t.Fatalf("warnings %v", want.Warnings)
			}
			snaps, err := listFiles(v2, "snapshot")
			if err != nil || len(snaps) < 3 {
				t.Fatalf("%d snapshots: %v", len(snaps), err)
			}
			logs, _ := listFiles(v2, "log")
			var all []string
			for _, l := range logs {
				all = append(all, l.path)
			}
			baseline := mustRead(t, Options{DataDir: copyDir(t, all...)}) // 3.4: from the empty tree
			if v == "zk39" {
				baseline = mustRead(t, Options{DataDir: copyDir(t, append(all, filepath.Join(v2, "snapshot.0"))...)}) // 3.5+: from snapshot.0
			}
			if baseline.Zxid != want.Zxid || baseline.Applied != int(want.Zxid) {
				t.Fatalf("replay from the start reached %#x after %d, want %#x", baseline.Zxid, baseline.Applied, want.Zxid)
			}
			for _, s := range snaps {
				r := mustRead(t, Options{DataDir: copyDir(t, append(all, s.path)...)})
				if r.Zxid != want.Zxid || len(r.Warnings) != 0 {
					t.Errorf("%s: reached %#x, warnings %v", filepath.Base(s.path), r.Zxid, r.Warnings)
				}
				if d := cmp.Diff(mustTree(t, baseline, ""), mustTree(t, r, "")); d != "" {
					t.Errorf("from %s (-from the start +from it):\n%s", filepath.Base(s.path), d)
				}
				parsed, err := ReadSnapshotFile(s.path)
				if err != nil {
					t.Fatal(err)
				}
				if v == "zk39" && (!parsed.Digest || parsed.LastProcessedZxid < parsed.Zxid) {
					t.Errorf("%s: 3.9 trailer: digest %v, last zxid %#x", filepath.Base(s.path), parsed.Digest, parsed.LastProcessedZxid)
				}
				if v == "zk34" && (parsed.Digest || parsed.LastProcessedZxid != 0) {
					t.Errorf("%s: 3.4 has no trailer: digest %v, last zxid %#x", filepath.Base(s.path), parsed.Digest, parsed.LastProcessedZxid)
				}
			}
			if v == "zk34" {
				early := mustRead(t, Options{DataDir: v2, Zxid: 0x10})
				if early.Snapshot != "" || early.Zxid != 0x10 || early.Applied != 0x10 {
					t.Errorf("3.4 before its first snapshot: from %q to %#x after %d", early.Snapshot, early.Zxid, early.Applied)
				}
			}
			// The expired session's ephemeral is gone, the other session's too
			// (closed), and the failed multi left nothing.
			tr := mustTree(t, want, "/kafka2")
			for _, p := range []string{"/brokers/ids/9", "/brokers/topics/never", "/brokers/topics/gone"} {
				if _, _, err := tr.Get(p); err == nil {
					t.Errorf("%s is present", p)
				}
			}
			if d, _, err := tr.Get("/config/topics/t1"); err != nil || string(d) != `{"version":1,"config":{"retention.ms":"3000"}}` {
				t.Errorf("/config/topics/t1: %q %v", d, err)
			}
		})
	}
}
