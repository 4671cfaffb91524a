package kafkaconn

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
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
	caKey      *ecdsa.PrivateKey
	server     tls.Certificate // for 127.0.0.1 and localhost
	serverName tls.Certificate // for localhost only
	client     *x509.Certificate
	clientKey  *ecdsa.PrivateKey
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir()}
	var caDER []byte
	p.caKey, caDER = mkCert(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "zkmigrate test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	})
	p.ca, _ = x509.ParseCertificate(caDER)
	srvKey, srvDER := mkCert(t, p.ca, p.caKey, &x509.Certificate{
		Subject: pkix.Name{CommonName: "broker"}, DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	p.server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	nameKey, nameDER := mkCert(t, p.ca, p.caKey, &x509.Certificate{
		Subject: pkix.Name{CommonName: "broker"}, DNSNames: []string{"broker.example"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	p.serverName = tls.Certificate{Certificate: [][]byte{nameDER}, PrivateKey: nameKey}
	var cliDER []byte
	p.clientKey, cliDER = mkCert(t, p.ca, p.caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "migrator", OrganizationalUnit: []string{"ops"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	p.client, _ = x509.ParseCertificate(cliDER)
	return p
}

var serial int64

func mkCert(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

func (p *pki) write(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func keyPEM(t testing.TB, k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// stores writes every store format and returns their paths by name.
func (p *pki) stores(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	out["trust.pem"] = p.write(t, "trust.pem", certPEM(p.ca))

	p12, err := pkcs12.Modern2023.EncodeTrustStore([]*x509.Certificate{p.ca}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	out["trust.p12"] = p.write(t, "trust.p12", p12)

	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{
		CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: p.ca.Raw},
	}); err != nil {
		t.Fatal(err)
	}
	var jks bytes.Buffer
	if err := ks.Store(&jks, []byte(storePass)); err != nil {
		t.Fatal(err)
	}
	out["trust.jks"] = p.write(t, "trust.jks", jks.Bytes())

	out["client.pem"] = p.write(t, "client.pem", append(keyPEM(t, p.clientKey), certPEM(p.client)...))

	kp12, err := pkcs12.Modern2023.Encode(p.clientKey, p.client, []*x509.Certificate{p.ca}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	out["client.p12"] = p.write(t, "client.p12", kp12)

	pkcs8, err := x509.MarshalPKCS8PrivateKey(p.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	kks := keystore.New()
	if err := kks.SetPrivateKeyEntry("client", keystore.PrivateKeyEntry{
		CreationTime: time.Now(), PrivateKey: pkcs8,
		CertificateChain: []keystore.Certificate{{Type: "X509", Content: p.client.Raw}, {Type: "X509", Content: p.ca.Raw}},
	}, []byte(keyPass)); err != nil {
		t.Fatal(err)
	}
	var kjks bytes.Buffer
	if err := kks.Store(&kjks, []byte(storePass)); err != nil {
		t.Fatal(err)
	}
	out["client.jks"] = p.write(t, "client.jks", kjks.Bytes())
	out["garbage"] = p.write(t, "garbage", []byte("this is not a keystore\n"))
	return out
}
