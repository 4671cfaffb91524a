package termsafe

import (
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
