// Package testpki makes throwaway certificate authorities, certificates and
// the key and trust stores Kafka and ZooKeeper clients read (JKS, PKCS12,
// PEM), for the tests of keystore, kafkaconn and zkconn. Test use only.
package testpki

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// CA is a throwaway certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

var serial atomic.Int64

// NewCA makes a self-signed CA named cn.
func NewCA(t testing.TB, cn string) *CA {
	t.Helper()
	c, k := newCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	return &CA{Cert: c, Key: k}
}

// Issue signs a certificate for subject, valid for both server and client
// authentication and for hosts (DNS names or IP addresses).
func (ca *CA) Issue(t testing.TB, subject pkix.Name, hosts ...string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	tmpl := &x509.Certificate{Subject: subject, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return newCert(t, tmpl, ca.Cert, ca.Key)
}

func newCert(t testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(serial.Add(1))
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// CertPEM is c as a PEM CERTIFICATE block.
func CertPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// KeyPEM is k as a PEM PKCS#8 PRIVATE KEY block.
func KeyPEM(t testing.TB, k *ecdsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8(t, k)})
}

func pkcs8(t testing.TB, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// EncryptedKeyPEM is k as a PEM "ENCRYPTED PRIVATE KEY" block, as
// `openssl pkcs8 -topk8 -v2 aes-256-cbc -v2prf hmacWithSHA256` writes it:
// PBES2, PBKDF2 with HMAC-SHA256, AES-256-CBC.
func EncryptedKeyPEM(t testing.TB, k *ecdsa.PrivateKey, pass string) []byte {
	t.Helper()
	salt, iv := random(t, 16), random(t, aes.BlockSize)
	const iter = 2048
	key, err := pbkdf2.Key(sha256.New, pass, salt, iter, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := pkcs8(t, k)
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	plain = append(plain, bytes.Repeat([]byte{byte(pad)}, pad)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(plain, plain)
	type algo struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.RawValue `asn1:"optional"`
	}
	raw := func(v any) asn1.RawValue {
		b, err := asn1.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return asn1.RawValue{FullBytes: b}
	}
	kdf := algo{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}, raw(struct {
		Salt       []byte
		Iterations int
		KeyLength  int
		PRF        algo
	}{salt, iter, 32, algo{asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}, raw(asn1.NullRawValue)}})}
	enc := algo{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}, raw(iv)}
	der, err := asn1.Marshal(struct {
		Algorithm     algo
		EncryptedData []byte
	}{algo{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}, raw(struct{ KDF, Enc algo }{kdf, enc})}, plain})
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der})
}

func random(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// KeyStore is a key store of type typ (JKS, PKCS12 or PEM) holding key with
// its chain (leaf first). PEM is unencrypted; PKCS12 uses storePass; a JKS
// entry "client" is encrypted with keyPass in a store sealed with storePass.
func KeyStore(t testing.TB, typ string, key *ecdsa.PrivateKey, chain []*x509.Certificate, storePass, keyPass string) []byte {
	t.Helper()
	switch typ {
	case "PEM":
		out := KeyPEM(t, key)
		for _, c := range chain {
			out = append(out, CertPEM(c)...)
		}
		return out
	case "PKCS12":
		b, err := pkcs12.Modern2023.Encode(key, chain[0], chain[1:], storePass)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "JKS":
		ks := keystore.New()
		e := keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: pkcs8(t, key)}
		for _, c := range chain {
			e.CertificateChain = append(e.CertificateChain, keystore.Certificate{Type: "X509", Content: c.Raw})
		}
		if err := ks.SetPrivateKeyEntry("client", e, []byte(keyPass)); err != nil {
			t.Fatal(err)
		}
		return store(t, ks, storePass)
	}
	t.Fatalf("testpki: unknown store type %q", typ)
	return nil
}

// TrustStore is a trust store of type typ holding certs as trusted
// certificates (JKS aliases ca0, ca1, ...), sealed with pass.
func TrustStore(t testing.TB, typ, pass string, certs ...*x509.Certificate) []byte {
	t.Helper()
	switch typ {
	case "PEM":
		var out []byte
		for _, c := range certs {
			out = append(out, CertPEM(c)...)
		}
		return out
	case "PKCS12":
		b, err := pkcs12.Modern2023.EncodeTrustStore(certs, pass)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "JKS":
		ks := keystore.New()
		for i, c := range certs {
			if err := ks.SetTrustedCertificateEntry("ca"+string(rune('0'+i)), keystore.TrustedCertificateEntry{
				CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: c.Raw}}); err != nil {
				t.Fatal(err)
			}
		}
		return store(t, ks, pass)
	}
	t.Fatalf("testpki: unknown store type %q", typ)
	return nil
}

func store(t testing.TB, ks keystore.KeyStore, pass string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(pass)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
