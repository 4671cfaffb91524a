package infile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// small is a kind with a cap tests can cross cheaply.
var small = Kind{"test file", 1 << 10}

// TestOpenRefuses: every kind of path that is not a regular file within
// its cap is refused by name, with its type or the cap named, before
// anything is read; a FIFO with no writer never blocks. The messages are
// in testdata/errors.golden.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link-to-fifo")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(small.Max + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	zeros := make([]byte, small.Max+1)
	cases := []struct {
		name    string
		path    string
		content bool // read through OpenContent
		want    error
	}{
		{"missing", filepath.Join(dir, "absent"), false, os.ErrNotExist},
		{"directory", dir, false, ErrNotRegular},
		{"fifo", fifo, false, ErrNotRegular},
		{"symlink to a fifo", link, false, ErrNotRegular},
		{"character device", "/dev/zero", false, ErrNotRegular},
		{"one byte over the cap", sparse, false, ErrTooLarge},
		{"gzip over the cap decompressed", write("bomb.gz", gz(t, zeros)), true, ErrTooLarge},
		{"zstd over the cap decompressed", write("bomb.zst", zst(t, zeros)), true, ErrTooLarge},
		{"plain over the cap through content", sparse, true, ErrTooLarge},
	}
	var golden strings.Builder
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.content {
				_, err = ReadContent(tc.path, small)
			} else {
				_, err = ReadAll(tc.path, small)
			}
			var ie *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &ie) || ie.Path != tc.path || ie.Kind != small {
				t.Fatalf("err %v (%T), want %v as an *Error naming %s", err, err, tc.want, tc.path)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, tc.path) {
				t.Errorf("%q: want one line naming %s", msg, tc.path)
			}
			golden.WriteString(tc.name + ": " + strings.ReplaceAll(msg, dir, "DIR") + "\n")
			// Check, which opens nothing, refuses what Open refuses before
			// reading, in the same words.
			if !tc.content {
				if cerr := Check(tc.path, small); cerr == nil || cerr.Error() != msg || !errors.Is(cerr, tc.want) {
					t.Errorf("Check: %v, want %q", cerr, msg)
				}
			}
		})
	}
	goldenfile.AssertString(t, "testdata/errors.golden", golden.String())
}

// TestContentAtTheCap: a file of exactly its cap reads whole, plain or
// compressed, and Peek shows the decompressed bytes.
func TestContentAtTheCap(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), int(small.Max)/16)
	for name, b := range map[string][]byte{"plain": data, "gzip": gz(t, data), "zstd": zst(t, data)} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := OpenContent(p, small)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Compression != name {
				t.Errorf("compression %s, want %s", c.Compression, name)
			}
			head, err := c.Peek(4)
			if err != nil || string(head) != "0123" {
				t.Errorf("Peek: %q, %v", head, err)
			}
			got, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("read %d bytes, %v; want the %d bytes", len(got), err, len(data))
			}
		})
	}
}

// TestBombMemory: a 1 GiB zstd bomb (a few KiB on disk) given as a file
// capped at 1 MiB is refused after about the cap's worth of allocation,
// not the gigabyte.
func TestBombMemory(t *testing.T) {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range 1 << 10 {
		w.Write(chunk)
	}
	w.Close()
	p := filepath.Join(t.TempDir(), "bomb.zst")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Kind{"bomb", 1 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := OpenContent(p, k)
	if err == nil {
		_, err = io.Copy(io.Discard, c)
		c.Close()
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB refusing a bomb capped at 1 MiB", alloc>>20)
	}
}

// FuzzContent: whatever the bytes, the content read never exceeds the
// cap, an error past it is ErrTooLarge naming the file, and plain bytes
// within the cap come back unchanged.
func FuzzContent(f *testing.F) {
	f.Add([]byte("{\"format\":3}"))
	f.Add(gz(f, []byte("{}")))
	f.Add(zst(f, bytes.Repeat([]byte{0}, 4096)))
	f.Add(gz(f, bytes.Repeat([]byte("x"), 300)))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		k := Kind{"fuzzed file", 256}
		c, err := NewContent("in", bytes.NewReader(b), k)
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "fuzzed file in: ") {
				t.Fatalf("NewContent: %v (%T), want an *Error naming the file", err, err)
			}
			return
		}
		defer c.Close()
		got, err := io.ReadAll(io.LimitReader(c, 1<<20))
		if len(got) > int(k.Max) {
			t.Fatalf("read %d bytes past the cap of %d", len(got), k.Max)
		}
		if errors.Is(err, ErrTooLarge) && !strings.HasPrefix(err.Error(), "fuzzed file in: ") {
			t.Fatalf("%v does not name the file", err)
		}
		if c.Compression == Plain && len(b) <= int(k.Max) && (err != nil || !bytes.Equal(got, b)) {
			t.Fatalf("plain input of %d bytes came back as %d bytes, %v", len(b), len(got), err)
		}
		if c.Compression == Plain && len(b) > int(k.Max) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("plain input of %d bytes over the cap read without ErrTooLarge: %v", len(b), err)
		}
	})
}
