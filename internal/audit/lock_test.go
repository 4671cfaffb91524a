package audit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

func beginApply(t *testing.T, s *Store, target string) *Run {
	t.Helper()
	r, err := s.BeginRun(context.Background(), RunInfo{Command: "apply", User: "ops",
		Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: target}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestTargetLock(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	first := beginApply(t, s, "dst-id")
	release, err := s.AcquireTargetLock(ctx, "dst-id", first.ID())
	if err != nil {
		t.Fatal(err)
	}
	// Another process (another Store on the same file) is refused, with the
	// holder named.
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	second := beginApply(t, other, "dst-id")
	_, err = other.AcquireTargetLock(ctx, "dst-id", second.ID())
	var le *LockError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second AcquireTargetLock = %v; want a *LockError", err)
	}
	if le.RunID != first.ID() || le.Host != s.hostname || le.Target != "dst-id" {
		t.Errorf("LockError = %+v; want run %d on host %s", le, first.ID(), s.hostname)
	}
	// A different target is free.
	rel2, err := other.AcquireTargetLock(ctx, "another-cluster", second.ID())
	if err != nil {
		t.Fatalf("lock on another target: %v", err)
	}
	rel2()
	// Re-acquiring by the holder is fine; releasing twice is fine.
	if _, err := s.AcquireTargetLock(ctx, "dst-id", first.ID()); err != nil {
		t.Errorf("holder re-acquiring: %v", err)
	}
	release()
	release()
	rel3, err := other.AcquireTargetLock(ctx, "dst-id", second.ID())
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	rel3()
	if res, err := s.Verify(ctx, ""); err != nil || !res.OK {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
}

func TestStaleTargetLocks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		setup     func(t *testing.T, s *Store, holder *Run)
		reclaimed bool
	}{
		{"holder alive", func(t *testing.T, s *Store, holder *Run) {}, false},
		{"holder process gone", func(t *testing.T, s *Store, holder *Run) {
			mustExec(t, s.w, `UPDATE target_locks SET pid = ?`, deadPID(t))
		}, true},
		{"holder alive on this host, heartbeat old", func(t *testing.T, s *Store, holder *Run) {
			// Another live process (this test's parent), silent for 7 h: a
			// sync between rounds. It used to be reclaimed.
			mustExec(t, s.w, `UPDATE target_locks SET pid = ?, heartbeat = ?`, os.Getppid(), timestamp(time.Now().Add(-7*time.Hour)))
			s.now = time.Now
		}, false},
		{"holder on another host, heartbeat fresh", func(t *testing.T, s *Store, holder *Run) {
			mustExec(t, s.w, `UPDATE target_locks SET host = 'elsewhere', pid = 1`)
		}, false},
		{"holder on another host, heartbeat old", func(t *testing.T, s *Store, holder *Run) {
			mustExec(t, s.w, `UPDATE target_locks SET host = 'elsewhere', pid = 1, heartbeat = ?`, timestamp(time.Now().Add(-7*time.Hour)))
			s.now = time.Now
		}, true},
		{"holder finished without releasing", func(t *testing.T, s *Store, holder *Run) {
			if _, err := holder.Finish(ctx, "succeeded", 0); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTest(t)
			holder := beginApply(t, s, "dst-id")
			if _, err := s.AcquireTargetLock(ctx, "dst-id", holder.ID()); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, s, holder)
			next := beginApply(t, s, "dst-id")
			rel, err := s.AcquireTargetLock(ctx, "dst-id", next.ID())
			if !tt.reclaimed {
				if !errors.Is(err, ErrLocked) {
					t.Fatalf("AcquireTargetLock = %v; want ErrLocked", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("AcquireTargetLock = %v; want the stale lock reclaimed", err)
			}
			defer rel()
			x, err := s.Export(ctx, next.ID())
			if err != nil {
				t.Fatal(err)
			}
			if len(x.Events) < 1 || x.Events[0].Kind != "lock-reclaimed" || x.Events[0].OtherRun != holder.ID() {
				t.Errorf("events of the new run = %+v; want lock-reclaimed from run %d first", x.Events, holder.ID())
			}
		})
	}
}

// TestRunHeartbeat: Run.Heartbeat refreshes the heartbeat of the lock the
// run holds, so that a silent run on another host keeps its lock.
func TestRunHeartbeat(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	holder := beginApply(t, s, "dst-id")
	if _, err := s.AcquireTargetLock(ctx, "dst-id", holder.ID()); err != nil {
		t.Fatal(err)
	}
	mustExec(t, s.w, `UPDATE target_locks SET host = 'elsewhere', pid = 1, heartbeat = ?`, timestamp(time.Now().Add(-7*time.Hour)))
	s.now = time.Now
	if err := holder.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	next := beginApply(t, s, "dst-id")
	if _, err := s.AcquireTargetLock(ctx, "dst-id", next.ID()); !errors.Is(err, ErrLocked) {
		t.Fatalf("AcquireTargetLock after the holder's heartbeat = %v; want ErrLocked", err)
	}
}
