package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrLocked is returned (wrapped in a *LockError) by AcquireTargetLock when
// another live run holds the target.
var ErrLocked = errors.New("audit: target is locked by another run")

// LockError names the run holding a target lock.
type LockError struct {
	Target    string
	RunID     int64
	Host      string
	PID       int
	Since     time.Time
	Heartbeat time.Time
}

func (e *LockError) Error() string {
	return fmt.Sprintf("audit: target %s is locked by run %d on host %s (pid %d) since %s; wait for it to finish, or if it is gone, the lock is reclaimed once its process is dead (same host) or after no heartbeat since %s plus the stale limit",
		e.Target, e.RunID, e.Host, e.PID, e.Since.UTC().Format(time.RFC3339), e.Heartbeat.UTC().Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockError) Unwrap() error { return ErrLocked }

// AcquireTargetLock takes the lock on target (pass the target cluster id
// when known, else its bootstrap address) for run runID, so that a second
// apply against the same target is refused with a *LockError naming the
// holder's run id and host.
//
// A held lock is stale, and reclaimed (recorded as a "lock-reclaimed" event
// on runID), when its holder's run has finished, when the holder ran on
// this host and its process is gone, or when the holder runs on another
// host (or on a platform where a process cannot be looked for) and its
// heartbeat (refreshed with every RPC the holder's Observer records, and
// by Run.Heartbeat) is older than LockStaleAfter. A live process's lock
// on this host is never reclaimed.
//
// release deletes the lock; it is safe to call more than once.
func (s *Store) AcquireTargetLock(ctx context.Context, target string, runID int64) (release func(), err error) {
	if target == "" {
		return nil, errors.New("audit: lock: empty target")
	}
	now := s.now()
	_, err = s.write(ctx, nil, func(w *writer) error {
		var (
			holder         int64
			host           string
			pid            int
			since, beat    string
			holderFinished int
		)
		tx, err := w.txn()
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, `SELECT l.run_id, l.host, l.pid, l.acquired_at, l.heartbeat,
				(SELECT count(*) FROM run_ends e WHERE e.run_id = l.run_id)
			FROM target_locks l WHERE l.target = ?`, target).Scan(&holder, &host, &pid, &since, &beat, &holderFinished)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("audit: lock %s: %v", target, err)
		case holder == runID:
			return nil
		default:
			reason := ""
			switch {
			case holderFinished > 0:
				reason = fmt.Sprintf("run %d finished without releasing it", holder)
			case host == s.hostname && !processAlive(pid):
				reason = fmt.Sprintf("run %d's process %d on %s is gone", holder, pid, host)
			case host == s.hostname && (pid == s.pid || processKnown):
				// A live process on this host keeps its lock however old
				// its heartbeat: a sync between two rounds sends nothing
				// for hours.
				reason = ""
			case now.Sub(parseTime(beat)) > s.lockStaleAfter():
				reason = fmt.Sprintf("run %d's last heartbeat was at %s, more than %s ago", holder, beat, s.lockStaleAfter())
			}
			if reason == "" {
				return &LockError{Target: target, RunID: holder, Host: host, PID: pid, Since: parseTime(since), Heartbeat: parseTime(beat)}
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM target_locks WHERE target = ?`, target); err != nil {
				return fmt.Errorf("audit: lock %s: %v", target, err)
			}
			if _, err := w.insert("run_events", []string{"run_id", "at", "kind", "other_run_id", "detail"},
				runID, timestamp(now), "lock-reclaimed", holder, "target "+target+": "+reason); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO target_locks (target, run_id, host, pid, acquired_at, heartbeat) VALUES (?, ?, ?, ?, ?, ?)`,
			target, runID, s.hostname, s.pid, timestamp(now), timestamp(now)); err != nil {
			return fmt.Errorf("audit: lock %s: %v", target, err)
		}
		_, err = w.insert("run_events", []string{"run_id", "at", "kind", "other_run_id", "detail"},
			runID, timestamp(now), "lock-acquired", nil, "target "+target)
		return err
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			// The caller's context may be canceled by now (Ctrl-C): release
			// with a fresh one.
			ctx, cancel := context.WithTimeout(context.Background(), BusyTimeout)
			defer cancel()
			s.write(ctx, nil, func(w *writer) error {
				tx, err := w.txn()
				if err != nil {
					return err
				}
				res, err := tx.ExecContext(ctx, `DELETE FROM target_locks WHERE target = ? AND run_id = ?`, target, runID)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 {
					return nil
				}
				_, err = w.insert("run_events", []string{"run_id", "at", "kind", "other_run_id", "detail"},
					runID, timestamp(s.now()), "lock-released", nil, "target "+target)
				return err
			})
		})
	}, nil
}

func (s *Store) lockStaleAfter() time.Duration {
	if s.LockStaleAfter > 0 {
		return s.LockStaleAfter
	}
	return DefaultLockStaleAfter
}

// Heartbeat refreshes the heartbeat of the target lock r holds (none:
// nothing to do), so that the lock of a run alive on another host does
// not go stale while it sends nothing: a sync session between rounds.
func (r *Run) Heartbeat(ctx context.Context) error {
	_, err := r.s.write(ctx, nil, func(w *writer) error {
		if _, err := w.exec(`UPDATE target_locks SET heartbeat = ? WHERE run_id = ?`, timestamp(r.s.now()), r.id); err != nil {
			return fmt.Errorf("audit: lock heartbeat of run %d: %v", r.id, err)
		}
		return nil
	})
	return err
}
