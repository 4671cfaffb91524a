package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
)

// zstdBlob is a column value holding a JSON document already scrubbed and
// zstd-compressed (encodePlanBlob): insert stores it as the BLOB it is. The
// row hash covers the stored (compressed) bytes, so a tampered blob fails
// verification like any other changed value.
type zstdBlob []byte

// planMagic starts every zstd frame; a plan stored as plain JSON text (older
// databases) starts with '{'.
var planMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// encodePlanBlob encodes v as compact JSON (jsonfile.Encode, without its
// final newline), scrubs it as sc.scrubJSON scrubs the whole document and
// compresses it with zstd, without ever holding the whole uncompressed JSON:
// the text is scrubbed and compressed in pieces of about a megabyte, and
// the result is byte for byte the whole document's (see scrubWriter). A
// known secret holding a comma makes it scrub the whole text at once.
func encodePlanBlob(sc *scrubber, v any) ([]byte, error) {
	return encodePlanBlobCut(sc, v, 1<<20)
}

// encodePlanBlobCut is encodePlanBlob cutting pieces of about cut bytes.
func encodePlanBlobCut(sc *scrubber, v any, cut int) ([]byte, error) {
	var out bytes.Buffer
	enc, err := jsonfile.NewWriter(&out)
	if err != nil {
		return nil, err
	}
	sw := newScrubWriter(sc, enc, cut)
	if err := jsonfile.Encode(sw, v); err != nil {
		return nil, err
	}
	if err := sw.close(); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// scrubWriter is encodePlanBlob's io.Writer. scrubJSON is two steps over
// the whole text, and each is cut where it cannot change what it does:
//
//  1. Known secrets are replaced (replaceSecrets) in pieces cut after any
//     comma: when no secret holds a comma, no occurrence of one crosses
//     such a cut, before or after a replacement ([redacted] holds none
//     either), so replacing piece by piece gives the whole text's result.
//  2. The replaced text is redacted (redactJSONText) in pieces cut after a
//     comma outside any string literal, lexed the way redactJSONText lexes
//     it, over the replaced text (a secret holding a quote or backslash
//     may change where literals are): the URL pattern cannot match across
//     a comma, and the key=value patterns work on one literal at a time.
//
// A known secret holding a comma makes it keep the whole text and scrub it
// at once in close.
type scrubWriter struct {
	sc  *scrubber
	enc *zstd.Encoder
	cut int // piece size to cut at; -1: never cut

	raw []byte // encoded text not yet replaced (step 1)
	rep []byte // replaced text not yet redacted (step 2)

	lexed   int  // rep[:lexed] is lexed
	inLit   bool // lexer state after rep[:lexed]: inside a string literal
	escaped bool // ... just after a backslash in a literal
	lastCut int  // after the last comma outside a literal in rep[:lexed], 0 if none
}

// newScrubWriter returns a scrubWriter into enc.
func newScrubWriter(sc *scrubber, enc *zstd.Encoder, cut int) *scrubWriter {
	sw := &scrubWriter{sc: sc, enc: enc, cut: cut}
	if sc != nil {
		for _, sec := range sc.secrets {
			if strings.Contains(sec, ",") {
				sw.cut = -1 // scrub the whole document at once
				break
			}
		}
	}
	return sw
}

func (sw *scrubWriter) Write(p []byte) (int, error) {
	sw.raw = append(sw.raw, p...)
	if sw.cut < 0 || len(sw.raw) < sw.cut {
		return len(p), nil
	}
	c := bytes.LastIndexByte(sw.raw, ',')
	if c < 0 {
		return len(p), nil
	}
	sw.rep = sw.replace(sw.rep, sw.raw[:c+1])
	n := copy(sw.raw, sw.raw[c+1:])
	sw.raw = sw.raw[:n]
	if len(sw.rep) < sw.cut {
		return len(p), nil
	}
	sw.lex()
	if sw.lastCut == 0 {
		return len(p), nil
	}
	if err := sw.redact(sw.rep[:sw.lastCut]); err != nil {
		return 0, err
	}
	n = copy(sw.rep, sw.rep[sw.lastCut:])
	sw.rep = sw.rep[:n]
	sw.lexed -= sw.lastCut
	sw.lastCut = 0
	return len(p), nil
}

// lex lexes rep from lexed to its end the way redactJSONText scans for
// literals (a backslash in a literal escapes the next byte), noting the last
// comma outside a literal.
func (sw *scrubWriter) lex() {
	b := sw.rep
	for i := sw.lexed; i < len(b); {
		if sw.escaped {
			sw.escaped = false
			i++
			continue
		}
		q := bytes.IndexByte(b[i:], '"')
		end := len(b)
		if q >= 0 {
			end = i + q
		}
		if !sw.inLit {
			if c := bytes.LastIndexByte(b[i:end], ','); c >= 0 {
				sw.lastCut = i + c + 1
			}
			sw.inLit = q >= 0
		} else if k := backslashesBefore(b, i, end); k%2 == 1 {
			// An escaped quote, or (at the end) a backslash escaping
			// what comes next.
			sw.escaped = q < 0
		} else {
			sw.inLit = q < 0
		}
		i = end + 1
	}
	sw.lexed = len(b)
}

// replace appends piece to dst with the known secrets replaced (copied as
// it is when it holds none, the usual case).
func (sw *scrubWriter) replace(dst, piece []byte) []byte {
	if sw.sc == nil || !sw.sc.containsAny(piece) {
		return append(dst, piece...)
	}
	return append(dst, sw.sc.replaceSecrets(string(piece))...)
}

// close scrubs and compresses the rest, without jsonfile.Encode's newline.
func (sw *scrubWriter) close() error {
	sw.rep = sw.replace(sw.rep, bytes.TrimSuffix(sw.raw, []byte("\n")))
	err := sw.redact(sw.rep)
	sw.raw, sw.rep = nil, nil
	return err
}

// redact redacts a replaced piece (redactJSONText) and compresses it.
func (sw *scrubWriter) redact(piece []byte) error {
	if sw.sc == nil {
		_, err := sw.enc.Write(piece)
		return err
	}
	text := string(piece)
	if r := redactJSONText(text); r != text {
		_, err := sw.enc.Write([]byte(r))
		return err
	}
	_, err := sw.enc.Write(piece)
	return err
}

// PlanEncoder encodes a plan's JSON once for the audit trail and another
// record of it (the plan file, planfile.Encode): it writes the JSON text to
// tap as it is made and returns the same text compressed as one zstd frame
// (jsonfile.NewWriter's).
type PlanEncoder func(tap io.Writer) (compressed []byte, err error)

// sharedPlanBlob runs enc with a scrubCheck as its tap and returns what enc
// returned, and whether it may be stored as the plan blob as it is:
// scrubbing would change nothing in its text, and it is a zstd frame.
func sharedPlanBlob(sc *scrubber, enc PlanEncoder) (blob []byte, ok bool, err error) {
	chk := newScrubCheck(sc)
	blob, err = enc(chk)
	if err != nil {
		return nil, false, err
	}
	return blob, !chk.close() && bytes.HasPrefix(blob, planMagic), nil
}

// scrubCheck is an io.Writer that finds out whether scrubbing a JSON
// document (scrubJSON) could change it, without keeping it or scrubbing it:
// the text is checked in pieces of about a megabyte cut after any comma,
// for a known secret (none holds a comma: no occurrence crosses such a cut)
// and for what redactJSONText could change, a URL with a password
// (urlUserinfo, which matches no comma) or an '=' the key=value patterns
// could match at (hasSecretKeyEq, which looks back over no comma). It may
// say "changed" for text that scrubbing leaves as it is (then the caller
// scrubs the text itself), never the other way round (FuzzScrubCheck). A
// known secret holding a comma counts as a change.
type scrubCheck struct {
	sc      *scrubber
	cut     int    // piece size
	buf     []byte // text after the last cut, not checked yet
	changed bool
}

func newScrubCheck(sc *scrubber) *scrubCheck {
	c := &scrubCheck{sc: sc, cut: 1 << 20}
	if sc != nil {
		for _, sec := range sc.secrets {
			if strings.Contains(sec, ",") {
				c.changed = true
			}
		}
	}
	return c
}

func (c *scrubCheck) Write(p []byte) (int, error) {
	if c.changed {
		return len(p), nil // the answer is known
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) < c.cut {
		return len(p), nil
	}
	if k := bytes.LastIndexByte(c.buf, ','); k >= 0 {
		c.check(c.buf[:k+1])
		c.buf = c.buf[:copy(c.buf, c.buf[k+1:])]
	}
	return len(p), nil
}

// check checks one piece.
func (c *scrubCheck) check(piece []byte) {
	if c.changed {
		return
	}
	if c.sc != nil && c.sc.containsAny(piece) ||
		bytes.IndexByte(piece, '@') >= 0 && urlUserinfo.Match(piece) ||
		hasSecretKeyEq(piece) {
		c.changed = true
	}
}

// close checks the rest and reports whether scrubbing could change the
// text.
func (c *scrubCheck) close() bool {
	c.check(c.buf)
	c.buf = nil
	return c.changed
}

// planJSONBytes returns a stored plan_json value as JSON: a zstd blob is
// decompressed, plain JSON text (databases written before plans were
// compressed) is returned as it is.
func planJSONBytes(stored []byte) ([]byte, error) {
	if !bytes.HasPrefix(stored, planMagic) {
		return stored, nil
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<31))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(stored, nil)
	if err != nil {
		return nil, fmt.Errorf("stored plan JSON does not decompress (the database was changed or damaged; migrate audit verify finds the row): %v", err)
	}
	if len(out) == 0 {
		return nil, errors.New("stored plan JSON: empty")
	}
	return out, nil
}
