package zkread

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// kafkaVector is the §4.3 known-answer vector produced by Kafka 3.9's
// EncryptingPasswordEncoder.
const (
	kafkaVectorSecret = "s3cr3t-enc"
	kafkaVectorPlain  = "päss:w,rd=€/😀"
	kafkaVector       = "initializationVector:qk571yNP9c2aGSfUnhxpcw==,keyLength:128,salt:Ki8D2y1bEgmvcb2HMBm0J5fX87FYeaVeBUVp40jUWS76lVqaKwuhZ4DrWWa2p8kh9bIISZ5WQt1fSjGpXedgQdrvHy8mWiQtMqj6bJfXNJO8Vy5zgfMY3qTGIFW1/2C04qcNjar6am9AdsGH+h6DbZiaanWdc2XzKSzu6iOTPIuhWTGYcKihN3RU0i6XYCRqulrbJFVhPrSxnVLNw3TudyC2kTLMHMPBNI15qRVpnYxYtOqBUAdwVV8lCGecQLUOEfzRTOgvkuuL/U7j81thw9QgvLZdBdySVxRtD+rkzpykHuuH6tmFYq7hhMio9UYbNefYkFpH4JoJEE5Pi6r35g==,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,iterations:4096,passwordLength:14,encryptedPassword:lonkfoR+EOcjf0c8AR5k4nvOX0HJJikyzrVR8BSolhI="
)

// encryptPassword is a test-only re-implementation of Kafka's
// EncryptingPasswordEncoder.encode, with a fixed salt and IV so fixtures are
// reproducible.
func encryptPassword(t testing.TB, secret, plain, keyFactory, cipherAlg string, keyBits, iter int, salt, iv []byte) string {
	t.Helper()
	var prf func() hash.Hash = sha512.New
	if keyFactory == "PBKDF2WithHmacSHA1" {
		prf = sha1.New
	}
	key, err := pbkdf2.Key(prf, secret, salt, iter, keyBits/8)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	var ct []byte
	extra := ""
	switch cipherAlg {
	case "AES/CBC/PKCS5Padding":
		n := aes.BlockSize - len(plain)%aes.BlockSize
		p := append([]byte(plain), []byte(strings.Repeat(string(rune(n)), n))...)
		ct = make([]byte, len(p))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, p)
	case "AES/GCM/NoPadding":
		aead, err := cipher.NewGCM(block)
		if err != nil {
			t.Fatal(err)
		}
		ct = aead.Seal(nil, iv, []byte(plain), nil)
		extra = ",authenticationTagLength:128"
	default:
		t.Fatalf("cipher %s", cipherAlg)
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("encryptedPassword:%s,keyLength:%d,salt:%s,keyFactoryAlgorithm:%s,cipherAlgorithm:%s,iterations:%d,initializationVector:%s,passwordLength:%d%s",
		b64(ct), keyBits, b64(salt), keyFactory, cipherAlg, iter, b64(iv), len(utf16.Encode([]rune(plain))), extra)
}

func seq(n int, start byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

func TestDecryptPassword(t *testing.T) {
	salt := seq(256, 7)
	cases := []struct {
		name    string
		encoded string
		secret  string
		want    string
		wantErr string
	}{
		{name: "kafka 3.9 known-answer vector", encoded: kafkaVector, secret: kafkaVectorSecret, want: kafkaVectorPlain},
		{name: "known-answer vector, wrong secret", encoded: kafkaVector, secret: "nope", wantErr: "decryption failed"},
		{name: "CBC SHA512 default", secret: "enc-1",
			encoded: encryptPassword(t, "enc-1", "broker-ks-pass", "PBKDF2WithHmacSHA512", "AES/CBC/PKCS5Padding", 128, 4096, salt, seq(16, 1)),
			want:    "broker-ks-pass"},
		{name: "GCM 256-bit 2048 iterations", secret: "enc-2",
			encoded: encryptPassword(t, "enc-2", `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b";`, "PBKDF2WithHmacSHA512", "AES/GCM/NoPadding", 256, 2048, salt, seq(12, 9)),
			want:    `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b";`},
		{name: "SHA1 fallback 1024 iterations", secret: "enc-3",
			encoded: encryptPassword(t, "enc-3", "x", "PBKDF2WithHmacSHA1", "AES/CBC/PKCS5Padding", 128, 1024, salt, seq(16, 3)),
			want:    "x"},
		{name: "GCM wrong secret", secret: "other",
			encoded: encryptPassword(t, "enc-2", "pw", "PBKDF2WithHmacSHA512", "AES/GCM/NoPadding", 128, 1024, salt, seq(12, 9)),
			wantErr: "decryption failed"},
		{name: "spaces around commas", secret: kafkaVectorSecret, encoded: strings.ReplaceAll(kafkaVector, ",", " , "), want: kafkaVectorPlain},
		{name: "length check", secret: kafkaVectorSecret, encoded: strings.Replace(kafkaVector, "passwordLength:14", "passwordLength:13", 1), wantErr: "sanity check of length"},
		{name: "not encoded", encoded: "plain-password", secret: "s", wantErr: "not an encoded password"},
		{name: "unknown cipher", secret: "s", encoded: strings.Replace(kafkaVector, "AES/CBC/PKCS5Padding", "DES/CBC/PKCS5Padding", 1), wantErr: "unsupported cipherAlgorithm"},
		{name: "unknown key factory", secret: "s", encoded: strings.Replace(kafkaVector, "PBKDF2WithHmacSHA512", "Argon2", 1), wantErr: "unsupported keyFactoryAlgorithm"},
		{name: "bad key length", secret: "s", encoded: strings.Replace(kafkaVector, "keyLength:128", "keyLength:100", 1), wantErr: "unsupported keyLength"},
		{name: "bad base64", secret: "s", encoded: strings.Replace(kafkaVector, "encryptedPassword:lonk", "encryptedPassword:!onk", 1), wantErr: "not base64"},
		{name: "truncated ciphertext", secret: kafkaVectorSecret, encoded: strings.Replace(kafkaVector, "lonkfoR+EOcjf0c8AR5k4nvOX0HJJikyzrVR8BSolhI=", "lonkfoR+EOcjf0c8AR5k4g==", 1), wantErr: "decryption failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecryptPassword(c.encoded, c.secret)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, c.wantErr)
				}
				if strings.Contains(err.Error(), c.secret) && c.secret != "s" {
					t.Fatalf("error %q contains the secret", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestIsPasswordConfig(t *testing.T) {
	for key, want := range map[string]bool{
		"ssl.keystore.password":                         true,
		"listener.name.internal.ssl.keystore.password":  true,
		"listener.name.sasl_ssl.plain.sasl.jaas.config": true,
		"ssl.truststore.certificates":                   true,
		"log.retention.ms":                              false,
		"ssl.keystore.location":                         false,
		"listener.name.internal.ssl.keystore.type":      false,
		"sasl.enabled.mechanisms":                       false,
	} {
		if got := IsPasswordConfig(key); got != want {
			t.Errorf("IsPasswordConfig(%q) = %v, want %v", key, got, want)
		}
	}
}

func FuzzDecryptPassword(f *testing.F) {
	f.Add(kafkaVector, kafkaVectorSecret)
	f.Add(strings.Replace(kafkaVector, "AES/CBC/PKCS5Padding", "AES/GCM/NoPadding", 1)+",authenticationTagLength:96", "x")
	f.Add("a:b,c:d", "")
	f.Fuzz(func(t *testing.T, encoded, secret string) {
		if m, err := parseEncodedPassword(encoded); err == nil {
			if n, err := strconv.Atoi(m["iterations"]); err == nil && n > 5000 {
				return // big iteration counts are only slow, not interesting
			}
		}
		p, err := DecryptPassword(encoded, secret)
		if err != nil {
			return
		}
		if !utf8.ValidString(p) {
			t.Fatalf("plaintext is not UTF-8")
		}
	})
}
