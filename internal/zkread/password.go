package zkread

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// passwordTypeConfigs are the dynamic PASSWORD-typed broker configs. A key in
// /config/brokers/<id> whose name ends with one of them is stored encrypted
// (DynamicBrokerConfig.isPasswordConfig).
var passwordTypeConfigs = []string{
	"ssl.keystore.password",
	"ssl.key.password",
	"ssl.truststore.password",
	"ssl.keystore.key",
	"ssl.keystore.certificate.chain",
	"ssl.truststore.certificates",
	"sasl.jaas.config",
}

// IsPasswordConfig reports whether a dynamic broker config key is
// password-typed, so that ZooKeeper holds it encrypted.
func IsPasswordConfig(key string) bool {
	for _, p := range passwordTypeConfigs {
		if strings.HasSuffix(key, p) {
			return true
		}
	}
	return false
}

var csvSplit = regexp.MustCompile(`\s*,\s*`)

// parseEncodedPassword splits a PasswordEncoder string into its map, as
// Csv.parseCsvMap does: pairs split on `\s*,\s*`, each at its last ':'.
func parseEncodedPassword(s string) (map[string]string, error) {
	m := map[string]string{}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty value")
	}
	for _, kv := range csvSplit.Split(s, -1) {
		i := strings.LastIndexByte(kv, ':')
		if i < 0 {
			return nil, errors.New("not an encoded password (a pair without ':')")
		}
		m[strings.TrimSpace(kv[:i])] = strings.TrimSpace(kv[i+1:])
	}
	for _, k := range []string{"keyFactoryAlgorithm", "cipherAlgorithm", "keyLength", "iterations", "salt", "initializationVector", "encryptedPassword", "passwordLength"} {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("not an encoded password (no %s)", k)
		}
	}
	return m, nil
}

// IsEncodedPassword reports whether s has the shape of a PasswordEncoder
// value (it does not decrypt it).
func IsEncodedPassword(s string) bool {
	_, err := parseEncodedPassword(s)
	return err == nil
}

// DecryptPassword decrypts a dynamic broker password written by Kafka's
// EncryptingPasswordEncoder (kafka-zk-model.md §4): PBKDF2 with HMAC-SHA512
// or HMAC-SHA1 over the encoder secret, then AES-CBC or AES-GCM, all
// parameters taken from the stored value. Errors never contain the value,
// the secret or the plaintext.
func DecryptPassword(encoded, secret string) (string, error) {
	m, err := parseEncodedPassword(encoded)
	if err != nil {
		return "", fmt.Errorf("zkread: %w", err)
	}
	var prf func() hash.Hash
	switch m["keyFactoryAlgorithm"] {
	case "PBKDF2WithHmacSHA512":
		prf = sha512.New
	case "PBKDF2WithHmacSHA384":
		prf = sha512.New384
	case "PBKDF2WithHmacSHA256":
		prf = sha256.New
	case "PBKDF2WithHmacSHA224":
		prf = sha256.New224
	case "PBKDF2WithHmacSHA1":
		prf = sha1.New
	default:
		return "", fmt.Errorf("zkread: unsupported keyFactoryAlgorithm %q", m["keyFactoryAlgorithm"])
	}
	keyBits, err := strconv.Atoi(m["keyLength"])
	if err != nil || keyBits != 128 && keyBits != 192 && keyBits != 256 {
		return "", fmt.Errorf("zkread: unsupported keyLength %q (AES takes 128, 192 or 256)", m["keyLength"])
	}
	iter, err := strconv.Atoi(m["iterations"])
	if err != nil || iter < 1 || iter > 10_000_000 {
		return "", fmt.Errorf("zkread: bad iterations %q", m["iterations"])
	}
	salt, err := base64.StdEncoding.DecodeString(m["salt"])
	if err != nil {
		return "", errors.New("zkread: salt is not base64")
	}
	iv, err := base64.StdEncoding.DecodeString(m["initializationVector"])
	if err != nil {
		return "", errors.New("zkread: initializationVector is not base64")
	}
	ct, err := base64.StdEncoding.DecodeString(m["encryptedPassword"])
	if err != nil {
		return "", errors.New("zkread: encryptedPassword is not base64")
	}
	wantLen, err := strconv.Atoi(m["passwordLength"])
	if err != nil || wantLen < 0 {
		return "", fmt.Errorf("zkread: bad passwordLength %q", m["passwordLength"])
	}
	alg, mode, _ := strings.Cut(m["cipherAlgorithm"], "/")
	mode, padding, _ := strings.Cut(mode, "/")
	if alg != "AES" {
		return "", fmt.Errorf("zkread: unsupported cipherAlgorithm %q", m["cipherAlgorithm"])
	}
	key, err := pbkdf2.Key(prf, secret, salt, iter, keyBits/8)
	if err != nil {
		return "", fmt.Errorf("zkread: derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", fmt.Errorf("zkread: %w", err)
	}
	var plain []byte
	switch mode {
	case "CBC":
		if padding != "PKCS5Padding" {
			return "", fmt.Errorf("zkread: unsupported cipherAlgorithm %q", m["cipherAlgorithm"])
		}
		if len(iv) != aes.BlockSize || len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
			return "", errors.New("zkread: bad CBC initialization vector or ciphertext length")
		}
		plain = make([]byte, len(ct))
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, ct)
		n := int(plain[len(plain)-1])
		if n == 0 || n > aes.BlockSize || n > len(plain) {
			return "", errors.New("zkread: decryption failed (wrong password encoder secret?)")
		}
		for _, p := range plain[len(plain)-n:] {
			if int(p) != n {
				return "", errors.New("zkread: decryption failed (wrong password encoder secret?)")
			}
		}
		plain = plain[:len(plain)-n]
	case "GCM":
		tagBits := 128
		if t, ok := m["authenticationTagLength"]; ok {
			if tagBits, err = strconv.Atoi(t); err != nil {
				return "", fmt.Errorf("zkread: bad authenticationTagLength %q", t)
			}
		}
		var aead cipher.AEAD
		switch {
		case tagBits == 128 && len(iv) == 12:
			aead, err = cipher.NewGCM(block)
		case tagBits == 128 && len(iv) > 0:
			aead, err = cipher.NewGCMWithNonceSize(block, len(iv))
		case len(iv) == 12 && tagBits%8 == 0 && tagBits >= 96 && tagBits <= 128:
			aead, err = cipher.NewGCMWithTagSize(block, tagBits/8)
		default:
			return "", fmt.Errorf("zkread: unsupported GCM parameters (iv %d bytes, tag %d bits)", len(iv), tagBits)
		}
		if err != nil {
			return "", fmt.Errorf("zkread: %w", err)
		}
		if plain, err = aead.Open(nil, iv, ct, nil); err != nil {
			return "", errors.New("zkread: decryption failed (wrong password encoder secret?)")
		}
	default:
		return "", fmt.Errorf("zkread: unsupported cipherAlgorithm %q", m["cipherAlgorithm"])
	}
	if !utf8.Valid(plain) {
		return "", errors.New("zkread: decryption failed (plaintext is not UTF-8; wrong password encoder secret?)")
	}
	if n := len(utf16.Encode([]rune(string(plain)))); n != wantLen {
		return "", errors.New("zkread: decryption failed (sanity check of length failed; wrong password encoder secret?)")
	}
	return string(plain), nil
}
