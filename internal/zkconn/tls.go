package zkconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/keystore"
	"github.com/zkmigrate/zkmigrate/internal/props"
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
		if !keystore.Supported(st.Type) {
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

// keyStore returns st as the keystore package reads it: ZooKeeper opens
// the key with the store password.
func (st *Store) keyStore(kind string) keystore.Store {
	return keystore.Store{Path: st.Location, Type: st.Type, Password: st.Password, KeyPassword: st.Password,
		TypeSetting: "zookeeper.ssl." + kind + ".type", KeyPasswordSetting: "zookeeper.ssl." + kind + ".password"}
}

func loadKeyStore(st *Store) (tls.Certificate, error) {
	cert, err := st.keyStore("keystore").Key()
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("zkconn: %s: %v", st.Where, err)
	}
	return cert, nil
}

func loadTrustStore(st *Store) (*x509.CertPool, error) {
	certs, err := st.keyStore("truststore").Trust()
	if err != nil {
		return nil, fmt.Errorf("zkconn: %s: %v", st.Where, err)
	}
	return keystore.Pool(certs), nil
}
