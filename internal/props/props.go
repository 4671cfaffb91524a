// Package props reads Java .properties files exactly as java.util.Properties
// load(InputStream) does, which is how Kafka reads server.properties and
// client.properties: the bytes are ISO-8859-1 (every byte is one character,
// so a UTF-8 "é" reads as the two characters "Ã©", as Kafka sees it),
// \uXXXX escapes give other characters, a line ending in an odd number of
// backslashes continues on the next, keys end at the first unescaped '=',
// ':' or whitespace, and lines whose first non-blank character is '#' or '!'
// are comments. The line of every entry is kept so that errors can name
// file:line. ZooKeeper TLS config files are in the same format.
//
// Java strings may hold unpaired UTF-16 surrogates (\uD800 alone); Go
// strings cannot, so those read as U+FFFD.
package props

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Entry is one key/value pair and the line it starts on.
type Entry struct {
	Key   string
	Value string
	Line  int
}

// File is a parsed properties file. Later entries override earlier ones with
// the same key, as in Java.
type File struct {
	Path    string
	Entries []Entry
}

// Error names the file and line of a problem.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// MaxSize is the largest properties file read (Kafka's are a few KiB):
// infile.Properties' cap.
const MaxSize = 16 << 20

// Load reads and parses a properties file, opened as an infile.Properties
// (a regular file within its cap); an error is an *infile.Error (the file
// is at fault).
func Load(path string) (*File, error) {
	f, err := infile.Open(path, infile.Properties)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := Parse(path, f)
	return p, infile.Wrap(path, infile.Properties, err)
}

// Parse reads properties from r; name is used in errors. The only malformed
// input java.util.Properties refuses, a bad \uXXXX escape, is an *Error
// naming name:line.
func Parse(name string, r io.Reader) (*File, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		var ie *infile.Error
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %s, the cap on a %s", name, infile.Size(MaxSize), infile.Properties.Name)
	}
	f := &File{Path: name}
	lr := lineReader{b: b, line: 1}
	for {
		line, start, ok := lr.next()
		if !ok {
			break
		}
		k, v := split(line)
		key, err := unescape(k)
		if err != nil {
			return nil, &Error{name, start, err.Error()}
		}
		val, err := unescape(v)
		if err != nil {
			return nil, &Error{name, start, fmt.Sprintf("%s: %v", key, err)}
		}
		f.Entries = append(f.Entries, Entry{Key: key, Value: val, Line: start})
	}
	return f, nil
}

// lineReader splits ISO-8859-1 bytes into logical lines the way
// java.util.Properties.LineReader does: leading whitespace and blank lines
// are skipped, comment lines dropped (a comment never continues), and a
// line ending in an odd number of backslashes is joined with the next one
// (without its leading whitespace). Line ends are \n, \r or \r\n.
type lineReader struct {
	b    []byte
	off  int
	line int // physical line of b[off]
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// next returns the next logical line (escapes still in it), the physical
// line it starts on, and false at the end.
func (lr *lineReader) next() (out []byte, start int, ok bool) {
	skipBlank, appended, backslash := true, false, false
	for lr.off < len(lr.b) {
		c := lr.b[lr.off]
		lr.off++
		eol := c == '\n' || c == '\r'
		if eol {
			// \r\n is one line end.
			if c == '\r' && lr.off < len(lr.b) && lr.b[lr.off] == '\n' {
				lr.off++
			}
		}
		if skipBlank {
			if isBlank(c) {
				continue
			}
			if !appended && eol {
				lr.line++
				continue
			}
			skipBlank, appended = false, false
		}
		if len(out) == 0 && (c == '#' || c == '!') && !eol {
			// A comment: drop the rest of the physical line.
			for lr.off < len(lr.b) && lr.b[lr.off] != '\n' && lr.b[lr.off] != '\r' {
				lr.off++
			}
			skipBlank = true
			continue
		}
		if !eol {
			if len(out) == 0 {
				start = lr.line
			}
			out = append(out, c)
			backslash = c == '\\' && !backslash
			continue
		}
		lr.line++
		if len(out) == 0 {
			skipBlank = true
			continue
		}
		if lr.off >= len(lr.b) || !backslash {
			break
		}
		// A continued line: drop the backslash, skip the next line's
		// leading whitespace.
		out = out[:len(out)-1]
		skipBlank, appended, backslash = true, true, false
	}
	if len(out) == 0 {
		return nil, 0, false
	}
	if backslash {
		out = out[:len(out)-1] // a backslash at the end of the file
	}
	return out, start, true
}

// split separates key and value at the first unescaped '=', ':' or
// whitespace, as java.util.Properties.load does: whitespace around the
// separator and one '=' or ':' after whitespace are dropped.
func split(line []byte) (key, value []byte) {
	n := len(line)
	keyLen, valStart, sep, backslash := 0, n, false, false
	for keyLen < n {
		c := line[keyLen]
		if (c == '=' || c == ':') && !backslash {
			valStart, sep = keyLen+1, true
			break
		}
		if isBlank(c) && !backslash {
			valStart = keyLen + 1
			break
		}
		backslash = c == '\\' && !backslash
		keyLen++
	}
	for valStart < n {
		c := line[valStart]
		if !isBlank(c) {
			if !sep && (c == '=' || c == ':') {
				sep = true
			} else {
				break
			}
		}
		valStart++
	}
	return line[:keyLen], line[valStart:]
}

// unescape is java.util.Properties.loadConvert on ISO-8859-1 bytes: \t \n
// \r \f, \uXXXX (UTF-16 code units; surrogate pairs combine), and any other
// escaped character stands for itself.
func unescape(s []byte) (string, error) {
	u := make([]uint16, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			u = append(u, uint16(c))
			continue
		}
		i++
		switch c = s[i]; c {
		case 't':
			u = append(u, '\t')
		case 'n':
			u = append(u, '\n')
		case 'r':
			u = append(u, '\r')
		case 'f':
			u = append(u, '\f')
		case 'u':
			if len(s)-(i+1) < 4 {
				return "", fmt.Errorf("malformed \\uxxxx escape")
			}
			var v uint16
			for _, h := range s[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					v = v<<4 | uint16(h-'0')
				case h >= 'a' && h <= 'f':
					v = v<<4 | uint16(h-'a'+10)
				case h >= 'A' && h <= 'F':
					v = v<<4 | uint16(h-'A'+10)
				default:
					return "", fmt.Errorf("malformed \\uxxxx escape")
				}
			}
			u = append(u, v)
			i += 4
		default:
			u = append(u, uint16(c))
		}
	}
	return string(utf16.Decode(u)), nil
}

// Get returns the last value of key and whether it is set.
func (f *File) Get(key string) (string, bool) {
	for i := len(f.Entries) - 1; i >= 0; i-- {
		if f.Entries[i].Key == key {
			return f.Entries[i].Value, true
		}
	}
	return "", false
}

// Lookup returns the last entry for key, or nil.
func (f *File) Lookup(key string) *Entry {
	for i := len(f.Entries) - 1; i >= 0; i-- {
		if f.Entries[i].Key == key {
			return &f.Entries[i]
		}
	}
	return nil
}

// Map returns the effective key → value map (last entry wins).
func (f *File) Map() map[string]string {
	m := make(map[string]string, len(f.Entries))
	for _, e := range f.Entries {
		m[e.Key] = e.Value
	}
	return m
}

// Where returns "file:line" for key, or the file name when key is not set.
func (f *File) Where(key string) string {
	if e := f.Lookup(key); e != nil {
		return fmt.Sprintf("%s:%d", f.Path, e.Line)
	}
	return f.Path
}
