package migration

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkdisk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// DataDirSource is an offline ZooKeeper data directory: ZooKeeper's own
// snapshot and transaction-log files, replayed read-only to a point.
type DataDirSource struct {
	Dir    string     // dataDir or its version-2
	LogDir string     // dataLogDir, when the logs are kept apart ("" Dir)
	Chroot string     // Kafka's chroot in the tree, e.g. /kafka ("" the root)
	Zxid   int64      // the state after this transaction (0: the newest)
	Time   *time.Time // the state at this time (nil: the newest)
}

// readDataDir replays the data directory and reads Kafka's metadata from
// the tree as zkread reads a live ensemble. Damage in the files becomes a
// warning finding per file; the read uses the last consistent point.
func readDataDir(ctx context.Context, d *DataDirSource, opt zkread.Options, h Hooks) (*snapshot.Snapshot, error) {
	res, err := zkdisk.Read(zkdisk.Options{DataDir: d.Dir, LogDir: d.LogDir, Zxid: d.Zxid, Time: d.Time, Chroot: d.Chroot, Skip: unread(d.Chroot, opt.Full)})
	if d.Time != nil && errors.Is(err, zkdisk.ErrBeforeHistory) {
		return nil, &InputError{Input: InputZKTime, Err: err}
	}
	if err != nil {
		return nil, &InputError{Input: InputZKDataDir, Err: err}
	}
	h.phase("replay")
	tree, err := res.Tree(d.Chroot)
	if err != nil {
		return nil, err
	}
	h.phase("chroot")
	// What the snapshot records is taken from res now: res is not used
	// after, so with a chroot the whole tree can be collected while zkread
	// reads the subtree.
	dir, _ := filepath.Abs(res.SnapDir)
	zxid := res.Zxid
	off := &snapshot.OfflineRead{DataDir: dir, Chroot: d.Chroot, Zxid: zxid, Applied: res.Applied}
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
	opt.Address = dir + d.Chroot + fmt.Sprintf(" at zxid %#x", zxid)
	s, err := zkread.Read(ctx, zkdisk.Source{Tree: tree, Zxid: zxid}, opt)
	if errors.Is(err, zkread.ErrNotKafka) {
		return nil, &NoKafkaError{Where: fmt.Sprintf("in %s%s at zxid %#x", dir, d.Chroot, zxid), Chroot: InputZKChroot}
	}
	if err != nil {
		return nil, err
	}
	s.Read.Offline = off
	s.Findings = append(s.Findings, damage...)
	return s, nil
}

// unread reports, for a migration read (not full), the znodes zkread never
// reads: those below a topic's znode (/brokers/topics/<t>/partitions/...,
// the partition states only a full read takes; zkread's readTopics). Left
// out of the tree they hold no memory while the rest is read: at 50,000
// topics 450,000 of the 590,000 znodes. nil for a full read.
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
