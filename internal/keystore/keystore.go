// Package keystore reads the key and trust stores a Kafka or ZooKeeper
// client is given — JKS, PKCS12 and PEM, as Java reads them — into
// crypto/tls values, for both kafkaconn and zkconn. It checks every length
// of a JKS file before keystore-go sees it, decrypts encrypted PKCS#8 and
// legacy encrypted PEM keys, and checks that a private key matches its
// certificate. Errors name the store's type and file and never contain a
// password.
package keystore

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// The store types.
const (
	JKS    = "JKS"
	PKCS12 = "PKCS12"
	PEM    = "PEM"
)

// Supported reports whether typ (upper case) is a store type this package
// reads.
func Supported(typ string) bool { return typ == JKS || typ == PKCS12 || typ == PEM }

// Store is a key or trust store file as a client config names it.
type Store struct {
	Path     string
	Type     string // JKS, PKCS12 or PEM
	Password string // opens the store (JKS integrity, PKCS12)
	// KeyPassword decrypts the private key of a JKS entry or of an
	// encrypted PEM key (Kafka's ssl.key.password; ZooKeeper uses the
	// store password).
	KeyPassword string
	// TypeSetting and KeyPasswordSetting name the settings that hold Type
	// and KeyPassword, for hints in errors ("set ssl.truststore.type=PEM",
	// "wrong ssl.key.password?"); empty leaves the hint generic.
	TypeSetting, KeyPasswordSetting string
}

// Key reads the client key and its certificate chain: a PEM file's first
// private key and its certificates, or the first private-key entry of a JKS
// or PKCS12 file. The key must match the first certificate.
func (s Store) Key() (tls.Certificate, error) {
	data, err := infile.ReadAll(s.Path, infile.Store)
	if err != nil {
		return tls.Certificate{}, readErr("keystore", s.Path, err)
	}
	c, err := parseKey(data, s.Type, s.Password, s.KeyPassword, s.KeyPasswordSetting)
	if err != nil {
		return c, fmt.Errorf("%s keystore %s: %v%s", s.Type, s.Path, err, typeHint(s.Type, data, s.TypeSetting))
	}
	return c, nil
}

// Trust reads the trusted certificates: every certificate of a PEM file,
// the trusted-certificate entries of a JKS file (read without its integrity
// check when Password is empty, as Java does), the trusted certificates of
// a PKCS12 file (every certificate when none carries Java's trust
// attribute, as openssl writes them). A store with none is an error.
func (s Store) Trust() ([]*x509.Certificate, error) {
	data, err := infile.ReadAll(s.Path, infile.Store)
	if err != nil {
		return nil, readErr("truststore", s.Path, err)
	}
	certs, err := ParseTrust(data, s.Type, s.Password)
	if err != nil {
		return nil, fmt.Errorf("%s truststore %s: %v%s", s.Type, s.Path, err, typeHint(s.Type, data, s.TypeSetting))
	}
	return certs, nil
}

// Pool returns certs as a certificate pool.
func Pool(certs []*x509.Certificate) *x509.CertPool {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool
}

// ParseKey reads a client key and certificate chain from the data of a key
// store of type typ (see Store.Key); storePass opens the store, keyPass
// the key.
func ParseKey(data []byte, typ, storePass, keyPass string) (tls.Certificate, error) {
	return parseKey(data, typ, storePass, keyPass, "")
}

func parseKey(data []byte, typ, storePass, keyPass, keyPassSetting string) (tls.Certificate, error) {
	var (
		key   crypto.PrivateKey
		certs []*x509.Certificate
		err   error
	)
	switch strings.ToUpper(typ) {
	case PEM:
		certs, err = PEMCertificates(data)
		if err == nil {
			key, err = pemKey(data, keyPass, keyPassSetting)
		}
	case PKCS12:
		var leaf *x509.Certificate
		var ca []*x509.Certificate
		key, leaf, ca, err = pkcs12.DecodeChain(data, storePass)
		if err == nil {
			certs = append([]*x509.Certificate{leaf}, ca...)
		} else {
			err = cleanPKCS12Err(err)
		}
	case JKS:
		key, certs, err = jksKey(data, storePass, keyPass, keyPassSetting)
	default:
		err = unsupported(typ)
	}
	if err != nil {
		return tls.Certificate{}, err
	}
	return Certificate(key, certs)
}

// ParseTrust reads the trusted certificates from the data of a trust store
// of type typ (see Store.Trust).
func ParseTrust(data []byte, typ, password string) ([]*x509.Certificate, error) {
	var (
		certs []*x509.Certificate
		err   error
	)
	switch strings.ToUpper(typ) {
	case PEM:
		certs, err = PEMCertificates(data)
	case PKCS12:
		certs, err = pkcs12Trust(data, password)
	case JKS:
		certs, err = jksTrust(data, password)
	default:
		err = unsupported(typ)
	}
	if err == nil && len(certs) == 0 {
		err = errors.New("holds no trusted certificates")
	}
	return certs, err
}

func unsupported(typ string) error {
	return fmt.Errorf("store type %q is not supported (want JKS, PKCS12 or PEM)", typ)
}

// Certificate makes a client certificate of key and its chain (leaf
// first), checking that the key belongs to the leaf.
func Certificate(key crypto.PrivateKey, certs []*x509.Certificate) (tls.Certificate, error) {
	if len(certs) == 0 {
		return tls.Certificate{}, errors.New("holds no certificate for the private key")
	}
	if !publicKeyMatches(certs[0].PublicKey, key) {
		return tls.Certificate{}, fmt.Errorf("the private key does not match the certificate %q", certs[0].Subject)
	}
	tc := tls.Certificate{PrivateKey: key, Leaf: certs[0]}
	for _, c := range certs {
		tc.Certificate = append(tc.Certificate, c.Raw)
	}
	return tc, nil
}

func publicKeyMatches(pub crypto.PublicKey, priv crypto.PrivateKey) bool {
	switch k := priv.(type) {
	case *rsa.PrivateKey:
		return k.PublicKey.Equal(pub)
	case *ecdsa.PrivateKey:
		return k.PublicKey.Equal(pub)
	case ed25519.PrivateKey:
		return k.Public().(ed25519.PublicKey).Equal(pub)
	}
	return false
}

// typeHint suggests the right store type when the data looks like another.
func typeHint(typ string, data []byte, setting string) string {
	if setting == "" {
		setting = "the store type"
	}
	switch {
	case typ != PEM && bytes.Contains(data, []byte("-----BEGIN ")):
		return fmt.Sprintf(" (the file is PEM; set %s=PEM)", setting)
	case typ != JKS && len(data) >= 4 && bytes.Equal(data[:4], []byte{0xfe, 0xed, 0xfe, 0xed}):
		return fmt.Sprintf(" (the file is JKS; set %s=JKS)", setting)
	case typ == JKS && len(data) > 0 && data[0] == 0x30:
		return fmt.Sprintf(" (the file looks like PKCS12; set %s=PKCS12)", setting)
	}
	return ""
}

// readErr is the error for a store that cannot be read: an *os.PathError
// without its repeated path, or infile's refusal as it is.
func readErr(what, path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot read %s %s: %w", what, path, pe.Err)
	}
	return err // infile's refusal, which names the file and why
}

// wrongKeyPassword is the error for a private key that does not decrypt.
func wrongKeyPassword(setting string) error {
	if setting == "" {
		setting = "key password"
	}
	return fmt.Errorf("cannot decrypt the private key (wrong %s?)", setting)
}

func pkcs12Trust(data []byte, pass string) ([]*x509.Certificate, error) {
	certs, err := pkcs12.DecodeTrustStore(data, pass)
	if err == nil && len(certs) > 0 {
		return certs, nil
	}
	// Stores written by openssl lack Java's trust-anchor attribute; take
	// every certificate bag instead.
	blocks, err2 := pkcs12.ToPEM(data, pass)
	if err2 != nil {
		if err == nil {
			err = err2
		}
		return nil, cleanPKCS12Err(err)
	}
	var out []*x509.Certificate
	for _, b := range blocks {
		if b.Type == "CERTIFICATE" {
			if c, err := x509.ParseCertificate(b.Bytes); err == nil {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 && err != nil {
		return nil, cleanPKCS12Err(err)
	}
	return out, nil
}

func cleanPKCS12Err(err error) error {
	switch {
	case errors.Is(err, pkcs12.ErrIncorrectPassword):
		return errors.New("wrong password")
	case strings.Contains(err.Error(), "error reading P12 data"):
		return errors.New("not a PKCS12 file")
	}
	return err
}
