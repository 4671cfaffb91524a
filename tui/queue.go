package tui

import (
	"fmt"
	"sync"
)

// queue passes values from a worker goroutine (an apply, a loading step) to
// the UI without ever blocking the worker: push appends, wait takes every
// value pushed since the last wait.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	err    error
	signal chan struct{}
}

func newQueue[T any]() *queue[T] { return &queue[T]{signal: make(chan struct{}, 1)} }

func (q *queue[T]) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// push adds v; it never blocks.
func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.wake()
}

// close marks the end of the stream with the worker's error.
func (q *queue[T]) close(err error) {
	q.mu.Lock()
	q.closed, q.err = true, err
	q.mu.Unlock()
	q.wake()
}

// wait blocks until values are pushed or the queue is closed, then returns
// the values, whether the queue is closed and the worker's error.
func (q *queue[T]) wait() ([]T, bool, error) {
	for {
		<-q.signal
		q.mu.Lock()
		items, closed, err := q.items, q.closed, q.err
		q.items = nil
		q.mu.Unlock()
		if len(items) > 0 || closed {
			if closed {
				q.wake() // later waits return at once
			}
			return items, closed, err
		}
	}
}

// runWorker runs f and closes q with its error. A panic in f becomes an
// error, so that the program can restore the terminal and report it.
func runWorker[T any](q *queue[T], what string, f func() error) {
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tui: %s panicked: %v", what, r)
		}
		q.close(err)
	}()
	err = f()
}
