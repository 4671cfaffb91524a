package keystore

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/testpki"
)

const (
	storePass = "st0re-pass-Ü"
	keyPass   = "k3y-pass-7"
)

// Every format yields the key with its chain, checked against the leaf;
// wrong passwords, a key that belongs to another certificate, and data of
// another format are errors that say which.
func TestParseKey(t *testing.T) {
	ca := testpki.NewCA(t, "test-ca")
	client, key := ca.Issue(t, pkix.Name{CommonName: "client"})
	_, otherKey := ca.Issue(t, pkix.Name{CommonName: "other"})
	chain := []*x509.Certificate{client, ca.Cert}
	pemChain := append(testpki.CertPEM(client), testpki.CertPEM(ca.Cert)...)
	//lint:ignore SA1019 legacy encrypted PEM is what older tools write.
	legacy, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", ecDER(t, key), []byte(keyPass), x509.PEMCipherAES256) //nolint:staticcheck
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, typ          string
		data               []byte
		storePass, keyPass string
		err                string // "" means success
	}{
		{"PEM", "PEM", testpki.KeyStore(t, "PEM", key, chain, "", ""), "", "", ""},
		{"PEM lower-case type", "pem", testpki.KeyStore(t, "PEM", key, chain, "", ""), "", "", ""},
		{"PEM encrypted PKCS#8", "PEM", append(testpki.EncryptedKeyPEM(t, key, keyPass), pemChain...), "", keyPass, ""},
		{"PEM encrypted PKCS#8, wrong password", "PEM", append(testpki.EncryptedKeyPEM(t, key, keyPass), pemChain...), "", "wrong", "cannot decrypt the private key (wrong key password?)"},
		{"PEM legacy encrypted", "PEM", append(pem.EncodeToMemory(legacy), pemChain...), "", keyPass, ""},
		{"PEM legacy encrypted, wrong password", "PEM", append(pem.EncodeToMemory(legacy), pemChain...), "", "wrong", "cannot decrypt the private key (wrong key password?)"},
		{"PEM without key", "PEM", pemChain, "", "", "no PEM private key found"},
		{"PEM without certificate", "PEM", testpki.KeyPEM(t, key), "", "", "no PEM certificate found"},
		{"PEM key of another certificate", "PEM", append(testpki.KeyPEM(t, otherKey), pemChain...), "", "", `the private key does not match the certificate "CN=client"`},
		{"PKCS12", "PKCS12", testpki.KeyStore(t, "PKCS12", key, chain, storePass, ""), storePass, "", ""},
		{"PKCS12 wrong password", "PKCS12", testpki.KeyStore(t, "PKCS12", key, chain, storePass, ""), "wrong", "", "wrong password"},
		{"PKCS12 given JKS", "PKCS12", testpki.KeyStore(t, "JKS", key, chain, storePass, keyPass), storePass, "", "not a PKCS12 file"},
		{"JKS", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, keyPass), storePass, keyPass, ""},
		{"JKS wrong store password", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, keyPass), "wrong", keyPass, "integrity check failed: wrong password"},
		{"JKS no store password", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, keyPass), "", keyPass, "integrity check failed: the password is not set"},
		{"JKS wrong key password", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, keyPass), storePass, "wrong", `entry "client": cannot decrypt the private key (wrong key password?)`},
		{"JKS truststore", "JKS", testpki.TrustStore(t, "JKS", storePass, ca.Cert), storePass, "", "no private key entry"},
		{"JKS given PEM", "JKS", pemChain, storePass, "", "not a JKS keystore"},
		{"JKS truncated", "JKS", []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0}, storePass, "", "truncated JKS file"},
		{"unsupported type", "BCFKS", pemChain, "", "", `store type "BCFKS" is not supported (want JKS, PKCS12 or PEM)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseKey(tt.data, tt.typ, tt.storePass, tt.keyPass)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Leaf == nil || c.Leaf.Subject.CommonName != "client" || len(c.Certificate) == 0 || c.PrivateKey == nil {
				t.Fatalf("certificate %+v", c)
			}
			if !c.Leaf.Equal(client) {
				t.Error("leaf is not the client certificate")
			}
		})
	}
}

// A trust store yields its trusted certificates only: a JKS key store
// (private key entries) trusts nothing; a JKS file without a password is
// read without the integrity check, as Java does; a PKCS12 file without
// Java's trust attribute trusts every certificate in it.
func TestParseTrust(t *testing.T) {
	ca, other := testpki.NewCA(t, "test-ca"), testpki.NewCA(t, "other-ca")
	client, key := ca.Issue(t, pkix.Name{CommonName: "client"})
	chain := []*x509.Certificate{client, ca.Cert}
	tests := []struct {
		name, typ string
		data      []byte
		pass      string
		want      []string // CNs; nil with err
		err       string
	}{
		{"PEM", "PEM", testpki.TrustStore(t, "PEM", "", ca.Cert, other.Cert), "", []string{"test-ca", "other-ca"}, ""},
		{"PEM garbage", "PEM", []byte("this is not a keystore\n"), "", nil, "no PEM certificate found"},
		{"PKCS12", "PKCS12", testpki.TrustStore(t, "PKCS12", storePass, ca.Cert), storePass, []string{"test-ca"}, ""},
		{"PKCS12 without trust attribute", "PKCS12", testpki.KeyStore(t, "PKCS12", key, chain, storePass, ""), storePass, []string{"client", "test-ca"}, ""},
		{"PKCS12 wrong password", "PKCS12", testpki.TrustStore(t, "PKCS12", storePass, ca.Cert), "wrong", nil, "wrong password"},
		{"JKS", "JKS", testpki.TrustStore(t, "JKS", storePass, ca.Cert, other.Cert), storePass, []string{"test-ca", "other-ca"}, ""},
		{"JKS without password", "JKS", testpki.TrustStore(t, "JKS", storePass, ca.Cert), "", []string{"test-ca"}, ""},
		{"JKS wrong password", "JKS", testpki.TrustStore(t, "JKS", storePass, ca.Cert), "wrong", nil, "integrity check failed: wrong password"},
		{"JKS key store", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, storePass), storePass, nil, "holds no trusted certificates"},
		{"JKS key store without password", "JKS", testpki.KeyStore(t, "JKS", key, chain, storePass, storePass), "", nil, "holds no trusted certificates"},
		{"unsupported type", "DKS", nil, "", nil, `store type "DKS" is not supported (want JKS, PKCS12 or PEM)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certs, err := ParseTrust(tt.data, tt.typ, tt.pass)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range certs {
				got = append(got, c.Subject.CommonName)
			}
			// A JKS file's aliases come in no fixed order.
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("certificates %v, want %v", got, want)
			}
		})
	}
}

// Store errors name the type, the kind of store and the file, hint at the
// type setting when the file is of another format, name the key password
// setting, and never contain a password.
func TestStoreErrors(t *testing.T) {
	ca := testpki.NewCA(t, "test-ca")
	client, key := ca.Issue(t, pkix.Name{CommonName: "client"})
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jks := write("client.jks", testpki.KeyStore(t, "JKS", key, []*x509.Certificate{client}, storePass, keyPass))
	pemTrust := write("trust.pem", testpki.CertPEM(ca.Cert))
	p12 := write("trust.p12", testpki.TrustStore(t, "PKCS12", storePass, ca.Cert))
	tests := []struct {
		name  string
		store Store
		trust bool
		want  string
	}{
		{"missing", Store{Path: dir + "/none.jks", Type: "JKS"}, false, "cannot read keystore DIR/none.jks: no such file or directory"},
		{"missing trust", Store{Path: dir + "/none.jks", Type: "JKS"}, true, "cannot read truststore DIR/none.jks: no such file or directory"},
		{"PEM as JKS", Store{Path: pemTrust, Type: "JKS", Password: storePass, TypeSetting: "zookeeper.ssl.truststore.type"}, true,
			"JKS truststore DIR/trust.pem: not a JKS keystore (the file is PEM; set zookeeper.ssl.truststore.type=PEM)"},
		{"JKS as PKCS12", Store{Path: jks, Type: "PKCS12", Password: storePass, TypeSetting: "ssl.keystore.type"}, false,
			"PKCS12 keystore DIR/client.jks: not a PKCS12 file (the file is JKS; set ssl.keystore.type=JKS)"},
		{"PKCS12 as JKS, generic hint", Store{Path: p12, Type: "JKS", Password: storePass}, true,
			"JKS truststore DIR/trust.p12: not a JKS keystore (the file looks like PKCS12; set the store type=PKCS12)"},
		{"wrong key password", Store{Path: jks, Type: "JKS", Password: storePass, KeyPassword: "wrong-" + keyPass, KeyPasswordSetting: "ssl.key.password"}, false,
			`JKS keystore DIR/client.jks: entry "client": cannot decrypt the private key (wrong ssl.key.password?)`},
		{"wrong store password", Store{Path: jks, Type: "JKS", Password: "wrong-" + storePass, KeyPassword: keyPass}, false,
			"JKS keystore DIR/client.jks: integrity check failed: wrong password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.trust {
				_, err = tt.store.Trust()
			} else {
				_, err = tt.store.Key()
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(err.Error(), storePass) || strings.Contains(err.Error(), keyPass) {
				t.Errorf("error shows a password: %v", err)
			}
		})
	}
	if c, err := (Store{Path: jks, Type: "JKS", Password: storePass, KeyPassword: keyPass}).Key(); err != nil || !c.Leaf.Equal(client) {
		t.Errorf("Key() = %v, %v", c.Leaf, err)
	}
	if certs, err := (Store{Path: p12, Type: "PKCS12", Password: storePass}).Trust(); err != nil || len(certs) != 1 || !Pool(certs).Equal(Pool([]*x509.Certificate{ca.Cert})) {
		t.Errorf("Trust() = %v, %v", certs, err)
	}
}

func FuzzParseStores(f *testing.F) {
	t := &testing.T{}
	ca := testpki.NewCA(t, "test-ca")
	client, key := ca.Issue(t, pkix.Name{CommonName: "zk-client"})
	for _, typ := range []string{"PEM", "PKCS12", "JKS"} {
		f.Add(testpki.KeyStore(t, typ, key, []*x509.Certificate{client, ca.Cert}, storePass, storePass), typ)
		f.Add(testpki.TrustStore(t, typ, storePass, ca.Cert), typ)
	}
	f.Add(append(testpki.EncryptedKeyPEM(t, key, storePass), testpki.CertPEM(client)...), "PEM")
	f.Fuzz(func(t *testing.T, data []byte, typ string) {
		if strings.EqualFold(typ, "PKCS12") {
			// go-pkcs12 runs whatever PBKDF iteration count the input says:
			// mutated counts make runs slow, not interesting.
			return
		}
		if c, err := ParseKey(data, typ, storePass, storePass); err == nil && (c.Leaf == nil || !publicKeyMatches(c.Leaf.PublicKey, c.PrivateKey)) {
			t.Fatalf("ParseKey returned a key that does not match its leaf")
		}
		if certs, err := ParseTrust(data, typ, storePass); err == nil && len(certs) == 0 {
			t.Fatal("ParseTrust returned no certificates and no error")
		}
	})
}

func ecDER(t *testing.T, k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
