// Package history is the audit trail as the terminal UI's history browser
// reads it (migrate audit on a terminal): runs, a run's changes and RPCs,
// as the browser's rows. It decides nothing and writes nothing.
package history

import (
	"context"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/tui"
)

// Source is the audit store as the browser's tui.HistorySource.
type Source struct{ s *audit.Store }

// New is the history of the runs s holds.
func New(s *audit.Store) Source { return Source{s} }

// runRow is a run as a row of the run list.
func runRow(r audit.RunSummary) tui.RunRow {
	row := tui.RunRow{ID: r.ID, Command: r.Command, Outcome: r.Outcome, Started: r.Started.Format(time.DateTime),
		Target: r.Target.Address, Changes: r.Succeeded + r.Failed + r.Skipped}
	if row.Outcome == "" {
		row.Outcome = "unfinished"
	}
	if r.ExitCode != nil {
		row.ExitCode = *r.ExitCode
	}
	return row
}

// Runs are the newest 500 runs, newest first.
func (h Source) Runs(ctx context.Context) ([]tui.RunRow, error) {
	runs, err := h.s.Runs(ctx, 500)
	if err != nil {
		return nil, err
	}
	out := make([]tui.RunRow, len(runs))
	for i, r := range runs {
		out[i] = runRow(r)
	}
	return out, nil
}

// Run is run id with its changes (without their states) and RPCs.
func (h Source) Run(ctx context.Context, id int64) (tui.RunDetail, error) {
	r, err := h.s.Run(ctx, id)
	if err != nil {
		return tui.RunDetail{}, err
	}
	d := tui.RunDetail{Run: runRow(r)}
	changes, err := h.s.Changes(ctx, id, audit.ChangeFilter{NoStates: true}) // the browser lists no states
	if err != nil {
		return d, err
	}
	for _, c := range changes {
		msg := c.Message
		if c.ErrorName != "" {
			msg = c.ErrorName + ": " + msg
		}
		d.Changes = append(d.Changes, tui.ChangeRow{Kind: c.Kind, Action: c.Action, Resource: changeName(c), Status: c.Status, Error: msg})
	}
	rpcs, err := h.s.RPCs(ctx, id)
	if err != nil {
		return d, err
	}
	for _, r := range rpcs {
		d.RPCs = append(d.RPCs, tui.RPCRow{Batch: r.Batch, Attempt: r.Attempt, API: r.API, ValidateOnly: r.ValidateOnly,
			Broker: int32(r.Broker), Started: r.Started.Format(time.TimeOnly),
			DurationMS: r.Duration.Milliseconds(), Resources: r.Resources, Result: r.Result})
	}
	return d, nil
}

// changeName names a recorded change whole: its change id's key (the
// resource, with the mechanism of a SCRAM credential), so that no two rows
// of a run read alike.
func changeName(c audit.ChangeRecord) string {
	if key, ok := strings.CutPrefix(c.ChangeID, c.Kind+":"); ok && key != "" {
		return key
	}
	return c.Resource
}
