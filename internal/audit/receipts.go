package audit

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Receipt is one line of a receipt file (--receipt-file): a run's end as
// the chain recorded it. Receipt files are JSON Lines, appended to and
// never rewritten:
//
//	{"run":12,"seq":345,"head":"5378d9…","outcome":"succeeded","at":"2026-12-01T11:00:00Z","key_id":"3f2a…","signature":"base64…","database":"/home/op/.local/state/zkmigrate/audit.db"}
//
// key_id and signature are present when the run signed its receipt
// (--audit-key); database is informational.
type Receipt struct {
	Run       int64  `json:"run"`
	Seq       int64  `json:"seq"`  // chain position of the run's end row
	Head      string `json:"head"` // that row's hash: the receipt
	Outcome   string `json:"outcome,omitempty"`
	At        string `json:"at"`
	KeyID     string `json:"key_id,omitempty"`
	Signature string `json:"signature,omitempty"`
	Database  string `json:"database,omitempty"`

	// Where is FILE:LINE of a receipt read by ReadReceipts.
	Where string `json:"-"`
}

// SetSigner makes every run end written through s (Finish, and runs closed
// as abandoned) carry an ed25519 signature of its receipt by k, which must
// hold the private key. The key is kept in memory only.
func (s *Store) SetSigner(k *Key) error {
	if !k.CanSign() {
		return fmt.Errorf("audit key %s is a public key; signing needs the private key file (the one without .pub)", k.Path)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.signer = k
	return nil
}

// SetReceiptFile opens path for appending (creating it with mode 0600):
// every run end written through s is appended to it as a Receipt line,
// and synced, right after it is committed. Opening it now means a bad path
// is reported before the run changes anything.
func (s *Store) SetReceiptFile(path string) error {
	// A key, a plan or any other file of the tool's given here by mistake
	// is refused, not appended to.
	if err := infile.ExpectFile(path, infile.Receipts); err != nil {
		return fmt.Errorf("audit: receipt file: %w", err)
	}
	f, err := infile.OpenAppend(path, infile.Receipts, 0o600)
	if err != nil {
		return fmt.Errorf("audit: receipt file: %w", err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.receipts != nil {
		s.receipts.Close()
	}
	s.receipts = f
	return nil
}

// insertEnd appends a run_ends row and, with a signer, the signature of its
// receipt; it returns the receipt to append to the receipt file.
func (w *writer) insertEnd(runID int64, at, outcome string, exitCode, succeeded, failed, skipped int, closedBy any) (Receipt, error) {
	cols := []string{"run_id", "finished_at", "outcome", "exit_code", "succeeded", "failed", "skipped"}
	vals := []any{runID, at, outcome, exitCode, succeeded, failed, skipped}
	if closedBy != nil {
		cols, vals = append(cols, "closed_by"), append(vals, closedBy)
	}
	seq, err := w.insert("run_ends", cols, vals...)
	if err != nil {
		return Receipt{}, err
	}
	rc := Receipt{Run: runID, Seq: seq, Head: w.head, Outcome: outcome, At: at, Database: w.s.path}
	if k := w.s.signer; k != nil {
		sig := ed25519.Sign(k.Private, receiptMessage(runID, seq, w.head))
		rc.KeyID, rc.Signature = k.ID(), base64.StdEncoding.EncodeToString(sig)
		if _, err := w.insert("receipt_signatures", []string{"run_id", "signed_seq", "signed_hash", "key_id", "signature", "at"},
			runID, seq, rc.Head, rc.KeyID, rc.Signature, at); err != nil {
			return Receipt{}, err
		}
	}
	return rc, nil
}

// appendReceipts writes receipts to the receipt file, if any, and syncs it.
func (s *Store) appendReceipts(rcs ...Receipt) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.receipts == nil || len(rcs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, rc := range rcs {
		b, err := json.Marshal(rc)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if _, err := s.receipts.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("audit: append to receipt file %s: %v", s.receipts.Name(), err)
	}
	if err := s.receipts.Sync(); err != nil {
		return fmt.Errorf("audit: sync receipt file %s: %v", s.receipts.Name(), err)
	}
	return nil
}

// MaxReceiptLine bounds one line of a receipt file.
const MaxReceiptLine = 64 << 10

// ReadReceipts reads a receipt file. Blank lines are skipped; anything else
// that is not a receipt is an error naming FILE:LINE.
func ReadReceipts(path string) ([]Receipt, error) {
	f, err := infile.OpenContent(path, infile.Receipts)
	if err == nil {
		if err = f.Expect(); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("audit: receipt file: %w", err)
	}
	defer f.Close()
	rs, err := ParseReceipts(path, f)
	return rs, infile.Wrap(path, infile.Receipts, err)
}

// ParseReceipts reads receipts from r; name is used in errors.
func ParseReceipts(name string, r io.Reader) ([]Receipt, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), MaxReceiptLine)
	var out []Receipt
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, line)
		var rc Receipt
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rc); err != nil || dec.More() {
			if err == nil {
				err = errors.New("more than one JSON value on the line")
			}
			return nil, fmt.Errorf("%s: not a receipt (one JSON object per line, as --receipt-file writes): %v", where, err)
		}
		switch {
		case rc.Run <= 0:
			return nil, fmt.Errorf("%s: receipt without a run id", where)
		case rc.Seq <= 0:
			return nil, fmt.Errorf("%s: receipt of run %d without a chain position (seq)", where, rc.Run)
		case !isHash(rc.Head):
			return nil, fmt.Errorf("%s: receipt of run %d: head %q is not a SHA-256 hash (64 hex digits)", where, rc.Run, short(rc.Head))
		case (rc.Signature == "") != (rc.KeyID == ""):
			return nil, fmt.Errorf("%s: receipt of run %d: key_id and signature go together", where, rc.Run)
		}
		if rc.Signature != "" {
			if sig, err := base64.StdEncoding.DecodeString(rc.Signature); err != nil || len(sig) != ed25519.SignatureSize {
				return nil, fmt.Errorf("%s: receipt of run %d: signature is not a base64 ed25519 signature", where, rc.Run)
			}
		}
		rc.Head = strings.ToLower(rc.Head)
		rc.Where = where
		out = append(out, rc)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes: not a receipt file", name, line+1, MaxReceiptLine)
		}
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	return out, nil
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// verifySignature checks a base64 receipt signature with pub.
func verifySignature(pub ed25519.PublicKey, runID, seq int64, hash, sig string) bool {
	b, err := base64.StdEncoding.DecodeString(sig)
	return err == nil && ed25519.Verify(pub, receiptMessage(runID, seq, hash), b)
}
