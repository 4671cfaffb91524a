package termsafe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer is the barrier between a command's output and the terminal:
// everything written to it has its unsafe characters escaped (C0 controls
// but newline and tab, DEL, C1 controls, bidi overrides, invalid UTF-8
// bytes), whatever view wrote it and however it split its writes. A
// view's own styling (colour) goes through Trusted, unescaped.
//
// The escapes are valid inside a JSON string (\uXXXX for DEL, C1 and bidi
// characters; the C0 controls and invalid bytes it writes as \x.. never
// occur raw in encoding/json's output), so JSON written through a Writer
// stays JSON with the same values.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence split across writes
	buf     []byte
}

// NewWriter returns a Writer escaping what it writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it. It reports len(p) written when the
// escaped bytes were; the start of a UTF-8 sequence at p's end is held
// until the next Write or Flush completes it.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data := p
	if len(t.pending) > 0 {
		data = append(t.pending, p...)
		t.pending = nil
	}
	// Hold an incomplete sequence at the end (at most 3 bytes).
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-3; i-- {
		if utf8.RuneStart(data[i]) {
			if data[i] >= 0x80 && !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	t.pending = append(t.pending[:0], data[cut:]...)
	if err := t.writeEscaped(data[:cut]); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *Writer) writeEscaped(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if clean(string(b), true) {
		_, err := t.w.Write(b)
		return err
	}
	t.buf = t.buf[:0]
	sb := byteBuilder{&t.buf}
	appendEscaped(sb, string(b), true)
	_, err := t.w.Write(t.buf)
	return err
}

// Flush writes what a Write held back (an incomplete UTF-8 sequence,
// escaped byte by byte).
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.flushLocked()
}

func (t *Writer) flushLocked() error {
	p := t.pending
	t.pending = nil
	return t.writeEscaped(p)
}

// Trusted returns the writer the view's own escape sequences (colour, a
// progress line's redraw) go to: what is written to it reaches the
// terminal as it is. Nothing from a cluster or a file may be written to
// it.
func (t *Writer) Trusted() io.Writer { return trusted{t} }

// Terminal flushes what is pending and returns the writer under the
// barrier itself, for a full-screen program that escapes everything it
// shows (the TUI): a terminal's *os.File must reach it as that file, or
// it cannot learn the window's size nor set the terminal's modes. While
// the program runs nothing else may write to t.
func (t *Writer) Terminal() io.Writer {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.flushLocked()
	return t.w
}

type trusted struct{ t *Writer }

func (r trusted) Write(p []byte) (int, error) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if err := r.t.flushLocked(); err != nil {
		return 0, err
	}
	return r.t.w.Write(p)
}

// byteBuilder appends to a byte slice (a strings.Builder would copy).
type byteBuilder struct{ b *[]byte }

func (b byteBuilder) WriteString(s string) (int, error) {
	*b.b = append(*b.b, s...)
	return len(s), nil
}
func (b byteBuilder) WriteByte(c byte) error { *b.b = append(*b.b, c); return nil }
func (b byteBuilder) WriteRune(r rune) (int, error) {
	*b.b = utf8.AppendRune(*b.b, r)
	return utf8.RuneLen(r), nil
}
