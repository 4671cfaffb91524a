// Package jsonfile reads and writes the tool's large JSON files (snapshots and
// saved plans) without holding a whole file in memory beside the model.
//
// Files are written as compact JSON, zstd-compressed, through a temporary file
// and a rename. They are read plain, gzip or zstd (recognised by their first
// bytes, so files written by older versions, and files a person
// decompressed, still load). Encoding and decoding go one element of a
// top-level array at a time: the bytes in memory are bounded by the largest
// element, not by the file.
package jsonfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// Compression of a file, as Detect tells it from its first bytes.
const (
	Plain = "plain"
	Gzip  = "gzip"
	Zstd  = "zstd"
)

// Detect names the compression of a file starting with head.
func Detect(head []byte) string {
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return Zstd
	case bytes.HasPrefix(head, gzipMagic):
		return Gzip
	}
	return Plain
}

// NewReader returns r decompressed: zstd and gzip streams are recognised by
// their first bytes, anything else is returned as it is.
func NewReader(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	switch Detect(head) {
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		return zstdReader{zr}, nil
	case Gzip:
		return gzip.NewReader(br)
	}
	return io.NopCloser(br), nil
}

type zstdReader struct{ *zstd.Decoder }

func (z zstdReader) Close() error { z.Decoder.Close(); return nil }

// Read decodes the JSON object in the file at path into v (a pointer to a
// struct), streaming; any error names the file.
func Read(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	if err := Decode(r, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Write saves v (a pointer to a struct) to path as zstd-compressed compact
// JSON, atomically: a temporary file in the same folder, then a rename, so a
// failed write never leaves a half-written file.
func Write(path string, perm os.FileMode, v any) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		zw, err := NewWriter(w)
		if err != nil {
			return err
		}
		if err := Encode(zw, v); err != nil {
			zw.Close()
			return err
		}
		return zw.Close()
	})
}

// NewWriter returns the zstd writer Write compresses files with (level
// default, one encoder goroutine, 1 MiB window); Close ends the frame.
func NewWriter(w io.Writer) (*zstd.Encoder, error) {
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
}

// WriteAtomic writes path through write, a temporary file in the same
// folder and a rename.
func WriteAtomic(path string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
