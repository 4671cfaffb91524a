package jsonfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Decode reads one JSON object from r into v (a pointer to a struct), as
// json.Unmarshal would, but decoding one top-level member, and one element of
// a top-level array, at a time: it buffers one element, never the whole
// input. Only whitespace may follow the object. Like json.Unmarshal, a value
// of the wrong type is skipped and reported after the rest is decoded. After
// an error, v is partly decoded and not to be used.
//
// Elements of the types Encode writes most (plain structs of strings,
// integers, booleans, slices and pointers: topics, partitions, ACLs, ...)
// are decoded by a decoder made for their type (fast.go) when they are in
// the form it knows; anything else, and any element it does not take, is
// decoded by json.Unmarshal. FuzzDecode holds the two to the same result.
func Decode(r io.Reader, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("jsonfile: decode into %T: not a pointer to a struct", v)
	}
	rv = rv.Elem()
	fields := fieldsOf(rv.Type())
	byName := make(map[string]*field, len(fields))
	for i := range fields {
		if fields[i].err != nil {
			return fields[i].err
		}
		byName[fields[i].name] = &fields[i]
	}
	in := &input{r: r, lx: lexer{strs: map[string]string{}}}
	var typeErr error // the first value of the wrong type, as json.Unmarshal reports it
	keep := func(err error) error {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if typeErr == nil {
				typeErr = err
			}
			return nil
		}
		return err
	}
	c, err := in.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		// null leaves v as it is; json.Unmarshal names any other mismatch.
		b, err := in.value()
		if err != nil {
			return err
		}
		if err := in.unmarshal(b, v); err != nil {
			return err
		}
		return in.end()
	}
	in.pos++
	if c, err = in.peek(); err != nil {
		return err
	}
	if c == '}' {
		in.pos++
		return in.endWith(typeErr)
	}
	for {
		if c != '"' {
			return in.syntax(c, "looking for beginning of object key string")
		}
		key, err := in.value()
		if err != nil {
			return err
		}
		name, err := in.key(key)
		if err != nil {
			return err
		}
		if c, err = in.peek(); err != nil {
			return err
		}
		if c != ':' {
			return in.syntax(c, "after object key")
		}
		in.pos++
		if c, err = in.peek(); err != nil {
			return err
		}
		f := lookup(byName, fields, name)
		switch {
		case f == nil:
			b, err := in.value()
			if err != nil {
				return err
			}
			if !json.Valid(b) {
				return in.unmarshal(b, new(json.RawMessage)) // the syntax error
			}
		case !f.stream || c != '[':
			// Not a streamed array (or null, or of the wrong type):
			// json.Unmarshal decides, as it would in place.
			b, err := in.value()
			if err != nil {
				return err
			}
			if err := keep(in.unmarshal(b, rv.Field(f.index).Addr().Interface())); err != nil {
				return err
			}
		default:
			in.pos++
			if err := keep(in.elements(rv.Field(f.index))); err != nil {
				return err
			}
		}
		if c, err = in.peek(); err != nil {
			return err
		}
		if c == '}' {
			in.pos++
			return in.endWith(typeErr)
		}
		if c != ',' {
			return in.syntax(c, "after object key:value pair")
		}
		in.pos++
		if c, err = in.peek(); err != nil {
			return err
		}
	}
}

// endWith checks that only whitespace follows the object, then returns
// typeErr.
func (in *input) endWith(typeErr error) error {
	if err := in.end(); err != nil {
		return err
	}
	return typeErr
}

// elements decodes the elements of an array whose '[' was read, and its ']',
// into a new slice set in fv, one element after the other. They are
// decoded into chunks, copied once into a slice of the right length at the
// end.
func (in *input) elements(fv reflect.Value) error {
	t := fv.Type()
	fast := decoderFor(t.Elem())
	var full []reflect.Value // chunks filled
	n := 0                   // elements in full
	chunk := reflect.MakeSlice(t, 0, 16)
	var typeErr error
	for i := 0; ; i++ {
		c, err := in.peek()
		if err != nil {
			return err
		}
		if i == 0 && c == ']' {
			in.pos++
			break
		}
		if chunk.Len() == chunk.Cap() {
			full = append(full, chunk)
			n += chunk.Len()
			chunk = reflect.MakeSlice(t, 0, min(2*chunk.Cap(), 4096))
		}
		chunk = chunk.Slice(0, chunk.Len()+1)
		el := chunk.Index(chunk.Len() - 1)
		ok, err := in.fast(fast, el)
		if err != nil {
			return err
		}
		if !ok {
			if onFallback != nil {
				onFallback(t.Elem())
			}
			el.SetZero()
			b, err := in.value()
			if err != nil {
				return err
			}
			if err := in.unmarshal(b, el.Addr().Interface()); err != nil {
				if !isTypeError(err) {
					return err
				}
				if typeErr == nil {
					typeErr = err
				}
			}
		}
		if c, err = in.peek(); err != nil {
			return err
		}
		if c != ',' && c != ']' {
			return in.syntax(c, "after array element")
		}
		in.pos++
		if c == ']' {
			break
		}
	}
	s := chunk
	if len(full) > 0 {
		s = reflect.MakeSlice(t, n+chunk.Len(), n+chunk.Len())
		at := 0
		for _, c := range append(full, chunk) {
			at += reflect.Copy(s.Slice(at, s.Len()), c)
		}
	}
	fv.Set(s)
	return typeErr
}

// fast decodes the element at the read position into el (zero) with its
// type's decoder straight from the buffer, reading more of the stream while
// the element runs past what is buffered; false (el partly written) when
// there is no decoder or it gives up.
func (in *input) fast(d decodeFunc, el reflect.Value) (bool, error) {
	if d == nil {
		return false, nil
	}
	l := &in.lx
	for {
		l.b, l.i, l.short = in.buf[in.pos:], 0, false
		// Whole only with a byte after it: a number may go on.
		ok := d(l, el)
		if ok && l.i < len(l.b) {
			in.pos += l.i
			return true, nil
		}
		if !ok && !l.short {
			return false, nil
		}
		el.SetZero()
		if ok, err := in.more(); !ok || err != nil {
			return false, err
		}
	}
}

// input is Decode's window on the stream: whole JSON values are cut from
// buf, which grows to hold the largest one.
type input struct {
	r    io.Reader
	buf  []byte
	pos  int   // the next byte of buf to read
	base int64 // the stream offset of buf[0]
	last int   // where the value value() returned started, for errors
	eof  bool
	lx   lexer // for the elements' own decoders
}

// more reads more of the stream into buf, keeping buf[pos:]; false at the
// end of the stream (err is a read error, nil at EOF).
func (in *input) more() (bool, error) {
	if in.eof {
		return false, nil
	}
	if in.pos > 0 && in.pos >= len(in.buf)/2 {
		n := copy(in.buf, in.buf[in.pos:])
		in.base += int64(in.pos)
		in.last -= in.pos
		in.buf, in.pos = in.buf[:n], 0
	}
	if len(in.buf)-in.pos >= MaxValue {
		return false, fmt.Errorf("a JSON value of more than %d MiB at byte %d: no file this tool writes holds one", MaxValue>>20, in.base+int64(in.pos)+1)
	}
	if cap(in.buf)-len(in.buf) < 16<<10 {
		nb := make([]byte, len(in.buf), max(64<<10, 2*cap(in.buf)))
		copy(nb, in.buf)
		in.buf = nb
	}
	for {
		n, err := in.r.Read(in.buf[len(in.buf):cap(in.buf)])
		in.buf = in.buf[:len(in.buf)+n]
		if errors.Is(err, io.EOF) {
			in.eof = true
			return n > 0, nil
		}
		if err != nil {
			return n > 0, err
		}
		if n > 0 {
			return true, nil
		}
	}
}

// peek skips whitespace and returns the next byte, not consuming it; the
// end of the stream is io.ErrUnexpectedEOF.
func (in *input) peek() (byte, error) {
	for {
		for in.pos < len(in.buf) {
			switch c := in.buf[in.pos]; c {
			case ' ', '\t', '\n', '\r':
				in.pos++
			default:
				return c, nil
			}
		}
		ok, err := in.more()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, io.ErrUnexpectedEOF
		}
	}
}

// value cuts the next JSON value from the stream (whitespace before it
// skipped) and returns its bytes, valid until the next call. It only finds
// where the value ends (brackets and strings); whoever decodes the bytes
// checks them.
func (in *input) value() ([]byte, error) {
	c, err := in.peek()
	if err != nil {
		return nil, err
	}
	start := in.pos
	i := start // the next byte to look at
	// at makes buf[i] readable; false at the end of the stream.
	at := func() (bool, error) {
		for i >= len(in.buf) {
			p := in.pos
			ok, err := in.more()
			start -= p - in.pos // more moves buf[pos:] to the front
			i -= p - in.pos
			if !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	// str moves i past the string whose '"' is at i.
	str := func() error {
		for i++; ; i++ {
			if ok, err := at(); !ok {
				return cmpEOF(err)
			}
			switch in.buf[i] {
			case '"':
				i++
				return nil
			case '\\':
				i++
				if ok, err := at(); !ok {
					return cmpEOF(err)
				}
			}
		}
	}
	switch c {
	case '"':
		if err := str(); err != nil {
			return nil, err
		}
	case '{', '[':
		depth := 0
	scan:
		for {
			if ok, err := at(); !ok {
				return nil, cmpEOF(err)
			}
			switch in.buf[i] {
			case '"':
				if err := str(); err != nil {
					return nil, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					i++
					break scan
				}
			}
			i++
		}
	default: // a literal: up to a delimiter or the end of the stream
	lit:
		for {
			ok, err := at()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if !literalByte(in.buf[i]) {
				break lit
			}
			i++
		}
		if i == start {
			return nil, in.syntax(c, "looking for beginning of value")
		}
	}
	in.pos, in.last = i, start
	return in.buf[start:i], nil
}

func cmpEOF(err error) error {
	if err == nil {
		return io.ErrUnexpectedEOF
	}
	return err
}

// key decodes an object key cut by value.
func (in *input) key(b []byte) (string, error) {
	if s, ok := plainString(b); ok {
		return s, nil
	}
	var s string
	return s, in.unmarshal(b, &s)
}

// plainString is the string literal b when it holds only printable ASCII
// and no escapes (its bytes are then its value).
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	for _, c := range b[1 : len(b)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(b[1 : len(b)-1]), true
}

// unmarshal is json.Unmarshal of the value b (cut by value), a syntax
// error placed in the stream.
func (in *input) unmarshal(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%v (at byte %d)", err, in.base+int64(in.last)+se.Offset)
	}
	return err
}

// syntax is the error for byte c, unexpected at the read position.
func (in *input) syntax(c byte, where string) error {
	return fmt.Errorf("invalid character %q %s (at byte %d)", c, where, in.base+int64(in.pos)+1)
}

// end checks that only whitespace is left.
func (in *input) end() error {
	c, err := in.peek()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	if err != nil {
		return err
	}
	return in.syntax(c, "after top-level value")
}

// MaxValue bounds one value Decode buffers: a top-level member that is
// not a streamed array, or one element of one (a topic with its
// partitions, a planned change). The largest the tool writes are a few MB.
const MaxValue = 64 << 20

// literalByte reports whether c may be part of a JSON literal (true,
// false, null or a number): a literal ends at the first byte that cannot,
// so a stream of bytes no JSON value holds is refused at its first byte
// instead of buffered whole.
func literalByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
}

// onFallback, when set (by tests), is called for each element json.Unmarshal decodes.
var onFallback func(reflect.Type)

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}
