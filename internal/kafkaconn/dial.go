package kafkaconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ProbeTimeout bounds the reachability check Dial makes, unless the
// config sets request.timeout.ms.
var ProbeTimeout = 15 * time.Second

// Conn is a connected, checked client for one cluster.
type Conn struct {
	Client *kgo.Client
	Admin  *kadm.Client
	// Principal is the principal the cluster is expected to see, in
	// Kafka's full form: the configured override, "User:<sasl user>", the
	// client certificate subject, or "User:ANONYMOUS".
	Principal string
	Bootstrap []string
	Config    *Config
}

// Close closes the client.
func (c *Conn) Close() {
	if c != nil && c.Client != nil {
		c.Client.Close()
	}
}

// Describe is the config's Describe plus the bootstrap servers.
func (c *Conn) Describe() string {
	return strings.Join(c.Bootstrap, ",") + " (" + c.Config.Describe() + ")"
}

// Dial connects to bootstrap with cfg (nil means PLAINTEXT) and checks that
// the cluster answers a Metadata request within ProbeTimeout (or
// request.timeout.ms when the config sets it). Every later request waits
// at most request.timeout.ms for an answer (plus its own server-side
// timeout, for the requests that carry one) and is retried for at most
// request.timeout.ms more, so a cluster that stops answering fails each
// request within about twice request.timeout.ms. Failures are
// one-line errors naming the host: "cannot reach 127.0.0.1:29092: connection
// refused", "authentication failed for User:admin at 127.0.0.1:29092
// (SCRAM-SHA-256): ...". extra options are appended to the client's.
func Dial(ctx context.Context, bootstrap []string, cfg *Config, extra ...kgo.Opt) (*Conn, error) {
	if cfg == nil {
		cfg = Default()
	}
	var seeds []string
	for _, b := range bootstrap {
		for _, h := range strings.Split(b, ",") {
			if h = strings.TrimSpace(h); h == "" {
				continue
			}
			if _, _, err := net.SplitHostPort(h); err != nil {
				return nil, fmt.Errorf("kafkaconn: bootstrap server %q: want host:port", h)
			}
			seeds = append(seeds, h)
		}
	}
	if len(seeds) == 0 {
		return nil, errors.New("kafkaconn: no bootstrap server given (--bootstrap-server host:port)")
	}

	probe := ProbeTimeout
	if cfg.RequestTimeout > 0 {
		probe = cfg.RequestTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, probe)
	defer cancel()
	// kgo retries a connection that fails after the dial (EOF during SASL,
	// a TLS handshake error) until the timeout; once every seed failed once,
	// waiting longer only delays the same answer.
	hook := &connectHook{giveUp: cancel, after: len(seeds)}
	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.WithHooks(hook),
		kgo.DialTimeout(min(10*time.Second, cfg.Timeout())),
		kgo.RequestTimeoutOverhead(cfg.Timeout()),
		kgo.RetryTimeout(cfg.Timeout()),
		kgo.ClientID("zkmigrate"),
	}
	if cfg.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg.TLS.Clone()))
	}
	if m := cfg.mechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	opts = append(opts, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafkaconn: %v", err)
	}
	conn := &Conn{Client: cl, Admin: kadm.NewClient(cl), Principal: cfg.principal(), Bootstrap: seeds, Config: cfg}

	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // no topics, not all
	_, err = req.RequestWith(pctx, cl)
	if err != nil {
		cl.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("kafkaconn: %w", ctx.Err())
		}
		last := err
		if _, cerr := hook.last(); cerr != nil {
			last = cerr
		}
		var ne net.Error
		var eof *kgo.ErrFirstReadEOF
		var op *net.OpError
		closed := errors.As(last, &eof) || errors.Is(last, io.EOF) || errors.Is(last, syscall.ECONNRESET)
		dialFailed := errors.As(last, &op) && op.Op == "dial"
		silent := errors.Is(last, context.DeadlineExceeded) || errors.Is(last, kgo.ErrClientClosed) || errors.As(last, &ne) && ne.Timeout()
		if silent && !closed && !dialFailed {
			// Connected, but no answer: a broker that is stuck, or a listener
			// that expects another protocol.
			return nil, fmt.Errorf("kafkaconn: no answer from %s within %s (is security.protocol %s right for that listener?)", strings.Join(seeds, ","), probe, cfg.Protocol)
		}
		return nil, explain(err, hook, cfg, conn.Principal, seeds)
	}
	return conn, nil
}

func (c *Config) mechanism() sasl.Mechanism {
	pass, _ := c.password.Reveal()
	switch c.Mechanism {
	case MechPlain:
		return plain.Auth{User: c.User, Pass: pass}.AsMechanism()
	case MechScramSHA256:
		return scram.Auth{User: c.User, Pass: pass, IsToken: c.Token}.AsSha256Mechanism()
	case MechScramSHA512:
		return scram.Auth{User: c.User, Pass: pass, IsToken: c.Token}.AsSha512Mechanism()
	}
	return nil
}

// connectHook remembers the last failed connection attempt, so that errors
// can name the host.
type connectHook struct {
	mu     sync.Mutex
	addr   string
	err    error
	fails  int
	after  int    // give up after this many failed connections
	giveUp func() // cancels the probe
}

func (h *connectHook) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		return
	}
	h.mu.Lock()
	h.addr, h.err = net.JoinHostPort(meta.Host, fmt.Sprint(meta.Port)), err
	h.fails++
	stop := h.giveUp != nil && h.fails >= h.after
	h.mu.Unlock()
	if stop {
		h.giveUp()
	}
}

func (h *connectHook) last() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.addr, h.err
}

// explain turns a failed probe into one line naming the host.
func explain(err error, hook *connectHook, cfg *Config, principal string, seeds []string) error {
	host := strings.Join(seeds, ",")
	if addr, cerr := hook.last(); cerr != nil {
		host, err = addr, cerr
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var kErr *kerr.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	var eof *kgo.ErrFirstReadEOF
	closed := errors.As(err, &eof) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
	switch {
	case errors.As(err, &kErr) && (errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, kerr.IllegalSaslState) || errors.Is(err, kerr.UnsupportedSaslMechanism)):
		return fmt.Errorf("kafkaconn: authentication failed for %s at %s (%s): %s", principal, host, cfg.Mechanism, saslDetail(err, kErr))
	case closed && cfg.Mechanism != "":
		return fmt.Errorf("kafkaconn: authentication failed for %s at %s (%s): the broker closed the connection (wrong username or password, or a listener that does not expect SASL)", principal, host, cfg.Mechanism)
	case closed:
		return fmt.Errorf("kafkaconn: %s closed the connection on the first request (is security.protocol %s right for that listener?)", host, cfg.Protocol)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("kafkaconn: cannot reach %s: no such host", host)
	case errors.As(err, &hostErr):
		return fmt.Errorf("kafkaconn: TLS to %s: the broker certificate is not valid for that host name (%v); set ssl.endpoint.identification.algorithm= to skip the check", host, hostErr)
	case errors.As(err, &unknownAuth):
		return fmt.Errorf("kafkaconn: TLS to %s: the broker certificate is signed by an unknown authority; set ssl.truststore.location", host)
	case errors.As(err, &certErr):
		return fmt.Errorf("kafkaconn: TLS to %s: %v", host, certErr.Err)
	case errors.As(err, &recErr):
		return fmt.Errorf("kafkaconn: TLS to %s failed: the listener does not speak TLS (is security.protocol %s right?)", host, cfg.Protocol)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fmt.Errorf("kafkaconn: cannot reach %s: %s", host, dialReason(opErr))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return fmt.Errorf("kafkaconn: no answer from %s (timed out; is security.protocol %s right for that listener?)", host, cfg.Protocol)
	}
	return fmt.Errorf("kafkaconn: cannot use %s: %s", host, oneLine(err.Error()))
}

// dialReason is the short cause of a failed dial: "connection refused".
func dialReason(e *net.OpError) string {
	switch {
	case errors.Is(e, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(e, syscall.EHOSTUNREACH):
		return "no route to host"
	case errors.Is(e, syscall.ENETUNREACH):
		return "network unreachable"
	case e.Timeout():
		return "connection timed out"
	}
	if e.Err != nil {
		return oneLine(e.Err.Error())
	}
	return oneLine(e.Error())
}

// saslDetail is the broker's message for a SASL failure without kgo's
// wrapping; brokers never echo passwords.
func saslDetail(err error, kErr *kerr.Error) string {
	s := oneLine(err.Error())
	if _, rest, ok := strings.Cut(s, kErr.Error()+": "); ok && rest != "" {
		return rest
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
