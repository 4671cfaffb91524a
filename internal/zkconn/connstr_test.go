package zkconn

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestParseConnectString(t *testing.T) {
	cases := []struct {
		in     string
		hosts  []string
		chroot string
		err    string
	}{
		{in: "zk1:2181", hosts: []string{"zk1:2181"}},
		{in: "zk1:2181,zk2:2182/kafka", hosts: []string{"zk1:2181", "zk2:2182"}, chroot: "/kafka"},
		{in: "zk1,zk2/kafka/prod/", hosts: []string{"zk1:2181", "zk2:2181"}, chroot: "/kafka/prod"},
		{in: "zk1:2181/", hosts: []string{"zk1:2181"}},
		{in: "[::1]:2181,127.0.0.1/k", hosts: []string{"[::1]:2181", "127.0.0.1:2181"}, chroot: "/k"},
		{in: " zk1:2181 , zk2:2181 ", hosts: []string{"zk1:2181", "zk2:2181"}},
		{in: "", err: "empty connect string"},
		{in: "zk1:2181,,zk2", err: "empty host"},
		{in: "zk1:99999", err: "bad port"},
		{in: "zk1:abc", err: "bad port"},
		{in: ":2181", err: "empty host"},
		{in: "/kafka", err: "empty host"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			hosts, chroot, err := ParseConnectString(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(hosts, c.hosts) || chroot != c.chroot {
				t.Fatalf("got %v %q, want %v %q", hosts, chroot, c.hosts, c.chroot)
			}
		})
	}
}

func TestParseAuth(t *testing.T) {
	cases := []struct{ in, scheme, cred, err string }{
		{in: "", scheme: "", cred: ""},
		{in: "digest:super:s3cr:et", scheme: "digest", cred: "super:s3cr:et"},
		{in: "ip:127.0.0.1", scheme: "ip", cred: "127.0.0.1"},
		{in: "digest:nopassword", err: "digest:user:password"},
		{in: "justtext", err: "scheme:credentials"},
	}
	for _, c := range cases {
		s, cr, err := parseAuth(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "nopassword") {
				t.Errorf("parseAuth(%q) err = %v", c.in, err)
			}
			continue
		}
		if err != nil || s != c.scheme || cr != c.cred {
			t.Errorf("parseAuth(%q) = %q %q %v", c.in, s, cr, err)
		}
	}
}

// frame builds a ZooKeeper reply frame: length, xid, zxid, err, body.
func frame(xid int32, zxid int64, body int) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, int32(16+body))
	_ = binary.Write(&b, binary.BigEndian, xid)
	_ = binary.Write(&b, binary.BigEndian, zxid)
	_ = binary.Write(&b, binary.BigEndian, int32(0))
	b.Write(make([]byte, body))
	return b.Bytes()
}

// TestZxidSniffing feeds reply frames in every chunking and checks the
// highest zxid is found and the connect response is skipped.
func TestZxidSniffing(t *testing.T) {
	var stream []byte
	connect := []byte{0, 0, 0, 36}
	connect = append(connect, bytes.Repeat([]byte{0x7f}, 36)...) // a connect response that would read as a huge zxid
	stream = append(stream, connect...)
	stream = append(stream, frame(1, 0x100, 20)...)
	stream = append(stream, frame(2, 0x2a5, 0)...)
	stream = append(stream, frame(-2, 0x150, 3)...)
	stream = append(stream, frame(3, 0x200, 1000)...)
	for _, chunk := range []int{1, 2, 3, 7, 16, 17, 100, len(stream)} {
		var max atomic.Int64
		c := newZxidConn(nil, &max)
		for i := 0; i < len(stream); i += chunk {
			c.feed(stream[i:min(i+chunk, len(stream))])
		}
		if max.Load() != 0x2a5 {
			t.Errorf("chunk %d: max zxid %#x, want 0x2a5", chunk, max.Load())
		}
	}
}
