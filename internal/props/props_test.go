package props

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// dump renders the effective properties the way testdata/java/Dump.java
// prints java.util.Properties: sorted keys, every UTF-16 unit outside
// '!'..'~' (and '\', '=') as \uXXXX.
func dump(f *File) string {
	esc := func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			if u > ' ' && u <= '~' && u != '\\' && u != '=' {
				b.WriteByte(byte(u))
			} else {
				fmt.Fprintf(&b, "\\u%04X", u)
			}
		}
		return b.String()
	}
	m := f.Map()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", esc(k), esc(m[k]))
	}
	return b.String()
}

// TestParseMatchesJava compares every testdata/java/*.properties file with
// what java.util.Properties.load reads from it (the .golden files, written
// by Dump.java). Files Java refuses must be refused naming file:line.
func TestParseMatchesJava(t *testing.T) {
	errLines := map[string]int{ // the line each refused file must name
		"malformed_short.properties": 3,
		"malformed_hex.properties":   3,
		"malformed_cont.properties":  2,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "java", "*.properties"))
	if err != nil || len(files) < 10 {
		t.Fatalf("golden inputs: %v, %v", files, err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".properties"), func(t *testing.T) {
			goldenPath := strings.TrimSuffix(path, ".properties") + ".golden"
			golden, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Load(path)
			if want, refused := errLines[name]; refused {
				if !strings.HasPrefix(string(golden), "error:") {
					t.Fatalf("%s: Java reads this file; the test expects a refusal", goldenPath)
				}
				var pe *Error
				if !errors.As(err, &pe) || pe.Path != path || pe.Line != want || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: ", path, want)) {
					t.Fatalf("Load error = %v; want a props.Error naming %s:%d", err, path, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v (Java reads it: %q)", err, golden)
			}
			got := dump(f)
			if got != string(golden) {
				t.Errorf("read differs from java.util.Properties\n got:\n%s\nwant:\n%s", got, golden)
			}
		})
	}
}

// TestLines checks the line every entry is reported on: the physical line
// where its logical line starts, with \n, \r and \r\n ends, comments, blank
// lines and continuations counted.
func TestLines(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]int
	}{
		{"lf", "# c\n\na=1\n  b=2\n", map[string]int{"a": 3, "b": 4}},
		{"crlf", "a=1\r\n\r\nb=2\r\n", map[string]int{"a": 1, "b": 3}},
		{"cr", "a=1\r\rb=2\r", map[string]int{"a": 1, "b": 3}},
		{"continued", "a=1\\\n  2\\\n  3\nb=4\n", map[string]int{"a": 1, "b": 4}},
		{"continued crlf", "a=1\\\r\n  2\r\nb=4\r\n", map[string]int{"a": 1, "b": 3}},
		{"comment with backslash", "# x\\\nb=1\n", map[string]int{"b": 2}},
		{"blank continuation", "a=1\\\n\nb=2\n", map[string]int{"a": 1, "b": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.properties", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, e := range f.Entries {
				got[e.Key] = e.Line
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("lines = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLatin1IsRead is the regression for files with ISO-8859-1 bytes,
// which Kafka reads and this package used to refuse as "not valid UTF-8".
func TestLatin1IsRead(t *testing.T) {
	f, err := Parse("server.properties", bytes.NewReader([]byte("ssl.keystore.password=p\xe4ss\nlog.dirs=/data\n")))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if v, _ := f.Get("ssl.keystore.password"); v != "päss" {
		t.Errorf("value = %q, want %q", v, "päss")
	}
	if got := f.Where("log.dirs"); got != "server.properties:2" {
		t.Errorf("Where = %q", got)
	}
}

func TestTooLarge(t *testing.T) {
	big := bytes.Repeat([]byte("a"), MaxSize+1)
	if _, err := Parse("big.properties", bytes.NewReader(big)); err == nil || !strings.Contains(err.Error(), "big.properties") {
		t.Fatalf("Parse(16 MiB + 1) = %v; want an error naming the file", err)
	}
}
