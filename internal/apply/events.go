package apply

import (
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Event is something that happened during an apply. The text printer, the
// audit trail and the TUI all consume the same events.
type Event interface{ event() }

// RunStarted opens an apply.
type RunStarted struct {
	Time         time.Time
	Plan         *plan.Plan
	ValidateOnly bool
	Total        int // changes to run
	// Found is, by change id, the whole state of each resource a change to
	// send deletes, as the target showed it before the run, when the
	// change's Before holds only part of it (plan.Target.Whole: a topic's
	// configs and replica assignment): the audit trail keeps it so that a
	// revert can re-create what was deleted. Nil in a validate-only run.
	Found map[string]*plan.State
}

// ChangeSkipped reports a change not sent, and why (Reason, one of the
// SkipReason constants; Detail in words). A plan stale on the target is
// refused whole (plan.StaleError), never skipped change by change.
type ChangeSkipped struct {
	Change *plan.Change
	Reason SkipReason
	Detail string
}

// SkipReason is why a change was not sent.
type SkipReason string

// The reasons Run skips a change for: every one it emits.
const (
	// ReasonAlreadyApplied: the target is already in the change's After
	// state (an interrupted earlier apply sent it).
	ReasonAlreadyApplied SkipReason = "already-applied"
	// ReasonCanceled: the apply was interrupted before the change was sent.
	ReasonCanceled SkipReason = "canceled"
	// ReasonNotValidated skips, in a validate-only run, a change whose RPC
	// has no validate_only mode (CreateAcls, DeleteAcls, DeleteTopics,
	// AlterPartitionReassignments, AlterUserScramCredentials): it is not
	// sent, and its Detail says "not validated: would send <RPC>".
	ReasonNotValidated SkipReason = "not-validated"
	// ReasonNotSent skips a change after the target stopped answering: its
	// Detail says which request got no answer.
	ReasonNotSent SkipReason = "not-sent"
	// ReasonHalted skips a change that Options.Halt kept from being sent
	// (a sync frozen while its round applied): its Detail says why.
	ReasonHalted SkipReason = "halted"
	// ReasonExcluded is not Run's: the caller that applies a selection
	// of a plan (migration.Planned.ApplyFunc, after the review) reports
	// each change of the plan left out of it, so that the audit trail
	// says "excluded" rather than leaving it "planned".
	ReasonExcluded SkipReason = "excluded"
)

// BatchSent reports one RPC about to be sent, carrying several changes.
type BatchSent struct {
	Batch        int // sequence number of the request within the run, from 1
	RPC          string
	Version      int16 // API version when known, else -1
	Broker       int32 // broker node id the request goes to, -1 when chosen by the client
	ValidateOnly bool
	Changes      []*plan.Change
	Time         time.Time
	// Attempt counts the requests for these changes: 1 for the first (and
	// for a validate-only preflight), 2 and on for retries of retriable
	// failures, each a Batch of its own.
	Attempt int
}

// BatchDone reports the end of one RPC.
type BatchDone struct {
	Batch    int
	RPC      string
	Version  int16 // API version the client negotiated
	Broker   int32
	Duration time.Duration
	Err      error // the request as a whole failed (network, auth); per-resource errors are in ResourceResult
	Attempt  int   // as in its BatchSent
}

// ResourceResult is the outcome for one change.
type ResourceResult struct {
	Change       *plan.Change
	Batch        int // the request whose response decided the outcome (BatchSent.Batch)
	ValidateOnly bool
	ErrorCode    int16  // Kafka error code, 0 on success
	ErrorName    string // e.g. POLICY_VIOLATION
	Message      string // the broker's message
	Err          error  // nil on success
}

// RunFinished closes an apply.
type RunFinished struct {
	Time         time.Time
	Succeeded    int
	Failed       int
	Skipped      int
	NotValidated int // of Skipped: not validated in a validate-only run
	Canceled     bool
	Err          error
}

func (RunStarted) event()     {}
func (ChangeSkipped) event()  {}
func (BatchSent) event()      {}
func (BatchDone) event()      {}
func (ResourceResult) event() {}
func (RunFinished) event()    {}

// Observer receives events. Observe is called from the applying goroutine
// in order; it must not block for long.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }

// Observers fans events out to several observers in order.
type Observers []Observer

// Observe sends e to each observer.
func (os Observers) Observe(e Event) {
	for _, o := range os {
		if o != nil {
			o.Observe(e)
		}
	}
}
