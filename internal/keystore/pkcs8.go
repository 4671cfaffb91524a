package keystore

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// OIDs of PKCS#5 v2.0 (PBES2) as OpenSSL and Java write encrypted PKCS#8
// keys.
var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

type encryptedPrivateKeyInfo struct {
	Algorithm     pkix.AlgorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KeyDerivationFunc pkix.AlgorithmIdentifier
	EncryptionScheme  pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// errWrongPassword is decryptPKCS8's error when the padding shows a wrong
// password.
var errWrongPassword = errors.New("encrypted private key: wrong password")

// decryptPKCS8 decrypts an "ENCRYPTED PRIVATE KEY" (PBES2 with PBKDF2 and
// AES-CBC or 3DES-CBC) to the DER of the plain PKCS#8 key.
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, errors.New("bad encrypted private key: not PKCS#8 EncryptedPrivateKeyInfo DER")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encrypted private key: unsupported scheme %v (only PBES2)", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("bad PBES2 parameters: %v", err)
	}
	if !params.KeyDerivationFunc.Algorithm.Equal(oidPBKDF2) {
		return nil, errors.New("encrypted private key: unsupported key derivation (only PBKDF2)")
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("bad PBKDF2 parameters: %v", err)
	}
	var prf func() hash.Hash
	switch p := kdf.PRF.Algorithm; {
	case len(p) == 0 || p.Equal(oidHMACSHA1):
		prf = sha1.New
	case p.Equal(oidHMACSHA224):
		prf = sha256.New224
	case p.Equal(oidHMACSHA256):
		prf = sha256.New
	case p.Equal(oidHMACSHA384):
		prf = sha512.New384
	case p.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("encrypted private key: unsupported PRF %v", p)
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch s := params.EncryptionScheme.Algorithm; {
	case s.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case s.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case s.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case s.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("encrypted private key: unsupported cipher %v", s)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.EncryptionScheme.Parameters.FullBytes, &iv); err != nil {
		return nil, fmt.Errorf("bad cipher IV: %v", err)
	}
	if kdf.Iterations < 1 || kdf.Iterations > 10_000_000 {
		return nil, errors.New("encrypted private key: bad iteration count")
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	ct := info.EncryptedData
	if len(iv) != bs || len(ct) == 0 || len(ct)%bs != 0 {
		return nil, errors.New("encrypted private key: bad IV or data length")
	}
	plain := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, ct)
	n := int(plain[len(plain)-1])
	if n == 0 || n > bs {
		return nil, errWrongPassword
	}
	for _, b := range plain[len(plain)-n:] {
		if int(b) != n {
			return nil, errWrongPassword
		}
	}
	return plain[:len(plain)-n], nil
}
