package audit

import (
	"bytes"
	"errors"
	"fmt"
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
// the text is scrubbed and compressed in pieces of about a megabyte, cut
// after a comma outside any string literal. Such a cut changes nothing:
// no secret, no replacement and no URL-password match contains a comma, and
// the literal-by-literal key=value redaction starts outside a literal at
// every cut (a secret holding a comma, a quote or a backslash could break
// that; the document is then scrubbed whole, as before).
func encodePlanBlob(sc *scrubber, v any) ([]byte, error) {
	return encodePlanBlobCut(sc, v, 1<<20)
}

// encodePlanBlobCut is encodePlanBlob cutting pieces of about cut bytes.
func encodePlanBlobCut(sc *scrubber, v any, cut int) ([]byte, error) {
	var out bytes.Buffer
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	sw := &scrubWriter{sc: sc, enc: enc, cut: cut}
	if sc != nil {
		for _, sec := range sc.secrets {
			if strings.ContainsAny(sec, `,"\`) {
				sw.cut = -1 // scrub the whole document at once
				break
			}
		}
	}
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

// scrubWriter is encodePlanBlob's io.Writer: it keeps the JSON text from
// the last cut on, scrubs and compresses the pieces before each cut.
type scrubWriter struct {
	sc  *scrubber
	enc *zstd.Encoder
	cut int // piece size to cut at; -1: never cut

	buf     []byte // the text since the last cut
	lexed   int    // buf[:lexed] is lexed
	inLit   bool   // lexer state after buf[:lexed]: inside a string literal
	escaped bool   // ... just after a backslash in a literal
	lastCut int    // after the last comma outside a literal in buf[:lexed], 0 if none
}

func (sw *scrubWriter) Write(p []byte) (int, error) {
	sw.buf = append(sw.buf, p...)
	if sw.cut < 0 || len(sw.buf) < sw.cut {
		return len(p), nil
	}
	// Lexed the way redactJSONText scans for literals.
	for i := sw.lexed; i < len(sw.buf); i++ {
		c := sw.buf[i]
		switch {
		case sw.escaped:
			sw.escaped = false
		case sw.inLit && c == '\\':
			sw.escaped = true
		case c == '"':
			sw.inLit = !sw.inLit
		case !sw.inLit && c == ',':
			sw.lastCut = i + 1
		}
	}
	sw.lexed = len(sw.buf)
	if sw.lastCut == 0 {
		return len(p), nil
	}
	if err := sw.flush(sw.buf[:sw.lastCut]); err != nil {
		return 0, err
	}
	n := copy(sw.buf, sw.buf[sw.lastCut:])
	sw.buf = sw.buf[:n]
	sw.lexed -= sw.lastCut
	sw.lastCut = 0
	return len(p), nil
}

// close scrubs and compresses the rest, without jsonfile.Encode's newline.
func (sw *scrubWriter) close() error {
	err := sw.flush(bytes.TrimSuffix(sw.buf, []byte("\n")))
	sw.buf = nil
	return err
}

func (sw *scrubWriter) flush(piece []byte) error {
	text := string(piece)
	if sw.sc != nil {
		text = sw.sc.scrubJSON(text)
	}
	_, err := sw.enc.Write([]byte(text))
	return err
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
