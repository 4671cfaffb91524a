package kafkaconn

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/zkmigrate/zkmigrate/internal/jks"
	"os"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/zkmigrate/zkmigrate/internal/props"
)

type badFunc func(key, format string, args ...any) error

// loadTLS builds the client TLS config from the ssl.* keys. It returns the
// client certificate's subject when a keystore is given.
func loadTLS(f *props.File, bad badFunc) (*tls.Config, string, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}

	if v, ok := f.Get("ssl.enabled.protocols"); ok && strings.TrimSpace(v) != "" {
		lo, hi := uint16(0), uint16(0)
		for _, p := range strings.Split(v, ",") {
			ver, ok := tlsVersions[strings.TrimSpace(p)]
			if !ok {
				return nil, "", bad("ssl.enabled.protocols", "unknown protocol %q (want TLSv1.2, TLSv1.3, ...)", strings.TrimSpace(p))
			}
			if lo == 0 || ver < lo {
				lo = ver
			}
			if ver > hi {
				hi = ver
			}
		}
		t.MinVersion, t.MaxVersion = lo, hi
	}
	if v, ok := f.Get("ssl.protocol"); ok && strings.TrimSpace(v) != "" {
		if _, known := tlsVersions[strings.TrimSpace(v)]; !known && strings.TrimSpace(v) != "TLS" {
			return nil, "", bad("ssl.protocol", "unknown protocol %q (want TLS, TLSv1.2 or TLSv1.3)", v)
		}
	}

	roots, err := loadTrust(f, bad)
	if err != nil {
		return nil, "", err
	}
	t.RootCAs = roots

	cert, err := loadKeystore(f, bad)
	if err != nil {
		return nil, "", err
	}
	subject := ""
	if cert != nil {
		t.Certificates = []tls.Certificate{*cert}
		subject = cert.Leaf.Subject.String()
	}

	alg, _ := f.Get("ssl.endpoint.identification.algorithm")
	switch alg = strings.TrimSpace(alg); {
	case f.Lookup("ssl.endpoint.identification.algorithm") == nil || strings.EqualFold(alg, "https"):
	case alg == "":
		// Kafka's "" keeps chain verification and skips the host name
		// check; crypto/tls can only do that with a custom verifier.
		t.InsecureSkipVerify = true
		t.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	default:
		return nil, "", bad("ssl.endpoint.identification.algorithm", "%q is not supported (want https or empty)", alg)
	}
	return t, subject, nil
}

var tlsVersions = map[string]uint16{
	"TLSv1": tls.VersionTLS10, "TLSv1.1": tls.VersionTLS11, "TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13,
}

// storeType returns ssl.<which>.type upper-cased, Kafka's default JKS when
// unset.
func storeType(f *props.File, key string) string {
	v, _ := f.Get(key)
	v = strings.ToUpper(strings.TrimSpace(v))
	if v == "" {
		return "JKS"
	}
	return v
}

// loadTrust returns the trusted CAs, or nil for the system roots.
func loadTrust(f *props.File, bad badFunc) (*x509.CertPool, error) {
	loc, hasLoc := f.Get("ssl.truststore.location")
	pemCerts, hasPEM := f.Get("ssl.truststore.certificates")
	typ := storeType(f, "ssl.truststore.type")
	pass, _ := f.Get("ssl.truststore.password")

	var certs []*x509.Certificate
	switch {
	case hasPEM && strings.TrimSpace(pemCerts) != "":
		if typ != "PEM" {
			return nil, bad("ssl.truststore.certificates", "needs ssl.truststore.type=PEM")
		}
		if hasLoc && loc != "" {
			return nil, bad("ssl.truststore.certificates", "set either ssl.truststore.location or ssl.truststore.certificates, not both")
		}
		cs, err := pemCertificates([]byte(pemCerts))
		if err != nil {
			return nil, bad("ssl.truststore.certificates", "%v", err)
		}
		certs = cs
	case hasLoc && loc != "":
		data, err := os.ReadFile(loc)
		if err != nil {
			return nil, bad("ssl.truststore.location", "cannot read truststore: %v", pathErr(err))
		}
		switch typ {
		case "PEM":
			certs, err = pemCertificates(data)
		case "PKCS12":
			certs, err = pkcs12Trust(data, pass)
		case "JKS":
			certs, err = jksTrust(data, pass)
		default:
			return nil, bad("ssl.truststore.type", "%q is not supported (want JKS, PKCS12 or PEM)", typ)
		}
		if err != nil {
			return nil, bad("ssl.truststore.location", "%s truststore %s: %v%s", typ, loc, err, typeHint(typ, data, "ssl.truststore.type"))
		}
	default:
		return nil, nil
	}
	if len(certs) == 0 {
		return nil, bad("ssl.truststore.location", "truststore holds no certificates")
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// loadKeystore returns the client certificate and key, or nil.
func loadKeystore(f *props.File, bad badFunc) (*tls.Certificate, error) {
	loc, hasLoc := f.Get("ssl.keystore.location")
	chain, hasChain := f.Get("ssl.keystore.certificate.chain")
	keyPEM, hasKey := f.Get("ssl.keystore.key")
	typ := storeType(f, "ssl.keystore.type")
	storePass, _ := f.Get("ssl.keystore.password")
	keyPass, hasKeyPass := f.Get("ssl.key.password")
	if !hasKeyPass {
		keyPass = storePass
	}

	var (
		key   crypto.PrivateKey
		certs []*x509.Certificate
		err   error
	)
	switch {
	case hasChain || hasKey:
		if typ != "PEM" {
			return nil, bad("ssl.keystore.certificate.chain", "needs ssl.keystore.type=PEM")
		}
		if !hasChain || !hasKey {
			return nil, bad("ssl.keystore.key", "ssl.keystore.key and ssl.keystore.certificate.chain must both be set")
		}
		if certs, err = pemCertificates([]byte(chain)); err != nil {
			return nil, bad("ssl.keystore.certificate.chain", "%v", err)
		}
		if key, err = pemKey([]byte(keyPEM), keyPass); err != nil {
			return nil, bad("ssl.keystore.key", "%v", err)
		}
	case hasLoc && loc != "":
		data, rerr := os.ReadFile(loc)
		if rerr != nil {
			return nil, bad("ssl.keystore.location", "cannot read keystore: %v", pathErr(rerr))
		}
		switch typ {
		case "PEM":
			certs, err = pemCertificates(data)
			if err == nil {
				key, err = pemKey(data, keyPass)
			}
		case "PKCS12":
			var k any
			var leaf *x509.Certificate
			var ca []*x509.Certificate
			k, leaf, ca, err = pkcs12.DecodeChain(data, storePass)
			if err == nil {
				key, certs = k, append([]*x509.Certificate{leaf}, ca...)
			} else {
				err = cleanPKCS12Err(err)
			}
		case "JKS":
			key, certs, err = jksKey(data, storePass, keyPass)
		default:
			return nil, bad("ssl.keystore.type", "%q is not supported (want JKS, PKCS12 or PEM)", typ)
		}
		if err != nil {
			return nil, bad("ssl.keystore.location", "%s keystore %s: %v%s", typ, loc, err, typeHint(typ, data, "ssl.keystore.type"))
		}
	default:
		return nil, nil
	}
	if len(certs) == 0 {
		return nil, bad("ssl.keystore.location", "keystore holds no certificate")
	}
	tc := &tls.Certificate{PrivateKey: key, Leaf: certs[0]}
	for _, c := range certs {
		tc.Certificate = append(tc.Certificate, c.Raw)
	}
	return tc, nil
}

// typeHint suggests the right store type when the data looks like another.
func typeHint(typ string, data []byte, key string) string {
	if typ != "PEM" && bytes.Contains(data, []byte("-----BEGIN ")) {
		return fmt.Sprintf(" (the file is PEM; set %s=PEM)", key)
	}
	if typ != "JKS" && len(data) >= 4 && bytes.Equal(data[:4], []byte{0xfe, 0xed, 0xfe, 0xed}) {
		return fmt.Sprintf(" (the file is JKS; set %s=JKS)", key)
	}
	if typ == "JKS" && len(data) > 0 && data[0] == 0x30 {
		return fmt.Sprintf(" (the file looks like PKCS12; set %s=PKCS12)", key)
	}
	return ""
}

// pathErr drops the repeated path from an *os.PathError.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func pemCertificates(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("bad certificate: %v", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return out, nil
}

// pemKey finds the private key in PEM data. Encrypted keys in the legacy
// "Proc-Type: 4,ENCRYPTED" form are decrypted with pass; encrypted PKCS#8
// ("ENCRYPTED PRIVATE KEY") is not supported by the Go standard library.
func pemKey(data []byte, pass string) (crypto.PrivateKey, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, errors.New("no PEM private key found")
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("encrypted PKCS#8 keys are not supported; decrypt it (openssl pkcs8) or use a PKCS12 keystore")
		case !strings.HasSuffix(b.Type, "PRIVATE KEY"):
			continue
		}
		der := b.Bytes
		//lint:ignore SA1019 legacy encrypted PEM is what older tools write.
		if x509.IsEncryptedPEMBlock(b) { //nolint:staticcheck
			var err error
			der, err = x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return nil, errors.New("cannot decrypt the private key (wrong ssl.key.password?)")
			}
		}
		return parseKey(der)
	}
}

func parseKey(der []byte) (crypto.PrivateKey, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("unrecognised private key format")
}

func pkcs12Trust(data []byte, pass string) ([]*x509.Certificate, error) {
	certs, err := pkcs12.DecodeTrustStore(data, pass)
	if err == nil {
		return certs, nil
	}
	// Stores written by openssl lack Java's trust-anchor attribute; take
	// every certificate bag instead.
	blocks, err2 := pkcs12.ToPEM(data, pass)
	if err2 != nil {
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
	if len(out) == 0 {
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

func loadJKS(data []byte, pass string) (keystore.KeyStore, error) {
	ks := keystore.New()
	// keystore-go trusts the file's lengths; check them first, so a corrupt
	// file is an error and not a multi-gigabyte allocation.
	if _, err := jks.Walk(data); err != nil {
		return ks, err
	}
	if err := ks.Load(bytes.NewReader(data), []byte(pass)); err != nil {
		if strings.Contains(err.Error(), "invalid digest") {
			if pass == "" {
				return ks, errors.New("integrity check failed: the password is not set")
			}
			return ks, errors.New("integrity check failed: wrong password")
		}
		if strings.Contains(err.Error(), "invalid magic") {
			return ks, errors.New("not a JKS keystore")
		}
		return ks, err
	}
	return ks, nil
}

func jksTrust(data []byte, pass string) ([]*x509.Certificate, error) {
	if pass == "" {
		// Java reads a JKS truststore without a password, skipping only
		// the integrity check; keystore-go cannot, so read it here.
		return jksCertsUnchecked(data)
	}
	ks, err := loadJKS(data, pass)
	if err != nil {
		return nil, err
	}
	// Like Java's PKIX trust manager, only trusted-certificate entries
	// count; private key entries and their chains do not.
	var out []*x509.Certificate
	for _, a := range ks.Aliases() {
		if !ks.IsTrustedCertificateEntry(a) {
			continue
		}
		e, err := ks.GetTrustedCertificateEntry(a)
		if err != nil {
			return nil, err
		}
		c, err := x509.ParseCertificate(e.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", a, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func jksKey(data []byte, storePass, keyPass string) (crypto.PrivateKey, []*x509.Certificate, error) {
	ks, err := loadJKS(data, storePass)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range ks.Aliases() {
		if !ks.IsPrivateKeyEntry(a) {
			continue
		}
		e, err := ks.GetPrivateKeyEntry(a, []byte(keyPass))
		if err != nil {
			return nil, nil, fmt.Errorf("entry %q: cannot decrypt the private key (wrong ssl.key.password?)", a)
		}
		key, err := parseKey(e.PrivateKey)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %q: %v", a, err)
		}
		var certs []*x509.Certificate
		for _, c := range e.CertificateChain {
			x, err := x509.ParseCertificate(c.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("entry %q: %v", a, err)
			}
			certs = append(certs, x)
		}
		return key, certs, nil
	}
	return nil, nil, errors.New("no private key entry")
}

// jksCertsUnchecked reads the trusted certificates of a JKS file without
// checking its keyed SHA-1 digest, as Java's KeyStore.load does with a null
// password. Only trusted-certificate entries count, as in Java's PKIX
// trust manager.
func jksCertsUnchecked(data []byte) ([]*x509.Certificate, error) {
	entries, err := jks.Walk(data)
	if err != nil {
		return nil, err
	}
	var out []*x509.Certificate
	for _, e := range entries {
		if !e.Trusted {
			continue
		}
		c, err := x509.ParseCertificate(e.Certs[0])
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", e.Alias, err)
		}
		out = append(out, c)
	}
	return out, nil
}
