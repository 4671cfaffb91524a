package migration

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/audit"
)

// The use cases that read the audit trail (migrate audit log, show,
// export, verify, revert): an existing database, opened for reading.

// NoTrailError is an audit database to read that is not there (Path "":
// none is configured).
type NoTrailError struct{ Path string }

func (e *NoTrailError) Error() string { return e.Text("the audit database path") }

// Text is the error with the input that names the database called name.
func (e *NoTrailError) Text(name string) string {
	if e.Path == "" {
		return "no audit database: give " + name + " PATH"
	}
	return fmt.Sprintf("no audit database at %s (give %s PATH)", e.Path, name)
}

// TrailPath is the audit database at path ("": the default) when it
// exists; a missing one is a *NoTrailError.
func TrailPath(path string) (string, error) {
	if path == "" {
		path = audit.DefaultPath()
	}
	if path == "" {
		return "", &NoTrailError{}
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", &NoTrailError{Path: path}
		}
		return "", fmt.Errorf("audit database %s: %v", path, err)
	}
	return path, nil
}

// OpenTrail opens an existing audit database (path "": the default) for
// reading. It does not create one (a missing one is a *NoTrailError); an
// older schema is migrated forward, a newer one refused.
func OpenTrail(ctx context.Context, path string) (*audit.Store, error) {
	path, err := TrailPath(path)
	if err != nil {
		return nil, err
	}
	return audit.Open(ctx, path)
}

// RunDetail is one recorded run: its changes (as filtered), its RPCs and
// the access proofs it made.
type RunDetail struct {
	Run          audit.RunSummary
	Changes      []audit.ChangeRecord
	RPCs         []audit.RPCRecord
	AccessProofs []audit.AccessProof
}

// ShowRun reads run id of s with its changes as filter keeps them.
func ShowRun(ctx context.Context, s *audit.Store, id int64, filter audit.ChangeFilter) (RunDetail, error) {
	var d RunDetail
	var err error
	if d.Run, err = s.Run(ctx, id); err != nil {
		return d, err
	}
	if d.Changes, err = s.Changes(ctx, id, filter); err != nil {
		return d, err
	}
	if d.RPCs, err = s.RPCs(ctx, id); err != nil {
		return d, err
	}
	d.AccessProofs, err = s.AccessProofs(ctx, id)
	return d, err
}

// VerifyRequest is what the audit trail's chain is verified against: an
// anchor (a receipt's chain head), the key the receipts were signed with
// and a file of receipts the chain must hold.
type VerifyRequest struct {
	Anchor, KeyFile, ReceiptFile string
}

// Options reads r's key and receipt files (a refusal is an *InputError
// naming InputAuditKey or InputReceiptFile).
func (r VerifyRequest) Options() (audit.VerifyOptions, error) {
	opts := audit.VerifyOptions{Anchor: r.Anchor}
	var err error
	if r.KeyFile != "" {
		if opts.Key, err = audit.LoadKey(r.KeyFile); err != nil {
			return opts, &InputError{Input: InputAuditKey, Err: err}
		}
	}
	if r.ReceiptFile != "" {
		if opts.Receipts, err = audit.ReadReceipts(r.ReceiptFile); err != nil {
			return opts, &InputError{Input: InputReceiptFile, Err: err}
		}
	}
	return opts, nil
}
