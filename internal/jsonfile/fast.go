package jsonfile

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Decoders made for one element type, for the elements Encode writes most
// (a topic with its partitions, an ACL): without encoding/json's generality
// they decode such an element several times faster. Each takes only the
// plain form of a value, where its result is plainly the one json.Unmarshal
// gives: object keys spelt exactly as a field's name, each at most once;
// strings of valid UTF-8 (escapes are left to json.Unmarshal); integers
// without fraction or exponent that fit their type; no null. On anything
// else it gives up (returns false) and Decode decodes the element again
// with json.Unmarshal. Types with their own UnmarshalJSON or UnmarshalText,
// maps, interfaces, floats and []byte have no decoder: an element holding a
// value of such a type is decoded by json.Unmarshal.

// decodeFunc decodes the value at l.i into v (settable, and zero) and moves
// l.i past it; false when the value is not in the plain form.
type decodeFunc func(l *lexer, v reflect.Value) bool

// lexer reads the plain form of one element.
type lexer struct {
	b []byte
	i int
	// strs holds short strings already made, so that the many equal ones
	// ("Topic", "LITERAL", "Allow") share their bytes.
	strs map[string]string
	done bool // next read the closing byte
	// short: a read needed a byte past the end of b (a value cut short
	// there may be whole in more of the stream).
	short bool
}

var decoders sync.Map // reflect.Type -> decodeFunc (nil: none)

// decoderFor returns the decoder made for t, or nil.
func decoderFor(t reflect.Type) decodeFunc {
	if d, ok := decoders.Load(t); ok {
		return d.(decodeFunc)
	}
	d := compile(t, map[reflect.Type]bool{})
	decoders.Store(t, d)
	return d
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	int32s          = reflect.TypeFor[[]int32]()
)

// compile makes the decoder for t; nil when t has none. seen holds the
// struct types being compiled (a recursive type has none).
func compile(t reflect.Type, seen map[reflect.Type]bool) decodeFunc {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(jsonUnmarshaler) || u.Implements(textUnmarshaler) {
			return nil
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(l *lexer, v reflect.Value) bool {
			s, ok := l.str()
			if ok {
				v.SetString(s)
			}
			return ok
		}
	case reflect.Bool:
		return func(l *lexer, v reflect.Value) bool {
			switch {
			case l.lit("true"):
				v.SetBool(true)
			case l.lit("false"):
			default:
				return false
			}
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return func(l *lexer, v reflect.Value) bool {
			n, ok := l.int(bits)
			if ok {
				v.SetInt(n)
			}
			return ok
		}
	case reflect.Pointer:
		el := compile(t.Elem(), seen)
		if el == nil {
			return nil
		}
		return func(l *lexer, v reflect.Value) bool {
			if l.i < len(l.b) && l.b[l.i] == 'n' {
				return false // null
			}
			p := reflect.New(t.Elem())
			if !el(l, p.Elem()) {
				return false
			}
			v.Set(p)
			return true
		}
	case reflect.Slice:
		if t == int32s {
			return decodeInt32s
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64
		}
		el := compile(t.Elem(), seen)
		if el == nil {
			return nil
		}
		return func(l *lexer, v reflect.Value) bool {
			if !l.byte('[') {
				return false
			}
			if l.ws(); l.byte(']') {
				v.Set(reflect.MakeSlice(t, 0, 0)) // [] is empty, not nil
				return true
			}
			for i := 0; ; i++ {
				if i == v.Cap() {
					v.Grow(max(2, v.Cap()))
				}
				v.SetLen(i + 1)
				if !el(l, v.Index(i)) {
					return false
				}
				if !l.next(']') {
					return l.done
				}
			}
		}
	case reflect.Struct:
		return compileStruct(t, seen)
	}
	return nil
}

// structField is a member of a struct decoder: the field's index and its
// value's decoder (nil: none, the element is left to json.Unmarshal).
type structField struct {
	name  string
	index int
	dec   decodeFunc
}

func compileStruct(t reflect.Type, seen map[reflect.Type]bool) decodeFunc {
	if seen[t] {
		return nil
	}
	seen[t] = true
	defer delete(seen, t)
	var fs []structField
	names := map[string]bool{}
	for _, f := range fieldsOf(t) {
		if f.err != nil || names[f.name] || !validTag(f.name) {
			return nil
		}
		names[f.name] = true
		fs = append(fs, structField{name: f.name, index: f.index, dec: compile(t.Field(f.index).Type, seen)})
	}
	if len(fs) > 64 {
		return nil
	}
	return func(l *lexer, v reflect.Value) bool {
		if !l.byte('{') {
			return false
		}
		if l.ws(); l.byte('}') {
			return true
		}
		var got uint64 // the fields seen: a second one is json.Unmarshal's to merge
		for {
			key, ok := l.key()
			if !ok {
				return false
			}
			k := -1
			for i := range fs {
				if fs[i].name == string(key) { // compared in place, not copied
					k = i
					break
				}
			}
			if k < 0 || got&(1<<k) != 0 || fs[k].dec == nil {
				return false
			}
			got |= 1 << k
			l.ws()
			if !l.byte(':') {
				return false
			}
			l.ws()
			if !fs[k].dec(l, v.Field(fs[k].index)) {
				return false
			}
			if !l.next('}') {
				return l.done
			}
		}
	}
}

// validTag is encoding/json's test of a tag's name (it uses the field's
// name instead of an invalid one).
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// decodeInt32s decodes a replica list into a slice of its exact length.
func decodeInt32s(l *lexer, v reflect.Value) bool {
	if !l.byte('[') {
		return false
	}
	var buf [16]int32
	out := buf[:0]
	if l.ws(); !l.byte(']') {
		for {
			n, ok := l.int(32)
			if !ok {
				return false
			}
			out = append(out, int32(n))
			if !l.next(']') {
				if !l.done {
					return false
				}
				break
			}
		}
	}
	*v.Addr().Interface().(*[]int32) = append(make([]int32, 0, len(out)), out...)
	return true
}

// next reads what follows a member or element: a comma (then true, with the
// whitespace after it read) or the closing byte end (false, done set);
// anything else is false with done unset.
func (l *lexer) next(end byte) bool {
	l.ws()
	l.done = false
	if l.i >= len(l.b) {
		l.short = true
	} else {
		switch l.b[l.i] {
		case ',':
			l.i++
			l.ws()
			return true
		case end:
			l.i++
			l.done = true
		}
	}
	return false
}

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// byte reads c if it is next.
func (l *lexer) byte(c byte) bool {
	if l.i < len(l.b) && l.b[l.i] == c {
		l.i++
		return true
	}
	l.short = l.short || l.i >= len(l.b)
	return false
}

// lit reads the literal s if it is next.
func (l *lexer) lit(s string) bool {
	if len(l.b)-l.i >= len(s) && string(l.b[l.i:l.i+len(s)]) == s {
		l.i += len(s)
		return true
	}
	l.short = l.short || len(l.b)-l.i < len(s)
	return false
}

// key reads an object key of printable ASCII without escapes; the bytes
// are l.b's.
func (l *lexer) key() ([]byte, bool) {
	if !l.byte('"') {
		return nil, false
	}
	start := l.i
	for ; l.i < len(l.b); l.i++ {
		switch c := l.b[l.i]; {
		case c == '"':
			l.i++
			return l.b[start : l.i-1], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
	}
	l.short = true
	return nil, false
}

// str reads a string. One with escapes, or with bytes that are not UTF-8,
// is decoded by json.Unmarshal (which replaces such bytes).
func (l *lexer) str() (string, bool) {
	if !l.byte('"') {
		return "", false
	}
	start := l.i
	ascii := true
	for ; l.i < len(l.b); l.i++ {
		switch c := l.b[l.i]; {
		case c == '"':
			b := l.b[start:l.i]
			l.i++
			if !ascii && !utf8.Valid(b) {
				return l.slowStr(start - 1)
			}
			return l.intern(b), true
		case c == '\\':
			return l.slowStr(start - 1)
		case c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	l.short = true
	return "", false
}

// slowStr decodes the string literal starting at start with json.Unmarshal.
func (l *lexer) slowStr(start int) (string, bool) {
	i := start + 1
	for ; i < len(l.b) && l.b[i] != '"'; i++ {
		if l.b[i] == '\\' {
			i++
		}
	}
	if i >= len(l.b) {
		l.short = true
		return "", false
	}
	var s string
	if json.Unmarshal(l.b[start:i+1], &s) != nil {
		return "", false
	}
	l.i = i + 1
	return s, true
}

// intern returns b as a string, shared with an equal short one made before.
func (l *lexer) intern(b []byte) string {
	if len(b) > 16 || l.strs == nil {
		return string(b)
	}
	if s, ok := l.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(l.strs) < 4096 {
		l.strs[s] = s
	}
	return s
}

// int reads an integer that fits in bits: no fraction, no exponent (which
// json.Unmarshal refuses for an integer type), no leading zeros.
func (l *lexer) int(bits int) (int64, bool) {
	i := l.i
	neg := i < len(l.b) && l.b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n uint64
	for ; i < len(l.b) && l.b[i] >= '0' && l.b[i] <= '9'; i++ {
		if i-start == 19 {
			return 0, false // more digits than an int64 has
		}
		n = n*10 + uint64(l.b[i]-'0')
	}
	if i == len(l.b) {
		l.short = true // more digits may follow
	}
	switch {
	case i == start, l.b[start] == '0' && i > start+1:
		return 0, false
	case i < len(l.b) && (l.b[i] == '.' || l.b[i] == 'e' || l.b[i] == 'E'):
		return 0, false
	}
	limit := uint64(1) << (bits - 1) // |min| of the type; max is one less
	if neg && n > limit || !neg && n >= limit {
		return 0, false
	}
	l.i = i
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}
