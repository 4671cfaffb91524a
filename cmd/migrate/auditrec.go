package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// beginAudit opens the database f names and begins a run of cmd. An audit database
// that cannot be opened is reported once; read-only commands go on, apply
// and sync refuse to run unaudited unless --no-audit.
func beginAudit(ctx context.Context, e *env, f *cliflags.Audit, cmd string) *migration.Recorder {
	rec := beginAuditQuiet(ctx, e, f, cmd)
	if rec.Err != nil {
		fmt.Fprintf(e.stderr, "migrate %s: audit trail unavailable: %s\n", cmd, cliflags.ErrorText(rec.Err))
	}
	return rec
}

// beginAuditQuiet is beginAudit without the warning, for a command that
// refuses to run without its trail and says so in its one error line.
func beginAuditQuiet(ctx context.Context, e *env, f *cliflags.Audit, cmd string) *migration.Recorder {
	rec := migration.BeginRun(ctx, f.Request(), cmd, e.args, version)
	if rec.Err == nil && !f.Off {
		e.auditDB = f.Path // hints name a database given explicitly
	}
	return rec
}

// auditRefusal is the one line with which apply and sync (cmd) refuse to
// run when the audit database f names cannot record them.
func auditRefusal(cmd string, f *cliflags.Audit, err error) error {
	db := f.Path
	if db == "" {
		db = audit.DefaultPath()
	}
	return fmt.Errorf("refusing to %s without an audit trail in %s (%s); fix --audit-db or pass --no-audit",
		cmd, db, strings.TrimPrefix(cliflags.ErrorText(err), "audit: "))
}

// finish closes the run with its outcome, prints its receipt (the chain
// head) and returns it ("" when nothing was recorded).
func finish(ctx context.Context, e *env, rec *migration.Recorder, o migration.Outcome) string {
	rc, err := rec.Finish(ctx, o)
	printReceipt(e, rc, err)
	return rc.Head
}

// printReceipt prints a finished run's receipt, and a failure to record
// the run's end.
func printReceipt(e *env, rc migration.Receipt, err error) {
	if rc.Head != "" {
		msg := fmt.Sprintf("Audit run %d recorded; receipt %s", rc.Run, rc.Head)
		if rc.SignedBy != "" {
			msg += " (signed by key " + rc.SignedBy + ")"
		}
		fmt.Fprintln(e.stderr, msg)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "migrate: audit: %v\n", err)
	}
}
