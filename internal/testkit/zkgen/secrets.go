package zkgen

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"unicode/utf16"
)

// ScramIterations is the PBKDF2 iteration count of every generated SCRAM
// credential (Kafka's minimum, and what kafka-configs.sh uses by default).
const ScramIterations = 4096

// ScramPoolSize is how many distinct (password, salt) pairs the generator
// derives per mechanism. Users draw from this pool, so a 5,000-user cluster
// costs 2×ScramPoolSize PBKDF2 runs instead of ~7,500: every credential is
// still a correct RFC 5802 derivation for its pool password, but several
// users share a salt. The reader only has to parse the format, which is
// what this exercises.
const ScramPoolSize = 64

type scramMech struct {
	name string
	h    func() hash.Hash
}

var scramMechs = [2]scramMech{{"SCRAM-SHA-256", sha256.New}, {"SCRAM-SHA-512", sha512.New}}

// scramPassword is the plaintext of pool entry k. Tests use it to check the
// derivation; it is never printed.
func scramPassword(seed int64, k int) string {
	return "zkgen-pw-" + strconv.FormatInt(seed, 36) + "-" + strconv.Itoa(k)
}

// kafkaSalt mimics ScramFormatter.secureRandomBytes: the UTF-8 bytes of a
// random 130-bit number written in base 36.
func kafkaSalt(rng *rand.Rand) []byte {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	n := 25 + rng.IntN(2)
	b := make([]byte, n)
	b[0] = digits[1+rng.IntN(35)]
	for i := 1; i < n; i++ {
		b[i] = digits[rng.IntN(36)]
	}
	return b
}

// poolSalt is the salt of pool entry k for mechanism scramMechs[m].
func poolSalt(seed int64, m, k int) []byte {
	return kafkaSalt(rand.New(rand.NewPCG(uint64(seed), 0x5c7a_0000+uint64(m)<<16+uint64(k))))
}

// scramCredential formats one credential the way ScramCredentialUtils does:
// salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>.
func scramCredential(m scramMech, password string, salt []byte, iterations int) string {
	salted, err := pbkdf2.Key(m.h, password, salt, iterations, m.h().Size())
	if err != nil {
		panic("zkgen: pbkdf2: " + err.Error()) // only fails for FIPS-rejected parameters
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(m.h, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	hs := m.h()
	hs.Write(clientKey)
	storedKey := hs.Sum(nil)
	serverKey := mac(salted, "Server Key")
	enc := base64.StdEncoding.EncodeToString
	return "salt=" + enc(salt) + ",stored_key=" + enc(storedKey) + ",server_key=" + enc(serverKey) + ",iterations=" + strconv.Itoa(iterations)
}

// scramPool derives the pool credentials for both mechanisms in parallel.
// pool[m][k] is the config value for mechanism scramMechs[m], entry k.
func scramPool(seed int64, size int) [2][]string {
	var pool [2][]string
	type job struct{ m, k int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				pool[j.m][j.k] = scramCredential(scramMechs[j.m], scramPassword(seed, j.k), poolSalt(seed, j.m, j.k), ScramIterations)
			}
		}()
	}
	for m := range pool {
		pool[m] = make([]string, size)
	}
	for m := range pool {
		for k := range size {
			jobs <- job{m, k}
		}
	}
	close(jobs)
	wg.Wait()
	return pool
}

// encryptPassword encodes a dynamic broker password config the way Kafka's
// EncryptingPasswordEncoder does with its defaults (PBKDF2WithHmacSHA512,
// AES/CBC/PKCS5Padding, 128-bit key, 4096 iterations, 256-byte salt).
func encryptPassword(rng *rand.Rand, secret, plaintext string) string {
	salt := randBytes(rng, 256)
	iv := randBytes(rng, aes.BlockSize)
	key, err := pbkdf2.Key(sha512.New, secret, salt, 4096, 128/8)
	if err != nil {
		panic("zkgen: pbkdf2: " + err.Error())
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("zkgen: aes: " + err.Error())
	}
	pad := aes.BlockSize - len(plaintext)%aes.BlockSize
	buf := append([]byte(plaintext), make([]byte, pad)...)
	for i := len(plaintext); i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	enc := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("encryptedPassword:%s,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,iterations:4096,salt:%s,initializationVector:%s,passwordLength:%d",
		enc(buf), enc(salt), enc(iv), len(utf16.Encode([]rune(plaintext))))
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
