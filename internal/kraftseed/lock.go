package kraftseed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Locks are the exclusive locks one bootstrap holds on the directories of
// the checkpoints it writes, for its whole read-modify-write: another
// bootstrap of the same directory waits for them, then reads what this
// one wrote. They are flock(2) locks on the directories themselves, so no
// lock file is left in a metadata directory and a killed process leaves
// no lock behind.
type Locks struct {
	files []*os.File
}

// LockError is a directory another process held for the whole wait.
type LockError struct {
	Dir    string
	Holder string // "pid 123 (migrate bootstrap ...)", or "" when unknown
	Waited time.Duration
}

func (e *LockError) Error() string {
	holder := "another process"
	if e.Holder != "" {
		holder = e.Holder
	}
	return fmt.Sprintf("%s is locked by %s, which is writing its bootstrap checkpoint; gave up after %s (run again when it has finished)",
		e.Dir, holder, e.Waited.Round(time.Second))
}

// lockPoll is how often a waiting bootstrap tries the lock again.
const lockPoll = 50 * time.Millisecond

// Lock takes the lock of every directory whose checkpoint o writes (each
// metadata directory, or the directory of Out / In), in one order so
// that two runs over overlapping directories cannot deadlock. It waits up
// to wait for a directory another process holds, or until ctx ends; then
// it releases what it took and returns a *LockError naming the directory
// and, where the system tells, the holder.
func Lock(ctx context.Context, o TargetOptions, wait time.Duration) (*Locks, error) {
	var dirs []string
	add := func(d string) error {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if !slices.Contains(dirs, abs) {
			dirs = append(dirs, abs)
		}
		return nil
	}
	if o.In != "" {
		out := o.Out
		if out == "" {
			out = o.In
		}
		if err := add(filepath.Dir(out)); err != nil {
			return nil, err
		}
	}
	for _, d := range o.Dirs {
		if err := add(d); err != nil {
			return nil, err
		}
	}
	slices.Sort(dirs)
	l := &Locks{}
	deadline := time.Now().Add(wait)
	for _, d := range dirs {
		f, err := lockDir(ctx, d, deadline)
		if err != nil {
			l.Release()
			var le *LockError
			if errors.As(err, &le) {
				le.Waited = wait
			}
			return nil, err
		}
		l.files = append(l.files, f)
	}
	return l, nil
}

// Release lets go of every lock (nil-safe; once is enough, more is harmless).
func (l *Locks) Release() {
	if l == nil {
		return
	}
	for _, f := range l.files {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	l.files = nil
}

func lockDir(ctx context.Context, dir string, deadline time.Time) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		// Load names a missing or unreadable metadata directory by its flag.
		return nil, dirErr(dir, ": %v", errors.Unwrap(err))
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if !time.Now().Before(deadline) {
			holder := lockHolder(f)
			f.Close()
			return nil, &LockError{Dir: dir, Holder: holder}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the lock of %s: %w", dir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// lockHolder names the process holding a flock on f's inode, from
// /proc/locks (Linux); "" when it cannot tell.
func lockHolder(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	st, ok := statOf(fi)
	if !ok {
		return ""
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)
	pl, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer pl.Close()
	sc := bufio.NewScanner(pl)
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234 0 EOF
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[5] != want {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil {
			continue
		}
		if pid == os.Getpid() {
			return fmt.Sprintf("this process (pid %d)", pid)
		}
		cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(cmd) == 0 {
			return fmt.Sprintf("pid %d", pid)
		}
		args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
		line := strings.Join(args, " ")
		if len(line) > 120 {
			line = line[:120] + "..."
		}
		return fmt.Sprintf("pid %d (%s)", pid, strconv.Quote(line))
	}
	return ""
}
