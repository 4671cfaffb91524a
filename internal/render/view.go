package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Output is a format a command's -o chooses.
type Output string

// The formats.
const (
	Text     Output = "text"
	JSON     Output = "json"
	Markdown Output = "markdown"
	CSV      Output = "csv"
	// Wide is text with every column, past the width the text fits
	// (audit log).
	Wide Output = "wide"
)

// View shows one result of a command in the format chosen once, from -o,
// when the view was made (terraform's views: a command has one view per
// format, and never asks which format it writes).
type View[T any] func(T) error

// OutputError is an -o a view has no format for.
type OutputError struct {
	Output Output
	Want   []Output
}

func (e *OutputError) Error() string {
	want := make([]string, len(e.Want))
	for i, o := range e.Want {
		want[i] = string(o)
	}
	return fmt.Sprintf("output %q: want %s", e.Output, strings.Join(want, ", "))
}

// format is one format of a view.
type format[T any] struct {
	o    Output
	show func(io.Writer, T) error
}

func as[T any](o Output, show func(io.Writer, T) error) format[T] { return format[T]{o, show} }

// pick is the view of o among formats, writing to w.
func pick[T any](o Output, w io.Writer, formats ...format[T]) (View[T], error) {
	var want []Output
	for _, f := range formats {
		if f.o == o {
			show := f.show
			return func(x T) error { return show(w, x) }, nil
		}
		want = append(want, f.o)
	}
	return nil, &OutputError{Output: o, Want: want}
}

// writeJSON writes v as indented JSON, the form of every -o json that
// prints one document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
