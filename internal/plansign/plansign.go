// Package plansign signs and verifies saved plans (plan --out --sign-key,
// apply --plan --verify-key) with the ed25519 keys 'migrate audit keygen'
// makes. A signature signs a plan's digest (planfile.Digest: the SHA-256
// of the plan's canonical encoding, every field but the digest and the
// signature), so it covers the options, the changes and every other value
// apply reads; the message also names the signing key, so a signature
// cannot be passed off as another key's. It is pure: keys come in as
// values, and the plan file's reading and writing is planfile's.
package plansign

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Key is an ed25519 key that signs plans (Private set) or verifies them.
// ID names it in the file and in messages: the audit key ID
// (audit.KeyID: 16 hex digits of the SHA-256 of the public key).
type Key struct {
	ID      string
	Private ed25519.PrivateKey // nil: verify only
	Public  ed25519.PublicKey
}

// CanSign reports whether k holds a private key.
func (k *Key) CanSign() bool { return k != nil && len(k.Private) == ed25519.PrivateKeySize }

// message is what a plan signature signs: the key and the plan's digest.
func message(keyID, digest string) []byte {
	return fmt.Appendf(nil, "zkmigrate plan signature v1\nkey %s\ndigest %s\n", keyID, digest)
}

// Sign signs the plan digest digest ("sha256:<hex>") with k.
func Sign(k *Key, digest string) (*plan.Signature, error) {
	if !k.CanSign() {
		return nil, fmt.Errorf("key %s: a public key cannot sign; give the private key", k.ID)
	}
	if !validDigest(digest) {
		return nil, fmt.Errorf("plan digest %q: want sha256: and 64 hex digits", digest)
	}
	sig := ed25519.Sign(k.Private, message(k.ID, digest))
	return &plan.Signature{KeyID: k.ID, Ed25519: base64.StdEncoding.EncodeToString(sig)}, nil
}

// ErrUnsigned marks a plan that holds no signature.
var ErrUnsigned = errors.New("unsigned")

// ErrBadSignature marks a signature that does not verify, or does not
// read as one.
var ErrBadSignature = errors.New("bad signature")

// ErrOtherKey marks a plan signed by a key other than the one given.
var ErrOtherKey = errors.New("signed by another key")

// Verify checks that s, a plan's signature (nil: the plan is unsigned), is
// k's over the plan digest digest. digest must be the digest of the plan's
// content as read (planfile.Check computes it), not one taken on trust.
// Every error names k's ID, and the one the signature claims when it names
// another.
func Verify(k *Key, digest string, s *plan.Signature) error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: the plan holds no signature, and one by key %s is required; sign it with migrate plan --out --sign-key", ErrUnsigned, k.ID)
	case s.KeyID != k.ID:
		return fmt.Errorf("%w: the plan is signed by key %s, not by key %s", ErrOtherKey, quoteID(s.KeyID), k.ID)
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(s.Ed25519)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: field signature.ed25519 is not a signature by key %s (want the base64 of %d bytes)", ErrBadSignature, k.ID, ed25519.SignatureSize)
	}
	if len(k.Public) != ed25519.PublicKeySize || !validDigest(digest) || !ed25519.Verify(k.Public, message(k.ID, digest), sig) {
		return fmt.Errorf("%w: the signature by key %s does not verify: the plan was changed after it was signed", ErrBadSignature, k.ID)
	}
	return nil
}

// quoteID shows a key ID read from a file: as it is when it looks like
// one, quoted (Go syntax, control characters escaped) when it does not.
func quoteID(id string) string {
	if len(id) == 16 && strings.Trim(id, "0123456789abcdef") == "" {
		return id
	}
	return fmt.Sprintf("%q", id)
}

// validDigest reports whether d is "sha256:" and 64 lowercase hex digits.
func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}
