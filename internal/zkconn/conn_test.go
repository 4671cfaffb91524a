package zkconn

import (
	"context"
	"errors"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// A connect string whose every host refuses connections fails at once,
// naming them; one whose host accepts and never answers fails after the
// connect timeout.
func TestDialUnreachable(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, tc := range []struct {
		connect  string
		want     string
		min, max time.Duration
	}{
		{"127.0.0.1:1,127.0.0.1:2/kafka", "ZooKeeper at 127.0.0.1:1,127.0.0.1:2 refused the connection", 0, time.Second},
		{silent.Addr().String(), "cannot reach ZooKeeper at " + silent.Addr().String() + " within 1.5s", 1500 * time.Millisecond, 5 * time.Second},
	} {
		start := time.Now()
		_, err := Dial(context.Background(), Options{Connect: tc.connect, ConnectTimeout: 1500 * time.Millisecond})
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want %q", tc.connect, err, tc.want)
		}
		if took < tc.min || took > tc.max {
			t.Errorf("%s: took %s, want between %s and %s", tc.connect, took, tc.min, tc.max)
		}
	}
}

func TestDialErrorsBeforeConnecting(t *testing.T) {
	for in, want := range map[string]string{
		"":            "empty connect string",
		"zk:notaport": "bad port",
	} {
		if _, err := Dial(context.Background(), Options{Connect: in}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Dial(%q) err = %v, want %q", in, err, want)
		}
	}
	_, err := Dial(context.Background(), Options{Connect: "127.0.0.1:1", Auth: "digest:only-user"})
	if err == nil || !strings.Contains(err.Error(), "digest:user:password") {
		t.Errorf("bad auth: %v", err)
	}
	_, err = Dial(context.Background(), Options{Connect: "127.0.0.1:1", TLSConfigFile: "/nonexistent/zk-tls.properties"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/zk-tls.properties") {
		t.Errorf("missing TLS file: %v", err)
	}
}

func TestRetry(t *testing.T) {
	c := &Conn{hosts: []string{"h1:2181"}, retry: 2 * time.Second}
	n := 0
	err := c.do(func(time.Time) error {
		n++
		switch n {
		case 1:
			return zk.ErrConnectionClosed
		case 2:
			// what go-zookeeper returns when writing to a reset socket
			return &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("err %v after %d tries", err, n)
	}
	c.retry = 200 * time.Millisecond
	err = c.do(func(time.Time) error { return zk.ErrSessionExpired })
	if err == nil || !strings.Contains(err.Error(), "lost the connection to ZooKeeper at h1:2181") || !errors.Is(err, zk.ErrSessionExpired) {
		t.Fatalf("err = %v", err)
	}
	n = 0
	err = c.do(func(time.Time) error { n++; return zk.ErrNoNode })
	if n != 1 || !errors.Is(mapErr(err), zktree.ErrNoNode) {
		t.Fatalf("a non-transient error was retried (%d) or not mapped: %v", n, err)
	}
	if !errors.Is(mapErr(zk.ErrNoAuth), zktree.ErrNoAuth) {
		t.Fatal("ErrNoAuth not mapped")
	}
}

// TestLive reads the test bed's ZooKeeper: the root, a chroot that does not
// exist, an auth scheme the server rejects, and the zxid from reply headers.
func TestLive(t *testing.T) {
	addr := testbed.ZK(t)
	ctx := context.Background()
	c, err := Dial(ctx, Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.Get("/cluster/id"); err != nil {
		t.Fatal(err)
	}
	_, st, err := c.Get("/brokers")
	if err != nil || c.LastZxid() < st.Mzxid || c.LastZxid() == 0 {
		t.Fatalf("last zxid %d, /brokers mzxid %d, err %v", c.LastZxid(), st.Mzxid, err)
	}
	if _, _, err := c.Get("/no/such/znode"); !errors.Is(err, zktree.ErrNoNode) {
		t.Fatalf("missing znode: %v", err)
	}
	names, err := c.Children("/brokers")
	if err != nil || len(names) == 0 {
		t.Fatalf("children %v %v", names, err)
	}

	_, err = Dial(ctx, Options{Connect: addr + "/zkmigrate-no-such-chroot"})
	if err == nil || !strings.Contains(err.Error(), "chroot /zkmigrate-no-such-chroot does not exist on ZooKeeper at "+addr) {
		t.Fatalf("missing chroot: %v", err)
	}

	// A chroot that exists: "/brokers" seen as the root.
	cr, err := Dial(ctx, Options{Connect: addr + "/brokers"})
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	if names, err := cr.Children("/"); err != nil || len(names) == 0 {
		t.Fatalf("chroot children %v %v", names, err)
	}
	if _, _, err := cr.Get("/ids"); err != nil {
		t.Fatalf("chroot get: %v", err)
	}

	// Digest credentials are added to the session (ZooKeeper checks them
	// only against znode ACLs, so any user:password is accepted here).
	authFile := t.TempDir() + "/zk-auth"
	if err := os.WriteFile(authFile, []byte("digest:zkmigrate:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	da, err := Dial(ctx, Options{Connect: addr, Auth: "@" + authFile})
	if err != nil {
		t.Fatalf("digest auth: %v", err)
	}
	if _, _, err := da.Get("/cluster/id"); err != nil {
		t.Fatalf("read with digest auth: %v", err)
	}
	da.Close()

	_, err = Dial(ctx, Options{Connect: addr, Auth: "nosuchscheme:x"})
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("rejected auth: %v", err)
	}
	t.Logf("rejected auth: %v", err)
}

// Conn is what zkread reads through, and knows the server's last zxid.
var (
	_ zkread.Source     = (*Conn)(nil)
	_ zkread.ZxidSource = (*Conn)(nil)
)

func TestRetryStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{ctx: ctx, hosts: []string{"h1:2181"}, retry: time.Hour}
	n := 0
	err := c.do(func(time.Time) error {
		n++
		if n == 3 {
			cancel()
		}
		return zk.ErrConnectionClosed
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Fatalf("err = %v after %d tries", err, n)
	}
}

// A watch session is rooted at the Conn's chroot, authenticates with its
// credentials, and takes persistent watches on the test bed's ZooKeeper
// (3.8).
func TestWatchSession(t *testing.T) {
	addr := testbed.ZK(t)
	ctx := context.Background()
	root, err := Dial(ctx, Options{Connect: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	want, err := root.Children("/brokers/topics")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, connect, auth, path string }{
		{"no chroot", addr, "", "/brokers/topics"},
		{"chroot", addr + "/brokers", "", "/topics"},
		{"digest auth", addr + "/brokers", "digest:zkmigrate:pw", "/topics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(ctx, Options{Connect: tc.connect, Auth: tc.auth, NoMultiRead: true, Connections: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s, err := c.WatchSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.AddWatch(tc.path, zkwire.PersistentRecursive); err != nil {
				t.Fatalf("AddWatch(%s): %v", tc.path, err)
			}
			res, err := s.MultiRead([]zkwire.Op{{Path: tc.path, Children: true}})
			if err != nil || res[0].Err != nil {
				t.Fatalf("MultiRead(%s): %v %v", tc.path, err, res)
			}
			got := slices.Sorted(slices.Values(res[0].Children))
			if !slices.Equal(got, want) {
				t.Fatalf("children of %s under %s: %v, want %v", tc.path, tc.connect, got, want)
			}
		})
	}
}
