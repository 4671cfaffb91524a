package cliflags

import (
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/migration"
)

// Audit choose the audit database. Auditing is on unless --no-audit.
type Audit struct {
	Path     string
	Off      bool
	Key      string // --audit-key: private key that signs the run's receipt
	Receipts string // --receipt-file: every receipt is appended here
}

func (f *Audit) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Path, "audit-db", "", "audit database `PATH` (default "+audit.DefaultPath()+")")
	fs.BoolVar(&f.Off, "no-audit", false, "do not record this run in the audit trail (an explicit choice)")
	fs.StringVar(&f.Key, "audit-key", "", "ed25519 private key `FILE` that signs this run's receipt\n(PEM, from 'migrate audit keygen'); the database never holds it")
	fs.StringVar(&f.Receipts, "receipt-file", "", "append this run's receipt to `FILE`, to keep elsewhere\n(a JSON line: run, chain head, signature, time)")
}

// Request is where the flags say a run is recorded.
func (f *Audit) Request() migration.AuditRequest {
	return migration.AuditRequest{Path: f.Path, Off: f.Off, KeyFile: f.Key, ReceiptFile: f.Receipts}
}
