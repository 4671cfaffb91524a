package zkconn

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// silentServer accepts one session and then never answers a request.
func silentServer(t *testing.T) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		var hdr [4]byte
		if _, err := io.ReadFull(nc, hdr[:]); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, nc, int64(binary.BigEndian.Uint32(hdr[:]))); err != nil {
			return
		}
		// connect response: protocol 0, timeout 4000 ms, session 1, 16-byte password
		resp := binary.BigEndian.AppendUint32(nil, 0)
		resp = binary.BigEndian.AppendUint32(resp, 4000)
		resp = binary.BigEndian.AppendUint64(resp, 1)
		resp = binary.BigEndian.AppendUint32(resp, 16)
		resp = append(resp, make([]byte, 16)...)
		nc.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(resp))), resp...))
		io.Copy(io.Discard, nc)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

// Closing the pool releases the reads waiting on it instead of leaving
// them blocked for a reply that will not come.
func TestMultiPoolCloseReleasesWaitingReads(t *testing.T) {
	cl, err := zkwire.Connect(silentServer(t), zkwire.Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := newMultiPool(1, cl, func() (*zkwire.Client, error) { return nil, errors.New("no second session") })
	errs := make(chan error, 10)
	for range 10 {
		go func() { _, err := p.read(zkwire.Op{Path: "/x"}); errs <- err }()
	}
	time.Sleep(100 * time.Millisecond) // the reads are sent and waiting
	p.close()
	for range 10 {
		select {
		case err := <-errs:
			if err == nil {
				t.Fatal("a read succeeded against a server that never answers")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a read is still blocked after Close")
		}
	}
}

// The probe gives up on a server that never answers multiRead (ZooKeeper
// before 3.6 drops requests of unknown types) instead of waiting forever.
func TestProbeGivesUpOnSilentServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the probe timeout")
	}
	cl, err := zkwire.Connect(silentServer(t), zkwire.Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := probeMultiRead(cl, "/"); err == nil {
		t.Fatal("the probe succeeded against a server that never answers")
	}
}
