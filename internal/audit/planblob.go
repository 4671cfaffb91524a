package audit

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// zstdJSON is a column value holding a JSON document stored zstd-compressed
// as a BLOB: insert scrubs it as jsonText, then compresses it. The row hash
// covers the stored (compressed) bytes, so a tampered blob fails
// verification like any other changed value.
type zstdJSON string

// planMagic starts every zstd frame; a plan stored as plain JSON text (older
// databases) starts with '{'.
var planMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// compressJSON compresses s with zstd, fed in 1 MiB pieces so that no copy
// of the whole document is made.
func compressJSON(s string) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(s)/16 + 64)
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	for len(s) > 0 {
		n := min(len(s), 1<<20)
		if _, err := enc.Write([]byte(s[:n])); err != nil {
			return nil, err
		}
		s = s[n:]
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
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
