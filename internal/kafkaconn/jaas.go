package kafkaconn

import (
	"errors"
	"fmt"
	"strings"
)

// jaasEntry is one login module entry of a sasl.jaas.config value.
type jaasEntry struct {
	Module  string
	Flag    string // required, requisite, sufficient or optional
	Options map[string]string
}

// parseJAAS parses a sasl.jaas.config value the way Kafka's JaasConfig does:
// a java.io.StreamTokenizer with // and /* */ comments and '-', '_' and '$'
// as word characters, so that
//
//	<LoginModule> <flag> key=value key="quoted \"value\"" ... ;
//
// may repeat. Unquoted values must be words (a letter first); Kafka rejects
// unquoted numbers, and so does this. Errors never quote option values, nor
// an option name that is not a known one: a password written without its
// "password=" reads as a name.
func parseJAAS(s string) ([]jaasEntry, error) {
	t := &jaasTokenizer{s: []rune(s)}
	var out []jaasEntry
	for {
		tok := t.next()
		if tok.kind == tokEOF {
			break
		}
		if tok.kind != tokWord {
			return nil, errors.New("login module not specified")
		}
		e := jaasEntry{Module: tok.text, Options: map[string]string{}}
		tok = t.next()
		if tok.kind == tokEOF {
			return nil, errors.New("login module control flag not specified")
		}
		switch f := strings.ToLower(tok.text); {
		case tok.kind == tokWord && (f == "required" || f == "requisite" || f == "sufficient" || f == "optional"):
			e.Flag = f
		default:
			return nil, errors.New("invalid login module control flag (want required, requisite, sufficient or optional)")
		}
		for {
			tok = t.next()
			if tok.kind == tokEOF || (tok.kind == tokChar && tok.text == ";") {
				break
			}
			if tok.kind != tokWord && tok.kind != tokQuoted {
				return nil, fmt.Errorf("expected an option name, got %s", tok.describe())
			}
			key := tok.text
			if eq := t.next(); eq.kind != tokChar || eq.text != "=" {
				return nil, fmt.Errorf("value not specified for %s", optionName(key, len(e.Options)+1))
			}
			val := t.next()
			if val.kind != tokWord && val.kind != tokQuoted {
				return nil, fmt.Errorf("value not specified for %s (unquoted values must start with a letter; quote it)", optionName(key, len(e.Options)+1))
			}
			e.Options[key] = val.text
		}
		if tok.kind != tokChar || tok.text != ";" {
			return nil, errors.New("entry not terminated by a semicolon")
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("login module not specified")
	}
	return out, nil
}

// knownOptions are the option names of the login modules Kafka clients
// use; errors name only these.
var knownOptions = map[string]bool{
	"username": true, "password": true, "tokenauth": true,
	"useKeyTab": true, "keyTab": true, "storeKey": true, "principal": true, "serviceName": true,
	"useTicketCache": true, "debug": true, "unsecuredLoginStringClaim_sub": true,
}

// optionName names the n-th option of an entry for an error: by its name
// when it is a known one, else by its position only (the "name" may be a
// misplaced secret, e.g. a password written without "password=").
func optionName(key string, n int) string {
	if knownOptions[key] {
		return fmt.Sprintf("key %q", key)
	}
	return fmt.Sprintf("option %d (not a known option name, so not shown: it may be a misplaced value; write key=\"value\")", n)
}

// moduleName names a login module for an error: its class name when it
// looks like one (dotted, ending in LoginModule), else not at all (it may
// be a misplaced secret).
func moduleName(m string) string {
	if strings.Contains(m, ".") && strings.HasSuffix(m, "LoginModule") {
		return m
	}
	return "(not a login module class name, so not shown)"
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted
	tokNumber
	tokChar
)

type token struct {
	kind tokKind
	text string
}

// describe names a token without revealing quoted content.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of text"
	case tokNumber:
		return "a number"
	case tokChar:
		return fmt.Sprintf("%q", t.text)
	}
	return "a word"
}

// jaasTokenizer mimics java.io.StreamTokenizer as JaasConfig configures it.
type jaasTokenizer struct {
	s   []rune
	pos int
}

func (t *jaasTokenizer) peek() rune {
	if t.pos >= len(t.s) {
		return -1
	}
	return t.s[t.pos]
}

func (t *jaasTokenizer) read() rune {
	c := t.peek()
	if c >= 0 {
		t.pos++
	}
	return c
}

func isSpace(c rune) bool { return c >= 0 && c <= ' ' }
func isDigitish(c rune) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == '-'
}

// isAlpha is StreamTokenizer's default word characters plus JaasConfig's
// '-', '_' and '$'; characters above 255 count as letters.
func isAlpha(c rune) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 128+32 && c <= 255) || c > 255 ||
		c == '-' || c == '_' || c == '$'
}

func (t *jaasTokenizer) next() token {
	for {
		c := t.read()
		for isSpace(c) {
			c = t.read()
		}
		switch {
		case c < 0:
			return token{kind: tokEOF}
		case isDigitish(c):
			// Numbers come first in StreamTokenizer, so '-' only starts a
			// number or stands alone.
			if c == '-' {
				if n := t.peek(); n != '.' && (n < '0' || n > '9') {
					return token{kind: tokChar, text: "-"}
				}
			}
			seenDot := c == '.'
			for n := t.peek(); (n >= '0' && n <= '9') || (n == '.' && !seenDot); n = t.peek() {
				seenDot = seenDot || n == '.'
				t.read()
			}
			return token{kind: tokNumber}
		case isAlpha(c):
			start := t.pos - 1
			for n := t.peek(); n >= 0 && (isAlpha(n) || isDigitish(n)); n = t.peek() {
				t.read()
			}
			return token{kind: tokWord, text: string(t.s[start:t.pos])}
		case c == '"' || c == '\'':
			return token{kind: tokQuoted, text: t.quoted(c)}
		case c == '/':
			switch t.peek() {
			case '*':
				t.read()
				for {
					d := t.read()
					if d < 0 {
						return token{kind: tokEOF}
					}
					if d == '*' && t.peek() == '/' {
						t.read()
						break
					}
				}
				continue
			default:
				// "//" and a lone '/' (the default comment character)
				// both comment out the rest of the line.
				for d := t.peek(); d >= 0 && d != '\n' && d != '\r'; d = t.peek() {
					t.read()
				}
				continue
			}
		default:
			return token{kind: tokChar, text: string(c)}
		}
	}
}

// quoted reads a quoted string after its opening quote q, with
// StreamTokenizer's escapes. A newline or the end ends it, as in Java.
func (t *jaasTokenizer) quoted(q rune) string {
	var b strings.Builder
	for {
		c := t.peek()
		if c < 0 || c == '\n' || c == '\r' {
			return b.String()
		}
		t.read()
		if c == q {
			return b.String()
		}
		if c != '\\' {
			b.WriteRune(c)
			continue
		}
		c = t.read()
		switch c {
		case -1:
			return b.String()
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		default:
			if c >= '0' && c <= '7' {
				n := c - '0'
				max := 2
				if c > '3' {
					max = 1
				}
				for i := 0; i < max; i++ {
					d := t.peek()
					if d < '0' || d > '7' {
						break
					}
					t.read()
					n = n*8 + (d - '0')
				}
				b.WriteRune(n)
				continue
			}
			b.WriteRune(c)
		}
	}
}
