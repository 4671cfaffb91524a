package zkwire

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/zkwire/zkwiretest"
)

// bound is a hang guard for waits on the fake server, not a timing claim.
const bound = 30 * time.Second

// AddWatch sends AddWatchRequest (path under the chroot, mode) as opcode
// 106; the server's ErrorResponse(0) is success.
func TestAddWatchEncoding(t *testing.T) {
	for _, tc := range []struct {
		name, chroot, path string
		mode               WatchMode
		want               string // hex body
	}{
		{"recursive", "", "/config/changes", PersistentRecursive, "0000000f" + hex.EncodeToString([]byte("/config/changes")) + "00000001"},
		{"persistent under a chroot", "/kafka", "/brokers", Persistent, "0000000e" + hex.EncodeToString([]byte("/kafka/brokers")) + "00000000"},
		{"the chroot itself", "/kafka", "/", PersistentRecursive, "00000006" + hex.EncodeToString([]byte("/kafka")) + "00000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 1)
			nc := zkwiretest.Serve(t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
				if op == opAddWatch {
					got <- hex.EncodeToString(body)
					s.Reply(xid, 5, 0, appendInt32(nil, 0))
				}
			})
			c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second, Chroot: tc.chroot})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.AddWatch(tc.path, tc.mode); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != tc.want {
				t.Fatalf("body\n got %s\nwant %s", g, tc.want)
			}
		})
	}
}

// Watch events reach Events in the server's order, paths relative to the
// chroot and the header's zxid kept, also while the caller is itself
// waiting for a reply that comes after many events (the reply loop must
// not wait for the caller to take them).
func TestWatchEvents(t *testing.T) {
	const n = 500 // more than the Events channel holds
	nc := zkwiretest.Serve(t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
		switch op {
		case opAddWatch:
			s.Reply(xid, 5, 0, appendInt32(nil, 0))
		case opMultiRead:
			for i := range n {
				s.Notify(int64(100+i), int32(EventNodeCreated), 3, "/kafka/config/changes/c"+strconv.Itoa(i))
			}
			s.Notify(-1, int32(EventNodeDataChanged), 3, "/kafka")
			s.Reply(xid, 700, 0, endResults(errorResult(nil, codeNoNode)))
		}
	})
	c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second, Chroot: "/kafka"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.AddWatch("/config/changes", PersistentRecursive); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.MultiRead([]Op{{Path: "/x"}}); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bound):
		t.Fatal("MultiRead waits while its reply is behind events nobody took")
	}
	for i := range n {
		want := WatchEvent{Type: EventNodeCreated, State: 3, Path: "/config/changes/c" + strconv.Itoa(i), Zxid: int64(100 + i)}
		if got := nextEvent(t, c); got != want {
			t.Fatalf("event %d = %+v, want %+v", i, got, want)
		}
	}
	if got, want := nextEvent(t, c), (WatchEvent{Type: EventNodeDataChanged, State: 3, Path: "/", Zxid: -1}); got != want {
		t.Fatalf("event on the chroot = %+v, want %+v", got, want)
	}
}

func nextEvent(t *testing.T, c *Client) WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-c.Events():
		if !ok {
			t.Fatalf("Events closed: %v", c.Err())
		}
		return ev
	case <-time.After(bound):
		t.Fatal("no watch event")
	}
	return WatchEvent{}
}

// When the connection ends, the events received before it are still
// delivered, then Events is closed and Err says why; a bad event ends the
// connection.
func TestEventsAfterConnectionEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bad     bool
		wantErr string
	}{
		{"server closes", false, "connection lost"},
		{"event cut short", true, "watch event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := zkwiretest.Serve(t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
				if op != opAddWatch {
					return
				}
				s.Reply(xid, 5, 0, appendInt32(nil, 0))
				s.Notify(6, int32(EventNodeCreated), 3, "/a")
				s.Notify(7, int32(EventNodeDeleted), 3, "/a")
				if tc.bad {
					s.Reply(-1, 8, 0, []byte{0, 0, 0, 1})
					return
				}
				s.Conn.Close()
			})
			c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.AddWatch("/", PersistentRecursive); err != nil {
				t.Fatal(err)
			}
			var got []WatchEvent
			timeout := time.After(bound)
		read:
			for {
				select {
				case ev, ok := <-c.Events():
					if !ok {
						break read
					}
					got = append(got, ev)
				case <-timeout:
					t.Fatal("Events not closed after the connection ended")
				}
			}
			want := []WatchEvent{{EventNodeCreated, 3, "/a", 6}, {EventNodeDeleted, 3, "/a", 7}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if err := c.Err(); !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Err = %v, want a lost connection mentioning %q", err, tc.wantErr)
			}
		})
	}
}

// A server that does not know addWatch: ZooKeeper 3.5 answers
// UNIMPLEMENTED (-6) and closes the connection; one that just closes it
// gives a lost connection; another refusal is a ServerError.
func TestAddWatchRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(s *zkwiretest.Server, xid int32)
		want   func(error) bool
	}{
		{"unimplemented, then closed", func(s *zkwiretest.Server, xid int32) {
			s.Reply(xid, 0, codeUnimplemented, nil)
			s.Conn.Close()
		}, func(err error) bool { return errors.Is(err, ErrUnimplemented) }},
		{"closed without an answer", func(s *zkwiretest.Server, xid int32) { s.Conn.Close() },
			func(err error) bool { return errors.Is(err, ErrConnectionLost) }},
		{"not authorized", func(s *zkwiretest.Server, xid int32) { s.Reply(xid, 0, codeNoAuth, nil) },
			func(err error) bool { return errors.Is(err, ErrNoAuth) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc := zkwiretest.Serve(t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
				if op == opAddWatch {
					tc.answer(s, xid)
				}
			})
			c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.AddWatch("/brokers/topics", PersistentRecursive); !tc.want(err) {
				t.Fatalf("AddWatch = %v", err)
			}
		})
	}
}

// A session that set no watch ignores watch events, as before addWatch.
func TestEventsIgnoredWithoutWatch(t *testing.T) {
	nc := zkwiretest.Serve(t, func(s *zkwiretest.Server, xid, op int32, body []byte) {
		if op == opMultiRead {
			s.Notify(9, int32(EventNodeCreated), 3, "/a")
			s.Reply(xid, 9, 0, endResults(errorResult(nil, codeNoNode)))
		}
	})
	c, err := Connect(nc, Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.MultiRead([]Op{{Path: "/a"}}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	queued := len(c.evq)
	c.mu.Unlock()
	if queued != 0 {
		t.Fatalf("%d events queued on a session with no watch", queued)
	}
}

// FuzzDecodeWatchEvent: any notification body decodes to an event or an
// error, never a panic, and an event survives encoding and decoding again.
func FuzzDecodeWatchEvent(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/watchevent/*.hex")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		raw, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil {
			f.Fatalf("%s: %v", s, err)
		}
		f.Add(raw)
	}
	f.Add(encodeWatchEvent(WatchEvent{Type: EventNodeCreated, State: 3, Path: "/config/changes/config_change_0000000001"}))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := decodeWatchEvent(body)
		if err != nil {
			return
		}
		again, err := decodeWatchEvent(encodeWatchEvent(ev))
		if err != nil || again != ev {
			t.Fatalf("%x decoded to %+v, which encodes and decodes to %+v, %v", body, ev, again, err)
		}
	})
}

func TestDecodeWatchEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		hex  string
		want WatchEvent
		err  string
	}{
		{"created", "00000001" + "00000003" + "00000002" + hex.EncodeToString([]byte("/a")), WatchEvent{Type: EventNodeCreated, State: 3, Path: "/a"}, ""},
		{"null path", "ffffffff" + "00000000" + "ffffffff", WatchEvent{Type: EventNone, State: 0}, ""},
		{"short", "000000010000", WatchEvent{}, "ends early"},
		{"path longer than the body", "00000001" + "00000003" + "00000009" + "2f61", WatchEvent{}, "ends early"},
		{"negative length", "00000001" + "00000003" + "fffffff0", WatchEvent{}, "negative length"},
	} {
		b, _ := hex.DecodeString(tc.hex)
		got, err := decodeWatchEvent(b)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
