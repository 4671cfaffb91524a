package zkconn

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testpki"
)

const storePass = "st0re-pass-Ü"

// storePassProps is storePass as a properties file holds it: the files are
// ISO-8859-1 (java.util.Properties), so non-ASCII is written \uXXXX.
const storePassProps = `st0re-pass-\u00DC`

type pki struct {
	ca                 *x509.Certificate
	server, client     *x509.Certificate
	serverKey, clientK *ecdsa.PrivateKey
}

func newPKI(t *testing.T, serverHost string) *pki {
	ca := testpki.NewCA(t, "test-ca")
	p := &pki{ca: ca.Cert}
	p.server, p.serverKey = ca.Issue(t, pkix.Name{CommonName: "zk-server"}, serverHost)
	p.client, p.clientK = ca.Issue(t, pkix.Name{CommonName: "zk-client"})
	return p
}

// writeStores writes the client key store and the trust store in one
// format and returns their paths.
func writeStores(t *testing.T, dir string, p *pki, typ string) (ks, ts string) {
	t.Helper()
	ext := map[string]string{"PEM": ".pem", "PKCS12": ".p12", "JKS": ".jks"}[typ]
	ks, ts = filepath.Join(dir, "client"+ext), filepath.Join(dir, "trust"+ext)
	if err := os.WriteFile(ks, testpki.KeyStore(t, typ, p.clientK, []*x509.Certificate{p.client, p.ca}, storePass, storePass), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ts, testpki.TrustStore(t, typ, storePass, p.ca), 0o600); err != nil {
		t.Fatal(err)
	}
	return ks, ts
}

// tlsServer accepts one connection requiring a client certificate from the
// CA and echoes a byte.
func tlsServer(t *testing.T, p *pki) string {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{p.server.Raw}, PrivateKey: p.serverKey}},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
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
			go func() {
				defer c.Close()
				b := make([]byte, 1)
				if _, err := io.ReadFull(c, b); err == nil {
					_, _ = c.Write(b)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func handshake(cfg *tls.Config, addr, serverName string) error {
	cfg = cfg.Clone()
	cfg.ServerName = serverName
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte{7}); err != nil {
		return err
	}
	b := make([]byte, 1)
	_, err = io.ReadFull(c, b)
	return err
}

// TestTLSStores: a Kafka-format TLS config file with PEM, PKCS12 and JKS
// stores (types explicit or from the extension) yields a config that
// completes a mutual-TLS handshake; hostname checking follows
// zookeeper.ssl.endpoint.identification.algorithm.
func TestTLSStores(t *testing.T) {
	p := newPKI(t, "localhost")
	addr := tlsServer(t, p)
	for _, typ := range []string{"PEM", "PKCS12", "JKS"} {
		for _, explicit := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/explicit=%v", typ, explicit), func(t *testing.T) {
				dir := t.TempDir()
				ks, ts := writeStores(t, dir, p, typ)
				conf := fmt.Sprintf("zookeeper.ssl.client.enable=true\nzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty\n"+
					"zookeeper.ssl.keystore.location=%s\nzookeeper.ssl.keystore.password=%s\nzookeeper.ssl.truststore.location=%s\nzookeeper.ssl.truststore.password=%s\n",
					ks, storePassProps, ts, storePassProps)
				if explicit {
					conf += fmt.Sprintf("zookeeper.ssl.keystore.type=%s\nzookeeper.ssl.truststore.type=%s\n", typ, typ)
				}
				file := filepath.Join(dir, "zk-tls.properties")
				if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
					t.Fatal(err)
				}
				cfg, err := LoadTLSConfig(file)
				if err != nil {
					t.Fatal(err)
				}
				if err := handshake(cfg, addr, "localhost"); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				if err := handshake(cfg, addr, "wrong.example.com"); err == nil {
					t.Fatal("hostname verification is off by default")
				}
				if err := os.WriteFile(file, []byte(conf+"zookeeper.ssl.endpoint.identification.algorithm=\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				cfg, err = LoadTLSConfig(file)
				if err != nil {
					t.Fatal(err)
				}
				if err := handshake(cfg, addr, "wrong.example.com"); err != nil {
					t.Fatalf("without hostname verification: %v", err)
				}
				// A wrong password is a clear error that names the file and never the password.
				if err := os.WriteFile(file, []byte(strings.ReplaceAll(conf, storePassProps, "bad-pass-x")), 0o600); err != nil {
					t.Fatal(err)
				}
				if typ == "PEM" {
					return // PEM stores here are not encrypted
				}
				_, err = LoadTLSConfig(file)
				if err == nil || !strings.Contains(err.Error(), file+":") || strings.Contains(err.Error(), "bad-pass-x") {
					t.Fatalf("wrong password: err = %v", err)
				}
			})
		}
	}
	// An untrusted server: a trust store with another CA.
	other := newPKI(t, "localhost")
	dir := t.TempDir()
	ks, _ := writeStores(t, dir, p, "PEM")
	_, ts := writeStores(t, t.TempDir(), other, "PEM")
	s := &TLSSettings{Enabled: true, VerifyHostname: true, KeyStore: &Store{Location: ks, Type: "PEM"}, TrustStore: &Store{Location: ts, Type: "PEM"}}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(cfg, addr, "localhost"); err == nil {
		t.Error("handshake with an untrusted server succeeded")
	}
}

func TestParseTLSSettings(t *testing.T) {
	cases := []struct {
		name, conf, err string
		check           func(*TLSSettings) bool
	}{
		{name: "disabled by default", conf: "zookeeper.ssl.truststore.location=/x.jks\n", check: func(s *TLSSettings) bool { return !s.Enabled && s.TrustStore.Type == "JKS" }},
		{name: "protocols", conf: "zookeeper.ssl.client.enable=true\nzookeeper.ssl.protocol=TLSv1.3\nzookeeper.ssl.enabled.protocols=TLSv1.2, TLSv1.3\n",
			check: func(s *TLSSettings) bool { return s.Enabled && s.Protocol == "TLSv1.3" && len(s.EnabledProtocols) == 2 }},
		{name: "cipher suites", conf: "zookeeper.ssl.cipher.suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384\n",
			check: func(s *TLSSettings) bool { return len(s.CipherSuites) == 2 }},
		{name: "p12 extension", conf: "zookeeper.ssl.keystore.location=/a/b.P12\n", check: func(s *TLSSettings) bool { return s.KeyStore.Type == "PKCS12" }},
		{name: "bad enable", conf: "zookeeper.ssl.client.enable=yes\n", err: "zk-tls.properties:1: zookeeper.ssl.client.enable"},
		{name: "bad type", conf: "\nzookeeper.ssl.keystore.location=/x\nzookeeper.ssl.keystore.type=BCFKS\n", err: "zk-tls.properties:3: unsupported store type"},
		{name: "bad protocol", conf: "zookeeper.ssl.protocol=SSLv3\n", err: "unsupported TLS protocol"},
		{name: "bad cipher", conf: "zookeeper.ssl.cipher.suites=TLS_FAKE\n", err: "not supported by Go"},
		{name: "crl", conf: "zookeeper.ssl.crl.enable=true\n", err: "not supported by zkmigrate"},
		{name: "bad identification", conf: "zookeeper.ssl.endpoint.identification.algorithm=LDAPS\n", err: "HTTPS or empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := props.Parse("zk-tls.properties", strings.NewReader(c.conf))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseTLSSettings(f)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !c.check(s) {
				t.Fatalf("settings %+v, err %v", s, err)
			}
		})
	}
}

func FuzzParseTLSSettings(f *testing.F) {
	f.Add("zookeeper.ssl.client.enable=true\nzookeeper.ssl.keystore.location=/k.jks\nzookeeper.ssl.keystore.password=x\nzookeeper.ssl.protocol=TLSv1.2\n")
	f.Add("zookeeper.ssl.cipher.suites=TLS_AES_128_GCM_SHA256\nzookeeper.ssl.endpoint.identification.algorithm=\n")
	f.Fuzz(func(t *testing.T, conf string) {
		pf, err := props.Parse("f", strings.NewReader(conf))
		if err != nil {
			return
		}
		s, err := ParseTLSSettings(pf)
		if err == nil && s.Enabled && s.KeyStore == nil && s.TrustStore == nil {
			if _, err := s.Config(); err != nil {
				t.Fatalf("config without stores: %v", err)
			}
		}
	})
}

// TestTLSReadEndToEnd reads the test bed's ZooKeeper through a mutual-TLS
// terminating proxy (as a ZooKeeper secureClientPort would serve it), with
// and without multiRead, and gets the same snapshot as a plain read.
func TestTLSReadEndToEnd(t *testing.T) {
	addr, direct, read := directRead(t)
	p := newPKI(t, "localhost")
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{p.server.Raw}, PrivateKey: p.serverKey}},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	dir := t.TempDir()
	ks, ts := writeStores(t, dir, p, "PKCS12")
	conf := filepath.Join(dir, "zk-tls.properties")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("zookeeper.ssl.client.enable=true\nzookeeper.ssl.keystore.location=%s\nzookeeper.ssl.keystore.password=%s\n"+
		"zookeeper.ssl.truststore.location=%s\nzookeeper.ssl.truststore.password=%s\n", ks, storePassProps, ts, storePassProps)), 0o600); err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	for _, noMulti := range []bool{false, true} {
		c, err := Dial(context.Background(), Options{Connect: fmt.Sprintf("localhost:%d", port), TLSConfigFile: conf, NoMultiRead: noMulti})
		if err != nil {
			t.Fatalf("no multiRead %v: %v", noMulti, err)
		}
		if c.MultiRead() == noMulti {
			t.Fatalf("MultiRead() = %v with NoMultiRead %v", c.MultiRead(), noMulti)
		}
		for attempt := 0; ; attempt++ {
			want, got := read(direct), read(c)
			if want.Read.ZxidMax != got.Read.ZxidMax && attempt < 5 {
				continue // the cluster changed in between
			}
			if snapshot.Digest(want) != snapshot.Digest(got) || want.Read.Znodes != got.Read.Znodes {
				t.Fatalf("no multiRead %v: the TLS read differs: %d/%d topics, %d/%d znodes", noMulti, len(got.Topics), len(want.Topics), got.Read.Znodes, want.Read.Znodes)
			}
			break
		}
		c.Close()
	}
}

// A store that cannot be read names the config file:line, the store file
// and, when the file is of another format, the type setting to change.
func TestStoreErrorsNameTheFiles(t *testing.T) {
	p := newPKI(t, "localhost")
	dir := t.TempDir()
	_, ts := writeStores(t, dir, p, "PEM")
	tests := []struct{ name, conf, want string }{
		{"missing key store", "zookeeper.ssl.client.enable=true\nzookeeper.ssl.keystore.location=" + dir + "/none.jks\n",
			"zkconn: DIR/zk-tls.properties:2: cannot read keystore DIR/none.jks: no such file or directory"},
		{"PEM typed JKS", "zookeeper.ssl.client.enable=true\nzookeeper.ssl.truststore.location=" + ts + "\nzookeeper.ssl.truststore.type=JKS\nzookeeper.ssl.truststore.password=" + storePassProps + "\n",
			"zkconn: DIR/zk-tls.properties:2: JKS truststore DIR/trust.pem: not a JKS keystore (the file is PEM; set zookeeper.ssl.truststore.type=PEM)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, "zk-tls.properties")
			if err := os.WriteFile(file, []byte(tt.conf), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadTLSConfig(file)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
