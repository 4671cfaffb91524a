package main

import (
	"context"
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/history"
	"github.com/zkmigrate/zkmigrate/tui"
)

// auditBrowse opens the history browser: `migrate audit` on a terminal.
func auditBrowse(ctx context.Context, e *env, db string) int {
	path := db
	if path == "" {
		path = audit.DefaultPath()
	}
	store, err := audit.Open(ctx, path)
	if err != nil {
		return fail(e, "audit", err)
	}
	defer store.Close()
	if err := tui.History(ctx, history.New(store), tuiOptions(e)); err != nil {
		return fail(e, "audit", fmt.Errorf("history: %w", err))
	}
	return exitOK
}
