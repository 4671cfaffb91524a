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

// rowShape caches, per table and column list, the INSERT statement and the
// columns' hashing order.
type rowShape struct {
	insert string
	order  []int
}

// shape returns the cached rowShape for an insert; s.wmu is held.
func (s *Store) shape(table string, cols, names []string) *rowShape {
	key := table + "(" + strings.Join(cols, ",") + ")"
	if sh := s.shapes[key]; sh != nil {
		return sh
	}
	sh := &rowShape{
		insert: "INSERT INTO " + table + " (seq, hash, " + strings.Join(cols, ", ") + ") VALUES (?, ?" + strings.Repeat(", ?", len(cols)) + ")",
		order:  nameOrder(names),
	}
	s.shapes[key] = sh
	return sh
}

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
	return rowHashOrdered(prev, table, names, vals, nameOrder(names))
}

// nameOrder returns the indexes of names in sorted name order.
func nameOrder(names []string) []int {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	return idx
}

// rowHashOrdered is rowHash with the sorted column order precomputed.
func rowHashOrdered(prev, table string, names []string, vals []any, idx []int) string {
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
		var v string
		switch x := vals[i].(type) {
		case int64:
			tag, v = 'i', strconv.FormatInt(x, 10)
		case string:
			tag, v = 's', x
		case []byte:
			tag, v = 's', string(x)
		case float64:
			tag, v = 'r', strconv.FormatFloat(x, 'g', -1, 64)
		default:
			tag, v = '?', fmt.Sprint(x)
		}
		buf = append(buf, names[i]...)
		buf = append(buf, '=', tag)
		buf = strconv.AppendInt(buf, int64(len(v)), 10)
		buf = append(buf, ':')
		// A large value (the plan JSON) goes through buf in pieces.
		for len(buf)+len(v) > 1<<16 {
			n := min(len(v), 1<<16)
			h.Write(buf)
			buf = append(buf[:0], v[:n]...)
			v = v[n:]
		}
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
	s     *Store
	tx    *sql.Tx
	seq   int64
	head  string
	stmts map[string]*sql.Stmt // this transaction's statements, by SQL text
	want  []string             // statements to prepare on the store after the transaction
	sc    *scrubber            // nil: text is written as it is
}

// stmt returns a statement for q within the transaction. Statements are
// prepared once on the store's single writer connection and reused by every
// later transaction (Tx.StmtContext finds them prepared on the same
// connection); a statement not yet prepared there is prepared for this
// transaction and on the store once the transaction ends (the connection is
// busy until then).
func (w *writer) stmt(q string) (*sql.Stmt, error) {
	if st := w.stmts[q]; st != nil {
		return st, nil
	}
	var st *sql.Stmt
	if cached := w.s.stmts[q]; cached != nil {
		st = w.tx.StmtContext(w.ctx, cached)
	} else {
		var err error
		st, err = w.tx.PrepareContext(w.ctx, q)
		if err != nil {
			return nil, err
		}
		w.want = append(w.want, q)
	}
	w.stmts[q] = st
	return st, nil
}

// exec runs q in the transaction through the statement cache.
func (w *writer) exec(q string, args ...any) (sql.Result, error) {
	st, err := w.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.ctx, args...)
}

// write runs fn in one immediate transaction (SQLite's write lock), with
// the chain head read inside it, and commits.
func (s *Store) write(ctx context.Context, sc *scrubber, fn func(w *writer) error) (head string, err error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("audit: %s: begin: %v", s.path, err)
	}
	w := &writer{ctx: ctx, s: s, tx: tx, stmts: map[string]*sql.Stmt{}, sc: sc}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
		// The connection is free again: keep the statements this
		// transaction had to prepare.
		for _, q := range w.want {
			if st, perr := s.w.PrepareContext(context.Background(), q); perr == nil {
				s.stmts[q] = st
			}
		}
	}()
	st, err := w.stmt(`SELECT seq, hash FROM chain_head WHERE id = 1`)
	if err != nil {
		return "", fmt.Errorf("audit: %s: read chain head: %v", s.path, err)
	}
	if err := st.QueryRowContext(ctx).Scan(&w.seq, &w.head); err != nil {
		return "", fmt.Errorf("audit: %s: read chain head: %v", s.path, err)
	}
	if err := fn(w); err != nil {
		return "", err
	}
	if _, err := w.exec(`UPDATE chain_head SET seq = ?, hash = ? WHERE id = 1`, w.seq, w.head); err != nil {
		return "", fmt.Errorf("audit: %s: update chain head: %v", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("audit: %s: commit: %v", s.path, err)
	}
	return w.head, nil
}

// jsonText is a column value holding a JSON document: insert stores it as
// text, scrubbed string by string (scrubber.scrubJSON).
type jsonText string

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
		var v any
		if j, ok := vals[i].(jsonText); ok {
			v = string(j)
			if w.sc != nil {
				v = w.sc.scrubJSON(string(j))
			}
		} else if b, ok := vals[i].(zstdBlob); ok {
			v = []byte(b)
		} else if v = norm(vals[i]); w.sc != nil {
			if s, ok := v.(string); ok {
				v = w.sc.scrub(s)
			}
		}
		names = append(names, c)
		row = append(row, v)
	}
	prev := w.head
	if prev == "" {
		prev = zeroHash
	}
	sh := w.s.shape(table, cols, names)
	h := rowHashOrdered(prev, table, names, row, sh.order)
	st, err := w.stmt(sh.insert)
	if err != nil {
		return 0, fmt.Errorf("audit: prepare insert into %s: %v", table, err)
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
