package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// VerifyResult is the outcome of Verify.
type VerifyResult struct {
	OK      bool   `json:"ok"`
	Rows    int64  `json:"rows"`     // chained rows checked
	Runs    int64  `json:"runs"`     // runs in the database
	Head    string `json:"head"`     // hash of the last row
	HeadSeq int64  `json:"head_seq"` // its position
	// Broken is the first broken link; nil when the chain is intact.
	Broken *Break `json:"broken,omitempty"`
	// Anchor is the anchor checked ("" when none was given), AnchorSeq the
	// row it names, AnchorFound whether the intact chain contains it.
	Anchor      string `json:"anchor,omitempty"`
	AnchorFound bool   `json:"anchor_found,omitempty"`
	AnchorSeq   int64  `json:"anchor_seq,omitempty"`
	// RowsAfterAnchor counts rows appended after the anchor.
	RowsAfterAnchor int64 `json:"rows_after_anchor,omitempty"`
}

// Break describes the first broken link of the chain.
type Break struct {
	Seq    int64  `json:"seq"`              // chain position of the row where the chain breaks
	Table  string `json:"table,omitempty"`  // its table
	RunID  int64  `json:"run_id,omitempty"` // the run the row belongs to, when known
	Reason string `json:"reason"`
}

func (b *Break) String() string {
	where := fmt.Sprintf("seq %d", b.Seq)
	if b.Table != "" {
		where += " (" + b.Table
		if b.RunID != 0 {
			where += fmt.Sprintf(", run %d", b.RunID)
		}
		where += ")"
	}
	return "broken link at " + where + ": " + b.Reason
}

// cursor reads one chained table in seq order.
type cursor struct {
	table string
	rows  *sql.Rows
	cols  []string
	order []int
	vals  []any
	seq   int64
	hash  string
	runID int64
	ok    bool
}

func (c *cursor) next() error {
	c.ok = false
	if !c.rows.Next() {
		return c.rows.Err()
	}
	ptrs := make([]any, len(c.cols))
	vals := make([]any, len(c.cols))
	for i := range ptrs {
		ptrs[i] = &vals[i]
	}
	if err := c.rows.Scan(ptrs...); err != nil {
		return err
	}
	c.vals, c.hash, c.seq, c.runID = vals, "", 0, 0
	for i, name := range c.cols {
		switch name {
		case "seq":
			c.seq, _ = vals[i].(int64)
		case "hash":
			switch h := vals[i].(type) {
			case string:
				c.hash = h
			case []byte:
				c.hash = string(h)
			}
		case "run_id":
			c.runID, _ = vals[i].(int64)
		case "id":
			if c.table == "runs" {
				c.runID, _ = vals[i].(int64)
			}
		}
	}
	c.ok = true
	return nil
}

// Verify recomputes the hash chain over every chained table in one read
// transaction (writers are not blocked) and reports the first broken link:
// a row whose hash does not match its content and the previous row's hash
// (the row was edited, or rows before it were deleted, inserted or
// reordered), a gap in the chain positions (rows deleted), or a chain head
// record that disagrees with the last row. With anchor (a receipt from
// Finish), the anchor must be the hash of a row in the intact chain:
// deleting the newest rows, the anchor's among them, is caught this way.
//
// The returned error is for failures to read the database; a broken chain
// is reported in VerifyResult (OK false), not as an error.
func (s *Store) Verify(ctx context.Context, anchor string) (VerifyResult, error) {
	res := VerifyResult{Anchor: strings.ToLower(strings.TrimSpace(anchor))}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return res, fmt.Errorf("audit: %s: verify: %v", s.path, err)
	}
	defer tx.Rollback()
	tables, err := chainedTables(ctx, tx)
	if err != nil {
		return res, fmt.Errorf("audit: %s: verify: %v", s.path, err)
	}
	_ = tx.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&res.Runs)
	var curs []*cursor
	defer func() {
		for _, c := range curs {
			c.rows.Close()
		}
	}()
	for _, t := range tables {
		rows, err := tx.QueryContext(ctx, `SELECT * FROM "`+t+`" ORDER BY seq`)
		if err != nil {
			return res, fmt.Errorf("audit: %s: verify: read %s: %v", s.path, t, err)
		}
		c := &cursor{table: t, rows: rows}
		curs = append(curs, c)
		if c.cols, err = rows.Columns(); err != nil {
			return res, fmt.Errorf("audit: %s: verify: read %s: %v", s.path, t, err)
		}
		c.order = nameOrder(c.cols)
		if err := c.next(); err != nil {
			return res, fmt.Errorf("audit: %s: verify: read %s: %v", s.path, t, err)
		}
	}
	prev := zeroHash
	var lastSeq int64
	for {
		// The cursor with the lowest seq is next in the chain.
		var c *cursor
		for _, k := range curs {
			if k.ok && (c == nil || k.seq < c.seq) {
				c = k
			}
		}
		if c == nil {
			break
		}
		switch {
		case c.seq == lastSeq:
			res.Broken = &Break{Seq: c.seq, Table: c.table, RunID: c.runID,
				Reason: "two rows hold this chain position (a row was copied or renumbered)"}
		case c.seq != lastSeq+1:
			missing := fmt.Sprintf("rows at chain positions %d..%d are missing (deleted)", lastSeq+1, c.seq-1)
			if c.seq-1 == lastSeq+1 {
				missing = fmt.Sprintf("the row at chain position %d is missing (deleted)", lastSeq+1)
			}
			res.Broken = &Break{Seq: c.seq, Table: c.table, RunID: c.runID, Reason: missing}
		default:
			if got := rowHashOrdered(prev, c.table, c.cols, c.vals, c.order); got != c.hash {
				res.Broken = &Break{Seq: c.seq, Table: c.table, RunID: c.runID,
					Reason: "the row's hash does not match its content and the previous row's hash: the row was edited, or rows before it were replaced or reordered"}
			}
		}
		if res.Broken != nil {
			break
		}
		res.Rows++
		lastSeq = c.seq
		prev = c.hash
		res.Head, res.HeadSeq = c.hash, c.seq
		if res.Anchor != "" && c.hash == res.Anchor {
			res.AnchorFound, res.AnchorSeq = true, c.seq
		}
		if err := c.next(); err != nil {
			return res, fmt.Errorf("audit: %s: verify: read %s: %v", s.path, c.table, err)
		}
	}
	if res.Broken == nil {
		var hs int64
		var hh string
		err := tx.QueryRowContext(ctx, `SELECT seq, hash FROM chain_head WHERE id = 1`).Scan(&hs, &hh)
		switch {
		case errors.Is(err, sql.ErrNoRows), err != nil && strings.Contains(err.Error(), "no such table"):
			res.Broken = &Break{Seq: res.HeadSeq + 1, Reason: "the chain head record is missing"}
		case err != nil:
			return res, fmt.Errorf("audit: %s: verify: read chain head: %v", s.path, err)
		case hs != res.HeadSeq || (hh != res.Head && !(hh == "" && hs == 0)):
			res.Broken = &Break{Seq: res.HeadSeq + 1, Reason: fmt.Sprintf(
				"the chain head record says position %d (%s) but the last row is at %d: the newest rows were deleted or the record edited", hs, short(hh), res.HeadSeq)}
		}
	}
	if res.AnchorFound {
		res.RowsAfterAnchor = res.Rows - res.AnchorSeq
	}
	if res.Broken != nil {
		res.Head, res.HeadSeq = "", 0
	}
	res.OK = res.Broken == nil && (res.Anchor == "" || res.AnchorFound)
	return res, nil
}

// chainedTables lists the tables with seq and hash columns.
func chainedTables(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'chain_head'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	var out []string
	for _, n := range names {
		cols, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, n)
		if err != nil {
			return nil, err
		}
		var seq, hash bool
		for cols.Next() {
			var c string
			if err := cols.Scan(&c); err != nil {
				cols.Close()
				return nil, err
			}
			seq = seq || c == "seq"
			hash = hash || c == "hash"
		}
		cols.Close()
		if seq && hash {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// short abbreviates a hash for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "empty"
	}
	return h
}
