package migration

import (
	"errors"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
)

// TestOutcomes: every command's outcomes, each with the word its audit run
// records and the exit code its --help documents.
func TestOutcomes(t *testing.T) {
	for _, tt := range []struct {
		command, name string
		got           Outcome
		result        string
		code          ExitCode
	}{
		{"any", "failed", Failed, "error", ExitError},
		{"apply", "declined", Declined, "declined", ExitOK},
		{"apply", "nothing to do", NothingToDo, "nothing-to-do", ExitOK},
		{"apply", "applied", ApplyOutcome(apply.Result{Succeeded: 3}, 0, false), "applied", ExitOK},
		{"apply", "a change failed", ApplyOutcome(apply.Result{Succeeded: 2, Failed: 1}, 0, false), "partial", ExitPartial},
		{"apply", "canceled", ApplyOutcome(apply.Result{Canceled: true}, 0, false), "canceled", ExitPartial},
		{"apply", "unverified", ApplyOutcome(apply.Result{Succeeded: 3}, 1, false), "unverified", ExitPartial},
		{"apply", "validated", ApplyOutcome(apply.Result{Succeeded: 3}, 0, true), "validated", ExitOK},
		{"apply", "some not validatable", ApplyOutcome(apply.Result{Succeeded: 2, NotValidated: 1}, 0, true), "not validated", ExitOK},
		{"apply", "validation failed", ApplyOutcome(apply.Result{Failed: 1}, 0, true), "not validated", ExitPartial},
		{"plan", "nothing to do", PlanOutcome(false), "planned", ExitOK},
		{"plan", "changes pending", PlanOutcome(true), "planned", ExitPending},
		{"plan", "review left", ReviewCanceled, "canceled", ExitOK},
		{"check", "passed", CheckOutcome(false, "error"), "passed", ExitOK},
		{"check", "findings", CheckOutcome(true, "warning"), "findings at or above warning", ExitPartial},
		{"policy test", "none", PolicyTestOutcome(0), "no violations", ExitOK},
		{"policy test", "violations", PolicyTestOutcome(2), "2 violations", ExitPartial},
		{"demo", "applied", DemoOutcome(apply.Result{Succeeded: 5}), "applied", ExitOK},
		{"demo", "a change failed", DemoOutcome(apply.Result{Succeeded: 4, Failed: 1}), "partial", ExitPartial},
		{"demo", "review left", DemoOutcome(apply.Result{Canceled: true}), "canceled", ExitOK},
		{"demo", "stopped after some", DemoOutcome(apply.Result{Succeeded: 1, Canceled: true}), "applied", ExitOK},
		{"bootstrap", "seeded", BootstrapOutcome(false, false), "bootstrapped", ExitOK},
		{"bootstrap", "records skipped", BootstrapOutcome(false, true), "partial", ExitPartial},
		{"bootstrap", "dry run", BootstrapOutcome(true, false), "dry-run", ExitOK},
		{"bootstrap", "dry run, skipped", BootstrapOutcome(true, true), "dry-run", ExitPartial},
		{"bootstrap", "write failed, some written", BootstrapWriteFailed(true), "partial", ExitPartial},
		{"bootstrap", "write failed", BootstrapWriteFailed(false), "error", ExitError},
		{"bootstrap", "ended: written", BootstrapEnd(&kraftseed.Result{}, nil), "bootstrapped", ExitOK},
		{"bootstrap", "ended: dry run, skipped", BootstrapEnd(&kraftseed.Result{DryRun: true, Skipped: []string{"/config/users/bob: unreadable"}}, nil), "dry-run", ExitPartial},
		{"bootstrap", "ended: write failed after one", BootstrapEnd(&kraftseed.Result{Targets: []kraftseed.Target{{Written: true}, {}}}, errors.New("disk full")), "partial", ExitPartial},
		{"bootstrap", "ended: write failed", BootstrapEnd(&kraftseed.Result{Targets: []kraftseed.Target{{}}}, errors.New("disk full")), "error", ExitError},
		{"snapshot, explain, version, audit log/show/export/keygen, policy convert", "shown", Succeeded, "succeeded", ExitOK},
		{"audit revert", "revert planned", PlanOutcome(true), "planned", ExitPending},
		{"audit revert", "nothing to revert", PlanOutcome(false), "planned", ExitOK},
		{"audit verify", "verified", TrailOutcome(true), "verified", ExitOK},
		{"audit verify", "broken", TrailOutcome(false), "not verified", ExitPartial},
		{"access diff", "equivalent", AccessOutcome(&access.Result{Verdict: access.Equivalent}), access.Equivalent, ExitOK},
		{"access diff", "differences", AccessOutcome(&access.Result{Verdict: access.Differences}), access.Differences, ExitPartial},
		{"access diff", "not proved", AccessOutcome(&access.Result{Verdict: access.NotProved}), access.NotProved, ExitPartial},
		{"access explain/who", "same", AnswerOutcome(true), "same", ExitOK},
		{"access explain/who", "differs", AnswerOutcome(false), "differs", ExitPartial},
		{"sync", "declined", Declined, "declined", ExitOK},
		{"sync", "in step", SyncInStep, "stopped in step", ExitOK},
		{"sync", "behind", SyncBehind, "stopped with changes not applied", ExitPartial},
		{"sync", "changed after the cut", SyncChangedAfterCut, "stopped frozen: the source changed after the cut", ExitPartial},
		{"sync", "exit on change", SyncExitOnChange, "source changed after freeze", ExitPartial},
		{"sync-round", "applied", RoundOutcome(nil, 0, 0), "applied", ExitOK},
		{"sync-round", "error", RoundOutcome(errors.New("boom"), 1, 1), "error", ExitError},
		{"sync-round", "failed", RoundOutcome(nil, 1, 1), "partial", ExitPartial},
		{"sync-round", "unverified", RoundOutcome(nil, 0, 2), "unverified", ExitPartial},
		{"sync-round", "frozen", RoundFrozen, "frozen: not applied", ExitPartial},
	} {
		t.Run(tt.command+"/"+tt.name, func(t *testing.T) {
			if want := (Outcome{tt.result, tt.code}); tt.got != want {
				t.Errorf("outcome %+v, want %+v", tt.got, want)
			}
		})
	}
}
