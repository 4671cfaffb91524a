package kafkaconn

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// tlsCluster starts a kfake cluster that requires a client certificate
// signed by the test CA.
func tlsCluster(t *testing.T, p *pki, cert tls.Certificate, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12,
	})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// pemOneLine escapes a PEM block for a .properties value.
func pemOneLine(b []byte) string { return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", `\n`) }

// Every truststore format with every keystore format reaches an mTLS
// listener; the client certificate's subject becomes the principal.
func TestTLSStoresDial(t *testing.T) {
	p := newPKI(t)
	st := p.stores(t)
	c := tlsCluster(t, p, p.server)

	trusts := map[string]string{
		"PEM file":    "ssl.truststore.type=PEM\nssl.truststore.location=" + st["trust.pem"] + "\n",
		"PEM string":  "ssl.truststore.type=PEM\nssl.truststore.certificates=" + pemOneLine(certPEM(p.ca)) + "\n",
		"PKCS12":      "ssl.truststore.type=PKCS12\nssl.truststore.location=" + st["trust.p12"] + "\nssl.truststore.password=" + storePass + "\n",
		"JKS default": "ssl.truststore.location=" + st["trust.jks"] + "\nssl.truststore.password=" + storePass + "\n",
		// Stores written by openssl lack Java's trust attribute; every
		// certificate in them is trusted.
		"PKCS12 without trust attribute": "ssl.truststore.type=PKCS12\nssl.truststore.location=" + st["client.p12"] + "\nssl.truststore.password=" + storePass + "\n",
		// Java reads a JKS truststore without its password (no integrity check).
		"JKS no password": "ssl.truststore.type=JKS\nssl.truststore.location=" + st["trust.jks"] + "\n",
	}
	keys := map[string]string{
		"PEM file": "ssl.keystore.type=PEM\nssl.keystore.location=" + st["client.pem"] + "\n",
		"PEM strings": "ssl.keystore.type=PEM\nssl.keystore.key=" + pemOneLine(keyPEM(t, p.clientKey)) +
			"\nssl.keystore.certificate.chain=" + pemOneLine(certPEM(p.client)) + "\n",
		"PEM encrypted PKCS#8": "ssl.keystore.type=PEM\nssl.keystore.location=" + st["client-enc.pem"] + "\nssl.key.password=" + keyPass + "\n",
		"PKCS12":               "ssl.keystore.type=PKCS12\nssl.keystore.location=" + st["client.p12"] + "\nssl.keystore.password=" + storePass + "\n",
		"JKS":                  "ssl.keystore.type=JKS\nssl.keystore.location=" + st["client.jks"] + "\nssl.keystore.password=" + storePass + "\nssl.key.password=" + keyPass + "\n",
	}
	for tn, trust := range trusts {
		for kn, key := range keys {
			t.Run(tn+" + "+kn, func(t *testing.T) {
				cfg, err := Load(writeFile(t, t.TempDir(), "security.protocol=SSL\n"+trust+key))
				if err != nil {
					t.Fatal(err)
				}
				if cfg.TLS == nil || cfg.TLS.RootCAs == nil || len(cfg.TLS.Certificates) != 1 {
					t.Fatalf("TLS config incomplete: %+v", cfg.TLS)
				}
				if got, want := cfg.CertSubject, "CN=migrator,OU=ops"; got != want {
					t.Errorf("CertSubject = %q, want %q", got, want)
				}
				conn, err := Dial(context.Background(), c.ListenAddrs(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if conn.Principal != "User:CN=migrator,OU=ops" {
					t.Errorf("Principal = %q", conn.Principal)
				}
				if got, want := cfg.Describe(), "SSL client-cert=CN=migrator,OU=ops"; got != want {
					t.Errorf("Describe = %q, want %q", got, want)
				}
			})
		}
	}
}

func TestTLSWithoutClientCertIsRefused(t *testing.T) {
	p := newPKI(t)
	st := p.stores(t)
	c := tlsCluster(t, p, p.server)
	cfg, err := Load(writeFile(t, t.TempDir(), "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+st["trust.pem"]+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	old := ProbeTimeout
	ProbeTimeout = 3e9
	defer func() { ProbeTimeout = old }()
	_, err = Dial(context.Background(), c.ListenAddrs(), cfg)
	if err == nil {
		t.Fatal("Dial without a client certificate succeeded against a listener that requires one")
	}
	errs = append(errs, err.Error())
	if !strings.HasPrefix(err.Error(), "kafkaconn: ") || !strings.Contains(err.Error(), c.ListenAddrs()[0]) {
		t.Errorf("error does not name the host: %v", err)
	}
}

// ssl.endpoint.identification.algorithm= keeps chain verification but skips
// the host name check, as in Kafka.
func TestHostnameCheck(t *testing.T) {
	p := newPKI(t)
	st := p.stores(t)
	other := newPKI(t) // a CA the client does not trust
	tests := []struct {
		name   string
		server func() tls.Certificate
		extra  string
		err    string // regexp; "" means Dial succeeds
	}{
		{"ip in cert", func() tls.Certificate { return p.server }, "", ""},
		{"name mismatch", func() tls.Certificate { return p.serverName }, "",
			`^kafkaconn: TLS to 127\.0\.0\.1:\d+: the broker certificate is not valid for that host name \(.*\); set ssl\.endpoint\.identification\.algorithm= to skip the check$`},
		{"name mismatch, check off", func() tls.Certificate { return p.serverName }, "ssl.endpoint.identification.algorithm=\n", ""},
		{"https spelled out", func() tls.Certificate { return p.server }, "ssl.endpoint.identification.algorithm=HTTPS\n", ""},
		{"untrusted CA, check off", func() tls.Certificate { return other.server }, "ssl.endpoint.identification.algorithm=\n",
			`^kafkaconn: TLS to 127\.0\.0\.1:\d+: the broker certificate is signed by an unknown authority; set ssl\.truststore\.location$`},
		{"untrusted CA", func() tls.Certificate { return other.server }, "",
			`^kafkaconn: TLS to 127\.0\.0\.1:\d+: the broker certificate is signed by an unknown authority; set ssl\.truststore\.location$`},
	}
	old := ProbeTimeout
	ProbeTimeout = 5e9
	defer func() { ProbeTimeout = old }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{tt.server()}}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cfg, err := Load(writeFile(t, t.TempDir(), "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+st["trust.pem"]+"\n"+tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			conn, err := Dial(context.Background(), c.ListenAddrs(), cfg)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				conn.Close()
				return
			}
			if err == nil {
				conn.Close()
				t.Fatalf("Dial succeeded, want %s", tt.err)
			}
			errs = append(errs, err.Error())
			if !regexp.MustCompile(tt.err).MatchString(err.Error()) {
				t.Errorf("error %q\ndoes not match %s", err, tt.err)
			}
		})
	}
}

// Broken or mismatched stores are errors naming file:line and the key.
func TestBrokenStores(t *testing.T) {
	p := newPKI(t)
	st := p.stores(t)
	missing := st["trust.pem"] + ".missing"
	tests := []struct {
		name, body, err string
	}{
		{"missing file", "ssl.truststore.type=PEM\nssl.truststore.location=" + missing,
			"kafkaconn: DIR/client.properties:3: ssl.truststore.location: cannot read truststore " + missing + ": no such file or directory"},
		{"PEM read as JKS", "ssl.truststore.location=" + st["trust.pem"],
			"kafkaconn: DIR/client.properties:2: ssl.truststore.location: JKS truststore " + st["trust.pem"] + ": not a JKS keystore (the file is PEM; set ssl.truststore.type=PEM)"},
		{"JKS wrong password", "ssl.truststore.location=" + st["trust.jks"] + "\nssl.truststore.password=wrong",
			"kafkaconn: DIR/client.properties:2: ssl.truststore.location: JKS truststore " + st["trust.jks"] + ": integrity check failed: wrong password"},
		{"JKS truncated", "ssl.truststore.location=" + p.write(t, "short.jks", []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0}),
			"kafkaconn: DIR/client.properties:2: ssl.truststore.location: JKS truststore " + p.dir + "/short.jks: truncated JKS file"},
		{"JKS keystore as truststore", "ssl.truststore.location=" + st["client.jks"],
			"kafkaconn: DIR/client.properties:2: ssl.truststore.location: JKS truststore " + st["client.jks"] + ": holds no trusted certificates"},
		{"JKS keystore as truststore with password", "ssl.truststore.location=" + st["client.jks"] + "\nssl.truststore.password=" + storePass,
			"kafkaconn: DIR/client.properties:2: ssl.truststore.location: JKS truststore " + st["client.jks"] + ": holds no trusted certificates"},
		{"JKS keystore without password", "ssl.keystore.location=" + st["client.jks"],
			"kafkaconn: DIR/client.properties:2: ssl.keystore.location: JKS keystore " + st["client.jks"] + ": integrity check failed: the password is not set"},
		{"PKCS12 wrong password", "ssl.truststore.type=PKCS12\nssl.truststore.location=" + st["trust.p12"] + "\nssl.truststore.password=wrong",
			"kafkaconn: DIR/client.properties:3: ssl.truststore.location: PKCS12 truststore " + st["trust.p12"] + ": wrong password"},
		{"JKS read as PKCS12", "ssl.truststore.type=PKCS12\nssl.truststore.location=" + st["trust.jks"] + "\nssl.truststore.password=" + storePass,
			"kafkaconn: DIR/client.properties:3: ssl.truststore.location: PKCS12 truststore " + st["trust.jks"] + ": not a PKCS12 file (the file is JKS; set ssl.truststore.type=JKS)"},
		{"garbage PEM", "ssl.truststore.type=PEM\nssl.truststore.location=" + st["garbage"],
			"kafkaconn: DIR/client.properties:3: ssl.truststore.location: PEM truststore " + st["garbage"] + ": no PEM certificate found"},
		{"unknown type", "ssl.truststore.type=BCFKS\nssl.truststore.location=" + st["garbage"],
			`kafkaconn: DIR/client.properties:2: ssl.truststore.type: "BCFKS" is not supported (want JKS, PKCS12 or PEM)`},
		{"certificates without PEM type", "ssl.truststore.certificates=" + pemOneLine(certPEM(p.ca)),
			"kafkaconn: DIR/client.properties:2: ssl.truststore.certificates: needs ssl.truststore.type=PEM"},
		{"keystore JKS wrong key password", "ssl.keystore.location=" + st["client.jks"] + "\nssl.keystore.password=" + storePass + "\nssl.key.password=wrong",
			`kafkaconn: DIR/client.properties:2: ssl.keystore.location: JKS keystore ` + st["client.jks"] + `: entry "client": cannot decrypt the private key (wrong ssl.key.password?)`},
		{"keystore PKCS12 wrong password", "ssl.keystore.type=PKCS12\nssl.keystore.location=" + st["client.p12"] + "\nssl.keystore.password=wrong",
			"kafkaconn: DIR/client.properties:3: ssl.keystore.location: PKCS12 keystore " + st["client.p12"] + ": wrong password"},
		{"keystore key without chain", "ssl.keystore.type=PEM\nssl.keystore.key=" + pemOneLine(keyPEM(t, p.clientKey)),
			"kafkaconn: DIR/client.properties:3: ssl.keystore.key: ssl.keystore.key and ssl.keystore.certificate.chain must both be set"},
		{"keystore PEM without key", "ssl.keystore.type=PEM\nssl.keystore.location=" + st["trust.pem"],
			"kafkaconn: DIR/client.properties:3: ssl.keystore.location: PEM keystore " + st["trust.pem"] + ": no PEM private key found"},
		{"corrupt encrypted PKCS8", "ssl.keystore.type=PEM\nssl.keystore.location=" + p.write(t, "enc.pem", append([]byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"), certPEM(p.client)...)),
			"kafkaconn: DIR/client.properties:3: ssl.keystore.location: PEM keystore " + p.dir + "/enc.pem: bad encrypted private key: not PKCS#8 EncryptedPrivateKeyInfo DER"},
		{"encrypted PKCS8 wrong key password", "ssl.keystore.type=PEM\nssl.keystore.location=" + st["client-enc.pem"] + "\nssl.key.password=wrong",
			"kafkaconn: DIR/client.properties:3: ssl.keystore.location: PEM keystore " + st["client-enc.pem"] + ": cannot decrypt the private key (wrong ssl.key.password?)"},
		{"PEM key of another certificate", "ssl.keystore.type=PEM\nssl.keystore.key=" + pemOneLine(keyPEM(t, p.serverName.PrivateKey.(*ecdsa.PrivateKey))) +
			"\nssl.keystore.certificate.chain=" + pemOneLine(certPEM(p.client)),
			`kafkaconn: DIR/client.properties:3: ssl.keystore.key: the private key does not match the certificate "CN=migrator,OU=ops"`},
		{"bad endpoint algorithm", "ssl.endpoint.identification.algorithm=dns",
			`kafkaconn: DIR/client.properties:2: ssl.endpoint.identification.algorithm: "dns" is not supported (want https or empty)`},
		{"bad enabled protocols", "ssl.enabled.protocols=TLSv1.2,SSLv3",
			`kafkaconn: DIR/client.properties:2: ssl.enabled.protocols: unknown protocol "SSLv3" (want TLSv1.2, TLSv1.3, ...)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Load(writeFile(t, dir, "security.protocol=SSL\n"+tt.body+"\n"))
			if err == nil {
				t.Fatalf("Load succeeded, want %q", tt.err)
			}
			errs = append(errs, err.Error())
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tt.err {
				t.Errorf("error:\n got %s\nwant %s", got, tt.err)
			}
		})
	}
}

func TestEnabledProtocols(t *testing.T) {
	tests := []struct {
		value    string
		min, max uint16
	}{
		{"", tls.VersionTLS12, 0},
		{"TLSv1.3", tls.VersionTLS13, tls.VersionTLS13},
		{"TLSv1.2, TLSv1.3", tls.VersionTLS12, tls.VersionTLS13},
		{"TLSv1.1,TLSv1.2", tls.VersionTLS11, tls.VersionTLS12},
	}
	for _, tt := range tests {
		cfg, err := Load(writeFile(t, t.TempDir(), fmt.Sprintf("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n%sssl.enabled.protocols=%s\n", strings.Replace(scramJAAS, "scram.ScramLoginModule", "plain.PlainLoginModule", 1), tt.value)))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.TLS.MinVersion != tt.min || cfg.TLS.MaxVersion != tt.max {
			t.Errorf("%q: min %x max %x, want %x %x", tt.value, cfg.TLS.MinVersion, cfg.TLS.MaxVersion, tt.min, tt.max)
		}
		if cfg.TLS.RootCAs != nil {
			t.Errorf("%q: RootCAs set without a truststore (want the system roots)", tt.value)
		}
	}
}
