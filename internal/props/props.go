// Package props reads Java .properties files the way java.util.Properties
// does (comments, key/value separators, line continuations, escapes), keeping
// the line of every entry so that errors can name file:line. Kafka's
// server.properties, client.properties and ZooKeeper TLS config files are all
// in this format.
package props

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
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

// Load reads and parses a properties file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, bytes.NewReader(b))
}

// Parse reads properties from r; name is used in errors.
func Parse(name string, r io.Reader) (*File, error) {
	f := &File{Path: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := sc.Text()
		if !utf8.ValidString(raw) {
			return nil, &Error{name, lineNo, "not valid UTF-8"}
		}
		line := strings.TrimLeft(raw, " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		start := lineNo
		for continues(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(sc.Text(), " \t\f")
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
	if err := sc.Err(); err != nil {
		return nil, &Error{name, lineNo + 1, err.Error()}
	}
	return f, nil
}

// continues reports whether a line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// split separates key and value at the first unescaped '=', ':' or
// whitespace, as java.util.Properties.load does.
func split(line string) (string, string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i >= len(line) {
		return line, ""
	}
	key := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape")
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx escape")
			}
			r := rune(n)
			i += 4
			// A UTF-16 surrogate pair is written as two escapes.
			if utf16.IsSurrogate(r) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 16); err == nil {
					if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
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

// IsSensitiveKey reports whether a config key holds a secret: passwords,
// keys, JAAS configs, encoder secrets and the like. It errs on the side of
// redaction: it covers Kafka's own password-type keys (catalogue.IsSensitive)
// and any key whose name suggests a secret.
func IsSensitiveKey(key string) bool {
	if catalogue.IsSensitive(key) {
		return true
	}
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "sasl.jaas.config", "ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "credential", "token", "private.key", "apikey", "api.key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasPrefix(k, "scram-sha-")
}
