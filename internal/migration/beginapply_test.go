package migration

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestBeginApply: an apply's run records its plan and takes the target's
// lock; a run left unfinished on the target is closed as abandoned and
// named through Notice; without an audit trail there is no lock.
func TestBeginApply(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "audit.db")
	planned := func() *Planned {
		tgt := &snapshot.Snapshot{ClusterID: "dst-id"}
		return &Planned{Plan: &plan.Plan{}, Source: &snapshot.Snapshot{ClusterID: "src-id"}, Target: tgt}
	}
	begin := func() (*Recorder, *Lock, []string) {
		rec := BeginRun(ctx, AuditRequest{Path: db}, "apply", nil, "test")
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		var said []string
		lock, err := BeginApply(ctx, rec, planned(), false, Hooks{Notice: func(m string) { said = append(said, m) },
			Warn: func(err error) { said = append(said, "warn: "+err.Error()) }})
		if err != nil || lock == nil {
			t.Fatalf("BeginApply = %v, %v", lock, err)
		}
		return rec, lock, said
	}
	first, lock, said := begin()
	if len(said) != 0 {
		t.Errorf("first apply said %q", said)
	}
	lock.Release() // killed: released without finishing
	_, lock, said = begin()
	defer lock.Release()
	want := []string{fmt.Sprintf("Resuming after interrupted run %d (closed as abandoned): changes it completed are skipped.", first.ID())}
	if !reflect.DeepEqual(said, want) {
		t.Errorf("second apply said %q, want %q", said, want)
	}

	off := BeginRun(ctx, AuditRequest{Off: true}, "apply", nil, "test")
	if lock, err := BeginApply(ctx, off, planned(), false, Hooks{}); lock != nil || err != nil {
		t.Errorf("BeginApply without a trail = %v, %v, want no lock", lock, err)
	}
}
