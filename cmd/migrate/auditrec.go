package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// auditFlags choose the audit database. Auditing is on unless --no-audit.
type auditFlags struct {
	path     string
	off      bool
	key      string // --audit-key: private key that signs the run's receipt
	receipts string // --receipt-file: every receipt is appended here
}

func (f *auditFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "audit-db", "", "audit database `PATH` (default "+audit.DefaultPath()+")")
	fs.BoolVar(&f.off, "no-audit", false, "do not record this run in the audit trail (an explicit choice)")
	fs.StringVar(&f.key, "audit-key", "", "ed25519 private key `FILE` (PEM, from 'migrate audit keygen') that signs this run's receipt; the database never holds it")
	fs.StringVar(&f.receipts, "receipt-file", "", "append this run's receipt (run, chain head, signature, time) as a JSON line to `FILE`, to keep elsewhere")
}

// request is where the flags say a run is recorded.
func (f *auditFlags) request() migration.AuditRequest {
	return migration.AuditRequest{Path: f.path, Off: f.off, KeyFile: f.key, ReceiptFile: f.receipts}
}

// begin opens the database and begins a run of cmd. An audit database
// that cannot be opened is reported once; read-only commands go on, apply
// and sync refuse to run unaudited unless --no-audit.
func (f *auditFlags) begin(ctx context.Context, e *env, cmd string) *migration.Recorder {
	rec := migration.BeginRun(ctx, f.request(), cmd, e.args, version)
	if rec.Err != nil {
		fmt.Fprintf(e.stderr, "migrate %s: audit trail unavailable: %s\n", cmd, errorText(rec.Err))
	} else if !f.off {
		e.auditDB = f.path // hints name a database given explicitly
	}
	return rec
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
