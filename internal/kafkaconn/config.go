package kafkaconn

import (
	"crypto/tls"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// Security protocols (security.protocol).
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"
)

// SASL mechanisms this package supports (sasl.mechanism).
const (
	MechPlain       = "PLAIN"
	MechScramSHA256 = "SCRAM-SHA-256"
	MechScramSHA512 = "SCRAM-SHA-512"
)

// Config is a parsed client.properties file: how to reach and authenticate
// to a cluster. The SASL password lives in an unexported field; nothing that
// prints a Config shows it.
type Config struct {
	Path      string // the file read, "" for the default PLAINTEXT config
	Protocol  string // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
	Mechanism string // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 for SASL_*; "" otherwise
	User      string // SASL username
	Token     bool   // SCRAM with a delegation token (tokenauth="true")

	// TLS is the client TLS config for SSL and SASL_SSL, nil otherwise.
	TLS *tls.Config
	// CertSubject is the subject of the client certificate (mTLS), in the
	// RFC 2253 form Kafka's default principal builder uses.
	CertSubject string
	// Principal overrides the principal Dial reports (for example a custom
	// principal builder on the broker side); "" derives it.
	Principal string
	// RequestTimeout is request.timeout.ms: how long Dial's check and each
	// request wait for an answer, and how long a request is retried
	// (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Ignored lists "file:line key" for keys that do not affect how the
	// admin client connects (client.id, timeouts, ...).
	Ignored []string

	// password is held as a Secret so that no fmt verb can print it.
	password secret.Secret
}

// DefaultRequestTimeout is Kafka's default request.timeout.ms.
const DefaultRequestTimeout = 30 * time.Second

// Timeout is request.timeout.ms or its default.
func (c *Config) Timeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}

// Default returns the config used without --command-config: PLAINTEXT.
func Default() *Config { return &Config{Protocol: Plaintext} }

// String describes the config without secrets; it is Describe.
func (c Config) String() string { return c.Describe() }

// GoString keeps %#v from printing the fields.
func (c Config) GoString() string { return "kafkaconn.Config{" + c.Describe() + "}" }

// Format prints Describe for every verb: fmt prints unexported fields by
// reflection, so without it %d or %v of a Config would show the password
// held in one.
func (c Config) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(c.GoString()))
		return
	}
	_, _ = f.Write([]byte(c.Describe()))
}

// Describe gives the protocol, mechanism and user, never a password:
// "SASL_SSL SCRAM-SHA-512 user=admin", "SSL client-cert=CN=tool", "PLAINTEXT".
func (c *Config) Describe() string {
	if c == nil {
		return Plaintext
	}
	parts := []string{c.Protocol}
	if c.Mechanism != "" {
		parts = append(parts, c.Mechanism)
	}
	if c.User != "" {
		u := "user=" + c.User
		if c.Token {
			u = "token=" + c.User
		}
		parts = append(parts, u)
	}
	if c.CertSubject != "" {
		parts = append(parts, "client-cert="+c.CertSubject)
	}
	if c.TLS != nil && c.TLS.InsecureSkipVerify {
		parts = append(parts, "no-hostname-check")
	}
	return strings.Join(parts, " ")
}

// Redacted is Describe with the file name, for logs: "client.properties: SASL_SSL SCRAM-SHA-512 user=admin".
func (c *Config) Redacted() string {
	if c == nil || c.Path == "" {
		return c.Describe()
	}
	return c.Path + ": " + c.Describe()
}

// principal returns "User:<name>" for the config: the override, the SASL
// user, the client certificate subject, or ANONYMOUS.
func (c *Config) principal() string {
	switch {
	case c == nil:
		return "User:ANONYMOUS"
	case c.Principal != "":
		return c.Principal
	case c.User != "" && !c.Token:
		return "User:" + c.User
	case c.CertSubject != "":
		return "User:" + c.CertSubject
	}
	return "User:ANONYMOUS"
}

// Load reads a Kafka client.properties file. Errors name file:line and the
// key, and never contain values of secret keys.
func Load(path string) (*Config, error) {
	f, err := props.Load(path)
	if err != nil {
		return nil, fmt.Errorf("kafkaconn: %w", err)
	}
	return FromProps(f)
}

// keys this package reads.
var usedKeys = map[string]bool{
	"security.protocol": true, "sasl.mechanism": true, "sasl.jaas.config": true,
	"ssl.truststore.location": true, "ssl.truststore.type": true, "ssl.truststore.password": true,
	"ssl.truststore.certificates": true,
	"ssl.keystore.location":       true, "ssl.keystore.type": true, "ssl.keystore.password": true,
	"ssl.key.password": true, "ssl.keystore.certificate.chain": true, "ssl.keystore.key": true,
	"ssl.endpoint.identification.algorithm": true, "ssl.protocol": true, "ssl.enabled.protocols": true,
	"request.timeout.ms": true,
}

// keys that change how Kafka's client connects and that this package cannot
// honour, with the reason.
var unsupportedKeys = map[string]string{
	"sasl.client.callback.handler.class": "custom SASL callback handlers are Java classes",
	"sasl.login.callback.handler.class":  "custom SASL login callback handlers are Java classes",
	"sasl.login.class":                   "custom SASL login classes are Java classes",
	"ssl.engine.factory.class":           "custom SSL engine factories are Java classes",
	"ssl.cipher.suites":                  "Java cipher suite names cannot be mapped; remove it to use Go's TLS defaults",
	"ssl.provider":                       "Java security providers cannot be used",
	"security.providers":                 "Java security providers cannot be used",
	"config.providers":                   "config providers (${provider:path:key}) are not resolved; put the values in the file",
}

// keys under a security prefix that are harmless to ignore.
func harmless(key string) bool {
	switch key {
	case "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm", "ssl.secure.random.implementation":
		return true
	}
	for _, p := range []string{"sasl.login.", "sasl.kerberos.", "sasl.oauthbearer.", "sasl.client."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// FromProps builds a Config from a parsed properties file.
func FromProps(f *props.File) (*Config, error) {
	c := &Config{Path: f.Path, Protocol: Plaintext}
	where := func(key string) string { return f.Where(key) }
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("kafkaconn: %s: %s: %s", where(key), key, fmt.Sprintf(format, args...))
	}

	// Unknown security keys first, in file order, so the first problem in
	// the file is the one reported.
	m := f.Map()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return f.Lookup(keys[i]).Line < f.Lookup(keys[j]).Line })
	for _, k := range keys {
		switch {
		case usedKeys[k]:
		case unsupportedKeys[k] != "":
			return nil, bad(k, "not supported (%s)", unsupportedKeys[k])
		case (strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl.")) && !harmless(k):
			return nil, bad(k, "not supported by this tool")
		default:
			c.Ignored = append(c.Ignored, where(k)+" "+k)
		}
	}

	if v, ok := f.Get("request.timeout.ms"); ok {
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || ms <= 0 {
			return nil, bad("request.timeout.ms", "%q is not a positive number of milliseconds", v)
		}
		c.RequestTimeout = time.Duration(ms) * time.Millisecond
	}
	if v, ok := f.Get("security.protocol"); ok {
		c.Protocol = strings.ToUpper(strings.TrimSpace(v))
	}
	switch c.Protocol {
	case Plaintext, SSL, SASLPlaintext, SASLSSL:
	default:
		return nil, bad("security.protocol", "%q is not a security protocol (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", m["security.protocol"])
	}
	sasl := c.Protocol == SASLPlaintext || c.Protocol == SASLSSL
	useTLS := c.Protocol == SSL || c.Protocol == SASLSSL

	if sasl {
		if err := c.loadSASL(f, bad); err != nil {
			return nil, err
		}
	}
	if useTLS {
		t, subject, err := loadTLS(f, bad)
		if err != nil {
			return nil, err
		}
		c.TLS, c.CertSubject = t, subject
	}
	return c, nil
}

func (c *Config) loadSASL(f *props.File, bad func(key, format string, args ...any) error) error {
	mech, ok := f.Get("sasl.mechanism")
	mech = strings.TrimSpace(mech)
	switch {
	case !ok || mech == "":
		return fmt.Errorf("kafkaconn: %s: sasl.mechanism is not set and Kafka's default, GSSAPI (Kerberos), is not supported; set PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", f.Where("security.protocol"))
	case mech == MechPlain || mech == MechScramSHA256 || mech == MechScramSHA512:
	case mech == "GSSAPI" || mech == "OAUTHBEARER" || mech == "AWS_MSK_IAM":
		return bad("sasl.mechanism", "%s is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", mech)
	default:
		return bad("sasl.mechanism", "%q is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", mech)
	}
	c.Mechanism = mech

	jaas, ok := f.Get("sasl.jaas.config")
	if !ok {
		return fmt.Errorf("kafkaconn: %s: sasl.jaas.config is not set; %s needs username and password in it", f.Where("sasl.mechanism"), mech)
	}
	entries, err := parseJAAS(jaas)
	if err != nil {
		return bad("sasl.jaas.config", "%v", err)
	}
	if len(entries) != 1 {
		return bad("sasl.jaas.config", "has %d login modules, should be 1", len(entries))
	}
	e := entries[0]
	switch e.Module {
	case "org.apache.kafka.common.security.plain.PlainLoginModule", "org.apache.kafka.common.security.scram.ScramLoginModule":
	default:
		return bad("sasl.jaas.config", "login module %s is not supported (use PlainLoginModule or ScramLoginModule)", moduleName(e.Module))
	}
	user, okU := e.Options["username"]
	pass, okP := e.Options["password"]
	switch {
	case !okU || user == "":
		return bad("sasl.jaas.config", "no username")
	case !okP:
		return bad("sasl.jaas.config", "no password for user %s", user)
	}
	c.User, c.password = user, secret.New(f.Path+"#sasl.jaas.config", pass)
	if strings.EqualFold(e.Options["tokenauth"], "true") {
		if mech == MechPlain {
			return bad("sasl.jaas.config", "tokenauth needs a SCRAM mechanism, not PLAIN")
		}
		c.Token = true
	}
	return nil
}
