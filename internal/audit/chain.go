package audit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// zeroHash is the "previous hash" of the first row in the chain.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// rowHash computes a chained row's hash:
//
//	SHA-256( prev "\n" table "\n" { name "=" tag len ":" value "\n" } )
//
// over the row's non-NULL columns except hash, sorted by column name, where
// tag is 'i' for integers (value in decimal), 's' for text and blobs, 'r'
// for reals (Go 'g' format), and len is the value's length in bytes. prev
// is the previous row's hash (zeroHash for the first row). NULL columns are
// left out, so a nullable column added by a later migration does not change
// the hashes of older rows.
func rowHash(prev, table string, names []string, vals []any) string {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	h := sha256.New()
	var buf []byte
	buf = append(buf, prev...)
	buf = append(buf, '\n')
	buf = append(buf, table...)
	buf = append(buf, '\n')
	for _, i := range idx {
		if names[i] == "hash" || vals[i] == nil {
			continue
		}
		var tag byte
		var v []byte
		switch x := vals[i].(type) {
		case int64:
			tag, v = 'i', strconv.AppendInt(nil, x, 10)
		case string:
			tag, v = 's', []byte(x)
		case []byte:
			tag, v = 's', x
		case float64:
			tag, v = 'r', strconv.AppendFloat(nil, x, 'g', -1, 64)
		default:
			tag, v = '?', fmt.Append(nil, x)
		}
		buf = append(buf, names[i]...)
		buf = append(buf, '=', tag)
		buf = strconv.AppendInt(buf, int64(len(v)), 10)
		buf = append(buf, ':')
		buf = append(buf, v...)
		buf = append(buf, '\n')
		if len(buf) > 1<<16 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// norm converts a Go value to what the row stores: int64, string or nil.
func norm(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int:
		return int64(x)
	case int64:
		return x
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case string:
		return x
	case *string:
		if x == nil {
			return nil
		}
		return *x
	case []byte:
		return string(x)
	default:
		panic(fmt.Sprintf("audit: unsupported column value %T", v))
	}
}

// nullIfEmpty stores "" as NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// writer appends chained rows inside one immediate transaction.
type writer struct {
	ctx   context.Context
	tx    *sql.Tx
	seq   int64
	head  string
	stmts map[string]*sql.Stmt
	scrub func(string) string
}

// write runs fn in one immediate transaction (SQLite's write lock), with
// the chain head read inside it, and commits.
func (s *Store) write(ctx context.Context, scrub func(string) string, fn func(w *writer) error) (head string, err error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("audit: %s: begin: %v", s.path, err)
	}
	w := &writer{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}, scrub: scrub}
	defer func() {
		for _, st := range w.stmts {
			st.Close()
		}
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := tx.QueryRowContext(ctx, `SELECT seq, hash FROM chain_head WHERE id = 1`).Scan(&w.seq, &w.head); err != nil {
		return "", fmt.Errorf("audit: %s: read chain head: %v", s.path, err)
	}
	if err := fn(w); err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chain_head SET seq = ?, hash = ? WHERE id = 1`, w.seq, w.head); err != nil {
		return "", fmt.Errorf("audit: %s: update chain head: %v", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("audit: %s: commit: %v", s.path, err)
	}
	return w.head, nil
}

// insert appends one row to table. cols and vals pair up; seq and hash are
// added. Text values are scrubbed of known secrets first.
func (w *writer) insert(table string, cols []string, vals ...any) (seq int64, err error) {
	if len(cols) != len(vals) {
		panic("audit: insert: columns and values differ in length")
	}
	names := make([]string, 0, len(cols)+1)
	row := make([]any, 0, len(cols)+2)
	names = append(names, "seq")
	row = append(row, w.seq+1)
	for i, c := range cols {
		v := norm(vals[i])
		if s, ok := v.(string); ok && w.scrub != nil {
			v = w.scrub(s)
		}
		names = append(names, c)
		row = append(row, v)
	}
	prev := w.head
	if prev == "" {
		prev = zeroHash
	}
	h := rowHash(prev, table, names, row)
	key := table + "(" + strings.Join(cols, ",") + ")"
	st := w.stmts[key]
	if st == nil {
		q := "INSERT INTO " + table + " (seq, hash, " + strings.Join(cols, ", ") + ") VALUES (?, ?" + strings.Repeat(", ?", len(cols)) + ")"
		st, err = w.tx.PrepareContext(w.ctx, q)
		if err != nil {
			return 0, fmt.Errorf("audit: prepare insert into %s: %v", table, err)
		}
		w.stmts[key] = st
	}
	args := make([]any, 0, len(row)+1)
	args = append(args, row[0], h)
	args = append(args, row[1:]...)
	if _, err := st.ExecContext(w.ctx, args...); err != nil {
		return 0, fmt.Errorf("audit: insert into %s: %v", table, err)
	}
	w.seq++
	w.head = h
	return w.seq, nil
}
