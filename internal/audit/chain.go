package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"sort"
	"strconv"
	"strings"
)

// rowsPerInsert is the most rows one INSERT statement carries. A table's
// pending rows are written rowsPerInsert at a time, and the rest as a sum
// of powers of two (at most log2(rowsPerInsert)+1 more statements), so each
// table has at most that many statements prepared.
const rowsPerInsert = 64

// insertSizes is how many statement sizes there are: 1, 2, 4, ...,
// rowsPerInsert rows.
const insertSizes = 7

// rowShape caches, per table and column list, the INSERT statements and
// the columns' hashing order.
type rowShape struct {
	table   string
	names   []string // seq, then the columns (hash is not among them)
	order   []int    // names in hashing (sorted) order
	inserts [insertSizes]string
	parent  bool // other tables' rows reference this table's: see parentTables
}

// parentTables are the tables other tables' rows reference by foreign key
// (every run_id REFERENCES runs (id)). Their rows are written as they are
// inserted, never left waiting in a batch: a batch of child rows that fills
// up is written at once, and its rows would otherwise reach SQLite before
// the run they belong to (a run begun with its plan, Store.BeginPlannedRun,
// of 64 or more blockers failed with "FOREIGN KEY constraint failed").
var parentTables = map[string]bool{"runs": true}

// insertSQL returns the statement inserting 1<<k rows.
func (sh *rowShape) insertSQL(k int) string {
	if sh.inserts[k] == "" {
		one := "(?" + strings.Repeat(", ?", len(sh.names)) + ")"
		var b strings.Builder
		b.WriteString("INSERT INTO " + sh.table + " (seq, hash, " + strings.Join(sh.names[1:], ", ") + ") VALUES ")
		for i := range 1 << k {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(one)
		}
		sh.inserts[k] = b.String()
	}
	return sh.inserts[k]
}

// shape returns the cached rowShape for an insert; s.wmu is held.
func (s *Store) shape(table string, cols []string) *rowShape {
	key := append(s.shapeKey[:0], table...)
	for _, c := range cols {
		key = append(key, ',')
		key = append(key, c...)
	}
	s.shapeKey = key
	if sh := s.shapes[string(key)]; sh != nil {
		return sh
	}
	names := append([]string{"seq"}, cols...)
	sh := &rowShape{table: table, names: names, order: nameOrder(names), parent: parentTables[table]}
	s.shapes[string(key)] = sh
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
	var h rowHasher
	return h.sum(prev, table, names, vals, idx)
}

// rowHasher computes row hashes (rowHash) with its hash state and buffers
// reused from row to row. The zero value is ready; it is not safe for
// concurrent use.
type rowHasher struct {
	h   hash.Hash
	buf []byte
	num [32]byte
	out [sha256.Size]byte
	hex [2 * sha256.Size]byte
}

// sum is rowHashOrdered.
func (rh *rowHasher) sum(prev, table string, names []string, vals []any, idx []int) string {
	if rh.h == nil {
		rh.h = sha256.New()
	}
	h := rh.h
	h.Reset()
	buf := rh.buf[:0]
	buf = append(buf, prev...)
	buf = append(buf, '\n')
	buf = append(buf, table...)
	buf = append(buf, '\n')
	for _, i := range idx {
		if names[i] == "hash" || vals[i] == nil {
			continue
		}
		var tag byte
		var s string
		var b []byte
		switch x := vals[i].(type) {
		case int64:
			tag, b = 'i', strconv.AppendInt(rh.num[:0], x, 10)
		case string:
			tag, s = 's', x
		case []byte:
			tag, b = 's', x
		case float64:
			tag, b = 'r', strconv.AppendFloat(rh.num[:0], x, 'g', -1, 64)
		default:
			tag, s = '?', fmt.Sprint(x)
		}
		n := len(s) + len(b)
		buf = append(buf, names[i]...)
		buf = append(buf, '=', tag)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, ':')
		if len(buf)+n > 1<<16 {
			// A large value (the plan blob) is hashed where it is, not
			// copied.
			h.Write(buf)
			buf = buf[:0]
			if b != nil {
				h.Write(b)
			} else {
				for len(s) > 0 {
					k := min(len(s), 1<<16)
					buf = append(buf[:0], s[:k]...)
					h.Write(buf)
					s = s[k:]
				}
				buf = buf[:0]
			}
		} else if b != nil {
			buf = append(buf, b...)
		} else {
			buf = append(buf, s...)
		}
		buf = append(buf, '\n')
		if len(buf) > 1<<16 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	rh.buf = buf[:0]
	hex.Encode(rh.hex[:], h.Sum(rh.out[:0]))
	return string(rh.hex[:])
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

// writer appends chained rows inside one immediate transaction. Rows are
// hashed and given their place in the chain as they are inserted, and
// written to SQLite in multi-row INSERT statements: a table's rows wait in
// a batch until it is full, a query is made in the transaction (txn), or
// the transaction commits; a row other rows reference (a run's) is written
// at once (parentTables).
type writer struct {
	ctx     context.Context
	s       *Store
	tx      *sql.Tx // use txn(), which writes the pending rows first
	seq     int64
	head    string
	stmts   map[string]*sql.Stmt // this transaction's statements, by SQL text
	want    []string             // statements to prepare on the store after the transaction
	sc      *scrubber            // nil: text is written as it is
	batches map[*rowShape]*batch // rows not yet written, by table and columns
	pending []*batch             // the batches holding rows, in the order they got their first
	enc     *json.Encoder        // stateJSON's, into encBuf
	encBuf  bytes.Buffer
}

// batch is one table's rows waiting to be written: per row seq, hash and
// the column values, in the shape's column order.
type batch struct {
	sh     *rowShape
	rows   int
	args   []any
	first  int64 // seq of the first row waiting
	queued bool  // in writer.pending
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

// txn writes the pending rows and returns the transaction, for a query or
// statement of the caller's own: it then sees every row inserted before.
func (w *writer) txn() (*sql.Tx, error) {
	if err := w.flush(); err != nil {
		return nil, err
	}
	return w.tx, nil
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
	w := &writer{ctx: ctx, s: s, tx: tx, stmts: map[string]*sql.Stmt{}, sc: sc, batches: map[*rowShape]*batch{}}
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
	if err := w.flush(); err != nil {
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
// added. Text values are scrubbed of known secrets first. The row is
// written to SQLite later (see writer), within the transaction: an error
// SQLite finds in it (a constraint) fails the transaction then.
func (w *writer) insert(table string, cols []string, vals ...any) (seq int64, err error) {
	if len(cols) != len(vals) {
		panic("audit: insert: columns and values differ in length")
	}
	sh := w.s.shape(table, cols)
	b := w.batches[sh]
	if b == nil {
		b = &batch{sh: sh}
		w.batches[sh] = b
	}
	if b.rows == 0 {
		b.first = w.seq + 1
	}
	if !b.queued {
		b.queued = true
		w.pending = append(w.pending, b)
	}
	start := len(b.args)
	b.args = append(b.args, w.seq+1, nil)
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			if w.sc != nil {
				if sx := w.sc.scrub(x); sx != x {
					v = sx
				}
			}
		case int64, nil:
		case jsonText:
			if w.sc != nil {
				v = w.sc.scrubJSON(string(x))
			} else {
				v = string(x)
			}
		case zstdBlob:
			v = []byte(x)
		default:
			if v = norm(v); w.sc != nil {
				if s, ok := v.(string); ok {
					v = w.sc.scrub(s)
				}
			}
		}
		b.args = append(b.args, v)
	}
	prev := w.head
	if prev == "" {
		prev = zeroHash
	}
	// The row's values in names order are args[start] (seq) and
	// args[start+2:] (the columns).
	row := b.args[start+1:]
	row[0] = b.args[start]
	h := w.s.hasher.sum(prev, table, sh.names, row, sh.order)
	row[0] = h
	w.seq++
	w.head = h
	b.rows++
	if b.rows == rowsPerInsert || sh.parent {
		if err := w.flushBatch(b); err != nil {
			return 0, err
		}
	}
	return w.seq, nil
}

// flush writes every pending row, in the order the batches began.
func (w *writer) flush() error {
	for _, b := range w.pending {
		if err := w.flushBatch(b); err != nil {
			return err
		}
		b.queued = false
	}
	w.pending = w.pending[:0]
	return nil
}

// flushBatch writes b's rows: rowsPerInsert at a time, the rest in
// statements of 32, 16, ... 1 rows.
func (w *writer) flushBatch(b *batch) error {
	width := len(b.sh.names) + 1
	args := b.args
	for k := insertSizes - 1; k >= 0 && b.rows > 0; k-- {
		for b.rows >= 1<<k {
			n := (1 << k) * width
			st, err := w.stmt(b.sh.insertSQL(k))
			if err != nil {
				return fmt.Errorf("audit: prepare insert into %s: %v", b.sh.table, err)
			}
			if _, err := st.ExecContext(w.ctx, args[:n]...); err != nil {
				return fmt.Errorf("audit: insert into %s (chain positions %d..%d): %v", b.sh.table, b.first, b.first+int64(1<<k)-1, err)
			}
			args = args[n:]
			b.rows -= 1 << k
			b.first += 1 << k
		}
	}
	clear(b.args)
	b.args = b.args[:0]
	return nil
}
