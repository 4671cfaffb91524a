package zkconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// loopbackPair returns a batchConn dialled to a loopback listener and the
// server's end of the connection.
func loopbackPair(t *testing.T) (*batchConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("no connection accepted")
	}
	b := newBatchConn(nc, 5*time.Second)
	t.Cleanup(func() { b.Close(); srv.Close() })
	return b, srv
}

// Frames written from several goroutines all arrive, each goroutine's in
// its order, whatever deadlines the caller sets; replies come back whole.
func TestBatchConnDeliversEveryWriteInOrder(t *testing.T) {
	b, srv := loopbackPair(t)
	const writers, frames = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range frames {
				b.SetWriteDeadline(time.Now().Add(-time.Second)) // ignored: would fail a plain conn
				if _, err := fmt.Fprintf(b, "w%d:%04d;", w, i); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		})
	}
	want := writers * frames * len("w0:0000;")
	got := make([]byte, want)
	srv.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(srv, got); err != nil {
		t.Fatalf("server read %v", err)
	}
	wg.Wait()
	next := make([]int, writers)
	for _, f := range bytes.Split(bytes.TrimSuffix(got, []byte(";")), []byte(";")) {
		var w, i int
		if _, err := fmt.Sscanf(string(f), "w%d:%d", &w, &i); err != nil {
			t.Fatalf("frame %q: %v", f, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: frame %d arrived when %d was due", w, i, next[w])
		}
		next[w]++
	}

	reply := bytes.Repeat([]byte("r"), 200_000) // larger than the read buffer
	go srv.Write(reply)
	back := make([]byte, len(reply))
	if _, err := io.ReadFull(b, back); err != nil || !bytes.Equal(back, reply) {
		t.Fatalf("reply: %v, equal %v", err, bytes.Equal(back, reply))
	}
}

// Once a write fails the connection is closed, so the reply loop stops,
// and every later Write returns an error.
func TestBatchConnWriteFailureClosesConnection(t *testing.T) {
	b, _ := loopbackPair(t)
	b.Conn.(*net.TCPConn).CloseWrite() // the kernel now refuses our writes
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		_, err = b.Write([]byte("frame"))
		time.Sleep(time.Millisecond)
	}
	if err == nil {
		t.Fatal("writes kept succeeding after the connection's write side was shut")
	}
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, rerr := b.Read(make([]byte, 1)); rerr == nil || errors.Is(rerr, os.ErrDeadlineExceeded) {
		t.Fatalf("read after a failed write: %v, want the connection closed", rerr)
	}
}

// Close returns promptly with writes pending and stops the flusher; later
// writes say the connection is closed.
func TestBatchConnClose(t *testing.T) {
	b, _ := loopbackPair(t)
	for range 100 {
		b.Write(bytes.Repeat([]byte("x"), 1000))
	}
	done := make(chan error, 1)
	go func() { done <- b.Close() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung")
	}
	select {
	case <-b.done:
	default:
		t.Fatal("flusher still running after Close")
	}
	if _, err := b.Write([]byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
}
