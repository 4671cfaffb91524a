package kafkaconn

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestDialErrors(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "admin", saslPass))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sasl := c.ListenAddrs()[0]
	closed := closedPort(t)
	load := func(body string) *Config {
		cfg, err := Load(writeFile(t, t.TempDir(), body))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	scram := load("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" + scramJAAS)
	wrong := load("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n" + strings.Replace(scramJAAS, saslPass, "not-"+saslPass, 1))
	unknownUser := load("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n" + strings.Replace(scramJAAS, `"admin"`, `"ghost"`, 1))

	tests := []struct {
		name      string
		bootstrap []string
		cfg       *Config
		err       string // exact, or a regexp when it starts with ^
	}{
		{"closed port", []string{closed}, nil, "kafkaconn: cannot reach " + closed + ": connection refused"},
		{"closed port with SASL", []string{closed}, scram, "kafkaconn: cannot reach " + closed + ": connection refused"},
		{"wrong password", []string{sasl}, wrong,
			"kafkaconn: authentication failed for User:admin at " + sasl + " (SCRAM-SHA-256): the broker closed the connection (wrong username or password, or a listener that does not expect SASL)"},
		{"unknown user", []string{sasl}, unknownUser,
			"kafkaconn: authentication failed for User:ghost at " + sasl + " (SCRAM-SHA-512): the broker closed the connection (wrong username or password, or a listener that does not expect SASL)"},
		{"plaintext to a SASL listener", []string{sasl}, nil,
			"kafkaconn: " + sasl + " closed the connection on the first request (is security.protocol PLAINTEXT right for that listener?)"},
		{"no host", nil, nil, "kafkaconn: no bootstrap server given (--bootstrap-server host:port)"},
		{"no port", []string{"localhost"}, nil, `kafkaconn: bootstrap server "localhost": want host:port`},
		{"unknown host", []string{"no-such-host.invalid:9092"}, nil, "kafkaconn: cannot reach no-such-host.invalid:9092: no such host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := Dial(context.Background(), tt.bootstrap, tt.cfg)
			if err == nil {
				conn.Close()
				t.Fatalf("Dial succeeded, want %q", tt.err)
			}
			errs = append(errs, err.Error())
			if strings.HasPrefix(tt.err, "^") {
				if !regexp.MustCompile(tt.err).MatchString(err.Error()) {
					t.Errorf("error %q does not match %s", err, tt.err)
				}
			} else if err.Error() != tt.err {
				t.Errorf("error:\n got %s\nwant %s", err, tt.err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}

	// The right password works, and the principal comes from the JAAS user.
	conn, err := Dial(context.Background(), []string{" " + sasl + " "}, scram)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Principal != "User:admin" || conn.Bootstrap[0] != sasl {
		t.Errorf("Principal %q Bootstrap %v", conn.Principal, conn.Bootstrap)
	}
	if got, want := conn.Describe(), sasl+" (SASL_PLAINTEXT SCRAM-SHA-256 user=admin)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if _, err := conn.Admin.ListBrokers(context.Background()); err != nil {
		t.Errorf("admin client unusable: %v", err)
	}
}

// One bootstrap server down does not stop Dial when another answers.
func TestDialSecondSeed(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn, err := Dial(context.Background(), []string{closedPort(t) + "," + c.ListenAddrs()[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if conn.Principal != "User:ANONYMOUS" {
		t.Errorf("Principal = %q", conn.Principal)
	}
}

func TestDialSASLSSL(t *testing.T) {
	p := newPKI(t)
	st := p.stores(t)
	c := tlsCluster(t, p, p.server, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "admin", saslPass))
	cfg, err := Load(writeFile(t, t.TempDir(), "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"+scramJAAS+
		"ssl.truststore.type=PKCS12\nssl.truststore.location="+st["trust.p12"]+"\nssl.truststore.password="+storePass+"\n"+
		"ssl.keystore.type=PKCS12\nssl.keystore.location="+st["client.p12"]+"\nssl.keystore.password="+storePass+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Dial(context.Background(), c.ListenAddrs(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// SASL wins over the certificate subject, as on a SASL_SSL listener.
	if conn.Principal != "User:admin" {
		t.Errorf("Principal = %q", conn.Principal)
	}
	if got, want := cfg.Describe(), "SASL_SSL SCRAM-SHA-512 user=admin client-cert=CN=migrator,OU=ops"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
