package main

import (
	"context"
	"errors"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/tui"
)

var errNoTerminal = errors.New("--interactive needs a terminal")

func tuiOptions(e *env) tui.Options {
	return tui.Options{NoColor: os.Getenv("NO_COLOR") != "", Input: e.stdin, Output: e.stdout}
}

// reviewInteractive shows the plan in the TUI and returns the selection.
func reviewInteractive(ctx context.Context, e *env, p *plan.Plan) (*plan.Plan, bool, error) {
	if !e.tty {
		return nil, false, errNoTerminal
	}
	return tui.Review(ctx, p, tuiOptions(e))
}

// sessionInteractive reviews, selects, confirms and applies in the TUI.
func sessionInteractive(ctx context.Context, e *env, p *plan.Plan, run tui.ApplyFunc, auditRun int64) (tui.Result, error) {
	if !e.tty {
		return tui.Result{}, errNoTerminal
	}
	return tui.Session(ctx, p, run, auditRun, tuiOptions(e))
}
