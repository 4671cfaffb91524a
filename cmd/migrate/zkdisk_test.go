package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
)

const zkDataFixture = "../../internal/zkdisk/testdata/datadir"

func TestZKDataDirFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"zxid without dir", []string{"snapshot", "--snapshot", "x.json", "--zk-zxid", "5"}, "--zk-zxid needs --zk-data-dir"},
		{"chroot without dir", []string{"check", "--zookeeper", "h:1", "--zk-chroot", "/kafka"}, "--zk-chroot needs --zk-data-dir"},
		{"two sources", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zookeeper", "h:1"}, "give one source: --zookeeper and --zk-data-dir are mutually exclusive"},
		{"zxid and time", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zk-zxid", "5", "--zk-time", "2026-01-01"}, "--zk-zxid or --zk-time, not both"},
		{"bad zxid", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zk-zxid", "0xzz"}, `--zk-zxid "0xzz"`},
		{"bad time", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zk-time", "last tuesday"}, `--zk-time "last tuesday"`},
		{"relative chroot", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zk-chroot", "kafka"}, `--zk-chroot "kafka"`},
		{"missing chroot", []string{"snapshot", "--zk-data-dir", zkDataFixture, "--zk-chroot", "/kafka"}, "chroot /kafka: no such znode"},
		{"no such dir", []string{"snapshot", "--zk-data-dir", "/nonexistent/zk"}, "--zk-data-dir: /nonexistent/zk: no such file or directory"},
		{"no snapshots", []string{"snapshot", "--zk-data-dir", t.TempDir()}, "no ZooKeeper snapshot or log files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMigrate(t, tc.args...)
			if code != exitError || !strings.Contains(stderr, tc.stderr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line with %q", code, stderr, tc.stderr)
			}
		})
	}
}

func snapshotJSON(t *testing.T, args ...string) *snapshot.Snapshot {
	t.Helper()
	code, stdout, stderr := runMigrate(t, append([]string{"snapshot", "-o", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// The snapshot command reads the data dir at the newest point, at a zxid
// and at a time, and records where the read came from.
func TestSnapshotFromZKDataDir(t *testing.T) {
	zs, err := zkdisk.ReadSnapshotFile(zkDataFixture + "/version-2/snapshot.18d")
	if err != nil {
		t.Fatal(err)
	}
	orders := zs.Nodes["/brokers/topics/orders"]
	before := time.UnixMilli(orders.Ctime - 1).UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name       string
		args       []string
		zxid       int64
		snap       string
		wantOrders bool
	}{
		{"newest", nil, 0x18d, "snapshot.18d", true},
		{"before orders by zxid", []string{"--zk-zxid", fmt.Sprintf("%#x", orders.Czxid-1)}, orders.Czxid - 1, "snapshot.0", false},
		{"at orders by zxid", []string{"--zk-zxid", fmt.Sprint(orders.Czxid)}, orders.Czxid, "snapshot.0", true},
		{"before orders by time", []string{"--zk-time", before}, 0, "snapshot.0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshotJSON(t, append([]string{"--zk-data-dir", zkDataFixture}, tc.args...)...)
			off := s.Read.Offline
			if off == nil || off.Snapshot != tc.snap || (tc.zxid != 0 && off.Zxid != tc.zxid) || !strings.HasSuffix(off.DataDir, "datadir/version-2") {
				t.Fatalf("offline read info %+v", off)
			}
			if s.Read.StartZxid != off.Zxid || !strings.Contains(s.Address, fmt.Sprintf("at zxid %#x", off.Zxid)) {
				t.Errorf("start zxid %#x, address %q; want the point read, %#x", s.Read.StartZxid, s.Address, off.Zxid)
			}
			if (s.Topic("orders") != nil) != tc.wantOrders {
				t.Errorf("topic orders present %v, want %v", s.Topic("orders") != nil, tc.wantOrders)
			}
			if d := damage(s); len(d) != 0 {
				t.Errorf("damage findings %v", d)
			}
		})
	}
}

// A truncated log tail is a warning finding naming the file and offset; the
// command still succeeds with the last consistent point.
func TestZKDataDirTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	v2 := filepath.Join(dir, "version-2")
	os.Mkdir(v2, 0o755)
	snap0, err := os.ReadFile(zkDataFixture + "/version-2/snapshot.0")
	if err != nil {
		t.Fatal(err)
	}
	logb, err := os.ReadFile(zkDataFixture + "/version-2/log.1")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v2, "snapshot.0"), snap0, 0o644)
	os.WriteFile(filepath.Join(v2, "log.1"), logb[:len(logb)-7], 0o644)
	s := snapshotJSON(t, "--zk-data-dir", dir)
	d := damage(s)
	if len(d) != 1 {
		t.Fatalf("damage findings %v, want one", d)
	}
	f := d[0]
	if f.ID != "zk-data-dir-damage" || f.Severity != snapshot.SeverityWarning || f.Resource != filepath.Join(v2, "log.1") ||
		!strings.Contains(f.Message, "at offset ") || !strings.Contains(f.Message, "file ends inside entry") || !strings.Contains(f.Message, "zxid 0x18c") {
		t.Errorf("finding %+v", f)
	}
	if s.Read.Offline.Zxid != 0x18c || s.Topic("orders") == nil {
		t.Errorf("read to %#x", s.Read.Offline.Zxid)
	}
}

func damage(s *snapshot.Snapshot) []snapshot.Finding {
	var out []snapshot.Finding
	for _, f := range s.Findings {
		if f.ID == "zk-data-dir-damage" {
			out = append(out, f)
		}
	}
	return out
}
