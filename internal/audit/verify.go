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
	// Signed counts the signed receipts in the chain, SignedBy the keys
	// that signed them.
	Signed   int64    `json:"signed"`
	SignedBy []string `json:"signed_by,omitempty"`
	// KeyID is the key the signatures were checked with ("" when no key
	// was given: signatures are then counted, not checked).
	KeyID string `json:"key_id,omitempty"`
	// RowsAfterSigned counts rows after the last signed receipt (a run in
	// progress or killed): a signature does not cover them yet.
	RowsAfterSigned int64 `json:"rows_after_signed,omitempty"`
	// Receipts counts the receipts from a receipt file found in the chain.
	Receipts int `json:"receipts,omitempty"`
	// Reverts lists the chain's revert links (a run that applied a revert
	// plan, and the run it reverts), each checked: the record row it names
	// must be the reverted run's, with the hash the revert was made from.
	Reverts []RevertLink `json:"reverts,omitempty"`
}

// RevertLink is a run that applied a revert plan (migrate audit revert)
// and the run it reverts, as the chain records it.
type RevertLink struct {
	Run     int64 `json:"run"`
	Reverts int64 `json:"reverts"`
	// RecordSeq and RecordHash are the reverted run's record digest the
	// revert plan was made from (its own last row then).
	RecordSeq  int64  `json:"record_seq"`
	RecordHash string `json:"record_hash"`
	// Problem says why the link does not hold; "" when it does.
	Problem string `json:"problem,omitempty"`
}

// VerifyOptions are what VerifyWith checks beyond the chain itself.
type VerifyOptions struct {
	// Anchor is a receipt (a run end's hash) the intact chain must hold.
	Anchor string
	// Key (public or private) checks every receipt signature, and requires
	// every run end from the first signed one on to be signed.
	Key *Key
	// Receipts (ReadReceipts) must each be a run end of the intact chain,
	// at its position and of its run; signed ones must verify with Key.
	Receipts []Receipt
}

// ErrWrongKey is returned (wrapped) by VerifyWith when the database holds
// signed receipts but none by the given key.
var ErrWrongKey = errors.New("audit: wrong audit key")

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
	return s.VerifyWith(ctx, VerifyOptions{Anchor: anchor})
}

// endRow is a run_ends row met while verifying.
type endRow struct {
	seq, runID int64
	hash       string
}

// sigRow is a receipt_signatures row met while verifying.
type sigRow struct {
	seq, runID, signedSeq     int64
	signedHash, keyID, sigB64 string
}

// VerifyWith is Verify with signatures and receipts checked too (see
// VerifyOptions). Without a key, a full recompute of the chain (every hash
// rewritten) verifies: only a signature, or a receipt kept elsewhere, can
// tell. With one, a recomputed chain no longer matches the signatures, and
// a removed signature leaves a run end unsigned after signed ones.
func (s *Store) VerifyWith(ctx context.Context, opts VerifyOptions) (VerifyResult, error) {
	anchor := opts.Anchor
	res := VerifyResult{Anchor: strings.ToLower(strings.TrimSpace(anchor))}
	var ends []endRow
	var sigs []sigRow
	var links []RevertLink
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
	var hasher rowHasher
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
			if got := hasher.sum(prev, c.table, c.cols, c.vals, c.order); got != c.hash {
				res.Broken = &Break{Seq: c.seq, Table: c.table, RunID: c.runID,
					Reason: "the row's hash does not match its content and the previous row's hash: the row was edited, or rows before it were replaced or reordered"}
			}
		}
		if res.Broken != nil {
			break
		}
		switch c.table {
		case "run_ends":
			ends = append(ends, endRow{seq: c.seq, runID: c.runID, hash: c.hash})
		case "receipt_signatures":
			sigs = append(sigs, sigRow{seq: c.seq, runID: c.runID, signedSeq: colInt(c, "signed_seq"),
				signedHash: colStr(c, "signed_hash"), keyID: colStr(c, "key_id"), sigB64: colStr(c, "signature")})
		case "reverts":
			links = append(links, RevertLink{Run: c.runID, Reverts: colInt(c, "reverted_run"), RecordSeq: colInt(c, "record_seq"), RecordHash: colStr(c, "record_hash")})
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
	if res.Broken == nil {
		if err := checkSignatures(&res, ends, sigs, opts); err != nil {
			return res, fmt.Errorf("audit: %s: %w", s.path, err)
		}
	}
	if res.Broken == nil {
		for i := range links {
			if err := checkRevertLink(ctx, tx, tables, &links[i]); err != nil {
				return res, fmt.Errorf("audit: %s: verify: %v", s.path, err)
			}
		}
		res.Reverts = links
	}
	if res.AnchorFound {
		res.RowsAfterAnchor = res.Rows - res.AnchorSeq
	}
	if res.Broken != nil {
		res.Head, res.HeadSeq = "", 0
	}
	res.OK = res.Broken == nil && (res.Anchor == "" || res.AnchorFound)
	for _, l := range res.Reverts {
		res.OK = res.OK && l.Problem == ""
	}
	return res, nil
}

// checkRevertLink sets l.Problem unless the row at l.RecordSeq, in any of
// the chained tables, belongs to the reverted run and has the hash the
// revert was made from.
func checkRevertLink(ctx context.Context, tx *sql.Tx, tables []string, l *RevertLink) error {
	for _, t := range tables {
		idCol := "run_id"
		if t == "runs" {
			idCol = "id"
		} else if has, err := hasColumn(ctx, tx, t, "run_id"); err != nil {
			return err
		} else if !has {
			continue
		}
		var run int64
		var hash string
		err := tx.QueryRowContext(ctx, `SELECT `+idCol+`, hash FROM "`+t+`" WHERE seq = ?`, l.RecordSeq).Scan(&run, &hash)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		switch {
		case run != l.Reverts:
			l.Problem = fmt.Sprintf("the record row at position %d is run %d's, not run %d's", l.RecordSeq, run, l.Reverts)
		case hash != l.RecordHash:
			l.Problem = fmt.Sprintf("the record row at position %d has hash %s, not %s", l.RecordSeq, short(hash), short(l.RecordHash))
		}
		return nil
	}
	l.Problem = fmt.Sprintf("no row of run %d at position %d", l.Reverts, l.RecordSeq)
	return nil
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

// checkSignatures checks the chain's receipt signatures and opts.Receipts
// against the intact chain's run ends, setting res.Broken at the first
// problem. It returns an error wrapping ErrWrongKey when signatures exist
// but none is by opts.Key.
func checkSignatures(res *VerifyResult, ends []endRow, sigs []sigRow, opts VerifyOptions) error {
	endAt := make(map[int64]endRow, len(ends))
	for _, e := range ends {
		endAt[e.seq] = e
	}
	signed := map[int64]sigRow{}
	keys := map[string]bool{}
	for _, g := range sigs {
		if e, ok := endAt[g.signedSeq]; !ok || e.hash != g.signedHash || e.runID != g.runID {
			res.Broken = &Break{Seq: g.seq, Table: "receipt_signatures", RunID: g.runID,
				Reason: fmt.Sprintf("the signature is of a run end (position %d, %s) that is not in the chain", g.signedSeq, short(g.signedHash))}
			return nil
		}
		signed[g.signedSeq] = g
		keys[g.keyID] = true
	}
	res.Signed = int64(len(sigs))
	for k := range keys {
		res.SignedBy = append(res.SignedBy, k)
	}
	sort.Strings(res.SignedBy)
	if len(sigs) > 0 {
		res.RowsAfterSigned = res.HeadSeq - sigs[len(sigs)-1].seq
	}
	if k := opts.Key; k != nil {
		res.KeyID = k.ID()
		if len(sigs) == 0 {
			res.Broken = &Break{Seq: res.HeadSeq, Reason: "no run end in the database is signed, yet a key was given: the signatures were removed (and the chain recomputed), or no run wrote with --audit-key"}
			return nil
		}
		if !keys[res.KeyID] {
			return fmt.Errorf("%w: the %d signed receipts in the database are signed by key %s, not by key %s (%s): give the key the runs used, or the signatures were replaced",
				ErrWrongKey, len(sigs), strings.Join(res.SignedBy, ", "), res.KeyID, k.Path)
		}
		for _, g := range sigs {
			switch {
			case g.keyID != res.KeyID:
				res.Broken = &Break{Seq: g.seq, Table: "receipt_signatures", RunID: g.runID,
					Reason: fmt.Sprintf("run %d's receipt is signed by key %s, not by the given key %s", g.runID, g.keyID, res.KeyID)}
			case !verifySignature(k.Public, g.runID, g.signedSeq, g.signedHash, g.sigB64):
				res.Broken = &Break{Seq: g.seq, Table: "receipt_signatures", RunID: g.runID,
					Reason: fmt.Sprintf("run %d's receipt signature does not verify with key %s: the chain was recomputed or the signature altered", g.runID, res.KeyID)}
			}
			if res.Broken != nil {
				return nil
			}
		}
		first := sigs[0].signedSeq
		for _, g := range sigs {
			first = min(first, g.signedSeq)
		}
		firstRun := endAt[first].runID
		for _, e := range ends {
			if e.seq > first {
				if _, ok := signed[e.seq]; !ok {
					res.Broken = &Break{Seq: e.seq, Table: "run_ends", RunID: e.runID,
						Reason: fmt.Sprintf("run %d's end is not signed, though run %d's earlier end is: its signature was removed (and the chain recomputed), or it ran without --audit-key", e.runID, firstRun)}
					return nil
				}
			}
		}
	}
	for _, rc := range opts.Receipts {
		e, ok := endAt[rc.Seq]
		if !ok || e.hash != rc.Head || e.runID != rc.Run {
			res.Broken = &Break{Seq: rc.Seq, RunID: rc.Run, Reason: fmt.Sprintf(
				"receipt %s (run %d, position %d, %s) is not in the chain: rows up to it were deleted or rewritten, or it is from another database", rc.Where, rc.Run, rc.Seq, short(rc.Head))}
			return nil
		}
		if k := opts.Key; k != nil && rc.Signature != "" && rc.KeyID == k.ID() && !verifySignature(k.Public, rc.Run, rc.Seq, rc.Head, rc.Signature) {
			res.Broken = &Break{Seq: rc.Seq, RunID: rc.Run, Reason: fmt.Sprintf("receipt %s: its signature does not verify with key %s", rc.Where, k.ID())}
			return nil
		}
		res.Receipts++
	}
	return nil
}

// colStr and colInt read a column of the cursor's current row by name.
func colStr(c *cursor, name string) string {
	for i, n := range c.cols {
		if n == name {
			switch v := c.vals[i].(type) {
			case string:
				return v
			case []byte:
				return string(v)
			}
		}
	}
	return ""
}

func colInt(c *cursor, name string) int64 {
	for i, n := range c.cols {
		if n == name {
			v, _ := c.vals[i].(int64)
			return v
		}
	}
	return 0
}
