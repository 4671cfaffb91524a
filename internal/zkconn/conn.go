package zkconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
	"github.com/zkmigrate/zkmigrate/internal/zkwire"
)

// Options say how to connect.
type Options struct {
	// Connect is "host:port[,host:port][/chroot]".
	Connect string
	// Auth is "scheme:credentials", e.g. "digest:super:secret", or "@FILE"
	// to read that from a file. It is never echoed in errors.
	Auth string
	// TLSConfigFile is a Kafka-format ZooKeeper TLS config file.
	TLSConfigFile string
	// SessionTimeout is the ZooKeeper session timeout (30s when 0).
	SessionTimeout time.Duration
	// ConnectTimeout bounds the wait for the first session (15s when 0).
	ConnectTimeout time.Duration
	// RequestTimeout bounds the wait for each answer, the connect
	// response of every reconnection included: a server that does not
	// answer within it (a stopped process keeps the connection open) is
	// taken as lost (ConnectTimeout when 0).
	RequestTimeout time.Duration
	// RetryTimeout is how much longer than RequestTimeout one read may
	// take in all, retrying on a new connection after the connection or
	// session is lost (30s when 0). A read never takes longer than
	// RequestTimeout + RetryTimeout.
	RetryTimeout time.Duration
	// Connections is the number of sessions reads are spread over
	// (DefaultMultiConnections or DefaultConnections when 0). One ZooKeeper
	// connection serialises its requests on the server; a few in parallel
	// roughly halve a full read.
	Connections int
	// NoMultiRead reads one znode per request even when the ensemble
	// answers multiRead (ZooKeeper 3.6+), which otherwise carries many.
	NoMultiRead bool
}

// Default sessions: with multiRead a few sessions carry many reads per
// request; without it more sessions keep the server busy.
const (
	DefaultConnections      = 8
	DefaultMultiConnections = 2
)

// MultiInFlight is the reads a Conn suggests keeping in flight with
// multiRead (InFlight): they are gathered into requests of up to
// maxMultiOps per session.
const MultiInFlight = 1024

// Conn is a read-only connection to a ZooKeeper ensemble, rooted at the
// connect string's chroot. It is safe for concurrent use; concurrent calls
// are pipelined over a few sessions, taken in turn.
type Conn struct {
	ctx     context.Context // Dial's: retries stop when it is done
	pool    []*zk.Conn      // go-zookeeper sessions, when not multi
	multi   *multiPool      // multiRead sessions, when the ensemble has them
	next    atomic.Uint32
	hosts   []string
	chroot  string
	wait    time.Duration // RequestTimeout
	retry   time.Duration
	maxZxid atomic.Int64
	// reconnected is signalled each time the first session (the one
	// watches are set on) is established again after losing its
	// connection.
	reconnected chan struct{}
	// watchDial opens a zkwire session rooted at the chroot (WatchSession).
	watchDial func() (*zkwire.Client, error)
}

// Hosts returns the ensemble's host:port addresses.
func (c *Conn) Hosts() []string { return c.hosts }

// Chroot returns the chroot ("" for none).
func (c *Conn) Chroot() string { return c.chroot }

// Address returns the connect string without credentials.
func (c *Conn) Address() string { return strings.Join(c.hosts, ",") + c.chroot }

// LastZxid returns the highest zxid the server reported in a reply header:
// the server's last committed transaction as of the latest answer.
func (c *Conn) LastZxid() int64 { return c.maxZxid.Load() }

// Close ends the sessions, all at once: each waits up to a second for a
// server that does not answer.
func (c *Conn) Close() {
	var wg sync.WaitGroup
	for _, z := range c.pool {
		wg.Add(1)
		go func() { defer wg.Done(); z.Close() }()
	}
	wg.Wait()
	if c.multi != nil {
		c.multi.close()
	}
}

// zk returns the next session in turn.
func (c *Conn) zk() *zk.Conn { return c.pool[int(c.next.Add(1))%len(c.pool)] }

// errLogger keeps the last connection error go-zookeeper logs, so that a
// failed dial can be explained, and prints nothing.
type errLogger struct {
	mu   sync.Mutex
	last string
}

func (l *errLogger) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if strings.Contains(msg, "failed to connect") || strings.Contains(msg, "authentication failed") {
		l.mu.Lock()
		l.last = msg
		l.mu.Unlock()
	}
}

func (l *errLogger) lastErr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Dial connects, authenticates and checks that the chroot exists. Errors
// are one line naming the hosts: unreachable ensemble, TLS failure,
// rejected credentials, missing chroot.
func Dial(ctx context.Context, opt Options) (*Conn, error) {
	hosts, chroot, err := ParseConnectString(opt.Connect)
	if err != nil {
		return nil, err
	}
	if opt.SessionTimeout == 0 {
		opt.SessionTimeout = 30 * time.Second
	}
	if opt.ConnectTimeout == 0 {
		opt.ConnectTimeout = 15 * time.Second
	}
	if opt.RetryTimeout == 0 {
		opt.RetryTimeout = 30 * time.Second
	}
	if opt.RequestTimeout == 0 {
		opt.RequestTimeout = opt.ConnectTimeout
	}
	scheme, cred, err := parseAuth(opt.Auth)
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if opt.TLSConfigFile != "" {
		if tlsCfg, err = LoadTLSConfig(opt.TLSConfigFile); err != nil {
			return nil, err
		}
	}
	c := &Conn{ctx: ctx, hosts: hosts, chroot: chroot, wait: opt.RequestTimeout, retry: opt.RetryTimeout}
	dialRaw := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		d := &net.Dialer{Timeout: timeout}
		if tlsCfg != nil {
			cfg := tlsCfg.Clone()
			if host, _, e := net.SplitHostPort(addr); e == nil && cfg.ServerName == "" {
				cfg.ServerName = host
			}
			return tls.DialWithDialer(d, network, addr, cfg)
		}
		return d.Dial(network, addr)
	}
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		nc, err := dialRaw(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return newHandshakeConn(newZxidConn(newBatchConn(nc, opt.SessionTimeout), &c.maxZxid), opt.RequestTimeout), nil
	}
	hostList := strings.Join(hosts, ",")
	c.reconnected = make(chan struct{}, 1)
	conn, err := session(ctx, hosts, opt, dial, scheme, cred, c.signalReconnect)
	if err != nil {
		return nil, err
	}
	c.pool = append(c.pool, conn)
	if chroot != "" {
		var ok bool
		err := c.do(func(until time.Time) error {
			return c.bounded(conn, until, func(z *zk.Conn) (e error) { ok, _, e = z.Exists(chroot); return e })
		})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("zkconn: checking chroot %s on %s: %w", chroot, hostList, err)
		}
		if !ok {
			c.Close()
			return nil, fmt.Errorf("zkconn: chroot %s does not exist on ZooKeeper at %s", chroot, hostList)
		}
	}
	start := max(slices.Index(hosts, conn.Server()), 0)
	c.watchDial = wireDialer(hosts, start, dialRaw, opt, scheme, cred, chroot, &c.maxZxid)
	if !opt.NoMultiRead {
		// Sessions answering multiRead replace the go-zookeeper ones,
		// starting at the server go-zookeeper found.
		dialWire := wireDialer(hosts, start, dialRaw, opt, scheme, cred, "", &c.maxZxid)
		if p := startMulti(dialWire, c.full("/"), opt.Connections); p != nil {
			conn.Close()
			c.pool = nil
			c.multi = p
			return c, nil
		}
	}
	n := opt.Connections
	if n <= 0 {
		n = DefaultConnections
	}
	// The further sessions together get as long as one read may take.
	pctx, cancel := context.WithTimeout(ctx, opt.RequestTimeout+opt.RetryTimeout)
	defer cancel()
	for len(c.pool) < n {
		conn, err := session(pctx, hosts, opt, dial, scheme, cred, nil)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.pool = append(c.pool, conn)
	}
	return c, nil
}

// MultiRead reports whether reads go through multiRead requests.
func (c *Conn) MultiRead() bool { return c.multi != nil }

// InFlight is how many reads to keep in flight: many with multiRead (they
// share requests), zkread.DefaultWorkers without.
func (c *Conn) InFlight() int {
	if c.multi != nil {
		return MultiInFlight
	}
	return 0
}

func (c *Conn) signalReconnect() {
	select {
	case c.reconnected <- struct{}{}:
	default: // one pending signal says it all
	}
}

// Reconnected is signalled each time the session watches are set on
// (dialed with NoMultiRead) has its connection established again after
// losing it, with the same session or, after it expired, a new one. The
// watches go-zookeeper re-sends then are not trusted (after a ZooKeeper
// restart one was seen never to fire for a change made once it was back):
// a watcher should arm and read everything again.
func (c *Conn) Reconnected() <-chan struct{} { return c.reconnected }

// session opens one authenticated ZooKeeper session; reconnected, when
// set, is called each time it has a session again after the first.
func session(ctx context.Context, hosts []string, opt Options, dial zk.Dialer, scheme, cred string, reconnected func()) (*zk.Conn, error) {
	hostList := strings.Join(hosts, ",")
	log := &errLogger{}
	var sessions atomic.Int32
	onEvent := func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession && sessions.Add(1) > 1 && reconnected != nil {
			reconnected()
		}
	}
	refused := newRefusals(hosts)
	dial = refused.dialer(dial)
	conn, events, err := zk.Connect(hosts, opt.SessionTimeout, zk.WithDialer(dial), zk.WithHostProvider(&namedHosts{}), zk.WithLogger(log), zk.WithLogInfo(false), zk.WithEventCallback(onEvent))
	if err != nil {
		return nil, fmt.Errorf("zkconn: %s: %w", hostList, err)
	}
	timer := time.NewTimer(opt.ConnectTimeout)
	defer timer.Stop()
wait:
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, fmt.Errorf("zkconn: connection to ZooKeeper at %s closed", hostList)
			}
			switch ev.State {
			case zk.StateHasSession:
				break wait
			case zk.StateAuthFailed:
				conn.Close()
				return nil, fmt.Errorf("zkconn: ZooKeeper at %s refused authentication", hostList)
			}
		case <-refused.all:
			// Every host refused the connection: nothing listens there. One
			// more round after a short pause confirms it (a server
			// restarting), rather than retrying for the whole timeout.
			if err := refused.confirm(ctx); err != nil {
				conn.Close()
				return nil, fmt.Errorf("zkconn: ZooKeeper at %s refused the connection (%v)", hostList, err)
			}
		case <-timer.C:
			conn.Close()
			why := ""
			if l := log.lastErr(); l != "" {
				why = " (last error: " + l + ")"
			}
			return nil, fmt.Errorf("zkconn: cannot reach ZooKeeper at %s within %s%s", hostList, opt.ConnectTimeout, why)
		case <-ctx.Done():
			conn.Close()
			return nil, fmt.Errorf("zkconn: connecting to %s: %w", hostList, ctx.Err())
		}
	}
	if scheme != "" {
		if err := conn.AddAuth(scheme, []byte(cred)); err != nil {
			conn.Close()
			if errors.Is(err, zk.ErrAuthFailed) {
				return nil, fmt.Errorf("zkconn: ZooKeeper at %s rejected the --zk-auth credentials (scheme %s)", hostList, scheme)
			}
			return nil, fmt.Errorf("zkconn: authenticating to %s (scheme %s): %w", hostList, scheme, err)
		}
	}
	return conn, nil
}

// parseAuth splits "scheme:credentials" (or "@file" holding that).
func parseAuth(a string) (scheme, cred string, err error) {
	if a == "" {
		return "", "", nil
	}
	if strings.HasPrefix(a, "@") {
		b, err := infile.ReadAll(a[1:], infile.Secret)
		if err != nil {
			return "", "", fmt.Errorf("zkconn: --zk-auth: %w", err)
		}
		a = strings.TrimSpace(string(b))
	}
	scheme, cred, ok := strings.Cut(a, ":")
	if !ok || scheme == "" || cred == "" {
		return "", "", errors.New("zkconn: --zk-auth wants scheme:credentials, e.g. digest:user:password")
	}
	if scheme == "digest" && !strings.Contains(cred, ":") {
		return "", "", errors.New("zkconn: --zk-auth digest wants digest:user:password")
	}
	return scheme, cred, nil
}

// transient reports whether a request failed because the connection or
// session went away, or got no answer; a read can always be sent again.
// go-zookeeper reports a failed write on the socket as the raw network error.
func transient(err error) bool {
	if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.Is(err, errNoAnswer) ||
		errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrSessionMoved) || errors.Is(err, zkwire.ErrConnectionLost) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// errNoAnswer is a request that got no answer in time.
var errNoAnswer = errors.New("no answer")

// do runs op, retrying with backoff while the connection or session is
// being re-established, for at most c.retry after the first failure, and
// not after Dial's context is done. op gets the time by which it must have
// returned: a read ends, answered or not, within c.wait + c.retry.
func (c *Conn) do(op func(until time.Time) error) error {
	until := time.Now().Add(c.wait + c.retry)
	var giveUp time.Time
	backoff := 50 * time.Millisecond
	for {
		err := op(until)
		if err == nil || !transient(err) {
			return err
		}
		if giveUp.IsZero() {
			giveUp = time.Now().Add(c.retry)
			if giveUp.After(until) {
				giveUp = until
			}
		}
		if time.Now().Add(backoff).After(giveUp) {
			if errors.Is(err, errNoAnswer) {
				return fmt.Errorf("zkconn: no answer from ZooKeeper at %s within %s", strings.Join(c.hosts, ","), c.wait+c.retry)
			}
			return fmt.Errorf("zkconn: lost the connection to ZooKeeper at %s and could not restore it within %s: %w", strings.Join(c.hosts, ","), c.retry, err)
		}
		ctx := c.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return fmt.Errorf("zkconn: %w (while reconnecting to %s)", ctx.Err(), strings.Join(c.hosts, ","))
		}
		backoff = min(backoff*2, time.Second)
	}
}

// bounded runs one go-zookeeper request on z and waits for it at most
// c.wait, and never past until: go-zookeeper queues a request while it
// reconnects, and a stopped server keeps it queued.
func (c *Conn) bounded(z *zk.Conn, until time.Time, op func(z *zk.Conn) error) error {
	done := make(chan error, 1)
	go func() { done <- op(z) }()
	wait := min(c.wait, time.Until(until))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		server := z.Server()
		if server == "" {
			server = strings.Join(c.hosts, ",")
		}
		return fmt.Errorf("zkconn: %w from ZooKeeper at %s within %s", errNoAnswer, server, wait.Round(time.Millisecond))
	}
}

func (c *Conn) full(p string) string {
	if c.chroot == "" {
		return p
	}
	if p == "/" {
		return c.chroot
	}
	return c.chroot + p
}

func mapErr(err error) error {
	switch {
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zkwire.ErrNoNode):
		return zktree.ErrNoNode
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zkwire.ErrNoAuth):
		return zktree.ErrNoAuth
	}
	return err
}

// Get returns a znode's data and stat (path relative to the chroot).
func (c *Conn) Get(p string) ([]byte, zktree.Stat, error) {
	if c.multi != nil {
		r, err := c.multiRead(zkwire.Op{Path: c.full(p)})
		if err != nil {
			return nil, zktree.Stat{}, err
		}
		return r.Data, zktree.Stat{Czxid: r.Stat.Czxid, Mzxid: r.Stat.Mzxid, Version: r.Stat.Version, Ephemeral: r.Stat.EphemeralOwner != 0}, nil
	}
	var data []byte
	var st *zk.Stat
	err := c.do(func(until time.Time) error {
		return c.bounded(c.zk(), until, func(z *zk.Conn) (e error) { data, st, e = z.Get(c.full(p)); return e })
	})
	if err != nil {
		return nil, zktree.Stat{}, mapErr(err)
	}
	return data, zktree.Stat{Czxid: st.Czxid, Mzxid: st.Mzxid, Version: st.Version, Ephemeral: st.EphemeralOwner != 0}, nil
}

// Children returns a znode's children, sorted.
func (c *Conn) Children(p string) ([]string, error) {
	if c.multi != nil {
		r, err := c.multiRead(zkwire.Op{Path: c.full(p), Children: true})
		if err != nil {
			return nil, err
		}
		slices.Sort(r.Children)
		return r.Children, nil
	}
	var names []string
	err := c.do(func(until time.Time) error {
		return c.bounded(c.zk(), until, func(z *zk.Conn) (e error) { names, _, e = z.Children(c.full(p)); return e })
	})
	if err != nil {
		return nil, mapErr(err)
	}
	slices.Sort(names)
	return names, nil
}

// multiRead runs one operation through the multiRead sessions, retrying
// as do does; a znode's own error comes back mapped.
func (c *Conn) multiRead(op zkwire.Op) (zkwire.Result, error) {
	var r zkwire.Result
	err := c.do(func(until time.Time) (e error) { r, e = c.multi.read(op, until); return e })
	if err == nil {
		err = r.Err
	}
	return r, mapErr(err)
}
