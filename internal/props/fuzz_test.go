package props

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any bytes are read without panicking; a refusal is a *Error
// naming the file and a line of it; every entry's line is a line of the
// input.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "java", "*.properties"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("a=\\u12"))
	f.Add([]byte("\\\n#x\r\n\\u0041=\\\r"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Physical lines: \n, \r and \r\n each end one.
		lines := 1 + bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) - bytes.Count(b, []byte("\r\n"))
		pf, err := Parse("fuzz.properties", bytes.NewReader(b))
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Path != "fuzz.properties" || pe.Line < 1 || pe.Line > lines || !strings.HasPrefix(err.Error(), "fuzz.properties:") {
				t.Fatalf("error %v does not name fuzz.properties:LINE (1..%d)", err, lines)
			}
			return
		}
		for _, e := range pf.Entries {
			if e.Line < 1 || e.Line > lines {
				t.Fatalf("entry %q on line %d of a %d-line input", e.Key, e.Line, lines)
			}
		}
	})
}
