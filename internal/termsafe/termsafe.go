// Package termsafe keeps names and values read from clusters and files from
// driving the operator's terminal: a topic, principal, client id, host or
// config value may hold ESC, BEL, CR, backspace, C1 controls or Unicode
// bidirectional overrides, and printed raw they would clear the screen,
// recolour it, or make one name read as another.
//
// Text and Markdown output go through a Writer, which escapes every such
// character in what it is given (a barrier: no call site can forget it),
// while the view's own styling goes through the Writer's trusted side.
// Views that show one name on one line (the TUI, table cells) also escape
// it themselves with Name or Line, so that it stays readable and on its
// line. JSON output passes the Writer unchanged in meaning: encoding/json
// already escapes C0 controls, and what the Writer escapes besides (DEL,
// C1, bidi overrides) it writes as \uXXXX, which is valid inside a JSON
// string and decodes to the same value.
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r can drive a terminal or disguise text: C0
// controls, DEL, C1 controls and the bidirectional embedding, override and
// isolate characters (U+202A–U+202E, U+2066–U+2069).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Name returns a name or value from a cluster or a file for display on one
// line: as it is when every character is printable and it neither starts
// with a quote nor has surrounding spaces (the common case), else quoted
// with Go's escapes ("ev\x1b[2J", "\u202eevil"), so that two different
// names never display alike.
func Name(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain reports whether s displays as itself: valid UTF-8, every rune
// printable (no controls, no format characters such as bidi overrides),
// not empty, no leading quote, no leading or trailing space.
func plain(s string) bool {
	if s == "" || s[0] == '"' || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return plainSlow(s)
		}
	}
	return true
}

func plainSlow(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

// Line returns prose that embeds names (a message, a reason, an error) for
// display on one line: every unsafe character, newline and tab included,
// and every invalid UTF-8 byte written as an escape (\x1b, \n, \u202e,
// \xff). Unlike Name it never quotes: a sentence stays a sentence.
func Line(s string) string { return escape(s, false) }

// Text is Line for text that may span lines: newlines and tabs are kept.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	appendEscaped(&b, s, keepLines)
	return b.String()
}

// clean reports whether escape would leave s as it is.
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(keepLines && (c == '\n' || c == '\t')) || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || Unsafe(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// builder is what appendEscaped writes to.
type builder interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
	WriteRune(rune) (int, error)
}

const hex = "0123456789abcdef"

// appendEscaped writes s with unsafe characters escaped: C0 as \n, \t,
// \r, \a, \b, \f, \v or \xNN; DEL, C1 and bidi characters as \uXXXX (valid
// in a JSON string too); an invalid UTF-8 byte as \xNN.
func appendEscaped(b builder, s string, keepLines bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case r < 0x20:
			if keepLines && (r == '\n' || r == '\t') {
				b.WriteByte(byte(r))
				break
			}
			switch r {
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			case '\a':
				b.WriteString(`\a`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\v':
				b.WriteString(`\v`)
			default:
				b.WriteString(`\x`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xf])
			}
		case Unsafe(r):
			b.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				b.WriteByte(hex[(r>>sh)&0xf])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}
