package jsonfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Encode writes v (a struct or a pointer to one) as compact JSON and a
// newline: byte for byte what json.NewEncoder(w).Encode(v) writes, but
// marshalling one top-level field, and one element of a top-level array, at
// a time.
func Encode(w io.Writer, v any) error { return encode(w, v, false) }

// EncodeIndent is Encode with two-space indentation: byte for byte what a
// json.Encoder with SetIndent("", "  ") writes.
func EncodeIndent(w io.Writer, v any) error { return encode(w, v, true) }

var marshalerType = reflect.TypeFor[json.Marshaler]()

func encode(w io.Writer, v any, indent bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return fmt.Errorf("jsonfile: encode %T: not a struct", v)
	}
	marshal := func(v any, prefix string) ([]byte, error) {
		if indent {
			return json.MarshalIndent(v, prefix, "  ")
		}
		return json.Marshal(v)
	}
	nl := func(prefix string) {
		if indent {
			bw.WriteByte('\n')
			bw.WriteString(prefix)
		}
	}
	bw.WriteByte('{')
	n := 0
	for _, f := range fieldsOf(rv.Type()) {
		if f.err != nil {
			return f.err
		}
		fv := rv.Field(f.index)
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		nl("  ")
		bw.Write(f.key)
		bw.WriteByte(':')
		if indent {
			bw.WriteByte(' ')
		}
		if !f.stream || fv.IsNil() || fv.Len() == 0 {
			b, err := marshal(addr(fv), "  ")
			if err != nil {
				return fmt.Errorf("jsonfile: field %s: %w", f.name, err)
			}
			bw.Write(b)
			continue
		}
		bw.WriteByte('[')
		if err := encodeElements(bw, fv, indent); err != nil {
			return fmt.Errorf("jsonfile: %s%w", f.name, err)
		}
		nl("  ")
		bw.WriteByte(']')
	}
	if n > 0 {
		nl("")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// addr returns a pointer to v when it has an address, so that pointer
// methods (MarshalJSON) apply as json.Marshal applies them to a field.
func addr(v reflect.Value) any {
	if v.CanAddr() {
		return v.Addr().Interface()
	}
	return v.Interface()
}

// field is one JSON member of a struct.
type field struct {
	index     int
	name      string
	key       []byte // the member name, encoded
	omitEmpty bool
	// stream: a slice encoded and decoded one element at a time.
	stream bool
	err    error
}

func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return append(out, field{err: fmt.Errorf("jsonfile: %s.%s: embedded fields are not supported", t, sf.Name)})
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if strings.Contains(","+opts+",", ",string,") || strings.Contains(","+opts+",", ",omitzero,") {
			return append(out, field{err: fmt.Errorf("jsonfile: %s.%s: tag option not supported: %q", t, sf.Name, tag)})
		}
		key, _ := json.Marshal(name)
		ft := sf.Type
		stream := ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 &&
			!ft.Implements(marshalerType) && !reflect.PointerTo(ft).Implements(marshalerType) &&
			!reflect.PointerTo(ft).Implements(unmarshalerType)
		out = append(out, field{index: i, name: name, key: key, omitEmpty: strings.Contains(","+opts+",", ",omitempty,"), stream: stream})
	}
	return out
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// lookup finds a member by name as encoding/json does: the exact name first,
// then a case-insensitive match.
func lookup(byName map[string]*field, fields []field, name string) *field {
	if f := byName[name]; f != nil {
		return f
	}
	for i := range fields {
		if bytes.EqualFold([]byte(fields[i].name), []byte(name)) {
			return &fields[i]
		}
	}
	return nil
}
