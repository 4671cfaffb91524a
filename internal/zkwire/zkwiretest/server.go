// Package zkwiretest runs a fake ZooKeeper server on loopback for tests of
// code that speaks ZooKeeper's client protocol: it opens a session for the
// connect request and hands every later request to the test.
package zkwiretest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// Server is the server end of one client connection.
type Server struct {
	Conn net.Conn
}

// Handler sees one request: its xid, op code and body after the header.
// A nil Handler never answers.
type Handler func(s *Server, xid, op int32, body []byte)

// Serve listens on loopback, accepts one connection, answers its connect
// request with session 0x1234 and a 4 s timeout, then passes each request
// to handle until the connection ends. It returns the client's end.
func Serve(t testing.TB, handle Handler) net.Conn {
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
		s := &Server{Conn: nc}
		br := bufio.NewReader(nc)
		if _, err := readFrame(br); err != nil { // the connect request
			return
		}
		resp := binary.BigEndian.AppendUint32(nil, 0)    // protocol version
		resp = binary.BigEndian.AppendUint32(resp, 4000) // session timeout, ms
		resp = binary.BigEndian.AppendUint64(resp, 0x1234)
		resp = binary.BigEndian.AppendUint32(resp, 16)
		resp = append(resp, make([]byte, 16)...)
		s.Frame(resp)
		for {
			f, err := readFrame(br)
			if err != nil || len(f) < 8 {
				return
			}
			if handle != nil {
				handle(s, int32(binary.BigEndian.Uint32(f)), int32(binary.BigEndian.Uint32(f[4:])), f[8:])
			}
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

func readFrame(br *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, err
	}
	f := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	_, err := io.ReadFull(br, f)
	return f, err
}

// Frame writes b with its length in front.
func (s *Server) Frame(b []byte) {
	s.Conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...))
}

// Reply writes a reply header (xid, zxid, error code) and body.
func (s *Server) Reply(xid int32, zxid int64, code int32, body []byte) {
	h := binary.BigEndian.AppendUint32(nil, uint32(xid))
	h = binary.BigEndian.AppendUint64(h, uint64(zxid))
	h = binary.BigEndian.AppendUint32(h, uint32(code))
	s.Frame(append(h, body...))
}

// Notify writes a watch event (xid -1, WatcherEvent type, state, path)
// carrying zxid in its header (-1, as ZooKeeper before 3.9 sends).
func (s *Server) Notify(zxid int64, typ, state int32, path string) {
	b := binary.BigEndian.AppendUint32(nil, uint32(typ))
	b = binary.BigEndian.AppendUint32(b, uint32(state))
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	s.Reply(-1, zxid, 0, append(b, path...))
}
