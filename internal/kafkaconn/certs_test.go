package kafkaconn

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testpki"
)

// Passwords used by the test stores; the secrets test checks that none of
// them ever appears in an error or description.
const (
	storePass = "St0re-Pa55-7a1c"
	keyPass   = "K3y-Pa55-9e2b"
	saslPass  = "Sasl-Pa55-41f0"
)

// pki is a throwaway CA with a server and a client certificate, and the
// stores built from them in every format Kafka reads.
type pki struct {
	dir        string
	ca         *x509.Certificate
	server     tls.Certificate // for 127.0.0.1 and localhost
	serverName tls.Certificate // for localhost only
	client     *x509.Certificate
	clientKey  *ecdsa.PrivateKey
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	ca := testpki.NewCA(t, "zkmigrate test CA")
	p := &pki{dir: t.TempDir(), ca: ca.Cert}
	srv, srvKey := ca.Issue(t, pkix.Name{CommonName: "broker"}, "localhost", "127.0.0.1")
	p.server = tls.Certificate{Certificate: [][]byte{srv.Raw}, PrivateKey: srvKey}
	name, nameKey := ca.Issue(t, pkix.Name{CommonName: "broker"}, "broker.example")
	p.serverName = tls.Certificate{Certificate: [][]byte{name.Raw}, PrivateKey: nameKey}
	p.client, p.clientKey = ca.Issue(t, pkix.Name{CommonName: "migrator", OrganizationalUnit: []string{"ops"}})
	return p
}

func (p *pki) write(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func certPEM(c *x509.Certificate) []byte { return testpki.CertPEM(c) }

func keyPEM(t testing.TB, k *ecdsa.PrivateKey) []byte { return testpki.KeyPEM(t, k) }

// stores writes every store format and returns their paths by name.
func (p *pki) stores(t testing.TB) map[string]string {
	t.Helper()
	chain := []*x509.Certificate{p.client, p.ca}
	return map[string]string{
		"trust.pem":      p.write(t, "trust.pem", testpki.TrustStore(t, "PEM", "", p.ca)),
		"trust.p12":      p.write(t, "trust.p12", testpki.TrustStore(t, "PKCS12", storePass, p.ca)),
		"trust.jks":      p.write(t, "trust.jks", testpki.TrustStore(t, "JKS", storePass, p.ca)),
		"client.pem":     p.write(t, "client.pem", testpki.KeyStore(t, "PEM", p.clientKey, chain[:1], "", "")),
		"client-enc.pem": p.write(t, "client-enc.pem", append(testpki.EncryptedKeyPEM(t, p.clientKey, keyPass), certPEM(p.client)...)),
		"client.p12":     p.write(t, "client.p12", testpki.KeyStore(t, "PKCS12", p.clientKey, chain, storePass, "")),
		"client.jks":     p.write(t, "client.jks", testpki.KeyStore(t, "JKS", p.clientKey, chain, storePass, keyPass)),
		"garbage":        p.write(t, "garbage", []byte("this is not a keystore\n")),
	}
}
