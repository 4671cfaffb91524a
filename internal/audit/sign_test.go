package audit

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recomputeChain rewrites every hash of the chain from the rows' content,
// in chain order, as a tamperer who knows the scheme would after editing
// rows: signed_hash columns are brought in line with the row they name, and
// the chain head record too. Without a key or receipt this passes Verify.
func recomputeChain(t *testing.T, db *sql.DB) {
	t.Helper()
	type row struct {
		table string
		seq   int64
	}
	var rows []row
	for _, tbl := range chainTables {
		rs, err := db.Query(`SELECT seq FROM ` + tbl)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var s int64
			rs.Scan(&s)
			rows = append(rows, row{tbl, s})
		}
		rs.Close()
	}
	// Renumber positions 1..n (rows may have been deleted).
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].seq < rows[j-1].seq; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	mustExec(t, db, `PRAGMA foreign_keys = OFF`)
	newSeq := map[int64]int64{}
	for i, r := range rows {
		want := int64(i + 1)
		newSeq[r.seq] = want
		if r.seq != want {
			mustExec(t, db, `UPDATE `+r.table+` SET seq = ? WHERE seq = ?`, want, r.seq)
		}
		rows[i].seq = want
	}
	// Signatures name their run end by position: follow the renumbering
	// (ascending, and every row moves down, so none moves twice).
	olds := make([]int64, 0, len(newSeq))
	for o := range newSeq {
		olds = append(olds, o)
	}
	slices.Sort(olds)
	for _, o := range olds {
		if nw := newSeq[o]; nw != o {
			mustExec(t, db, `UPDATE receipt_signatures SET signed_seq = ? WHERE signed_seq = ?`, nw, o)
		}
	}
	for _, r := range rows {
		if r.table == "receipt_signatures" {
			mustExec(t, db, `UPDATE receipt_signatures SET signed_hash = (SELECT hash FROM run_ends e WHERE e.seq = receipt_signatures.signed_seq) WHERE seq = ?`, r.seq)
		}
		rehash(t, db, r.table, r.seq)
	}
	last := rows[len(rows)-1]
	mustExec(t, db, `UPDATE chain_head SET seq = ?, hash = ? WHERE id = 1`, last.seq, hashAt(t, db, last.seq))
}

// signedBase records three signed runs with a receipt file and returns the
// database, the key files and the receipt file.
func signedBase(t *testing.T) (db, priv, pub, receipts string) {
	t.Helper()
	dir := t.TempDir()
	priv = filepath.Join(dir, "audit.key")
	if _, err := GenerateKey(priv); err != nil {
		t.Fatal(err)
	}
	pub = priv + ".pub"
	receipts = filepath.Join(dir, "receipts.jsonl")
	s, db := openTest(t)
	k, err := LoadKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetSigner(k); err != nil {
		t.Fatal(err)
	}
	if err := s.SetReceiptFile(receipts); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		recordRun(t, s, 4)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db, priv, pub, receipts
}

func verifyFile(t *testing.T, db string, opts VerifyOptions) (VerifyResult, error) {
	t.Helper()
	s, err := Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.VerifyWith(context.Background(), opts)
}

func loadKey(t *testing.T, path string) *Key {
	t.Helper()
	k, err := LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSignedReceiptsCatchFullRecompute: tampering followed by a full
// recompute of the chain passes a plain verify (as documented), and is
// caught with the key (public or private file) and with the receipt file.
func TestSignedReceiptsCatchFullRecompute(t *testing.T) {
	base, priv, pub, receiptFile := signedBase(t)
	tests := []struct {
		name   string
		tamper func(t *testing.T, db *sql.DB)
		// wantKey is the reason verify with the key reports; wantReceipt
		// the one with the receipt file ("" = it passes).
		wantKey, wantReceipt string
	}{
		{"untouched", func(*testing.T, *sql.DB) {}, "", ""},
		{"edit a change's result, recompute the chain", func(t *testing.T, db *sql.DB) {
			mustExec(t, db, `UPDATE change_events SET status = 'succeeded', error_code = NULL, error_name = NULL, message = NULL WHERE seq = (SELECT min(seq) FROM change_events WHERE status = 'failed')`)
			recomputeChain(t, db)
		}, "signature does not verify", "is not in the chain"},
		{"edit the newest run's exit code, recompute", func(t *testing.T, db *sql.DB) {
			mustExec(t, db, `UPDATE run_ends SET exit_code = 0, outcome = 'succeeded' WHERE seq = (SELECT max(seq) FROM run_ends)`)
			recomputeChain(t, db)
		}, "signature does not verify", "is not in the chain"},
		{"delete a run's rows, recompute", func(t *testing.T, db *sql.DB) {
			mustExec(t, db, `PRAGMA foreign_keys = OFF`)
			for _, tbl := range chainTables {
				if tbl != "runs" {
					mustExec(t, db, `DELETE FROM `+tbl+` WHERE run_id = 2`)
				}
			}
			mustExec(t, db, `DELETE FROM runs WHERE id = 2`)
			recomputeChain(t, db)
		}, "signature does not verify", "is not in the chain"},
		{"remove the newest signature, edit, recompute", func(t *testing.T, db *sql.DB) {
			mustExec(t, db, `DELETE FROM receipt_signatures WHERE seq = (SELECT max(seq) FROM receipt_signatures)`)
			mustExec(t, db, `UPDATE run_ends SET exit_code = 0 WHERE seq = (SELECT max(seq) FROM run_ends)`)
			recomputeChain(t, db)
		}, "is not signed, though run 1's earlier end is", "is not in the chain"},
		{"remove every signature, recompute", func(t *testing.T, db *sql.DB) {
			mustExec(t, db, `DELETE FROM receipt_signatures`)
			recomputeChain(t, db)
		}, "no run end in the database is signed", "is not in the chain"},
		{"alter a signature, recompute", func(t *testing.T, db *sql.DB) {
			var sig string
			if err := db.QueryRow(`SELECT signature FROM receipt_signatures WHERE seq = (SELECT min(seq) FROM receipt_signatures)`).Scan(&sig); err != nil {
				t.Fatal(err)
			}
			alt := []byte(sig)
			if alt[0] == 'A' {
				alt[0] = 'B'
			} else {
				alt[0] = 'A'
			}
			mustExec(t, db, `UPDATE receipt_signatures SET signature = ? WHERE seq = (SELECT min(seq) FROM receipt_signatures)`, string(alt))
			recomputeChain(t, db)
		}, "signature does not verify", "is not in the chain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "audit.db")
			copyFile(t, base, db)
			raw := rawDB(t, db)
			tt.tamper(t, raw)
			raw.Close()

			// Without key or receipts a recomputed chain is intact.
			res, err := verifyFile(t, db, VerifyOptions{})
			if err != nil || !res.OK {
				t.Fatalf("plain verify = %+v, %v; a full recompute passes without a key (documented)", res, err)
			}
			for _, keyFile := range []string{pub, priv} {
				res, err := verifyFile(t, db, VerifyOptions{Key: loadKey(t, keyFile)})
				if err != nil {
					t.Fatalf("verify with %s: %v", filepath.Base(keyFile), err)
				}
				if tt.wantKey == "" {
					if !res.OK || res.Signed != 3 {
						t.Fatalf("verify with %s = %+v; want intact with 3 signed receipts", filepath.Base(keyFile), res)
					}
				} else if res.OK || res.Broken == nil || !strings.Contains(res.Broken.Reason, tt.wantKey) {
					t.Fatalf("verify with %s = %+v; want broken: %s", filepath.Base(keyFile), res.Broken, tt.wantKey)
				}
			}
			rcs, err := ReadReceipts(receiptFile)
			if err != nil || len(rcs) != 3 {
				t.Fatalf("ReadReceipts = %d, %v; want 3", len(rcs), err)
			}
			res, err = verifyFile(t, db, VerifyOptions{Receipts: rcs})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantReceipt == "" {
				if !res.OK || res.Receipts != 3 {
					t.Fatalf("verify with receipts = %+v; want intact, 3 receipts found", res)
				}
			} else if res.OK || res.Broken == nil || !strings.Contains(res.Broken.Reason, tt.wantReceipt) || !strings.Contains(res.Broken.Reason, receiptFile+":") {
				t.Fatalf("verify with receipts = %+v; want broken naming %s:LINE: %s", res.Broken, receiptFile, tt.wantReceipt)
			}
		})
	}
}

func TestVerifyWithWrongKey(t *testing.T) {
	db, _, _, _ := signedBase(t)
	other := filepath.Join(t.TempDir(), "other.key")
	k, err := GenerateKey(other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = verifyFile(t, db, VerifyOptions{Key: loadKey(t, other+".pub")})
	if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), "not by key "+k.ID()) || !strings.Contains(err.Error(), other+".pub") {
		t.Fatalf("verify with another key = %v; want ErrWrongKey naming the key and its file", err)
	}
}

// A run that writes without the key after signed ones leaves a gap that
// verify with the key reports; without the key it is intact.
func TestUnsignedRunAfterSignedOnes(t *testing.T) {
	base, priv, _, _ := signedBase(t)
	s, err := Open(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	s.now = fixedClock()
	id, _ := recordRun(t, s, 2)
	s.Close()
	res, err := verifyFile(t, base, VerifyOptions{Key: loadKey(t, priv)})
	if err != nil || res.OK || res.Broken == nil || res.Broken.RunID != id || !strings.Contains(res.Broken.Reason, "ran without --audit-key") {
		t.Fatalf("verify = %+v, %v; want run %d reported unsigned", res.Broken, err, id)
	}
	if res, err := verifyFile(t, base, VerifyOptions{}); err != nil || !res.OK || res.Signed != 3 {
		t.Fatalf("plain verify = %+v, %v; want intact, 3 signed", res, err)
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	k, err := GenerateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	for file, mode := range map[string]os.FileMode{path: 0o600, path + ".pub": 0o644} {
		fi, err := os.Stat(file)
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, %v; want mode %v", file, fi.Mode(), err, mode)
		}
	}
	if _, err := GenerateKey(path); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("GenerateKey over an existing key = %v; want refused", err)
	}
	pub := loadKey(t, path+".pub")
	if pub.CanSign() || pub.ID() != k.ID() || !loadKey(t, path).CanSign() {
		t.Errorf("public key %+v; want the same ID, not able to sign", pub)
	}
	s, _ := openTest(t)
	if err := s.SetSigner(pub); err == nil || !strings.Contains(err.Error(), "public key") {
		t.Errorf("SetSigner(public key) = %v; want refused", err)
	}
	// Keys in the formats openssl writes are read; other key types and
	// other files are refused naming the file.
	_, epriv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(epriv)
	if _, err := ParseKey("openssl.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		t.Errorf("PKCS #8 ed25519 key: %v", err)
	}
	for name, data := range map[string][]byte{
		"garbage.pem": []byte("not a key"),
		"cert.pem":    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
		"bad.pem":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}}),
	} {
		if _, err := ParseKey(name, data); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("ParseKey(%s) = %v; want an error naming it", name, err)
		}
	}
}

func TestParseReceipts(t *testing.T) {
	good := `{"run":1,"seq":9,"head":"` + strings.Repeat("ab", 32) + `","at":"x"}`
	tests := []struct{ in, err string }{
		{good + "\n\n" + good + "\n", ""},
		{good + "\n{\"run\":1}\n", "r.jsonl:2: receipt of run 1 without a chain position"},
		{"\n\nnot json\n", "r.jsonl:3: not a receipt"},
		{`{"run":1,"seq":2,"head":"zz","at":"x"}`, "r.jsonl:1: receipt of run 1: head \"zz\" is not a SHA-256"},
		{`{"run":1,"seq":2,"head":"` + strings.Repeat("ab", 32) + `","signature":"AAAA","key_id":"k"}`, "r.jsonl:1: receipt of run 1: signature is not a base64 ed25519"},
		{`{"run":1,"seq":2,"head":"` + strings.Repeat("ab", 32) + `","extra":1}`, "r.jsonl:1: not a receipt"},
		{good + " " + good, "r.jsonl:1: not a receipt"},
		{strings.Repeat("x", MaxReceiptLine+1), "r.jsonl:1: line longer than"},
	}
	for _, tt := range tests {
		got, err := ParseReceipts("r.jsonl", strings.NewReader(tt.in))
		if tt.err == "" {
			if err != nil || len(got) != 2 || got[1].Where != "r.jsonl:3" {
				t.Errorf("ParseReceipts = %+v, %v", got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseReceipts(%.40q) = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// FuzzParseReceipts: no input panics; a refusal names r.jsonl:LINE.
func FuzzParseReceipts(f *testing.F) {
	f.Add([]byte(`{"run":1,"seq":9,"head":"` + strings.Repeat("ab", 32) + `","at":"x"}` + "\n"))
	f.Add([]byte(`{"run":1,"seq":2,"head":"` + strings.Repeat("ab", 32) + `","signature":"AAAA","key_id":"k"}`))
	f.Add([]byte("\n\n{\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rcs, err := ParseReceipts("r.jsonl", strings.NewReader(string(b)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.jsonl:") {
				t.Fatalf("error %q does not name r.jsonl:LINE", err)
			}
			return
		}
		for _, rc := range rcs {
			if rc.Run <= 0 || rc.Seq <= 0 || !isHash(rc.Head) {
				t.Fatalf("accepted %+v", rc)
			}
		}
	})
}
