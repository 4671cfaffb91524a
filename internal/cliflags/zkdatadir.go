package cliflags

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// ZKDataDir read the source from an offline ZooKeeper data directory:
// ZooKeeper's own snapshot and transaction-log files, replayed to a point.
type ZKDataDir struct {
	DataDir, LogDir, Chroot string
	zxidText, timeText      string
	zxid                    int64
	at                      *time.Time // nil: the newest state
}

func (f *ZKDataDir) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.DataDir, "zk-data-dir", "", "read an offline ZooKeeper data directory `DIR` (dataDir or its version-2; opened read-only) instead of a live ensemble")
	fs.StringVar(&f.LogDir, "zk-data-log-dir", "", "ZooKeeper's dataLogDir `DIR`, when the transaction logs are kept apart from the snapshots")
	fs.StringVar(&f.Chroot, "zk-chroot", "", "with --zk-data-dir: the Kafka chroot `PATH` in the tree, e.g. /kafka")
	fs.StringVar(&f.zxidText, "zk-zxid", "", "with --zk-data-dir: the state after transaction `ZXID` (0x18d or decimal) instead of the newest")
	fs.StringVar(&f.timeText, "zk-time", "", "with --zk-data-dir: the state at `TIME` (RFC 3339, or a date for its 00:00 UTC): before the first transaction after it")
}

func (f *ZKDataDir) Given() bool { return f.DataDir != "" }

// Validate parses the point flags and checks they come with --zk-data-dir.
func (f *ZKDataDir) Validate() error {
	if !f.Given() {
		for name, v := range map[string]string{"--zk-data-log-dir": f.LogDir, "--zk-chroot": f.Chroot, "--zk-zxid": f.zxidText, "--zk-time": f.timeText} {
			if v != "" {
				return fmt.Errorf("%s needs --zk-data-dir", name)
			}
		}
		return nil
	}
	if f.zxidText != "" && f.timeText != "" {
		return errors.New("give --zk-zxid or --zk-time, not both")
	}
	if f.Chroot != "" && (!strings.HasPrefix(f.Chroot, "/") || f.Chroot == "/") {
		return fmt.Errorf("--zk-chroot %q: want an absolute path below the root, such as /kafka", f.Chroot)
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
