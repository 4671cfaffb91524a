package zkconn

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/zkmigrate/zkmigrate/internal/jks"
	"os"
	"path/filepath"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"software.sslmate.com/src/go-pkcs12"
)

// Store is a key or trust store named in a ZooKeeper TLS config file.
type Store struct {
	Location string
	Password string
	Type     string // JKS, PKCS12 or PEM (from the file or the extension)
	Where    string // file:line of the location key, for errors
}

// TLSSettings are the zookeeper.ssl.* settings of a Kafka ZooKeeper TLS
// config file (the file given to Kafka tools as --zk-tls-config-file).
type TLSSettings struct {
	Enabled          bool // zookeeper.ssl.client.enable
	KeyStore         *Store
	TrustStore       *Store
	Protocol         string   // zookeeper.ssl.protocol
	EnabledProtocols []string // zookeeper.ssl.enabled.protocols
	CipherSuites     []string // zookeeper.ssl.cipher.suites
	VerifyHostname   bool     // zookeeper.ssl.endpoint.identification.algorithm is HTTPS (the default)
}

// ParseTLSSettings reads the zookeeper.ssl.* keys of a properties file.
// Relative store locations are taken relative to the working directory, as
// the JVM does. Errors name file:line and never contain passwords.
func ParseTLSSettings(f *props.File) (*TLSSettings, error) {
	m := f.Map()
	get := func(k string) string { return strings.TrimSpace(m["zookeeper.ssl."+k]) }
	s := &TLSSettings{VerifyHostname: true}
	if v := get("client.enable"); v != "" {
		switch strings.ToLower(v) {
		case "true":
			s.Enabled = true
		case "false":
		default:
			return nil, fmt.Errorf("zkconn: %s: zookeeper.ssl.client.enable=%q is not true or false", f.Where("zookeeper.ssl.client.enable"), v)
		}
	}
	for _, kind := range []string{"keystore", "truststore"} {
		loc := get(kind + ".location")
		if loc == "" {
			continue
		}
		st := &Store{Location: loc, Password: m["zookeeper.ssl."+kind+".password"], Type: strings.ToUpper(get(kind + ".type")),
			Where: f.Where("zookeeper.ssl." + kind + ".location")}
		if st.Type == "" {
			switch strings.ToLower(filepath.Ext(loc)) {
			case ".p12", ".pfx", ".pkcs12":
				st.Type = "PKCS12"
			case ".pem", ".crt", ".cer", ".key":
				st.Type = "PEM"
			default:
				st.Type = "JKS"
			}
		}
		switch st.Type {
		case "JKS", "PKCS12", "PEM":
		default:
			return nil, fmt.Errorf("zkconn: %s: unsupported store type %q (JKS, PKCS12 or PEM)", f.Where("zookeeper.ssl."+kind+".type"), st.Type)
		}
		if kind == "keystore" {
			s.KeyStore = st
		} else {
			s.TrustStore = st
		}
	}
	s.Protocol = get("protocol")
	if s.Protocol != "" {
		if _, ok := tlsVersions[s.Protocol]; !ok {
			return nil, fmt.Errorf("zkconn: %s: unsupported TLS protocol %q", f.Where("zookeeper.ssl.protocol"), s.Protocol)
		}
	}
	for _, p := range splitList(get("enabled.protocols")) {
		if _, ok := tlsVersions[p]; !ok {
			return nil, fmt.Errorf("zkconn: %s: unsupported TLS protocol %q", f.Where("zookeeper.ssl.enabled.protocols"), p)
		}
		s.EnabledProtocols = append(s.EnabledProtocols, p)
	}
	for _, c := range splitList(get("cipher.suites")) {
		if _, ok := cipherSuite(c); !ok {
			return nil, fmt.Errorf("zkconn: %s: cipher suite %q is not supported by Go's TLS", f.Where("zookeeper.ssl.cipher.suites"), c)
		}
		s.CipherSuites = append(s.CipherSuites, c)
	}
	if v, ok := m["zookeeper.ssl.endpoint.identification.algorithm"]; ok {
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "":
			s.VerifyHostname = false
		case "HTTPS":
		default:
			return nil, fmt.Errorf("zkconn: %s: endpoint identification algorithm %q (HTTPS or empty)", f.Where("zookeeper.ssl.endpoint.identification.algorithm"), v)
		}
	}
	for _, k := range []string{"crl.enable", "ocsp.enable"} {
		if strings.EqualFold(get(k), "true") {
			return nil, fmt.Errorf("zkconn: %s: zookeeper.ssl.%s=true is not supported by zkmigrate", f.Where("zookeeper.ssl."+k), k)
		}
	}
	return s, nil
}

var tlsVersions = map[string]uint16{"TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13, "TLSv1.1": tls.VersionTLS11, "TLSv1": tls.VersionTLS10, "TLS": 0}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func cipherSuite(name string) (uint16, bool) {
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if cs.Name == name {
			return cs.ID, true
		}
	}
	return 0, false
}

// LoadTLSConfig reads a ZooKeeper TLS config file. It returns nil when the
// file does not set zookeeper.ssl.client.enable=true (Kafka then connects
// without TLS).
func LoadTLSConfig(file string) (*tls.Config, error) {
	f, err := props.Load(file)
	if err != nil {
		return nil, fmt.Errorf("zkconn: TLS config: %w", err)
	}
	s, err := ParseTLSSettings(f)
	if err != nil {
		return nil, err
	}
	if !s.Enabled {
		return nil, nil
	}
	return s.Config()
}

// Config builds a client tls.Config: the key store's first key and chain as
// the client certificate, the trust store's certificates as roots (the
// system roots when none), versions and cipher suites as configured. With
// hostname verification off, the chain is still verified.
func (s *TLSSettings) Config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.KeyStore != nil {
		cert, err := loadKeyStore(s.KeyStore)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if s.TrustStore != nil {
		pool, err := loadTrustStore(s.TrustStore)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if s.Protocol != "" && tlsVersions[s.Protocol] != 0 {
		cfg.MaxVersion = tlsVersions[s.Protocol]
		cfg.MinVersion = min(cfg.MinVersion, cfg.MaxVersion)
	}
	if len(s.EnabledProtocols) > 0 {
		lo, hi := uint16(0xffff), uint16(0)
		for _, p := range s.EnabledProtocols {
			v := tlsVersions[p]
			if v == 0 {
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi != 0 {
			cfg.MinVersion, cfg.MaxVersion = lo, hi
		}
	}
	for _, c := range s.CipherSuites {
		id, _ := cipherSuite(c)
		cfg.CipherSuites = append(cfg.CipherSuites, id)
	}
	if !s.VerifyHostname {
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true // the chain is verified below, without the host name
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("zkconn: server sent no certificate")
			}
			certs := make([]*x509.Certificate, len(raw))
			for i, r := range raw {
				c, err := x509.ParseCertificate(r)
				if err != nil {
					return fmt.Errorf("zkconn: server certificate: %w", err)
				}
				certs[i] = c
			}
			inter := x509.NewCertPool()
			for _, c := range certs[1:] {
				inter.AddCert(c)
			}
			_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return cfg, nil
}

func storeErr(st *Store, what string, err error) error {
	msg := what
	if err != nil {
		msg += ": " + err.Error()
	}
	return fmt.Errorf("zkconn: %s: %s store %s: %s", st.Where, st.Type, st.Location, msg)
}

func loadKeyStore(st *Store) (tls.Certificate, error) {
	data, err := os.ReadFile(st.Location)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("zkconn: %s: key store: %w", st.Where, err)
	}
	cert, err := ParseKeyStore(data, st.Type, st.Password)
	if err != nil {
		return tls.Certificate{}, storeErr(st, "no usable key", err)
	}
	return cert, nil
}

func loadTrustStore(st *Store) (*x509.CertPool, error) {
	data, err := os.ReadFile(st.Location)
	if err != nil {
		return nil, fmt.Errorf("zkconn: %s: trust store: %w", st.Where, err)
	}
	certs, err := ParseTrustStore(data, st.Type, st.Password)
	if err != nil {
		return nil, storeErr(st, "no trusted certificates", err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// ParseKeyStore reads a client key and certificate chain from a JKS, PKCS12
// or PEM key store (the first private-key entry). Errors never contain the
// password.
func ParseKeyStore(data []byte, typ, password string) (tls.Certificate, error) {
	var out tls.Certificate
	switch strings.ToUpper(typ) {
	case "JKS":
		ks, err := loadJKS(data, password)
		if err != nil {
			return out, err
		}
		for _, a := range ks.Aliases() {
			if !ks.IsPrivateKeyEntry(a) {
				continue
			}
			e, err := ks.GetPrivateKeyEntry(a, []byte(password))
			if err != nil {
				return out, fmt.Errorf("key %q: wrong key password (%v)", a, err)
			}
			key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
			if err != nil {
				return out, fmt.Errorf("key %q: %v", a, err)
			}
			out.PrivateKey = key
			for _, c := range e.CertificateChain {
				out.Certificate = append(out.Certificate, c.Content)
			}
			return finishCert(out)
		}
		return out, errors.New("no private key entry")
	case "PKCS12":
		key, cert, cas, err := pkcs12.DecodeChain(data, password)
		if err != nil {
			return out, fmt.Errorf("bad PKCS12 or wrong password (%v)", err)
		}
		out.PrivateKey = key
		out.Certificate = append(out.Certificate, cert.Raw)
		for _, c := range cas {
			out.Certificate = append(out.Certificate, c.Raw)
		}
		return finishCert(out)
	case "PEM":
		for rest := data; ; {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				break
			}
			switch b.Type {
			case "CERTIFICATE":
				out.Certificate = append(out.Certificate, b.Bytes)
			case "PRIVATE KEY":
				k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
				if err != nil {
					return out, err
				}
				out.PrivateKey = k
			case "RSA PRIVATE KEY":
				k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
				if err != nil {
					return out, err
				}
				out.PrivateKey = k
			case "EC PRIVATE KEY":
				k, err := x509.ParseECPrivateKey(b.Bytes)
				if err != nil {
					return out, err
				}
				out.PrivateKey = k
			case "ENCRYPTED PRIVATE KEY":
				der, err := decryptPKCS8(b.Bytes, password)
				if err != nil {
					return out, err
				}
				k, err := x509.ParsePKCS8PrivateKey(der)
				if err != nil {
					return out, fmt.Errorf("encrypted private key: wrong password? (%v)", err)
				}
				out.PrivateKey = k
			}
		}
		if out.PrivateKey == nil {
			return out, errors.New("no PRIVATE KEY block")
		}
		return finishCert(out)
	}
	return out, fmt.Errorf("unsupported store type %q", typ)
}

// loadJKS checks a JKS file's structure (keystore-go trusts its lengths)
// and loads it with password.
func loadJKS(data []byte, password string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if _, err := jks.Walk(data); err != nil {
		return ks, fmt.Errorf("bad JKS (%v)", err)
	}
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return ks, fmt.Errorf("bad JKS or wrong password (%v)", err)
	}
	return ks, nil
}

func finishCert(c tls.Certificate) (tls.Certificate, error) {
	if len(c.Certificate) == 0 {
		return c, errors.New("no certificate with the key")
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		return c, err
	}
	if !publicKeyMatches(leaf.PublicKey, c.PrivateKey) {
		return c, errors.New("the private key does not match the certificate")
	}
	c.Leaf = leaf
	return c, nil
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

// ParseTrustStore reads the trusted certificates of a JKS, PKCS12 or PEM
// trust store.
func ParseTrustStore(data []byte, typ, password string) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	switch strings.ToUpper(typ) {
	case "JKS":
		ks, err := loadJKS(data, password)
		if err != nil {
			return nil, err
		}
		for _, a := range ks.Aliases() {
			var raw [][]byte
			switch {
			case ks.IsTrustedCertificateEntry(a):
				e, err := ks.GetTrustedCertificateEntry(a)
				if err != nil {
					return nil, err
				}
				raw = [][]byte{e.Certificate.Content}
			case ks.IsPrivateKeyEntry(a):
				chain, err := ks.GetPrivateKeyEntryCertificateChain(a)
				if err != nil {
					return nil, err
				}
				for _, c := range chain {
					raw = append(raw, c.Content)
				}
			}
			for _, r := range raw {
				c, err := x509.ParseCertificate(r)
				if err != nil {
					return nil, fmt.Errorf("certificate %q: %v", a, err)
				}
				out = append(out, c)
			}
		}
	case "PKCS12":
		certs, err := pkcs12.DecodeTrustStore(data, password)
		if err != nil || len(certs) == 0 {
			_, cert, cas, err2 := pkcs12.DecodeChain(data, password)
			if err2 != nil {
				if err == nil {
					err = err2
				}
				return nil, fmt.Errorf("bad PKCS12 or wrong password (%v)", err)
			}
			certs = append([]*x509.Certificate{cert}, cas...)
		}
		out = certs
	case "PEM":
		for rest := data; ; {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				break
			}
			if b.Type != "CERTIFICATE" {
				continue
			}
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	default:
		return nil, fmt.Errorf("unsupported store type %q", typ)
	}
	if len(out) == 0 {
		return nil, errors.New("no certificates")
	}
	return out, nil
}
