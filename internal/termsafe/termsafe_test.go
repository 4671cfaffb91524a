package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// evil holds every kind of character that drives or disguises a terminal.
const evil = "ev\x1b[2J\x1b[31mil\a\r\b\u202eabc\u2066\x7f\u009b1m\xff"

func TestName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"orders", "orders"},
		{"User:CN=Smith\\, John,O=Example", "User:CN=Smith\\, John,O=Example"},
		{"café-☕", "café-☕"},
		{"", `""`},
		{" padded", `" padded"`},
		{`"quoted"`, `"\"quoted\""`},
		{"ev\x1b[2Jil", `"ev\x1b[2Jil"`},
		{"a\nb", `"a\nb"`},
		{"\u202eevil", `"\u202eevil"`},
		{"\xff", `"\xff"`},
	}
	for _, c := range cases {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestLineAndText(t *testing.T) {
	line := Line(evil + "\n\tx")
	text := Text(evil + "\n\tx")
	for name, s := range map[string]string{"Line": line, "Text": text} {
		for _, r := range strings.TrimSuffix(strings.TrimSuffix(s, "\n\tx"), "\\n\\tx") {
			if Unsafe(r) {
				t.Errorf("%s left %U in %q", name, r, s)
			}
		}
		if !utf8.ValidString(s) {
			t.Errorf("%s: %q is not valid UTF-8", name, s)
		}
	}
	if want := `ev\x1b[2J\x1b[31mil\a\r\b\u202eabc\u2066\u007f\u009b1m\xff\n\tx`; line != want {
		t.Errorf("Line = %s\nwant   %s", line, want)
	}
	if !strings.HasSuffix(text, "\n\tx") {
		t.Errorf("Text dropped the newline and tab: %q", text)
	}
	if s := "plain text, with ümlauts"; Line(s) != s || Text(s) != s {
		t.Errorf("a plain text changed")
	}
}

// The Writer is a barrier: whatever is written, and however it is split,
// no unsafe byte comes out, newlines and tabs pass, and Trusted passes the
// view's own sequences.
func TestWriter(t *testing.T) {
	in := "topic " + evil + "\n\tnext line ☕ é\n"
	for split := 1; split <= len(in); split++ {
		var out strings.Builder
		w := NewWriter(&out)
		for i := 0; i < len(in); i += split {
			n, err := w.Write([]byte(in[i:min(i+split, len(in))]))
			if err != nil || n != min(split, len(in)-i) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if want := Text(in); got != want {
			t.Fatalf("split %d: %q\nwant      %q", split, got, want)
		}
	}
	var out strings.Builder
	w := NewWriter(&out)
	_, _ = w.Write([]byte("a\xe2\x98")) // the start of ☕, held
	_, _ = w.Trusted().Write([]byte("\x1b[32m"))
	_, _ = w.Write([]byte("b\x1b"))
	if got, want := out.String(), `a\xe2\x98`+"\x1b[32m"+`b\x1b`; got != want {
		t.Errorf("trusted: %q, want %q", got, want)
	}
}

// JSON through the Writer stays JSON with the same values.
func TestWriterKeepsJSON(t *testing.T) {
	v := map[string]string{"topic": evil + "\n", "plain": "orders"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	w := NewWriter(&out)
	_, _ = w.Write(raw)
	_ = w.Flush()
	var back map[string]string
	if err := json.Unmarshal([]byte(out.String()), &back); err != nil {
		t.Fatalf("not JSON after the Writer: %v\n%s", err, out.String())
	}
	// encoding/json turned the invalid byte into U+FFFD; every other
	// character comes back as it went in.
	want := strings.ToValidUTF8(v["topic"], "\ufffd")
	if back["topic"] != want || back["plain"] != "orders" {
		t.Errorf("values changed: %q, want %q", back["topic"], want)
	}
	for _, r := range out.String() {
		if Unsafe(r) && r != '\n' {
			t.Errorf("%U reached the output", r)
		}
	}
}
