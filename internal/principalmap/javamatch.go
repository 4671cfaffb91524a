package principalmap

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file evaluates a translated pattern as java.util.regex.Matcher does
// (matches, find, replaceAll, replaceFirst, appendReplacement), over the
// inputs where that can be done exactly.

// javaError is an exception Kafka's code would throw while building a
// principal (the authentication fails); Class is the Java exception's simple
// name.
type javaError struct {
	Class string
	Msg   string
}

func (e *javaError) Error() string { return e.Class + ": " + e.Msg }

// inputError refuses an input the translation cannot evaluate as Java would.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// isLineTerminator is Java's line terminator set (without UNIX_LINES).
func isLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// checkInput refuses what the translation does not evaluate as Java does:
// invalid UTF-8 (Java strings are UTF-16), characters outside the Basic
// Multilingual Plane (Java steps through surrogate pairs one char at a time
// after an empty match), and, for patterns with $ or \Z, a line terminator
// at the very end (where Java's $ matches too).
func (j *javaRegex) checkInput(s string) error {
	if err := checkText(s); err != nil {
		return err
	}
	if j.dollar && s != "" {
		if r, _ := utf8.DecodeLastRuneInString(s); isLineTerminator(r) {
			return &inputError{fmt.Sprintf("%q ends with a line terminator, where Java's $ in %q also matches; not evaluated", s, j.source)}
		}
	}
	return nil
}

// checkText refuses text that is not valid UTF-8 or has characters beyond
// U+FFFF.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return &inputError{fmt.Sprintf("%q is not valid UTF-8", s)}
	}
	for _, r := range s {
		if r > 0xFFFF {
			return &inputError{fmt.Sprintf("%q has a character beyond U+FFFF (%U), which Java holds as two chars; not evaluated", s, r)}
		}
	}
	return nil
}

// matches is Matcher.matches: the whole input matches.
func (j *javaRegex) matches(s string) bool { return j.whole.MatchString(s) }

// find is Matcher.search(from): the first match at or after byte offset
// from, as submatch byte offsets into s (-1 for groups that did not take
// part), or nil.
func (j *javaRegex) find(s string, from int) []int {
	re := j.first
	if from > 0 {
		re = j.rest
	}
	loc := re.FindStringSubmatchIndex(s[from:])
	if loc == nil {
		return nil
	}
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += from
		}
	}
	return loc
}

// findAll calls each for every match Matcher.find returns in turn: after a
// match ending at e, the next search starts at e, or one character after an
// empty match (Java keeps an empty match right after another match, which
// Go's FindAll drops: "(.*)" matches "abc" twice). It stops when each
// returns an error.
func (j *javaRegex) findAll(s string, each func(loc []int) error) error {
	from := 0
	for {
		loc := j.find(s, from)
		if loc == nil {
			return nil
		}
		if err := each(loc); err != nil {
			return err
		}
		from = loc[1]
		if loc[1] == loc[0] {
			if from >= len(s) {
				return nil
			}
			_, w := utf8.DecodeRuneInString(s[from:])
			from += w
		}
	}
}

// replace is Matcher.replaceAll (all) or replaceFirst, with Java's
// replacement syntax ($n, ${name}, \x).
func (j *javaRegex) replace(s, repl string, all bool) (string, error) {
	var b strings.Builder
	appendPos := 0
	stop := fmt.Errorf("stop")
	err := j.findAll(s, func(loc []int) error {
		b.WriteString(s[appendPos:loc[0]])
		if err := j.expand(&b, s, repl, loc); err != nil {
			return err
		}
		appendPos = loc[1]
		if !all {
			return stop
		}
		return nil
	})
	if err != nil && err != stop {
		return "", err
	}
	b.WriteString(s[appendPos:])
	return b.String(), nil
}

// expand is Matcher.appendExpandedReplacement.
func (j *javaRegex) expand(b *strings.Builder, s, repl string, loc []int) error {
	r := []rune(repl)
	isDigit := func(c rune) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(r); {
		c := r[i]
		switch c {
		case '\\':
			i++
			if i == len(r) {
				return &javaError{"IllegalArgumentException", "character to be escaped is missing"}
			}
			b.WriteRune(r[i])
			i++
		case '$':
			i++
			if i == len(r) {
				return &javaError{"IllegalArgumentException", "Illegal group reference: group index is missing"}
			}
			var ref int
			if r[i] == '{' {
				i++
				begin := i
				for i < len(r) && (r[i] >= 'a' && r[i] <= 'z' || r[i] >= 'A' && r[i] <= 'Z' || isDigit(r[i])) {
					i++
				}
				if begin == i {
					return &javaError{"IllegalArgumentException", "named capturing group has 0 length name"}
				}
				if i == len(r) || r[i] != '}' {
					return &javaError{"IllegalArgumentException", "named capturing group is missing trailing '}'"}
				}
				name := string(r[begin:i])
				if isDigit(r[begin]) {
					return &javaError{"IllegalArgumentException", "capturing group name {" + name + "} starts with digit character"}
				}
				n, ok := j.names[name]
				if !ok {
					return &javaError{"IllegalArgumentException", "No group with name {" + name + "}"}
				}
				ref = n
				i++
			} else {
				if !isDigit(r[i]) {
					return &javaError{"IllegalArgumentException", "Illegal group reference"}
				}
				ref = int(r[i] - '0')
				i++
				for i < len(r) && isDigit(r[i]) {
					next := ref*10 + int(r[i]-'0')
					if j.groups < next {
						break
					}
					ref = next
					i++
				}
			}
			if ref > j.groups {
				return &javaError{"IndexOutOfBoundsException", "No group " + strconv.Itoa(ref)}
			}
			if loc[2*ref] >= 0 && loc[2*ref+1] >= 0 {
				b.WriteString(s[loc[2*ref]:loc[2*ref+1]])
			}
		default:
			b.WriteRune(c)
			i++
		}
	}
	return nil
}
