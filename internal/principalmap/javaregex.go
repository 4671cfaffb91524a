package principalmap

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file translates a java.util.regex pattern into Go's RE2 syntax, or
// refuses it. Kafka compiles the rules' patterns with Pattern.compile and
// evaluates them with Matcher.matches, replaceAll and replaceFirst. Go's
// regexp has the same leftmost-first (backtracking-preferred) semantics for
// the constructs both have, but the two languages spell some of them
// differently and Java has constructs RE2 cannot evaluate at all. The parser
// below follows java.util.regex.Pattern (JDK 17: expr, sequence, atom,
// closure, escape, clazz, range, group0) and emits a Go pattern in which
// every character and class is written out explicitly, so nothing depends
// on Go's reading of Java's spelling:
//
//   - translated exactly: literals and every Java escape of one character
//     (\t \n \r \f \a \e \0oct \xhh \x{h..} \uhhhh \cX, \ before a non-letter),
//     \Q...\E outside classes, character classes without nesting or
//     intersection, \d \D \s \S \w \W \h \H \v \V (ASCII as Java has them
//     without UNICODE_CHARACTER_CLASS: Java's \s has VT, Go's has not; Java's
//     \v is vertical whitespace, Go's is VT), '.' (Java excludes \n \r \u0085
//     \u2028 \u2029), ^ \A $ \Z \z, groups, named groups, alternation,
//     greedy and lazy quantifiers;
//   - refused, naming the construct: back references, lookahead and
//     lookbehind, atomic groups, possessive quantifiers, \b \B \G \R \X \N{}
//     \p{} \P{}, nested classes and && intersections, inline flags, counts
//     above RE2's 1000, and a repetition (other than ?) of something that can
//     match the empty string, where backtracking engines and RE2 are known to
//     capture differently;
//   - malformed as Java finds it (Kafka refuses the rule): dangling
//     quantifiers, unclosed groups and classes, bad escapes and ranges.
//
// Java's $ and \Z (without MULTILINE) also match before a line terminator at
// the very end of the input; RE2 has no such assertion. The translation uses
// \z and the evaluator refuses an input that ends with a line terminator
// when the pattern has $ or \Z (javaRegex.dollar).

// errUnsupported marks a construct Java accepts and Go cannot evaluate the
// same way; errMalformed a pattern Java itself refuses.
var (
	errUnsupported = errors.New("not supported")
	errMalformed   = errors.New("malformed")
)

// patternError is a refusal of one pattern, with the offending construct.
type patternError struct {
	kind error // errUnsupported or errMalformed
	msg  string
	pos  int // rune index in the pattern
}

func (e *patternError) Error() string {
	if e.kind == errUnsupported {
		return fmt.Sprintf("%s (at character %d): Java accepts it, but it cannot be evaluated exactly as Java does; rewrite the pattern without it", e.msg, e.pos+1)
	}
	return fmt.Sprintf("%s (at character %d): Java refuses the pattern, so Kafka refuses the rule", e.msg, e.pos+1)
}

func (e *patternError) Unwrap() error { return e.kind }

// javaRegex is a compiled Java pattern.
type javaRegex struct {
	source string
	groups int            // capturing groups
	names  map[string]int // named groups
	// whole matches the whole input (Matcher.matches); first finds from the
	// start of the input; rest finds in a suffix of it, where ^ and \A can
	// never match (Java's Begin matches only at the region's start).
	whole, first, rest *regexp.Regexp
	dollar             bool // has $ or \Z
	nullable           bool // can match the empty string
}

// maxRepeat is RE2's largest counted repetition.
const maxRepeat = 1000

type nodeOp int

const (
	opLit     nodeOp = iota // rune r
	opClass                 // ranges
	opBegin                 // ^ \A
	opEnd                   // $ \Z (Java's Dollar)
	opEndText               // \z
	opGroup                 // capture (name) or not
	opConcat
	opAlt
	opRepeat
)

type node struct {
	op       nodeOp
	r        rune
	ranges   []rune // pairs lo, hi, sorted and disjoint
	capture  bool
	name     string
	subs     []*node
	min, max int // max -1: unbounded
	lazy     bool
}

type jparser struct {
	p      []rune
	pos    int
	groups int
	names  map[string]int
	dollar bool
	depth  int
}

const eof = -1

func (p *jparser) peek() rune {
	if p.pos < len(p.p) {
		return p.p[p.pos]
	}
	return eof
}

func (p *jparser) at(i int) rune {
	if i < len(p.p) {
		return p.p[i]
	}
	return eof
}

func (p *jparser) unsupported(pos int, format string, args ...any) error {
	return &patternError{kind: errUnsupported, msg: fmt.Sprintf(format, args...), pos: pos}
}

func (p *jparser) malformed(pos int, format string, args ...any) error {
	return &patternError{kind: errMalformed, msg: fmt.Sprintf(format, args...), pos: pos}
}

// compileJava translates and compiles a Java pattern.
func compileJava(pattern string) (*javaRegex, error) {
	if !utf8.ValidString(pattern) {
		return nil, &patternError{kind: errUnsupported, msg: "invalid UTF-8"}
	}
	p := &jparser{p: []rune(pattern), names: map[string]int{}}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.p) {
		if p.peek() == ')' {
			return nil, p.malformed(p.pos, "unmatched closing ')'")
		}
		return nil, p.malformed(p.pos, "unexpected %q", p.peek())
	}
	if err := checkRepeats(n); err != nil {
		return nil, err
	}
	var b strings.Builder
	emit(&b, n, false)
	body := b.String()
	b.Reset()
	emit(&b, n, true)
	rest := b.String()
	jr := &javaRegex{source: pattern, groups: p.groups, names: p.names, dollar: p.dollar, nullable: nullable(n)}
	for _, c := range []struct {
		re  **regexp.Regexp
		src string
	}{{&jr.whole, `\A(?:` + body + `)\z`}, {&jr.first, body}, {&jr.rest, rest}} {
		re, err := regexp.Compile(c.src)
		if err != nil {
			return nil, &patternError{kind: errUnsupported, msg: "Go's regexp cannot hold it: " + err.Error()}
		}
		*c.re = re
	}
	if jr.whole.NumSubexp() != p.groups {
		return nil, &patternError{kind: errUnsupported, msg: "group count differs after translation"}
	}
	return jr, nil
}

// expr is Pattern.expr: alternatives separated by '|'.
func (p *jparser) expr() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 500 {
		return nil, p.unsupported(p.pos, "groups nested more than 500 deep")
	}
	var alts []*node
	for {
		s, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alts = append(alts, s)
		if p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{op: opAlt, subs: alts}, nil
}

// sequence is Pattern.sequence: atoms with their quantifiers up to '|', ')'
// or the end.
func (p *jparser) sequence() (*node, error) {
	seq := &node{op: opConcat}
	for {
		start := p.pos
		ch := p.peek()
		var n *node
		switch ch {
		case eof, '|', ')':
			return seq, nil
		case '(':
			g, err := p.group()
			if err != nil {
				return nil, err
			}
			n = g
		case '[':
			p.pos++
			ranges, err := p.class()
			if err != nil {
				return nil, err
			}
			n = &node{op: opClass, ranges: ranges}
		case '^':
			p.pos++
			n = &node{op: opBegin}
		case '$':
			p.pos++
			p.dollar = true
			n = &node{op: opEnd}
		case '.':
			p.pos++
			n = &node{op: opClass, ranges: negate(dotExcluded)}
		case '?', '*', '+':
			return nil, p.malformed(p.pos, "dangling meta character %q", ch)
		case '{':
			// Java repeats an empty atom here ("{2}" compiles), or finds an
			// illegal repetition.
			if _, _, _, ok := p.counted(p.pos); ok {
				return nil, p.unsupported(p.pos, "a counted repetition of nothing")
			}
			return nil, p.malformed(p.pos, "illegal repetition")
		case '\\':
			if p.at(p.pos+1) == 'Q' {
				p.pos += 2
				quoted := p.quote()
				if len(quoted) == 0 {
					if strings.ContainsRune("?*+{", p.peek()) {
						// Java removes the empty quotation before parsing, so
						// the quantifier applies to what came before it.
						return nil, p.unsupported(start, "an empty \\Q\\E before a quantifier")
					}
					continue
				}
				// A quantifier after \Q...\E applies to its last character.
				for _, r := range quoted[:len(quoted)-1] {
					seq.subs = append(seq.subs, &node{op: opLit, r: r})
				}
				n = &node{op: opLit, r: quoted[len(quoted)-1]}
				break
			}
			e, err := p.escapeOutside()
			if err != nil {
				return nil, err
			}
			n = e
		default:
			p.pos++
			n = &node{op: opLit, r: ch}
		}
		q, err := p.closure(n)
		if err != nil {
			return nil, err
		}
		seq.subs = append(seq.subs, q)
	}
}

// quote reads the rest of a \Q...\E quotation (after \Q) as literal
// characters, as Pattern.RemoveQEQuoting does.
func (p *jparser) quote() []rune {
	var out []rune
	for p.pos < len(p.p) {
		c := p.p[p.pos]
		if c == '\\' && p.at(p.pos+1) == 'E' {
			p.pos += 2
			return out
		}
		out = append(out, c)
		p.pos++
	}
	return out
}

// counted parses {n}, {n,} or {n,m} at i: min, max (-1 unbounded), the index
// after '}', and whether it is one.
func (p *jparser) counted(i int) (lo, hi, end int, ok bool) {
	if p.at(i) != '{' {
		return 0, 0, 0, false
	}
	i++
	num := func() (int, bool) {
		start := i
		v := 0
		for p.at(i) >= '0' && p.at(i) <= '9' {
			v = v*10 + int(p.at(i)-'0')
			if v > 1<<31-1 {
				v = 1<<31 - 1 // Java's int overflows: an illegal range, below
			}
			i++
		}
		return v, i > start
	}
	lo, ok = num()
	if !ok {
		return 0, 0, 0, false
	}
	hi = lo
	if p.at(i) == ',' {
		i++
		if p.at(i) == '}' {
			hi = -1
		} else {
			hi, _ = num()
		}
	}
	if p.at(i) != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, i + 1, true
}

// closure is Pattern.closure: a quantifier after n, if any.
func (p *jparser) closure(n *node) (*node, error) {
	var lo, hi int
	switch p.peek() {
	case '?':
		lo, hi = 0, 1
		p.pos++
	case '*':
		lo, hi = 0, -1
		p.pos++
	case '+':
		lo, hi = 1, -1
		p.pos++
	case '{':
		at := p.pos
		l, h, end, ok := p.counted(p.pos)
		if !ok {
			if d := p.at(p.pos + 1); d < '0' || d > '9' {
				return nil, p.malformed(at, "illegal repetition")
			}
			return nil, p.malformed(at, "unclosed counted closure")
		}
		if l == 1<<31-1 || h == 1<<31-1 || (h >= 0 && h < l) {
			return nil, p.malformed(at, "illegal repetition range")
		}
		if l > maxRepeat || h > maxRepeat {
			return nil, p.unsupported(at, "a repetition count above %d", maxRepeat)
		}
		lo, hi = l, h
		p.pos = end
	default:
		return n, nil
	}
	lazy := false
	switch p.peek() {
	case '?':
		lazy = true
		p.pos++
	case '+':
		return nil, p.unsupported(p.pos, "a possessive quantifier")
	}
	return &node{op: opRepeat, subs: []*node{n}, min: lo, max: hi, lazy: lazy}, nil
}

// group is Pattern.group0 for the group kinds Go can evaluate.
func (p *jparser) group() (*node, error) {
	at := p.pos
	p.pos++ // (
	g := &node{op: opGroup}
	if p.peek() == '?' {
		p.pos++
		switch c := p.peek(); c {
		case ':':
			p.pos++
		case '=', '!':
			return nil, p.unsupported(at, "a lookahead (?%c", c)
		case '>':
			return nil, p.unsupported(at, "an atomic group (?>")
		case '<':
			p.pos++
			c2 := p.peek()
			if c2 == '=' || c2 == '!' {
				return nil, p.unsupported(at, "a lookbehind (?<%c", c2)
			}
			name, err := p.groupName()
			if err != nil {
				return nil, err
			}
			if _, dup := p.names[name]; dup {
				return nil, p.malformed(at, "named capturing group <%s> is already defined", name)
			}
			p.groups++
			p.names[name] = p.groups
			g.capture, g.name = true, name
		case '$', '@':
			return nil, p.malformed(at, "unknown group type")
		default:
			return nil, p.unsupported(at, "an inline flag group (?%s; write the cases out instead, as [Cc][Nn]", string(p.p[p.pos:min(p.pos+3, len(p.p))]))
		}
	} else {
		p.groups++
		g.capture = true
	}
	sub, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek() != ')' {
		return nil, p.malformed(at, "unclosed group")
	}
	p.pos++
	g.subs = []*node{sub}
	return g, nil
}

// groupName is Pattern.groupname: an ASCII letter, then ASCII letters and
// digits, then '>'.
func (p *jparser) groupName() (string, error) {
	start := p.pos
	isAlpha := func(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	if !isAlpha(p.peek()) {
		return "", p.malformed(p.pos, "capturing group name does not start with a Latin letter")
	}
	for c := p.peek(); isAlpha(c) || c >= '0' && c <= '9'; c = p.peek() {
		p.pos++
	}
	if p.peek() != '>' {
		return "", p.malformed(p.pos, "named capturing group is missing trailing '>'")
	}
	name := string(p.p[start:p.pos])
	p.pos++
	return name, nil
}

// escapeOutside is an escape outside a class (Pattern.escape with
// inclass false, or \p/\P).
func (p *jparser) escapeOutside() (*node, error) {
	at := p.pos
	p.pos++ // backslash
	c := p.peek()
	switch c {
	case eof:
		return nil, p.malformed(at, "a trailing backslash")
	case 'p', 'P':
		return nil, p.unsupported(at, "a Unicode property \\%c", c)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9', 'k':
		return nil, p.unsupported(at, "a back reference \\%c", c)
	case 'b', 'B':
		return nil, p.unsupported(at, "a word boundary \\%c (Java's follows Unicode letters, Go's ASCII)", c)
	case 'G', 'R', 'X', 'N':
		return nil, p.unsupported(at, "\\%c", c)
	case 'A':
		p.pos++
		return &node{op: opBegin}, nil
	case 'Z':
		p.pos++
		p.dollar = true
		return &node{op: opEnd}, nil
	case 'z':
		p.pos++
		return &node{op: opEndText}, nil
	}
	r, set, err := p.escape(false, false)
	if err != nil {
		return nil, err
	}
	if set != nil {
		return &node{op: opClass, ranges: set}, nil
	}
	return &node{op: opLit, r: r}, nil
}

// escape reads one escape (p.pos at the letter after the backslash) that
// stands for a character (returned) or a predefined class (set). inclass
// and isrange are Pattern.escape's parameters.
func (p *jparser) escape(inclass, isrange bool) (rune, []rune, error) {
	at := p.pos - 1
	c := p.peek()
	p.pos++
	switch c {
	case '0':
		return p.octal(at)
	case 'a':
		return 7, nil, nil
	case 'e':
		return 033, nil, nil
	case 'f':
		return '\f', nil, nil
	case 'n':
		return '\n', nil, nil
	case 'r':
		return '\r', nil, nil
	case 't':
		return '\t', nil, nil
	case 'c':
		if p.pos >= len(p.p) {
			return 0, nil, p.malformed(at, "illegal control escape sequence")
		}
		r := p.p[p.pos] ^ 64
		p.pos++
		return r, nil, nil
	case 'x':
		return p.hex(at)
	case 'u':
		return p.unicode(at)
	case 'd':
		return 0, asciiDigit, nil
	case 'D':
		return 0, negate(asciiDigit), nil
	case 's':
		return 0, asciiSpace, nil
	case 'S':
		return 0, negate(asciiSpace), nil
	case 'w':
		return 0, asciiWord, nil
	case 'W':
		return 0, negate(asciiWord), nil
	case 'h':
		return 0, horizWS, nil
	case 'H':
		return 0, negate(horizWS), nil
	case 'v':
		if isrange {
			return 013, nil, nil
		}
		return 0, vertWS, nil
	case 'V':
		return 0, negate(vertWS), nil
	case 'p', 'P':
		return 0, nil, p.unsupported(at, "a Unicode property \\%c", c)
	case 'Q':
		return 0, nil, p.unsupported(at, "\\Q inside a character class")
	case 'N':
		return 0, nil, p.unsupported(at, "\\N{name}")
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		if inclass {
			return 0, nil, p.malformed(at, "illegal/unsupported escape sequence \\%c in a class", c)
		}
		return 0, nil, p.malformed(at, "illegal/unsupported escape sequence \\%c", c)
	}
	if c == eof {
		return 0, nil, p.malformed(at, "a trailing backslash")
	}
	return c, nil, nil // any other character stands for itself
}

// octal is Pattern.o: \0n, \0nn, \0mnn (m ≤ 3).
func (p *jparser) octal(at int) (rune, []rune, error) {
	isOct := func(c rune) bool { return c >= '0' && c <= '7' }
	n := p.peek()
	if !isOct(n) {
		return 0, nil, p.malformed(at, "illegal octal escape sequence")
	}
	p.pos++
	m := p.peek()
	if !isOct(m) {
		return n - '0', nil, nil
	}
	p.pos++
	o := p.peek()
	if isOct(o) && n <= '3' {
		p.pos++
		return (n-'0')*64 + (m-'0')*8 + (o - '0'), nil, nil
	}
	return (n-'0')*8 + (m - '0'), nil, nil
}

func hexVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hex is Pattern.x: \xhh or \x{h...}.
func (p *jparser) hex(at int) (rune, []rune, error) {
	if hexVal(p.peek()) >= 0 {
		if hexVal(p.at(p.pos+1)) < 0 {
			return 0, nil, p.malformed(at, "illegal hexadecimal escape sequence")
		}
		r := rune(hexVal(p.peek())*16 + hexVal(p.at(p.pos+1)))
		p.pos += 2
		return r, nil, nil
	}
	if p.peek() == '{' && hexVal(p.at(p.pos+1)) >= 0 {
		p.pos++
		v := 0
		for hexVal(p.peek()) >= 0 {
			v = v<<4 + hexVal(p.peek())
			p.pos++
			if v > utf8.MaxRune {
				return 0, nil, p.malformed(at, "hexadecimal codepoint is too big")
			}
		}
		if p.peek() != '}' {
			return 0, nil, p.malformed(at, "unclosed hexadecimal escape sequence")
		}
		p.pos++
		if v >= 0xD800 && v <= 0xDFFF {
			return 0, nil, p.unsupported(at, "a surrogate code unit")
		}
		return rune(v), nil, nil
	}
	return 0, nil, p.malformed(at, "illegal hexadecimal escape sequence")
}

// unicode is Pattern.u: \uhhhh, a surrogate pair of two of them making one
// code point.
func (p *jparser) unicode(at int) (rune, []rune, error) {
	four := func() (int, bool) {
		v := 0
		for i := 0; i < 4; i++ {
			h := hexVal(p.peek())
			if h < 0 {
				return 0, false
			}
			v = v*16 + h
			p.pos++
		}
		return v, true
	}
	v, ok := four()
	if !ok {
		return 0, nil, p.malformed(at, "illegal Unicode escape sequence")
	}
	if v >= 0xD800 && v <= 0xDBFF {
		save := p.pos
		if p.peek() == '\\' && p.at(p.pos+1) == 'u' {
			p.pos += 2
			if lo, ok := four(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return rune((v-0xD800)<<10 + (lo - 0xDC00) + 0x10000), nil, nil
			}
		}
		p.pos = save
	}
	if v >= 0xD800 && v <= 0xDFFF {
		return 0, nil, p.unsupported(at, "a lone surrogate \\u%04X", v)
	}
	return rune(v), nil, nil
}

// class is Pattern.clazz after '[': a union of characters, ranges and
// predefined classes, negated by a leading '^'.
func (p *jparser) class() ([]rune, error) {
	at := p.pos - 1
	neg := false
	if p.peek() == '^' {
		neg = true
		p.pos++
	}
	var set []rune
	any := false
	for {
		c := p.peek()
		switch {
		case c == eof:
			return nil, p.malformed(at, "unclosed character class")
		case c == '[':
			return nil, p.unsupported(p.pos, "a nested character class")
		case c == '&' && p.at(p.pos+1) == '&':
			return nil, p.unsupported(p.pos, "a class intersection &&")
		case c == ']' && any:
			p.pos++
			if neg {
				return negate(set), nil
			}
			return set, nil
		}
		// Pattern.range: one character, a range, or a predefined class.
		var lo rune
		if c == '\\' {
			isrange := p.at(p.pos+2) == '-'
			p.pos++
			r, pre, err := p.escape(true, isrange)
			if err != nil {
				return nil, err
			}
			if pre != nil {
				set = union(set, pre)
				any = true
				continue
			}
			lo = r
		} else {
			lo = c
			p.pos++
		}
		hi := lo
		if p.peek() == '-' {
			end := p.at(p.pos + 1)
			if end != '[' && end != ']' {
				dash := p.pos
				p.pos++
				if p.peek() == eof {
					return nil, p.malformed(at, "unclosed character class")
				}
				if p.peek() == '\\' {
					p.pos++
					r, pre, err := p.escape(true, true)
					if err != nil {
						return nil, err
					}
					if pre != nil {
						return nil, p.malformed(dash, "illegal character range")
					}
					hi = r
				} else {
					hi = p.peek()
					p.pos++
				}
				if hi < lo {
					return nil, p.malformed(dash, "illegal character range")
				}
			}
		}
		set = union(set, []rune{lo, hi})
		any = true
	}
}

// checkRepeats refuses a repetition that may run more than once over
// something that can match the empty string.
func checkRepeats(n *node) error {
	for _, s := range n.subs {
		if err := checkRepeats(s); err != nil {
			return err
		}
	}
	if n.op == opRepeat && (n.max > 1 || n.max < 0) && nullable(n.subs[0]) {
		return &patternError{kind: errUnsupported, msg: "a repetition of something that can match the empty string (as (a*)* or (x|)+), which backtracking engines and RE2 capture differently"}
	}
	return nil
}

// nullable reports whether n can match the empty string.
func nullable(n *node) bool {
	switch n.op {
	case opLit, opClass:
		return false
	case opBegin, opEnd, opEndText:
		return true
	case opGroup:
		return nullable(n.subs[0])
	case opConcat:
		for _, s := range n.subs {
			if !nullable(s) {
				return false
			}
		}
		return true
	case opAlt:
		for _, s := range n.subs {
			if nullable(s) {
				return true
			}
		}
		return false
	case opRepeat:
		return n.min == 0 || nullable(n.subs[0])
	}
	return false
}

// emit writes n in Go syntax; inRest makes ^ and \A never match (a search
// that does not start at the input's start).
func emit(b *strings.Builder, n *node, inRest bool) {
	switch n.op {
	case opLit:
		emitRune(b, n.r)
	case opClass:
		if len(n.ranges) == 0 {
			b.WriteString(`[^\x{0}-\x{10FFFF}]`)
			return
		}
		b.WriteByte('[')
		for i := 0; i < len(n.ranges); i += 2 {
			emitRune(b, n.ranges[i])
			if n.ranges[i+1] != n.ranges[i] {
				b.WriteByte('-')
				emitRune(b, n.ranges[i+1])
			}
		}
		b.WriteByte(']')
	case opBegin:
		if inRest {
			b.WriteString(`[^\x{0}-\x{10FFFF}]`)
		} else {
			b.WriteString(`\A`)
		}
	case opEnd, opEndText:
		b.WriteString(`\z`)
	case opGroup:
		switch {
		case n.name != "":
			b.WriteString("(?P<" + n.name + ">")
		case n.capture:
			b.WriteString("(")
		default:
			b.WriteString("(?:")
		}
		emit(b, n.subs[0], inRest)
		b.WriteByte(')')
	case opConcat:
		b.WriteString("(?:")
		for _, s := range n.subs {
			emit(b, s, inRest)
		}
		b.WriteByte(')')
	case opAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			emit(b, s, inRest)
		}
		b.WriteByte(')')
	case opRepeat:
		b.WriteString("(?:")
		emit(b, n.subs[0], inRest)
		b.WriteByte(')')
		switch {
		case n.min == 0 && n.max == 1:
			b.WriteByte('?')
		case n.min == 0 && n.max < 0:
			b.WriteByte('*')
		case n.min == 1 && n.max < 0:
			b.WriteByte('+')
		case n.max < 0:
			fmt.Fprintf(b, "{%d,}", n.min)
		case n.min == n.max:
			fmt.Fprintf(b, "{%d}", n.min)
		default:
			fmt.Fprintf(b, "{%d,%d}", n.min, n.max)
		}
		if n.lazy {
			b.WriteByte('?')
		}
	}
}

// emitRune writes one character so that Go reads exactly it.
func emitRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
}

// Java's predefined classes without UNICODE_CHARACTER_CLASS, as range pairs.
var (
	asciiDigit  = []rune{'0', '9'}
	asciiSpace  = []rune{'\t', '\r', ' ', ' '}                   // \t \n \x0B \f \r and space
	asciiWord   = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'} // [a-zA-Z_0-9]
	horizWS     = []rune{'\t', '\t', ' ', ' ', 0xa0, 0xa0, 0x1680, 0x1680, 0x180e, 0x180e, 0x2000, 0x200a, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000}
	vertWS      = []rune{'\n', '\r', 0x85, 0x85, 0x2028, 0x2029}
	dotExcluded = []rune{'\n', '\n', '\r', '\r', 0x85, 0x85, 0x2028, 0x2029}
)

// union returns the union of two sorted range lists.
func union(a, b []rune) []rune {
	all := append(append([]rune(nil), a...), b...)
	// insertion sort of pairs by lo (class lists are short)
	for i := 2; i < len(all); i += 2 {
		for j := i; j >= 2 && all[j] < all[j-2]; j -= 2 {
			all[j], all[j-2] = all[j-2], all[j]
			all[j+1], all[j-1] = all[j-1], all[j+1]
		}
	}
	var out []rune
	for i := 0; i < len(all); i += 2 {
		lo, hi := all[i], all[i+1]
		if n := len(out); n > 0 && lo <= out[n-1]+1 {
			if hi > out[n-1] {
				out[n-1] = hi
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// negate returns the complement of a sorted range list over all code
// points.
func negate(a []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i < len(a); i += 2 {
		if a[i] > next {
			out = append(out, next, a[i]-1)
		}
		next = a[i+1] + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, next, utf8.MaxRune)
	}
	return out
}
