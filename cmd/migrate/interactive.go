package main

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/tui"
)

var errNoTerminal = errors.New("--interactive needs a terminal")

func tuiOptions(e *env) tui.Options {
	// The TUI draws with escape sequences of its own and escapes every name
	// it shows (internal/termsafe), so it writes around the barrier.
	return tui.Options{NoColor: e.noColor, Input: e.stdin, Output: terminal(e.stdout),
		AuditShow: func(run int64) string { return e.auditCmd("show", strconv.FormatInt(run, 10)) }}
}

// reviewInteractive shows the plan in the TUI, with notes about the run at
// the top of the review, and returns the selection.
func reviewInteractive(ctx context.Context, e *env, p *plan.Plan, notes ...string) (*plan.Plan, bool, error) {
	if !e.tty {
		return nil, false, errNoTerminal
	}
	o := tuiOptions(e)
	o.Notes = notes
	return tui.Review(ctx, p, o)
}

// sessionInteractive reviews, selects, confirms and applies in the TUI;
// notes about the run are shown at the top of the review.
func sessionInteractive(ctx context.Context, e *env, p *plan.Plan, run tui.ApplyFunc, auditRun int64, notes ...string) (tui.Result, error) {
	if !e.tty {
		return tui.Result{}, errNoTerminal
	}
	o := tuiOptions(e)
	o.Notes = notes
	return tui.Session(ctx, p, run, auditRun, o)
}

// stepWriter turns progress lines into loading-screen steps.
type stepWriter struct {
	step func(msg string, done, total int)
}

func (w stepWriter) Write(b []byte) (int, error) {
	if msg := strings.TrimSpace(string(b)); msg != "" {
		w.step(msg, 0, 0)
	}
	return len(b), nil
}

// withLoading runs work behind the TUI's loading screen on a terminal, and
// directly otherwise; work reports progress lines to the writer it gets.
func withLoading(ctx context.Context, e *env, interactive, quiet bool, title string, work func(progress io.Writer) error) error {
	if !interactive || !e.tty {
		return work(e.progressOut(quiet))
	}
	return tui.Loading(ctx, title, func(ctx context.Context, step func(string, int, int)) error {
		return work(stepWriter{step})
	}, tuiOptions(e))
}

// keyHelp is the TUI's key list for --help texts.
// keysPointer ends the help of each command with a terminal UI: the keys
// themselves are one help topic, not repeated in every command's help.
const keysPointer = "Terminal UI keys: 'migrate help keys' (and ? in the UI)."

func keyHelp() string {
	return "Terminal UI keys (--interactive):\n" + strings.TrimPrefix(tui.KeyHelp(), "TUI keys:\n")
}

// show shows x through the view of the chosen -o that view makes (for a
// command that shows one result).
func show[T any](view func(render.Output, io.Writer) (render.View[T], error), e *env, output string, x T) error {
	v, err := view(render.Output(output), e.stdout)
	if err != nil {
		return outputError(err)
	}
	return v(x)
}
