package jsonfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sync"
)

// Large arrays are encoded and decoded in batches of elements on every
// processor: the order of the bytes and of the elements is kept, and so is
// the first error of each kind.
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
// to (not including) its ']', into a new slice of type t. The reading
// goroutine only splits the input into elements; batches of them are
// decoded on every processor. Like dec.Decode one element at a time, it
// stops at the first error that is not a type error, and returns the
// first type error after decoding the rest.
func decodeElements(dec *json.Decoder, t reflect.Type) (reflect.Value, error) {
	type batch struct {
		seq  int
		buf  []byte
		ends []int
	}
	type result struct {
		s       reflect.Value
		typeErr error
		typeAt  int // index in the batch of typeErr
		fatal   error
		fatalAt int
	}
	decode := func(b *batch) result {
		s := reflect.MakeSlice(t, len(b.ends), len(b.ends))
		r := result{s: s, typeAt: -1, fatalAt: -1}
		start := 0
		for i, end := range b.ends {
			err := json.Unmarshal(b.buf[start:end], s.Index(i).Addr().Interface())
			start = end
			if err == nil {
				continue
			}
			if isTypeError(err) {
				if r.typeErr == nil {
					r.typeErr, r.typeAt = err, i
				}
				continue
			}
			r.fatal, r.fatalAt = err, i
			break
		}
		return r
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 {
		return decodeSequential(dec, t)
	}
	var (
		results []result
		mu      sync.Mutex
		wg      sync.WaitGroup
		jobs    chan *batch
		free    chan struct{} // bounds the batches in flight
	)
	store := func(seq int, r result) {
		mu.Lock()
		for len(results) <= seq {
			results = append(results, result{})
		}
		results[seq] = r
		mu.Unlock()
	}
	start := func() {
		jobs = make(chan *batch)
		free = make(chan struct{}, 2*workers)
		for range workers {
			wg.Go(func() {
				for b := range jobs {
					store(b.seq, decode(b))
					<-free
				}
			})
		}
	}
	var raw json.RawMessage
	cur := &batch{}
	var readErr error
	send := func() {
		if jobs == nil {
			start()
		}
		free <- struct{}{}
		jobs <- cur
		cur = &batch{seq: cur.seq + 1}
	}
	for dec.More() {
		if err := dec.Decode(&raw); err != nil {
			readErr = err
			break
		}
		cur.buf = append(cur.buf, raw...)
		cur.ends = append(cur.ends, len(cur.buf))
		if len(cur.ends) == batchLen {
			send()
		}
	}
	if jobs != nil {
		if len(cur.ends) > 0 {
			send()
		}
		close(jobs)
		wg.Wait()
	} else {
		store(cur.seq, decode(cur)) // one batch: no goroutines
	}
	// Join the batches in order; report errors as one element at a time would.
	total := 0
	for _, r := range results {
		total += r.s.Len()
	}
	out := reflect.MakeSlice(t, 0, total)
	var typeErr error
	for _, r := range results {
		if r.fatal != nil {
			out = reflect.AppendSlice(out, r.s.Slice(0, r.fatalAt+1))
			if r.typeErr != nil && r.typeAt < r.fatalAt && typeErr == nil {
				typeErr = r.typeErr
			}
			return out, r.fatal
		}
		if typeErr == nil {
			typeErr = r.typeErr
		}
		out = reflect.AppendSlice(out, r.s)
	}
	if readErr != nil {
		return out, readErr
	}
	return out, typeErr
}

// decodeSequential decodes the elements one after the other, straight from
// the decoder.
func decodeSequential(dec *json.Decoder, t reflect.Type) (reflect.Value, error) {
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
