package migration

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// ExitCode is a process exit code, as every command's --help documents
// them.
type ExitCode int

// The exit codes.
const (
	ExitOK      ExitCode = 0 // success, or nothing to do
	ExitError   ExitCode = 1 // error; nothing was changed by this command
	ExitPending ExitCode = 2 // plan: runnable changes pending
	// ExitPartial: apply or sync with some changes not made (failed,
	// not sent, not shown by the target); check and policy test with
	// findings at or above the threshold; audit verify with the chain
	// broken; sync --freeze with the source changed after the cut.
	ExitPartial ExitCode = 3
)

// Outcome is how a run ended: Result is the word its audit run records,
// Code the exit code it implies. Each command's outcomes are made here,
// once, so that the word and the code cannot disagree.
type Outcome struct {
	Result string
	Code   ExitCode
}

// The outcomes every command shares.
var (
	// Failed: an error stopped the command (nothing changed by it).
	Failed = Outcome{"error", ExitError}
	// Declined: the operator did not confirm; nothing was applied.
	Declined = Outcome{"declined", ExitOK}
	// NothingToDo: apply found no runnable change.
	NothingToDo = Outcome{"nothing-to-do", ExitOK}
	// ReviewCanceled: plan --interactive's review was left without
	// saving.
	ReviewCanceled = Outcome{"canceled", ExitOK}
)

// Succeeded is the outcome of a command that reads and shows (snapshot,
// explain, version, audit log, show and export, policy convert, audit
// keygen): it records no run, and exits 0 unless an error stopped it
// (Failed).
var Succeeded = Outcome{"succeeded", ExitOK}

// AnswerOutcome is access explain's and access who's: exit 3 when the
// two sides do not decide the same.
func AnswerOutcome(same bool) Outcome {
	if same {
		return Outcome{"same", ExitOK}
	}
	return Outcome{"differs", ExitPartial}
}

// TrailOutcome is audit verify's: exit 3 when the chain, a signature or
// a receipt does not verify.
func TrailOutcome(verified bool) Outcome {
	if verified {
		return Outcome{"verified", ExitOK}
	}
	return Outcome{"not verified", ExitPartial}
}

// PlanOutcome is a plan's: exit 2 while it holds runnable changes.
func PlanOutcome(runnable bool) Outcome {
	if runnable {
		return Outcome{"planned", ExitPending}
	}
	return Outcome{"planned", ExitOK}
}

// ApplyOutcome is an apply's, from its result and the number of applied
// changes verify did not see. A validate-only run is "validated" only when
// every change was validated; one with a change it could not validate (no
// validate_only mode), a failed validation or an interruption is "not
// validated". An apply with a change that failed or was not sent, or one
// the target did not show, exits 3.
func ApplyOutcome(res apply.Result, unverified int, validateOnly bool) Outcome {
	code := ExitOK
	if res.Failed > 0 || res.Canceled || unverified > 0 {
		code = ExitPartial
	}
	switch {
	case validateOnly && (code != ExitOK || res.NotValidated > 0):
		return Outcome{"not validated", code}
	case validateOnly:
		return Outcome{"validated", code}
	case res.Failed > 0:
		return Outcome{"partial", code}
	case res.Canceled:
		return Outcome{"canceled", code}
	case unverified > 0:
		return Outcome{"unverified", code}
	}
	return Outcome{"applied", code}
}

// DemoOutcome is the demo's: it ran (exit 0) unless a change failed; a
// review left before anything was applied is "canceled", still exit 0.
func DemoOutcome(res apply.Result) Outcome {
	switch {
	case res.Failed > 0:
		return Outcome{"partial", ExitPartial}
	case res.Canceled && res.Succeeded == 0:
		return Outcome{"canceled", ExitOK}
	}
	return Outcome{"applied", ExitOK}
}

// CheckOutcome is check's: exit 3 when a finding is at or above failOn.
func CheckOutcome(atOrAbove bool, failOn string) Outcome {
	if atOrAbove {
		return Outcome{"findings at or above " + failOn, ExitPartial}
	}
	return Outcome{"passed", ExitOK}
}

// PolicyTestOutcome is policy test's: exit 3 when an existing topic
// violates the policy.
func PolicyTestOutcome(violations int) Outcome {
	if violations > 0 {
		return Outcome{fmt.Sprintf("%d violations", violations), ExitPartial}
	}
	return Outcome{"no violations", ExitOK}
}

// BootstrapOutcome is bootstrap's: skipped records (or, when writing
// failed, some checkpoints written and some not) are partial, exit 3.
func BootstrapOutcome(dryRun, skipped bool) Outcome {
	code := ExitOK
	if skipped {
		code = ExitPartial
	}
	switch {
	case dryRun:
		return Outcome{"dry-run", code}
	case skipped:
		return Outcome{"partial", code}
	}
	return Outcome{"bootstrapped", code}
}

// BootstrapWriteFailed is bootstrap's when writing the checkpoints failed:
// partial when some were written.
func BootstrapWriteFailed(someWritten bool) Outcome {
	if someWritten {
		return Outcome{"partial", ExitPartial}
	}
	return Failed
}

// The outcomes of a sync session.
var (
	// SyncStopped: the session ended before deciding (its start).
	SyncStopped = Outcome{"stopped", ExitOK}
	// SyncInStep: stopped with the target in step with the source.
	SyncInStep = Outcome{"stopped in step", ExitOK}
	// SyncBehind: stopped with changes not applied.
	SyncBehind = Outcome{"stopped with changes not applied", ExitPartial}
	// SyncChangedAfterCut: stopped frozen after the source changed.
	SyncChangedAfterCut = Outcome{"stopped frozen: the source changed after the cut", ExitPartial}
	// SyncExitOnChange: --exit-on-change ended a frozen sync at the
	// source's first change.
	SyncExitOnChange = Outcome{"source changed after freeze", ExitPartial}
	// RoundFrozen: a frozen round's record of differences not applied.
	RoundFrozen = Outcome{"frozen: not applied", ExitPartial}
)

// RoundOutcome is an applied sync round's: its error, how many changes
// failed, and how many verify did not see.
func RoundOutcome(err error, failed, unverified int) Outcome {
	switch {
	case err != nil:
		return Failed
	case failed > 0:
		return Outcome{"partial", ExitPartial}
	case unverified > 0:
		return Outcome{"unverified", ExitPartial}
	}
	return Outcome{"applied", ExitOK}
}
