package audit

import (
	"context"
	"slices"
	"testing"
)

// killedApply begins an apply on target, takes the target's lock, records
// a plan and one sent batch, and is "killed": its lock is left behind with
// a process id that no longer exists.
func killedApply(t *testing.T, s *Store, target string) *Run {
	t.Helper()
	ctx := context.Background()
	r := beginApply(t, s, target)
	if _, err := s.AcquireTargetLock(ctx, target, r.ID()); err != nil {
		t.Fatal(err)
	}
	p := testPlan(4)
	if err := r.RecordPlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	applyBatches(r.Observer(), p, 2, func(int) bool { return false })
	mustExec(t, s.w, `UPDATE target_locks SET pid = ? WHERE run_id = ?`, deadPID(t), r.ID())
	return r
}

// takeOver is what apply does: take the lock, then close the runs left
// unfinished on the target.
func takeOver(t *testing.T, s *Store, r *Run, target string) []int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := s.AcquireTargetLock(ctx, target, r.ID()); err != nil {
		t.Fatal(err)
	}
	inc, err := s.IncompleteRuns(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, x := range inc {
		if x.ID != r.ID() {
			ids = append(ids, x.ID)
		}
	}
	closed, err := r.AbandonRuns(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	return closed
}

// TestKilledRunsAreClosedOnce: a run killed long ago is linked and closed
// as "abandoned" by the run that takes over its target, and no later run
// lists it again, even when that run is killed too.
func TestKilledRunsAreClosedOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	a := killedApply(t, s, "dst-id")

	// b takes over from a, then is killed as well.
	b := beginApply(t, s, "dst-id")
	if got := takeOver(t, s, b, "dst-id"); !slices.Equal(got, []int64{a.ID()}) {
		t.Fatalf("b closed %v, want [%d]", got, a.ID())
	}
	mustExec(t, s.w, `UPDATE target_locks SET pid = ? WHERE run_id = ?`, deadPID(t), b.ID())

	// c takes over from b only: a is closed already.
	c := beginApply(t, s, "dst-id")
	if got := takeOver(t, s, c, "dst-id"); !slices.Equal(got, []int64{b.ID()}) {
		t.Fatalf("c closed %v, want only [%d]", got, b.ID())
	}
	if _, err := c.Finish(ctx, "succeeded", 0); err != nil {
		t.Fatal(err)
	}
	if inc, err := s.IncompleteRuns(ctx, "dst-id"); err != nil || len(inc) != 0 {
		t.Fatalf("IncompleteRuns after c = %+v, %v; want none", inc, err)
	}

	for _, tt := range []struct {
		run       *Run
		closedBy  *Run
		resumedBy []int64
		succeeded int
	}{{a, b, []int64{b.ID()}, 4}, {b, c, []int64{c.ID()}, 0}} {
		got, err := s.Run(ctx, tt.run.ID())
		if err != nil {
			t.Fatal(err)
		}
		exit := 99 // no end
		if got.ExitCode != nil {
			exit = *got.ExitCode
		}
		if got.Outcome != "abandoned" || exit != -1 || got.ClosedBy != tt.closedBy.ID() ||
			!slices.Equal(got.ResumedBy, tt.resumedBy) || got.Succeeded != tt.succeeded || got.Head == "" {
			t.Errorf("run %d = outcome %q exit %v closed by %d resumed by %v, %d succeeded; want abandoned, -1, closed and resumed by %d, %d succeeded",
				got.ID, got.Outcome, exit, got.ClosedBy, got.ResumedBy, got.Succeeded, tt.closedBy.ID(), tt.succeeded)
		}
	}
	// Closing again is a no-op; the chain verifies.
	if got, err := c.AbandonRuns(ctx, []int64{a.ID()}); err == nil || got != nil {
		// c is finished: nothing more may be written for it.
		t.Errorf("AbandonRuns after Finish = %v, %v; want an error", got, err)
	}
	d := beginApply(t, s, "dst-id")
	if got, err := d.AbandonRuns(ctx, []int64{a.ID(), b.ID()}); err != nil || len(got) != 0 {
		t.Errorf("AbandonRuns of closed runs = %v, %v; want none closed", got, err)
	}
	if res, err := s.Verify(ctx, ""); err != nil || !res.OK {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
}

// A run that really ends after another closed it as abandoned (it was hung,
// not dead) keeps the abandoned end; its real end is noted.
func TestFinishAfterAbandoned(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	a := killedApply(t, s, "dst-id")
	b := beginApply(t, s, "dst-id")
	takeOver(t, s, b, "dst-id")
	if _, err := a.Finish(ctx, "succeeded", 0); err == nil {
		t.Fatal("Finish of an abandoned run succeeded; want an error naming the closing run")
	}
	x, err := s.Export(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(x.Events); n == 0 || x.Events[n-1].Kind != "finished-after-abandoned" || x.Events[n-1].OtherRun != b.ID() {
		t.Errorf("events = %+v; want finished-after-abandoned naming run %d last", x.Events, b.ID())
	}
	if res, err := s.Verify(ctx, ""); err != nil || !res.OK {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
}
