package migration

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestApplyFuncRecordsDeselectedAsExcluded: the apply the review runs
// (ApplyFunc) with a selection that leaves changes out reports each left
// out change once, as skipped for apply.ReasonExcluded, and nothing else
// of it (it is not sent); in the audit trail the left out changes are
// "excluded" (not "planned", not "skipped") and the selected one
// "succeeded". The TUI's selection and audit show's listing sit on either
// side of this.
func TestApplyFuncRecordsDeselectedAsExcluded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := plan.Options{Placement: plan.PlacementTarget, Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig, plan.KindScramUser}}
	creds := writeFile(t, dir, "creds.json", `[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw"}]`)
	var reads int
	pl, err := Compute(ctx, PlanRequest{Source: fixed(source(), &reads), Target: Target{Dial: fakeTarget(t)}, Options: opts, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	if len(pl.Plan.Changes) < 3 {
		t.Fatalf("plan has %d changes, want at least 3 to leave some out", len(pl.Plan.Changes))
	}
	// The selection the review hands over: a copy of the plan with only
	// its first change (topic:orders).
	sel := *pl.Plan
	sel.Changes = []plan.Change{pl.Plan.Changes[0]}
	selected := sel.Changes[0].ID
	deselected := map[string]bool{}
	for _, c := range pl.Plan.Changes[1:] {
		deselected[c.ID] = true
	}

	dbPath := filepath.Join(dir, "audit.db")
	rec := BeginRun(ctx, AuditRequest{Path: dbPath}, "apply", []string{"apply"}, "test")
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	rec.Planned(ctx, pl)
	events := map[string][]apply.Event{} // by change id, for the left out ones
	record := apply.Observers{apply.ObserverFunc(func(e apply.Event) {
		switch ev := e.(type) {
		case apply.ChangeSkipped:
			if ev.Change != nil && deselected[ev.Change.ID] {
				events[ev.Change.ID] = append(events[ev.Change.ID], e)
			}
		case apply.BatchSent:
			for _, c := range ev.Changes {
				if c != nil && deselected[c.ID] {
					events[c.ID] = append(events[c.ID], e)
				}
			}
		}
	}), rec.Observer()}
	run, last := pl.ApplyFunc(ApplyRequest{}, record)
	if err := run(ctx, &sel, nil); err != nil {
		t.Fatal(err)
	}
	if res := last(); res.Succeeded != 1 || res.Failed != 0 {
		t.Fatalf("apply of the selection = %+v; want its one change applied", res)
	}
	for id := range deselected {
		evs := events[id]
		sk, ok := apply.ChangeSkipped{}, len(evs) == 1
		if ok {
			sk, ok = evs[0].(apply.ChangeSkipped)
		}
		if !ok || sk.Reason != apply.ReasonExcluded {
			t.Errorf("%s (left out): events %+v; want one ChangeSkipped with reason %q", id, evs, apply.ReasonExcluded)
		}
	}
	rc, err := rec.Finish(ctx, Succeeded)
	if err != nil {
		t.Fatal(err)
	}

	s, err := audit.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	changes, err := s.Changes(ctx, rc.Run, audit.ChangeFilter{NoStates: true})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, c := range changes {
		status[c.ChangeID] = c.Status
	}
	if len(status) != len(pl.Plan.Changes) {
		t.Errorf("audit trail lists %d changes (%v), want the plan's %d", len(status), status, len(pl.Plan.Changes))
	}
	if status[selected] != "succeeded" {
		t.Errorf("%s (selected) recorded %q, want succeeded", selected, status[selected])
	}
	for id := range deselected {
		if status[id] != "excluded" {
			t.Errorf("%s (left out in review) recorded %q, want excluded", id, status[id])
		}
	}
}
