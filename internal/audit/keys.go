package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// Key is an ed25519 audit key: the private half signs every receipt of the
// runs that write with it (`--audit-key` on plan, apply, check, demo); the
// public half verifies them (`audit verify --audit-key`). The database
// never holds either half, only signatures and the key's ID.
//
// Files are PEM: the private key "PRIVATE KEY" (PKCS #8), the public key
// "PUBLIC KEY" (PKIX), the formats of `openssl genpkey -algorithm ed25519`
// and `openssl pkey -pubout`. GenerateKey writes both.
type Key struct {
	Path    string             // the file it was read from
	Private ed25519.PrivateKey // nil for a public key file
	Public  ed25519.PublicKey
}

// ID names the key in the database and in messages: the first 16 hex
// digits of the SHA-256 of the public key.
func (k *Key) ID() string { return KeyID(k.Public) }

// KeyID is Key.ID for a public key.
func KeyID(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return hex.EncodeToString(h[:8])
}

// CanSign reports whether k holds the private key.
func (k *Key) CanSign() bool { return k != nil && len(k.Private) == ed25519.PrivateKeySize }

// LoadKey reads an audit key file: a private key (PKCS #8 PEM) or a public
// key (PKIX PEM), ed25519 only. Errors name the file.
func LoadKey(path string) (*Key, error) {
	b, err := infile.ReadAll(path, infile.Key)
	if err == nil {
		err = infile.ExpectBytes(path, infile.Key, b)
	}
	if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	k, err := ParseKey(path, b)
	return k, infile.Wrap(path, infile.Key, err)
}

// ParseKey parses the content of an audit key file; name is used in errors.
func ParseKey(name string, b []byte) (*Key, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("audit key %s: not a PEM file (want an ed25519 \"PRIVATE KEY\" or \"PUBLIC KEY\"; make one with 'migrate audit keygen --out FILE')", name)
	}
	switch blk.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("audit key %s: bad PKCS #8 private key: %v", name, err)
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("audit key %s: a %T, not an ed25519 key", name, k)
		}
		return &Key{Path: name, Private: priv, Public: priv.Public().(ed25519.PublicKey)}, nil
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("audit key %s: bad public key: %v", name, err)
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("audit key %s: a %T, not an ed25519 key", name, k)
		}
		return &Key{Path: name, Public: pub}, nil
	}
	return nil, fmt.Errorf("audit key %s: PEM block %q (want an ed25519 \"PRIVATE KEY\" or \"PUBLIC KEY\")", name, blk.Type)
}

// GenerateKey makes a new ed25519 audit key: the private key at path (mode
// 0600, refused if the file exists) and the public key at path + ".pub"
// (0644). It returns the key.
func GenerateKey(path string) (*Key, error) {
	if path == "" {
		return nil, errors.New("audit keygen: no output file")
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	pubPath := path + ".pub"
	if _, err := os.Stat(pubPath); err == nil {
		return nil, fmt.Errorf("audit keygen: %s exists; not overwriting a key", pubPath)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("audit keygen: %s exists; not overwriting a key", path)
		}
		return nil, fmt.Errorf("audit keygen: %v", err)
	}
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: pk}); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("audit keygen: write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("audit keygen: write %s: %v", path, err)
	}
	if err := os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("audit keygen: write %s: %v", pubPath, err)
	}
	return &Key{Path: path, Private: priv, Public: pub}, nil
}

// receiptMessage is what a receipt signature signs: the run, the chain
// position of its end row and that row's hash (the receipt).
func receiptMessage(runID, seq int64, hash string) []byte {
	return fmt.Appendf(nil, "zkmigrate audit receipt v1\nrun %d\nseq %d\nhash %s\n", runID, seq, strings.ToLower(hash))
}
