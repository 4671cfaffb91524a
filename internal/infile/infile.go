// Package infile opens every file the tool reads from the operator: each
// through one bounded reader. A file must be a regular file (a FIFO, a
// device or a directory is refused by name before anything is read or
// anything blocks), and its bytes are capped by its Kind: the bytes of the
// file and, for a compressed one, the bytes it decompresses to. An input
// over its cap is refused naming the file, its kind and the cap.
//
// Content recognises zstd and gzip by their first bytes (the tool writes
// zstd; people decompress files, and older versions wrote gzip) and gives
// the decompressed bytes through a buffered reader whose Peek lets a caller
// look at the first bytes to tell what the file holds.
package infile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/klauspost/compress/zstd"
)

// Kind is what an input file holds: its name in messages ("snapshot
// file") and the most bytes it may hold, decompressed bytes included.
type Kind struct {
	Name string
	Max  int64
}

// The kinds of file the tool reads, with their caps. Each cap is far above
// what the scale the tool is built for needs (50,000 topics, 200,000
// partitions, 100,000 ACLs, 10,000 quotas, 5,000 SCRAM users: a snapshot
// file of about 100 MB of JSON, a plan file of about 70 MB), and far below
// what would exhaust a machine.
var (
	Snapshot     = Kind{"snapshot file", 1 << 30}
	Plan         = Kind{"plan file", 1 << 30}
	Policy       = Kind{"policy file", 16 << 20}
	Credentials  = Kind{"SCRAM credentials file", 64 << 20}
	Secret       = Kind{"secret file", 64 << 10}
	Key          = Kind{"audit key file", 64 << 10}
	Properties   = Kind{"properties file", 16 << 20}
	Store        = Kind{"key or trust store", 16 << 20}
	Checkpoint   = Kind{"bootstrap checkpoint", 256 << 20}
	Receipts     = Kind{"receipt file", 256 << 20}
	Tree         = Kind{"ZooKeeper tree file", 1 << 30}
	ZKSnapshot   = Kind{"ZooKeeper snapshot file", 4 << 30}
	ZKLog        = Kind{"ZooKeeper transaction log", 4 << 30}
	Unrestricted = Kind{"file", 1<<63 - 1}
)

// ErrNotRegular marks a path that is not a regular file (a FIFO, a device,
// a socket or a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge marks a file over its kind's cap.
var ErrTooLarge = errors.New("over its size cap")

// Error is an input file the tool refuses or cannot read: it names the
// file, and Err says why (ErrNotRegular, ErrTooLarge, an *fs.PathError, or
// the error of the parser that read it: Wrap). It is the operator's input
// at fault, not a cluster (Usage).
type Error struct {
	Path string
	Kind Kind
	Err  error
	msg  string // the message, when not Err's
}

func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Usage reports that the error is the operator's input at fault.
func (e *Error) Usage() bool { return true }

// Wrap marks err, a parser's error about the file at path, as an input
// file's error (nil stays nil). Its message is err's own: parsers name the
// file themselves. An err that holds an *Error (the reader's: a cap, a
// read error) is that *Error, which names the file already.
func Wrap(path string, k Kind, err error) error {
	if err == nil {
		return nil
	}
	var ie *Error
	if errors.As(err, &ie) {
		return ie
	}
	return &Error{Path: path, Kind: k, Err: err}
}

// Size formats a cap for messages: "16 MiB", "64 KiB", "1 GiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func tooLarge(path string, k Kind, decompressed bool) *Error {
	what := "larger than " + Size(k.Max)
	if decompressed {
		what = "more than " + Size(k.Max) + " once decompressed"
	}
	return &Error{Path: path, Kind: k, Err: ErrTooLarge, msg: fmt.Sprintf("%s%s, the most a %s may hold", named(k, path), what, k.Name)}
}

// named leads a message about the file at path: "snapshot file
// s.json: ", or "" for a stream without a name.
func named(k Kind, path string) string {
	if path == "" {
		return ""
	}
	return k.Name + " " + path + ": "
}

// openErr is the error for a file that cannot be opened: its kind and
// path, and the cause without the operation ("no such file or directory").
func openErr(path string, k Kind, err error) *Error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	return &Error{Path: path, Kind: k, Err: err, msg: named(k, path) + cause.Error()}
}

// modeName names a file type for messages.
func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}

func notRegular(path string, k Kind, m fs.FileMode) *Error {
	return &Error{Path: path, Kind: k, Err: ErrNotRegular,
		msg: fmt.Sprintf("%snot a regular file but %s; give a regular file", named(k, path), modeName(m))}
}

// File is an input file opened for reading: Read gives its bytes as they
// are, and fails with ErrTooLarge past the kind's cap.
type File struct {
	Path string
	Kind Kind
	f    *os.File
	r    capped
}

// Open opens path as a file of kind k. It refuses, before opening
// anything, a path that is not a regular file (symbolic links are
// followed) or whose size is over k's cap; the file is opened without
// blocking and checked again, so that a FIFO put in its place meanwhile is
// refused too, never waited on.
func Open(path string, k Kind) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, openErr(path, k, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, k, fi.Mode())
	}
	if fi.Size() > k.Max {
		if err := ExpectFile(path, k); err != nil {
			return nil, err // another of the tool's files: named as what it is
		}
		return nil, tooLarge(path, k, false)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openErr(path, k, err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, openErr(path, k, err)
		}
		return nil, notRegular(path, k, fi.Mode())
	}
	out := &File{Path: path, Kind: k, f: f}
	out.r = capped{r: f, left: k.Max, over: func() error { return tooLarge(path, k, false) }}
	return out, nil
}

// Check refuses, without opening it, a path that Open would refuse before
// reading: one that does not exist, is not a regular file or is over k's
// cap. It lets a command refuse a bad file flag as a usage error before it
// starts anything; Open checks again when the file is read.
func Check(path string, k Kind) error {
	fi, err := os.Stat(path)
	if err != nil {
		return openErr(path, k, err)
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path, k, fi.Mode())
	}
	if fi.Size() > k.Max {
		return tooLarge(path, k, false)
	}
	return nil
}

// OpenAppend opens path, a file of kind k the tool appends to (a receipt
// file), creating it with mode perm: like a file it reads, it must be a
// regular file. It is opened without blocking and checked, so that a FIFO
// is refused rather than waited on for a reader.
func OpenAppend(path string, k Kind, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(path, k, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, openErr(path, k, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, openErr(path, k, err)
		}
		return nil, notRegular(path, k, fi.Mode())
	}
	return f, nil
}

// Read reads the file's bytes, at most its kind's cap.
func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadAll returns the bytes of the file at path, a file of kind k (Open).
func ReadAll(path string, k Kind) ([]byte, error) {
	f, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, readErr(path, k, err)
	}
	return b, nil
}

func readErr(path string, k Kind, err error) error {
	var ie *Error
	if errors.As(err, &ie) {
		return err
	}
	return &Error{Path: path, Kind: k, Err: err, msg: named(k, path) + err.Error()}
}

// Compression of a file's content, as Content tells it from its first
// bytes.
const (
	Plain = "plain"
	Gzip  = "gzip"
	Zstd  = "zstd"
)

var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// Detect names the compression of content starting with head.
func Detect(head []byte) string {
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return Zstd
	case bytes.HasPrefix(head, gzipMagic):
		return Gzip
	}
	return Plain
}

// Content is a file's content: decompressed when the file is zstd or gzip,
// buffered (Peek shows its first bytes without consuming them), and capped
// at its kind's cap in decompressed bytes as well as in the file's own.
type Content struct {
	*bufio.Reader
	Path        string
	Kind        Kind
	Compression string // Plain, Gzip or Zstd
	closers     []func()
}

// OpenContent opens path as a file of kind k (Open) and returns its
// content (NewContent).
func OpenContent(path string, k Kind) (*Content, error) {
	f, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	c, err := NewContent(path, f, k)
	if err != nil {
		f.Close()
		return nil, err
	}
	c.closers = append(c.closers, func() { f.Close() })
	return c, nil
}

// NewContent returns the content of r, the bytes of a file of kind k named
// name: zstd and gzip streams (recognised by their first bytes) are
// decompressed, anything else is read as it is; reading past k's cap in
// decompressed bytes fails with ErrTooLarge. An error names name.
func NewContent(name string, r io.Reader, k Kind) (*Content, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, readErr(name, k, err)
	}
	c := &Content{Path: name, Kind: k, Compression: Detect(head)}
	var dr io.Reader = br
	switch c.Compression {
	case Zstd:
		// A window of at most 64 MiB bounds the decoder's memory whatever
		// a frame header claims (the tool writes 1 MiB windows; zstd's
		// levels 1-19 use at most 8 MiB).
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			return nil, &Error{Path: name, Kind: k, Err: err, msg: named(k, name) + "zstd: " + err.Error()}
		}
		c.closers = append(c.closers, zr.Close)
		dr = zr
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &Error{Path: name, Kind: k, Err: err, msg: named(k, name) + "gzip: " + err.Error()}
		}
		c.closers = append(c.closers, func() { zr.Close() })
		dr = zr
	}
	decompressed := c.Compression != Plain
	c.Reader = bufio.NewReaderSize(&capped{r: dr, left: k.Max, over: func() error { return tooLarge(name, k, decompressed) }}, 64<<10)
	return c, nil
}

// Close releases the decompressor and closes the file (OpenContent).
func (c *Content) Close() error {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
	c.closers = nil
	return nil
}

// ReadContent returns the content of the file at path (OpenContent),
// decompressed.
func ReadContent(path string, k Kind) ([]byte, error) {
	c, err := OpenContent(path, k)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if err != nil {
		return nil, readErr(path, k, err)
	}
	return b, nil
}

// capped reads r up to left more bytes; a byte past them is over().
type capped struct {
	r    io.Reader
	left int64
	over func() error
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.left <= 0 {
		// At the cap: only the end of the stream is allowed now.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			c.err = c.over()
			return 0, c.err
		}
		if err == nil {
			return 0, nil
		}
		c.err = err
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}
