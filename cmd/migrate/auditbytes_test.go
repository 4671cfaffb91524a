package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// auditDBContents returns what a search for secrets in an audit database
// must look at: every byte of the database file and its WAL and journal
// (by file name), and every plans row's plan JSON decompressed (the plan
// is stored zstd-compressed, where a byte search of the file cannot see a
// secret). plans is the decompressed plan JSON of every row, in order; the
// test fails when there is none, so a search over it is never hollow.
func auditDBContents(t *testing.T, path string) (files map[string][]byte, plans [][]byte) {
	t.Helper()
	names, _ := filepath.Glob(path + "*")
	files = map[string][]byte{}
	for _, f := range names {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	if len(files) == 0 {
		t.Fatalf("no audit database at %s", path)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT run_id, plan_json FROM plans ORDER BY seq`)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rows.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for rows.Next() {
		var run int64
		var stored []byte
		if err := rows.Scan(&run, &stored); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(stored, zstdMagic) {
			t.Errorf("%s: run %d: plan_json is not stored zstd-compressed: %.40q", path, run, stored)
			plans = append(plans, stored)
			continue
		}
		pj, err := dec.DecodeAll(stored, nil)
		if err != nil {
			t.Fatalf("%s: run %d: decompress plan_json: %v", path, run, err)
		}
		plans = append(plans, pj)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(plans) == 0 {
		t.Fatalf("%s: no plans row: the search for secrets in the recorded plans would be hollow", path)
	}
	return files, plans
}
