package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// zkDiskFlags read the source from an offline ZooKeeper data directory:
// ZooKeeper's own snapshot and transaction-log files, replayed to a point.
type zkDiskFlags struct {
	dataDir, logDir, chroot string
	zxidText, timeText      string
	zxid                    int64
	at                      *time.Time // nil: the newest state
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
		f.at = &t
	}
	return nil
}
