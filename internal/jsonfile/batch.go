package jsonfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sync"
)

// Large arrays are encoded in batches of elements on every processor; the
// order of the bytes is kept, and so is the first error.
const batchLen = 512

// encodeElements writes the elements of the slice fv (its brackets are the
// caller's), each as marshal renders it, batches marshalled in parallel and
// written in order.
func encodeElements(bw *bufio.Writer, fv reflect.Value, indent bool, marshal func(any, string) ([]byte, error)) error {
	n := fv.Len()
	// batch appends the elements start... of one batch to out.
	batch := func(out []byte, start int) ([]byte, error) {
		for i := start; i < min(start+batchLen, n); i++ {
			if i > 0 {
				out = append(out, ',')
			}
			if indent {
				out = append(out, "\n    "...)
			}
			b, err := marshal(addr(fv.Index(i)), "    ")
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = append(out, b...)
		}
		return out, nil
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || n <= batchLen {
		var buf []byte
		for start := 0; start < n; start += batchLen {
			var err error
			if buf, err = batch(buf[:0], start); err != nil {
				return err
			}
			bw.Write(buf)
		}
		return nil
	}
	type result struct {
		b   []byte
		err error
	}
	type job struct {
		start int
		out   chan result
	}
	jobs := make(chan job)
	futures := make(chan chan result, 2*workers) // bounds the batches held at once
	bufs := make(chan []byte, 3*workers)         // buffers written out, for the next batches
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				var buf []byte
				select {
				case buf = <-bufs:
				default:
				}
				b, err := batch(buf[:0], j.start)
				j.out <- result{b, err}
			}
		})
	}
	go func() {
		for start := 0; start < n; start += batchLen {
			out := make(chan result, 1)
			futures <- out
			jobs <- job{start, out}
		}
		close(jobs)
		close(futures)
	}()
	var first error
	for f := range futures {
		r := <-f
		if first == nil {
			first = r.err
		}
		if first == nil {
			bw.Write(r.b)
		}
		select {
		case bufs <- r.b:
		default:
		}
	}
	wg.Wait()
	return first
}

// decodeElements decodes the elements of an array whose '[' was read, up
// to (not including) its ']', into a new slice of type t, one after the
// other straight from the decoder. (Decoding batches on several processors
// was tried: it needs a second scan of every element and cost 1.2-1.4x the
// CPU, for a shorter wall time only on an idle machine.)
func decodeElements(dec *json.Decoder, t reflect.Type) (reflect.Value, error) {
	s := reflect.MakeSlice(t, 0, 0)
	var typeErr error
	for i := 0; dec.More(); i++ {
		if i == s.Cap() {
			s = reflect.AppendSlice(s, reflect.MakeSlice(t, max(4, s.Cap()/4), max(4, s.Cap()/4)))
		}
		s = s.Slice(0, i+1)
		if err := dec.Decode(s.Index(i).Addr().Interface()); err != nil {
			if !isTypeError(err) {
				return s, err
			}
			if typeErr == nil {
				typeErr = err
			}
		}
	}
	return s, typeErr
}
