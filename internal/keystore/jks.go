package keystore

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
)

// loadJKS checks a JKS file's structure with walkJKS (keystore-go trusts
// the file's lengths: a corrupt file must be an error, not a
// multi-gigabyte allocation) and loads it with pass.
func loadJKS(data []byte, pass string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if _, err := walkJKS(data); err != nil {
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

// jksTrust returns the trusted-certificate entries of a JKS file; like
// Java's PKIX trust manager it does not take private key entries' chains.
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

// jksKey returns the first private key entry of a JKS file and its chain.
func jksKey(data []byte, storePass, keyPass, keyPassSetting string) (crypto.PrivateKey, []*x509.Certificate, error) {
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
			return nil, nil, fmt.Errorf("entry %q: %v", a, wrongKeyPassword(keyPassSetting))
		}
		key, err := parseKeyDER(e.PrivateKey)
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
// password. Only trusted-certificate entries count, as in jksTrust.
func jksCertsUnchecked(data []byte) ([]*x509.Certificate, error) {
	entries, err := walkJKS(data)
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
