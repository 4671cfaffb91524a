package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// zkDiskFlags read the source from an offline ZooKeeper data directory:
// ZooKeeper's own snapshot and transaction-log files, replayed to a point.
type zkDiskFlags struct {
	dataDir, logDir, chroot string
	zxidText, timeText      string
	zxid                    int64
	at                      time.Time
}

func (f *zkDiskFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dataDir, "zk-data-dir", "", "read an offline ZooKeeper data directory `DIR` (dataDir or its version-2; opened read-only) instead of a live ensemble")
	fs.StringVar(&f.logDir, "zk-data-log-dir", "", "ZooKeeper's dataLogDir `DIR`, when the transaction logs are kept apart from the snapshots")
	fs.StringVar(&f.chroot, "zk-chroot", "", "with --zk-data-dir: the Kafka chroot `PATH` in the tree, e.g. /kafka")
	fs.StringVar(&f.zxidText, "zk-zxid", "", "with --zk-data-dir: the state after transaction `ZXID` (0x18d or decimal) instead of the newest")
	fs.StringVar(&f.timeText, "zk-time", "", "with --zk-data-dir: the state at `TIME` (RFC 3339, or a date for its 00:00 UTC): before the first transaction after it")
}

func (f *zkDiskFlags) set() bool { return f.dataDir != "" }

// validate parses the point flags and checks they come with --zk-data-dir.
func (f *zkDiskFlags) validate() error {
	if !f.set() {
		for name, v := range map[string]string{"--zk-data-log-dir": f.logDir, "--zk-chroot": f.chroot, "--zk-zxid": f.zxidText, "--zk-time": f.timeText} {
			if v != "" {
				return fmt.Errorf("%s needs --zk-data-dir", name)
			}
		}
		return nil
	}
	if f.zxidText != "" && f.timeText != "" {
		return errors.New("give --zk-zxid or --zk-time, not both")
	}
	if f.chroot != "" && (!strings.HasPrefix(f.chroot, "/") || f.chroot == "/") {
		return fmt.Errorf("--zk-chroot %q: want an absolute path below the root, such as /kafka", f.chroot)
	}
	if f.zxidText != "" {
		z, err := strconv.ParseInt(f.zxidText, 0, 64)
		if err != nil || z <= 0 {
			return fmt.Errorf("--zk-zxid %q: want a positive zxid, hex (0x18d) or decimal", f.zxidText)
		}
		f.zxid = z
	}
	if f.timeText != "" {
		t, err := time.Parse(time.RFC3339, f.timeText)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, f.timeText); err != nil {
				return fmt.Errorf("--zk-time %q: want RFC 3339 (2026-11-24T09:00:00Z) or a date (2026-11-24)", f.timeText)
			}
		}
		f.at = t
	}
	return nil
}

// read replays the data directory and reads Kafka's metadata from the
// tree as zkread reads a live ensemble. Damage in the files becomes a
// warning finding per file; the read uses the last consistent point.
func (f *zkDiskFlags) read(ctx context.Context, opt zkread.Options) (*snapshot.Snapshot, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	res, err := zkdisk.Read(zkdisk.Options{DataDir: f.dataDir, LogDir: f.logDir, Zxid: f.zxid, Time: f.at, Skip: unread(f.chroot, opt.Full)})
	if err != nil {
		return nil, fmt.Errorf("--zk-data-dir: %w", err)
	}
	memPhase("replay")
	tree, err := res.Tree(f.chroot)
	if err != nil {
		return nil, err
	}
	memPhase("chroot")
	// What the snapshot records is taken from res now: res is not used
	// after, so with a chroot the whole tree can be collected while zkread
	// reads the subtree.
	dir, _ := filepath.Abs(res.SnapDir)
	zxid := res.Zxid
	off := &snapshot.OfflineRead{DataDir: dir, Chroot: f.chroot, Zxid: zxid, Applied: res.Applied}
	if res.Snapshot != "" {
		off.Snapshot = filepath.Base(res.Snapshot)
	}
	if res.LogDir != res.SnapDir {
		off.LogDir, _ = filepath.Abs(res.LogDir)
	}
	if !res.Time.IsZero() {
		off.ZxidTime = res.Time.Format(time.RFC3339Nano)
	}
	var damage []snapshot.Finding
	for _, w := range res.Warnings {
		msg := w.Message
		if w.Offset >= 0 {
			msg = fmt.Sprintf("at offset %d: %s", w.Offset, w.Message)
		}
		damage = append(damage, snapshot.Finding{ID: catalogue.IDZKDataDirDamage, Severity: snapshot.SeverityWarning, Resource: w.File,
			Message: msg + fmt.Sprintf("; the read shows the last consistent point, zxid %#x", zxid),
			Fix:     "copy the data directory again from a healthy ensemble member, or restore the file from a backup"})
	}
	opt.Address = dir + f.chroot + fmt.Sprintf(" at zxid %#x", zxid)
	s, err := zkread.Read(ctx, zkdisk.Source{Tree: tree, Zxid: zxid}, opt)
	if errors.Is(err, zkread.ErrNotKafka) {
		return nil, fmt.Errorf("no Kafka metadata in %s%s at zxid %#x (no /brokers, /config or /cluster/id); wrong --zk-chroot?", dir, f.chroot, zxid)
	}
	if err != nil {
		return nil, err
	}
	s.Read.Offline = off
	s.Findings = append(s.Findings, damage...)
	return s, nil
}

// unread reports, for a migration read (not --full), the znodes zkread never
// reads: those below a topic's znode (/brokers/topics/<t>/partitions/..., the
// partition states only a full read takes; zkread's readTopics). Left out
// of the tree they hold no memory while the rest is read: at 50,000 topics
// 450,000 of the 590,000 znodes. nil for a full read.
func unread(chroot string, full bool) func(string) bool {
	if full {
		return nil
	}
	prefix := strings.TrimSuffix(chroot, "/") + "/brokers/topics/"
	return func(p string) bool {
		rest, ok := strings.CutPrefix(p, prefix)
		return ok && strings.Contains(rest, "/")
	}
}
