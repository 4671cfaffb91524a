package render

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// ApplyText prints apply events as lines for people: one line per resource
// result, a progress line per finished batch when verbose, and a summary.
type ApplyText struct {
	W       io.Writer
	Verbose bool

	mu       sync.Mutex
	total    int
	seen     int
	start    time.Time
	validate bool
}

// Observe implements apply.Observer.
func (a *ApplyText) Observe(e apply.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch e := e.(type) {
	case apply.RunStarted:
		a.total, a.start, a.validate = e.Total, e.Time, e.ValidateOnly
		mode := "Applying"
		if e.ValidateOnly {
			mode = "Validating (server-side dry run, nothing is changed)"
		}
		fmt.Fprintf(a.W, "%s %s...\n", mode, english.N(e.Total, "change"))
	case apply.ChangeSkipped:
		if e.Reason == apply.ReasonNotValidated {
			fmt.Fprintf(a.W, "? %s %s: %s\n", e.Change.Kind, label(e.Change), e.Detail)
			return
		}
		fmt.Fprintf(a.W, "= %s %s: skipped (%s)\n", e.Change.Kind, label(e.Change), e.Reason)
	case apply.BatchDone:
		if a.Verbose {
			status := "ok"
			if e.Err != nil {
				status = e.Err.Error()
			}
			retry := ""
			if e.Attempt > 1 {
				retry = fmt.Sprintf(" (attempt %d)", e.Attempt)
			}
			fmt.Fprintf(a.W, "  %s v%d to broker %d in %s%s: %s\n", e.RPC, e.Version, e.Broker, e.Duration.Round(time.Millisecond), retry, status)
		}
	case apply.ResourceResult:
		a.seen++
		if e.Err == nil {
			verb := "done"
			if e.ValidateOnly {
				verb = "validated"
			}
			fmt.Fprintf(a.W, "%s %s %s: %s [%d/%d]\n", symbols[e.Change.Action], e.Change.Kind, label(e.Change), verb, a.seen, a.total)
			return
		}
		stage := ""
		if e.ValidateOnly {
			stage = " (validation)"
		}
		fmt.Fprintf(a.W, "! %s %s: FAILED%s %s: %s [%d/%d]\n", e.Change.Kind, label(e.Change), stage, e.ErrorName, e.Message, a.seen, a.total)
	case apply.RunFinished:
		if a.validate {
			fmt.Fprintf(a.W, "Validation finished, nothing changed: %d validated, %d not validated (no validate_only mode, not sent), %d failed, %d skipped", e.Succeeded, e.NotValidated, e.Failed, e.Skipped-e.NotValidated)
		} else {
			fmt.Fprintf(a.W, "Apply finished: %d succeeded, %d failed, %d skipped", e.Succeeded, e.Failed, e.Skipped)
		}
		if e.Canceled {
			fmt.Fprint(a.W, " (interrupted: the batch in flight was finished, the rest not sent)")
		}
		fmt.Fprintln(a.W, ".")
	}
}

func label(c *plan.Change) string { return resourceLabel(c) }

// ApplyJSON collects results for a machine-readable summary.
type ApplyJSON struct {
	mu      sync.Mutex
	Results []ResultJSON `json:"results"`
	Summary SummaryJSON  `json:"summary"`
}

// ResultJSON is one resource's outcome in -o json output.
type ResultJSON struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Action    string `json:"action"`
	Resource  string `json:"resource"`
	Status    string `json:"status"` // succeeded, failed, skipped, validated, not-validated
	Reason    string `json:"reason,omitempty"`
	ErrorCode int16  `json:"error_code,omitempty"`
	Error     string `json:"error,omitempty"`
	Message   string `json:"message,omitempty"`
}

// SummaryJSON counts outcomes.
type SummaryJSON struct {
	Succeeded    int      `json:"succeeded"`
	Failed       int      `json:"failed"`
	Skipped      int      `json:"skipped"`
	NotValidated int      `json:"not_validated,omitempty"`
	Canceled     bool     `json:"canceled"`
	Unverified   []string `json:"unverified,omitempty"` // ids of applied changes the target did not show by --verify-timeout
	AuditRun     int64    `json:"audit_run,omitempty"`
	AuditHead    string   `json:"audit_head,omitempty"`
}

// Observe implements apply.Observer.
func (a *ApplyJSON) Observe(e apply.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch e := e.(type) {
	case apply.ChangeSkipped:
		r := ResultJSON{ID: e.Change.ID, Kind: string(e.Change.Kind), Action: string(e.Change.Action), Resource: label(e.Change), Status: "skipped", Reason: string(e.Reason)}
		if e.Reason == apply.ReasonNotValidated {
			r.Status, r.Reason, r.Message = "not-validated", "", e.Detail
		}
		a.Results = append(a.Results, r)
	case apply.ResourceResult:
		r := ResultJSON{ID: e.Change.ID, Kind: string(e.Change.Kind), Action: string(e.Change.Action), Resource: label(e.Change), Status: "succeeded"}
		if e.ValidateOnly {
			r.Status = "validated"
		}
		if e.Err != nil {
			r.Status, r.ErrorCode, r.Error, r.Message = "failed", e.ErrorCode, e.ErrorName, e.Message
		}
		a.Results = append(a.Results, r)
	case apply.RunFinished:
		a.Summary = SummaryJSON{Succeeded: e.Succeeded, Failed: e.Failed, Skipped: e.Skipped, NotValidated: e.NotValidated, Canceled: e.Canceled}
	}
}

// Write prints the collected results as JSON.
func (a *ApplyJSON) Write(w io.Writer) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}
