package jsonfile

import "reflect"

// CountFallbacks counts, until the returned func is called, the elements
// Decode leaves to json.Unmarshal, by element type.
func CountFallbacks() (counts map[reflect.Type]int, stop func()) {
	counts = map[reflect.Type]int{}
	onFallback = func(t reflect.Type) { counts[t]++ }
	return counts, func() { onFallback = nil }
}

// HasDecoder reports whether t has a decoder of its own.
func HasDecoder(t reflect.Type) bool { return decoderFor(t) != nil }
