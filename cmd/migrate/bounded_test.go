package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// freezer is a TCP proxy that forwards to target until it has passed after
// bytes from the server (never, when after is 0); from then on it forwards
// nothing either way and answers no new connection, yet keeps every
// connection open and accepts new ones: what clients see of a server
// process stopped with SIGSTOP.
type freezer struct {
	ln     net.Listener
	target string
	after  int64
	passed atomic.Int64
	frozen chan struct{}
	freeze sync.Once
	done   chan struct{}
	mu     sync.Mutex
	conns  []net.Conn
}

func newFreezer(t *testing.T, target string, after int64) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target, after: after, frozen: make(chan struct{}), done: make(chan struct{})}
	go f.serve()
	t.Cleanup(func() {
		close(f.done)
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	return f
}

func (f *freezer) addr() string { return f.ln.Addr().String() }

func (f *freezer) isFrozen() bool {
	select {
	case <-f.frozen:
		return true
	default:
		return false
	}
}

func (f *freezer) keep(c net.Conn) {
	f.mu.Lock()
	f.conns = append(f.conns, c)
	f.mu.Unlock()
}

func (f *freezer) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.keep(c)
		if f.isFrozen() {
			continue // accepted, never answered
		}
		s, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		f.keep(s)
		go f.pipe(s, c, false)
		go f.pipe(c, s, true)
	}
}

// pipe copies src to dst; fromServer counts bytes towards the freeze. Once
// frozen it stops reading and writing until the test ends.
func (f *freezer) pipe(dst, src net.Conn, fromServer bool) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		chunk := buf[:n]
		if fromServer && f.after > 0 {
			if left := f.after - f.passed.Load(); int64(n) >= left {
				chunk = buf[:max(left, 0)]
				f.freeze.Do(func() { close(f.frozen) })
			}
			f.passed.Add(int64(len(chunk)))
		} else if fromServer {
			f.passed.Add(int64(n))
		}
		if f.isFrozen() {
			_, _ = dst.Write(chunk)
			<-f.done
			return
		}
		if _, werr := dst.Write(chunk); werr != nil || err != nil {
			if err == io.EOF {
				dst.Close()
			}
			return
		}
	}
}

// A ZooKeeper that stops answering in the middle of a read ends `migrate
// snapshot` with exit 1 and a one-line error naming the host, within
// --zk-timeout plus the retry bound, on both read paths.
func TestSnapshotZooKeeperStopsAnswering(t *testing.T) {
	zk := testbed.ZK(t)
	for _, path := range []struct {
		name  string
		flags []string
	}{
		{"multiRead", nil},
		{"one znode per request", []string{"--zk-no-multi-read"}},
	} {
		t.Run(path.name, func(t *testing.T) {
			// First through a proxy that never freezes, to learn how many
			// bytes a whole read takes; then freeze half way.
			whole := newFreezer(t, zk, 0)
			code, _, errs := runMigrate(t, append([]string{"snapshot", "--zookeeper", whole.addr(), "--zk-timeout", "1s"}, path.flags...)...)
			if code != exitOK {
				t.Fatalf("snapshot through the proxy: exit %d\n%s", code, errs)
			}
			p := newFreezer(t, zk, whole.passed.Load()/2)
			// The test's own bound: a regression fails here instead of hanging.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			code, out, errs := runMigrateCtx(ctx, append([]string{"snapshot", "--zookeeper", p.addr(), "--zk-timeout", "1s"}, path.flags...)...)
			if ctx.Err() != nil {
				t.Fatalf("snapshot did not end before the test's bound: exit %d\n%s", code, errs)
			}
			t.Logf("exit %d: %s", code, strings.TrimSpace(errs))
			if !p.isFrozen() {
				t.Fatalf("the proxy never froze (exit %d); the test proves nothing", code)
			}
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(errs, p.addr()) || !strings.Contains(errs, "ZooKeeper") || out != "" {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line naming ZooKeeper at %s", code, errs, p.addr())
			}
		})
	}
}

// silentListener accepts connections and reads what they send, answering
// nothing: a Kafka broker that is up but never answers.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// A Kafka target that never answers, from the first request or from a
// later one, ends plan and apply with exit 1 naming host:port.
func TestKafkaTargetStopsAnswering(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "source.json")
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper,
		Topics: []snapshot.Topic{{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}}}}
	data, _ := json.Marshal(s)
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(props, []byte("request.timeout.ms=500\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// silentLater answers the connection check, then no DescribeConfigs.
	silentLater := func(t *testing.T) string {
		c, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		c.ControlKey(int16(kmsg.DescribeConfigs), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return nil, nil, true // handled, no answer
		})
		return c.ListenAddrs()[0]
	}
	for _, tc := range []struct {
		name   string
		target func(t *testing.T) string
	}{
		{"silent from the start", silentListener},
		{"silent after the connection check", silentLater},
	} {
		for _, cmd := range []string{"plan", "apply"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				addr := tc.target(t)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				args := []string{cmd, "--snapshot", src, "--bootstrap-server", addr, "--command-config", props, "--no-audit"}
				if cmd == "apply" {
					args = append(args, "--yes")
				}
				code, _, errs := runMigrateCtx(ctx, args...)
				t.Logf("exit %d: %s", code, strings.TrimSpace(errs))
				if ctx.Err() != nil {
					t.Fatalf("%s did not end before the test's bound", cmd)
				}
				lines := strings.Split(strings.TrimSpace(errs), "\n")
				if code != exitError || !strings.Contains(lines[len(lines)-1], addr) {
					t.Errorf("exit %d, stderr %q; want exit 1 and a last line naming %s", code, errs, addr)
				}
			})
		}
	}
}

// A target that stops answering in the middle of an apply: the request in
// flight fails, the rest is not sent, exit 3 naming host:port.
func TestApplyTargetStopsAnsweringMidway(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, nil, true // handled, no answer
	})
	dir := t.TempDir()
	src := filepath.Join(dir, "source.json")
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper,
		Topics: []snapshot.Topic{{Name: "t", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}}}},
		ACLs: []snapshot.ACL{{ResourceType: "Topic", ResourceName: "t", PatternType: "LITERAL", Principal: "User:alice",
			Host: "*", Operation: "Read", Permission: "Allow"}}}
	data, _ := json.Marshal(s)
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(props, []byte("request.timeout.ms=300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr := c.ListenAddrs()[0]
	code, out, errs := runMigrateCtx(ctx, "apply", "--yes", "--no-audit", "--snapshot", src, "--bootstrap-server", addr, "--command-config", props)
	if ctx.Err() != nil {
		t.Fatalf("apply did not end before the test's bound\n%s", errs)
	}
	if code != exitPartial || !strings.Contains(errs, "stopped, the rest of the plan was not sent: no answer from "+addr+" to CreateTopics") ||
		!strings.Contains(out, "skipped (not-sent)") {
		t.Errorf("exit %d\n%s%s\nwant exit 3, the ACL not sent and the silent broker named", code, out, errs)
	}
	acls, err := kafkaconnAdmin(t, addr).DescribeACLs(context.Background(), kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).Allow().Deny().AllowHosts().DenyHosts())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range acls {
		if len(r.Described) > 0 {
			t.Errorf("the ACL was sent after the target stopped answering: %+v", r.Described)
		}
	}
}

func kafkaconnAdmin(t *testing.T, addr string) *kadm.Client {
	t.Helper()
	conn, err := kafkaconn.Dial(context.Background(), []string{addr}, kafkaconn.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn.Admin
}

// closedPort is a loopback address nothing listens on: connections to it
// are refused.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A ZooKeeper ensemble whose every host refuses the connection fails the
// command at once (one round over the hosts and a short pause to confirm),
// where it used to wait out --zk-timeout (15 s by default); one that
// accepts and never answers keeps the --zk-timeout bound. Both end with
// exit 1 and one line naming the hosts.
func TestZooKeeperRefusedFailsFast(t *testing.T) {
	const timeout = 3 * time.Second
	for _, tc := range []struct {
		name     string
		hosts    func(t *testing.T) []string
		min, max time.Duration
		want     string
	}{
		{"one host refuses", func(t *testing.T) []string { return []string{closedPort(t)} }, 0, time.Second, "refused the connection"},
		{"every host refuses", func(t *testing.T) []string { return []string{closedPort(t), closedPort(t), closedPort(t)} }, 0, time.Second, "refused the connection"},
		{"silent", func(t *testing.T) []string { return []string{silentListener(t)} }, timeout, 2*timeout + 2*time.Second, "within " + timeout.String()},
		{"one refuses, one silent", func(t *testing.T) []string { return []string{closedPort(t), silentListener(t)} }, timeout, 2*timeout + 2*time.Second, "within " + timeout.String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts := strings.Join(tc.hosts(t), ",")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			code, out, errs := runMigrateCtx(ctx, "snapshot", "--zookeeper", hosts, "--zk-timeout", timeout.String())
			took := time.Since(start)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != exitError || len(lines) != 1 || !strings.Contains(errs, hosts) || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line naming %s and saying %q", code, errs, hosts, tc.want)
			}
			if took < tc.min || took > tc.max {
				t.Errorf("took %s, want between %s and %s", took.Round(time.Millisecond), tc.min, tc.max)
			}
		})
	}
}
