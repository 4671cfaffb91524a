package plansign

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// testKey makes a key from a seed byte, its ID as audit.KeyID makes it.
func testKey(seed byte) *Key {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	priv := ed25519.NewKeyFromSeed(s)
	pub := priv.Public().(ed25519.PublicKey)
	h := sha256.Sum256(pub)
	return &Key{ID: hex.EncodeToString(h[:8]), Private: priv, Public: pub}
}

func digestOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// A signature verifies with its key over its digest, and each way it can be
// wrong is refused with its own error, naming the key given.
func TestSignVerify(t *testing.T) {
	k, other := testKey(1), testKey(2)
	d := digestOf("plan")
	sig, err := Sign(k, d)
	if err != nil {
		t.Fatal(err)
	}
	if sig.KeyID != k.ID {
		t.Fatalf("signature names key %s, want %s", sig.KeyID, k.ID)
	}
	pub := &Key{ID: k.ID, Public: k.Public}
	if err := Verify(pub, d, sig); err != nil {
		t.Fatalf("a good signature is refused: %v", err)
	}
	if _, err := Sign(pub, d); err == nil || !strings.Contains(err.Error(), k.ID) {
		t.Fatalf("a public key signed: %v", err)
	}
	if _, err := Sign(k, "sha1:00"); err == nil {
		t.Fatal("a malformed digest was signed")
	}
	otherSig, _ := Sign(other, d)
	flipped := []byte(sig.Ed25519)
	flipped[3] ^= 1
	for _, c := range []struct {
		name   string
		digest string
		sig    *plan.Signature
		want   error
		names  []string
	}{
		{"unsigned", d, nil, ErrUnsigned, []string{k.ID}},
		{"another digest (the plan edited, resealed)", digestOf("plan edited"), sig, ErrBadSignature, []string{k.ID, "changed after it was signed"}},
		{"another key's signature", d, otherSig, ErrOtherKey, []string{k.ID, other.ID}},
		{"another key's signature claiming this key", d, &plan.Signature{KeyID: k.ID, Ed25519: otherSig.Ed25519}, ErrBadSignature, []string{k.ID}},
		{"a bit flipped", d, &plan.Signature{KeyID: k.ID, Ed25519: string(flipped)}, ErrBadSignature, []string{k.ID}},
		{"not base64", d, &plan.Signature{KeyID: k.ID, Ed25519: "!!"}, ErrBadSignature, []string{k.ID, "base64"}},
		{"short", d, &plan.Signature{KeyID: k.ID, Ed25519: base64.StdEncoding.EncodeToString([]byte("short"))}, ErrBadSignature, []string{k.ID}},
		{"empty", d, &plan.Signature{KeyID: k.ID}, ErrBadSignature, []string{k.ID}},
		{"key id with an escape", d, &plan.Signature{KeyID: "\x1b[2J", Ed25519: sig.Ed25519}, ErrOtherKey, []string{k.ID, `"\x1b[2J"`}},
		{"malformed digest", "sha256:zz", sig, ErrBadSignature, []string{k.ID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(pub, c.digest, c.sig)
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
			for _, n := range c.names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("%q does not name %q", err, n)
				}
			}
			if strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("%q holds an escape", err)
			}
		})
	}
}

// FuzzVerify gives arbitrary signatures and digests to Verify: it never
// panics, always names the key, and accepts only the key's own signature
// of that very digest.
func FuzzVerify(f *testing.F) {
	k := testKey(7)
	d := digestOf("x")
	good, _ := Sign(k, d)
	f.Add(good.KeyID, good.Ed25519, d)
	f.Add(k.ID, "", d)
	f.Add("", good.Ed25519, d)
	f.Add(k.ID, good.Ed25519, "sha256:")
	f.Add(k.ID, good.Ed25519+"=", d)
	f.Add(k.ID, strings.Repeat("A", 86)+"==", d)
	pub := &Key{ID: k.ID, Public: k.Public}
	f.Fuzz(func(t *testing.T, keyID, sig, digest string) {
		err := Verify(pub, digest, &plan.Signature{KeyID: keyID, Ed25519: sig})
		if err == nil {
			want, _ := Sign(k, digest)
			if keyID != k.ID || want == nil || sig != want.Ed25519 {
				t.Fatalf("accepted key %q sig %q over %q", keyID, sig, digest)
			}
			return
		}
		if !strings.Contains(err.Error(), k.ID) {
			t.Fatalf("%q does not name key %s", err, k.ID)
		}
	})
}
