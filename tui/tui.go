package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Options set up the terminal of every entry point.
type Options struct {
	NoColor bool // no colour (the NO_COLOR environment variable does the same)
	// Width and Height fix the screen size; 0 takes it from the terminal.
	Width, Height int
	Input         io.Reader // nil = standard input
	Output        io.Writer // nil = standard output
	// AuditShow is the command that shows an audit run, for the end
	// screen's hint (nil: "migrate audit show RUN"); it names the audit
	// database when the run is not in the default one.
	AuditShow func(run int64) string
	// Notes are shown at the top of the plan review: what the run left
	// out or changed, and why (the demo's notes about its in-process
	// target).
	Notes []string
}

// ApplyFunc runs an apply of p, sending every event to obs, honouring ctx
// cancellation (finish the batch in flight, then stop). The command gives
// one over migration.Planned.Apply (the use case apply shares with it), so
// that the TUI itself stays free of connections and secrets.
type ApplyFunc func(ctx context.Context, p *plan.Plan, obs apply.Observer) error

// Result sums up an apply run by a Session. Canceled is also set when the
// user quit the review without applying (then every count is zero).
type Result struct {
	Succeeded, Failed, Skipped int
	Canceled                   bool
}

// HistorySource gives the history browser the past runs from the audit
// database, so that the TUI stays free of SQL.
type HistorySource interface {
	Runs(ctx context.Context) ([]RunRow, error)
	Run(ctx context.Context, id int64) (RunDetail, error)
}

// RunRow is one past run in the history list.
type RunRow struct {
	ID                int64
	Command, Outcome  string
	Started, Target   string
	ExitCode, Changes int
}

// RunDetail is one run with its changes and RPCs.
type RunDetail struct {
	Run     RunRow
	Changes []ChangeRow
	RPCs    []RPCRow
}

// ChangeRow is one change of a past run. Resource names the change whole
// (a SCRAM credential with its mechanism), so no two rows read alike.
type ChangeRow struct{ Kind, Action, Resource, Status, Error string }

// RPCRow is one admin RPC of a past run.
type RPCRow struct {
	Batch, Attempt int
	API            string
	// ValidateOnly marks a preflight: a validate_only request that
	// changed nothing.
	ValidateOnly bool
	Broker       int32
	Started      string
	DurationMS   int64
	Resources    int
	Result       string
}

func program(ctx context.Context, m tea.Model, o Options) *tea.Program {
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	if o.Width > 0 && o.Height > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	if o.NoColor || noColorEnv() {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	return tea.NewProgram(m, opts...)
}

func common(o Options) *Common { return newCommon(o.NoColor || noColorEnv(), o.Width, o.Height) }

// runErr turns the error of Program.Run into the entry point's error: a
// context that ended wins.
func runErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("tui: %w", ctx.Err())
	}
	if errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("tui: %w", context.Canceled)
	}
	return fmt.Errorf("tui: %w", err)
}

// Review shows the plan; returns the plan restricted to the changes the
// user kept selected (blocked and policy-denied changes are never
// selectable, and so never in it), and whether the user confirmed (false =
// quit without saving or applying). The returned plan keeps p's
// blockers, findings, endpoints and fingerprint.
func Review(ctx context.Context, p *plan.Plan, o Options) (selected *plan.Plan, confirmed bool, err error) {
	return review(ctx, p, o, "save")
}

// ReviewApply is Review for a plan the caller applies itself once
// confirmed (sync's first round): the screens ask to apply it.
func ReviewApply(ctx context.Context, p *plan.Plan, o Options) (selected *plan.Plan, confirmed bool, err error) {
	return review(ctx, p, o, "apply")
}

func review(ctx context.Context, p *plan.Plan, o Options, purpose string) (*plan.Plan, bool, error) {
	if p == nil {
		return nil, false, errors.New("tui: no plan")
	}
	m := newReviewRoot(ctx, common(o), p, purpose)
	m.review.setNotes(o.Notes)
	if _, err := program(ctx, m, o).Run(); err != nil {
		return nil, false, runErr(ctx, err)
	}
	if !m.confirmed {
		return nil, false, nil
	}
	return m.confirm.p, true, nil
}

// Session reviews p, lets the user select and confirm (showing exactly
// what was selected), then applies the selection with run, showing
// progress per kind (counts, rate) and per-resource errors live. Ctrl-C
// during the apply asks whether to stop after the batch in flight. The
// end screen shows the results and auditRunID.
//
// The returned error is run's error, or the context's when ctx ended; a
// failed resource is not an error (see Result.Failed). Session returns only
// after run has returned.
func Session(ctx context.Context, p *plan.Plan, run ApplyFunc, auditRunID int64, o Options) (result Result, err error) {
	if p == nil || run == nil {
		return Result{}, errors.New("tui: no plan or no apply function")
	}
	m := newReviewRoot(ctx, common(o), p, "apply")
	m.review.setNotes(o.Notes)
	m.run, m.auditRunID, m.auditShow = run, auditRunID, o.AuditShow
	_, perr := program(ctx, m, o).Run()
	if m.apply == nil {
		if perr != nil {
			return Result{Canceled: true}, runErr(ctx, perr)
		}
		return Result{Canceled: true}, nil
	}
	// The program may have ended before the apply (the context ended): stop
	// the apply after its batch in flight and wait for it.
	a := m.apply
	if !a.finished {
		a.stopping = true
		a.cancel()
		for !a.finished {
			msg := a.wait().(applyEventsMsg)
			a.Update(msg)
		}
	}
	if a.runErr != nil {
		return a.result(), fmt.Errorf("tui: apply: %w", a.runErr)
	}
	return a.result(), runErr(ctx, perr)
}

// History browses past runs from src: a list of runs, each opening to its
// changes and RPCs.
func History(ctx context.Context, src HistorySource, o Options) error {
	if src == nil {
		return errors.New("tui: no history source")
	}
	c := common(o)
	m := &root{c: c, ctx: ctx, state: stateHistory, history: newHistory(c, ctx, src)}
	_, err := program(ctx, m, o).Run()
	return runErr(ctx, err)
}

// Loading shows a progress screen while work runs; work reports its steps
// through the callback. Ctrl-C cancels work's context. Loading returns
// work's error, after work has returned.
func Loading(ctx context.Context, title string, work func(ctx context.Context, step func(msg string, done, total int)) error, o Options) error {
	c := common(o)
	l := newLoading(c, ctx, title, work)
	m := &root{c: c, ctx: ctx, state: stateLoading, loading: l}
	_, perr := program(ctx, m, o).Run()
	if !l.finished { // the program ended first: stop the work and wait for it
		l.cancel()
		for !l.finished {
			l.Update(l.wait())
		}
	}
	if l.err != nil {
		return l.err
	}
	return runErr(ctx, perr)
}
