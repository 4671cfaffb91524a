package kafkaconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/keystore"
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
		if typ != keystore.PEM {
			return nil, bad("ssl.truststore.certificates", "needs ssl.truststore.type=PEM")
		}
		if hasLoc && loc != "" {
			return nil, bad("ssl.truststore.certificates", "set either ssl.truststore.location or ssl.truststore.certificates, not both")
		}
		cs, err := keystore.PEMCertificates([]byte(pemCerts))
		if err != nil {
			return nil, bad("ssl.truststore.certificates", "%v", err)
		}
		certs = cs
	case hasLoc && loc != "":
		if !keystore.Supported(typ) {
			return nil, bad("ssl.truststore.type", "%q is not supported (want JKS, PKCS12 or PEM)", typ)
		}
		cs, err := keystore.Store{Path: loc, Type: typ, Password: pass, TypeSetting: "ssl.truststore.type"}.Trust()
		if err != nil {
			return nil, bad("ssl.truststore.location", "%v", err)
		}
		certs = cs
	default:
		return nil, nil
	}
	return keystore.Pool(certs), nil
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

	switch {
	case hasChain || hasKey:
		if typ != keystore.PEM {
			return nil, bad("ssl.keystore.certificate.chain", "needs ssl.keystore.type=PEM")
		}
		if !hasChain || !hasKey {
			return nil, bad("ssl.keystore.key", "ssl.keystore.key and ssl.keystore.certificate.chain must both be set")
		}
		certs, err := keystore.PEMCertificates([]byte(chain))
		if err != nil {
			return nil, bad("ssl.keystore.certificate.chain", "%v", err)
		}
		key, err := keystore.PEMKey([]byte(keyPEM), keyPass, "ssl.key.password")
		if err != nil {
			return nil, bad("ssl.keystore.key", "%v", err)
		}
		tc, err := keystore.Certificate(key, certs)
		if err != nil {
			return nil, bad("ssl.keystore.key", "%v", err)
		}
		return &tc, nil
	case hasLoc && loc != "":
		if !keystore.Supported(typ) {
			return nil, bad("ssl.keystore.type", "%q is not supported (want JKS, PKCS12 or PEM)", typ)
		}
		tc, err := keystore.Store{Path: loc, Type: typ, Password: storePass, KeyPassword: keyPass,
			TypeSetting: "ssl.keystore.type", KeyPasswordSetting: "ssl.key.password"}.Key()
		if err != nil {
			return nil, bad("ssl.keystore.location", "%v", err)
		}
		return &tc, nil
	}
	return nil, nil
}
