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
// caller's) as json.Marshal (or MarshalIndent, one level in) renders each,
// batches encoded in parallel and written in order. A json.Encoder per
// batch writes straight into the batch's buffer: no allocation per element.
func encodeElements(bw *bufio.Writer, fv reflect.Value, indent bool) error {
	n := fv.Len()
	// batch appends the elements start... of one batch to out.
	batch := func(out []byte, start int) ([]byte, error) {
		ab := &appendBuf{b: out}
		enc := json.NewEncoder(ab)
		if indent {
			enc.SetIndent("    ", "  ")
		}
		for i := start; i < min(start+batchLen, n); i++ {
			if i > 0 {
				ab.b = append(ab.b, ',')
			}
			if indent {
				ab.b = append(ab.b, "\n    "...)
			}
			if err := enc.Encode(addr(fv.Index(i))); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			ab.b = ab.b[:len(ab.b)-1] // the newline Encode ends each value with
		}
		return ab.b, nil
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

// appendBuf is an io.Writer appending to a byte slice.
type appendBuf struct{ b []byte }

func (a *appendBuf) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
