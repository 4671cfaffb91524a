package kraftseed

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
)

// TestLockSerialisesWriters: two bootstraps of one metadata directory,
// each adding a different user. The second reaches its read while the first
// holds the lock between its read and its write; it must wait, read what
// the first wrote, and extend that: both users land. Without the lock the
// second reads the checkpoint before the first writes and its write drops
// the first's user.
func TestLockSerialisesWriters(t *testing.T) {
	d := metadataDir(t, "c1")
	o := TargetOptions{Dirs: []string{d}}
	run := func(user string, loaded chan<- struct{}, proceed <-chan struct{}) error {
		l, err := Lock(context.Background(), o, 10*time.Second)
		if err != nil {
			return err
		}
		defer l.Release()
		ts, err := Load(o)
		if err != nil {
			return err
		}
		if loaded != nil {
			close(loaded)
			<-proceed
		}
		if err := ts[0].Extend(Seed{Creds: []kraftcheckpoint.ScramCredential{cred(user, kraftcheckpoint.ScramSHA256, 7)}}, time.Now()); err != nil {
			return err
		}
		return Write(ts)
	}
	loaded, proceed := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = run("alice", loaded, proceed) }()
	<-loaded // alice has read the checkpoint and holds the lock
	go func() { defer wg.Done(); errs[1] = run("bob", nil, nil) }()
	time.Sleep(100 * time.Millisecond) // bob gets as far as he can
	close(proceed)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := Show(d)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, u := range l.Scram {
		users = append(users, u.User)
	}
	for _, want := range []string{"alice", "bob"} {
		if !slices.Contains(users, want) {
			t.Errorf("users %v: %s's record was lost", users, want)
		}
	}
}

// TestLockTimesOut: a directory held for the whole wait is refused with a
// LockError naming the directory and the holder; the refused run holds
// nothing afterwards, and a ctx that ends stops the wait.
func TestLockTimesOut(t *testing.T) {
	d1, d2 := metadataDir(t, "c1"), metadataDir(t, "c1")
	held, err := Lock(context.Background(), TargetOptions{Dirs: []string{d2}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(context.Background(), TargetOptions{Dirs: []string{d1, d2}}, 200*time.Millisecond)
	var le *LockError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a LockError", err)
	}
	if le.Dir != d2 || !strings.Contains(err.Error(), d2+" is locked by this process (pid ") {
		t.Errorf("error %q, want it to name %s and its holder", err, d2)
	}
	// d1 was taken before d2 refused: it must have been let go.
	l1, err := Lock(context.Background(), TargetOptions{Dirs: []string{d1}}, 0)
	if err != nil {
		t.Fatalf("d1 still locked after the refused run: %v", err)
	}
	l1.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, TargetOptions{Dirs: []string{d2}}, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the context's", err)
	}
	held.Release()
	held.Release() // harmless
	l2, err := Lock(context.Background(), TargetOptions{Dirs: []string{d2}}, 0)
	if err != nil {
		t.Fatalf("d2 still locked after Release: %v", err)
	}
	l2.Release()
}
