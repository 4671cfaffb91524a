package migration

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/audit"
)

func beginApply(t *testing.T, s *audit.Store, target string) *audit.Run {
	t.Helper()
	r, err := s.BeginRun(context.Background(), audit.RunInfo{Command: "apply", User: "ops",
		Target: audit.Endpoint{Kind: "kafka", Address: "kafka:9092", ClusterID: target}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAcquireLock: a second apply of a target whose lock is held is
// refused naming the holder; a run left unfinished is closed as abandoned
// by the next apply of its target, once.
func TestAcquireLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := audit.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := audit.Open(ctx, path) // another process on the same database
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	first := beginApply(t, s, "dst-id")
	lock, err := AcquireLock(ctx, s, first, "dst-id")
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Abandoned) != 0 || lock.AbandonErr != nil {
		t.Errorf("first lock closed %v (%v), want nothing", lock.Abandoned, lock.AbandonErr)
	}
	second := beginApply(t, other, "dst-id")
	_, err = AcquireLock(ctx, other, second, "dst-id")
	var le *audit.LockError
	if !errors.As(err, &le) || le.RunID != first.ID() || le.Target != "dst-id" {
		t.Fatalf("second AcquireLock = %v, want a *audit.LockError naming run %d", err, first.ID())
	}
	if other, err := AcquireLock(ctx, other, second, "another-id"); err != nil {
		t.Fatalf("lock on another target: %v", err)
	} else {
		other.Release()
	}

	// The first run lets go of the lock without finishing (it was killed):
	// the next apply of the target resumes after it and closes it.
	lock.Release()
	third := beginApply(t, other, "dst-id")
	lock3, err := AcquireLock(ctx, other, third, "dst-id")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lock3.Abandoned, []int64{first.ID(), second.ID()}) || lock3.AbandonErr != nil {
		t.Errorf("closed %v (%v), want runs %d and %d", lock3.Abandoned, lock3.AbandonErr, first.ID(), second.ID())
	}
	lock3.Release()
	if _, err := third.Finish(ctx, "applied", 0); err != nil {
		t.Fatal(err)
	}
	fourth := beginApply(t, s, "dst-id")
	lock4, err := AcquireLock(ctx, s, fourth, "dst-id")
	if err != nil {
		t.Fatal(err)
	}
	defer lock4.Release()
	if len(lock4.Abandoned) != 0 {
		t.Errorf("runs %v closed a second time", lock4.Abandoned)
	}
}
