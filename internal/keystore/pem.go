package keystore

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// PEMCertificates returns every CERTIFICATE block of PEM data, in order; none
// is an error.
func PEMCertificates(data []byte) ([]*x509.Certificate, error) {
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

// PEMKey returns the first private key in PEM data: PKCS#8, PKCS#1 or EC;
// an encrypted PKCS#8 key ("ENCRYPTED PRIVATE KEY", PBES2) or a legacy
// encrypted PEM key ("Proc-Type: 4,ENCRYPTED") is decrypted with pass.
// passSetting names the setting that holds pass when it is wrong (empty:
// "key password").
func PEMKey(data []byte, pass, passSetting string) (crypto.PrivateKey, error) {
	return pemKey(data, pass, passSetting)
}

func pemKey(data []byte, pass, passSetting string) (crypto.PrivateKey, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, errors.New("no PEM private key found")
		}
		if !strings.HasSuffix(b.Type, "PRIVATE KEY") {
			continue
		}
		der := b.Bytes
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			var err error
			if der, err = decryptPKCS8(der, pass); err != nil {
				if errors.Is(err, errWrongPassword) {
					return nil, wrongKeyPassword(passSetting)
				}
				return nil, err
			}
		//lint:ignore SA1019 legacy encrypted PEM is what older tools write.
		case x509.IsEncryptedPEMBlock(b): //nolint:staticcheck
			var err error
			der, err = x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return nil, wrongKeyPassword(passSetting)
			}
		}
		k, err := parseKeyDER(der)
		if err != nil && b.Type == "ENCRYPTED PRIVATE KEY" {
			// The padding check passes for about one wrong password in 256.
			return nil, fmt.Errorf("%v (%v)", wrongKeyPassword(passSetting), err)
		}
		return k, err
	}
}

// parseKeyDER parses a PKCS#8, PKCS#1 or SEC 1 (EC) private key.
func parseKeyDER(der []byte) (crypto.PrivateKey, error) {
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
