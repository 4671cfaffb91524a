// Package jsonfile reads and writes the tool's large JSON files (snapshots and
// saved plans) without holding a whole file in memory beside the model.
//
// Files are written as compact JSON through a temporary file and a rename,
// zstd-compressed or plain as the file's name says (Compressed: a name
// ending in .json is plain JSON, any other, .zst and .json.zst among them,
// zstd). They are read plain, gzip or zstd whatever their name (recognised by their first
// bytes, so files written by older versions, and files a person
// decompressed, still load). Encoding and decoding go one element of a
// top-level array at a time: the bytes in memory are bounded by the largest
// element, not by the file.
package jsonfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Compression of a file, as Detect tells it from its first bytes.
const (
	Plain = infile.Plain
	Gzip  = infile.Gzip
	Zstd  = infile.Zstd
)

// Detect names the compression of a file starting with head.
func Detect(head []byte) string { return infile.Detect(head) }

// NewReader returns r decompressed: zstd and gzip streams are recognised by
// their first bytes, anything else is returned as it is. It sets no cap:
// files are read through infile.OpenContent, which does.
func NewReader(r io.Reader) (io.ReadCloser, error) {
	return infile.NewContent("", r, infile.Unrestricted)
}

// Read decodes the JSON object in the file at path, a file of kind k
// (infile.OpenContent: a regular file, within k's cap decompressed), into v
// (a pointer to a struct), streaming; any error names the file.
func Read(path string, k infile.Kind, v any) error {
	c, err := infile.OpenContent(path, k)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := Decode(c, v); err != nil {
		return infile.Wrap(path, k, fmt.Errorf("%s: %w", path, err))
	}
	return nil
}

// Compressed reports whether the tool writes the file at path
// zstd-compressed: the name decides. A name ending in .json is plain JSON
// (jq and editors read it); any other (.zst, .json.zst, no extension) is
// zstd, about a tenth of the size.
func Compressed(path string) bool {
	return !strings.HasSuffix(strings.ToLower(path), ".json")
}

// Write saves v (a pointer to a struct) to path as compact JSON, zstd-
// compressed unless the name ends in .json (Compressed), atomically: a
// temporary file in the same folder, then a rename, so a failed write
// never leaves a half-written file.
func Write(path string, perm os.FileMode, v any) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		zw, err := NewFileWriter(w, path)
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

// NewFileWriter returns the writer of the file at path (Compressed): the
// zstd writer NewWriter makes, or w itself, for plain JSON; Close ends the
// zstd frame, and does nothing for plain JSON.
func NewFileWriter(w io.Writer, path string) (io.WriteCloser, error) {
	if !Compressed(path) {
		return nopCloser{w}, nil
	}
	return NewWriter(w)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

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
