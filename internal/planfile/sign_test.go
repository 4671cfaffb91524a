package planfile

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
)

// signKey makes a signing key from a seed byte.
func signKey(seed byte) *plansign.Key {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	priv := ed25519.NewKeyFromSeed(s)
	pub := priv.Public().(ed25519.PublicKey)
	h := sha256.Sum256(pub)
	return &plansign.Key{ID: hex.EncodeToString(h[:8]), Private: priv, Public: pub}
}

func public(k *plansign.Key) *plansign.Key { return &plansign.Key{ID: k.ID, Public: k.Public} }

// A signed plan file holds its signature last, after the digest, reads back
// whole (Read ignores nothing of it) and verifies with the public key; the
// encoding shared with the audit trail (EncodeSigned) is the same file.
func TestWriteSignedReadVerified(t *testing.T) {
	k := signKey(1)
	dir := t.TempDir()
	for name, p := range goldenPlans(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := WriteSigned(path, p, k); err != nil {
				t.Fatal(err)
			}
			if p.Signature == nil || p.Signature.KeyID != k.ID {
				t.Fatalf("WriteSigned left signature %+v", p.Signature)
			}
			plain := readPlain(t, path)
			sig, _ := json.Marshal(p.Signature)
			if !bytes.HasSuffix(plain, []byte(`,"digest":"`+p.Digest+`","signature":`+string(sig)+"}\n")) {
				t.Fatalf("the file does not end with its digest and signature: ...%q", plain[max(0, len(plain)-200):])
			}
			got, err := ReadVerified(path, public(k))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(p, got, secretCmp); d != "" {
				t.Fatalf("(-written +read):\n%s", d)
			}
			var tap bytes.Buffer
			enc, err := EncodeSigned(p, &tap, k)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tap.Bytes(), plain) || *enc.Signature != *p.Signature {
				t.Fatal("EncodeSigned's text differs from WriteSigned's file")
			}
		})
	}
	if _, err := EncodeSigned(goldenPlans(t)["empty-target.json"], nil, public(k)); err == nil || !strings.Contains(err.Error(), k.ID) {
		t.Fatalf("a public key signed: %v", err)
	}
}

// What ReadVerified refuses: a plan edited and resealed (its digest made
// again, the way Write seals: the old signature kept, or none), an unsigned
// plan, another key's, a garbled signature; each error names the file and
// the key given, and a plain Read of the resealed files still accepts
// them (the digest is no signature).
func TestReadVerifiedRefuses(t *testing.T) {
	k, other := signKey(1), signKey(2)
	dir := t.TempDir()
	base := goldenPlans(t)["empty-target.json"]
	base.Options.Policy = "sha256:" + strings.Repeat("ab", 32) // made with a policy
	signed := filepath.Join(dir, "signed.json")
	if err := WriteSigned(signed, base, k); err != nil {
		t.Fatal(err)
	}
	// resealed writes the signed plan with edit applied, digest made again
	// and the original signature member appended as it was.
	resealed := func(edit func(p *plan.Plan)) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			p, err := Read(signed)
			if err != nil {
				t.Fatal(err)
			}
			sig := *p.Signature
			edit(p)
			if err := Write(path, p); err != nil {
				t.Fatal(err)
			}
			plain := readPlain(t, path)
			b, _ := json.Marshal(sig)
			plain = append(bytes.TrimSuffix(plain, []byte("}\n")), []byte(`,"signature":`+string(b)+"}\n")...)
			if err := os.WriteFile(path, plain, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	rewrite := func(key *plansign.Key) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			p, _ := Read(signed)
			if err := WriteSigned(path, p, key); err != nil {
				t.Fatal(err)
			}
		}
	}
	editSig := func(s string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			plain := bytes.Replace(readPlain(t, signed), []byte(`"ed25519":"`), []byte(`"ed25519":"`+s), 1)
			if err := os.WriteFile(path, plain, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name  string
		write func(t *testing.T, path string)
		want  error
		names []string
	}{
		{"options.prune set and a delete added, resealed", resealed(func(p *plan.Plan) {
			p.Options.Prune = true
			p.Changes = append(p.Changes, plan.Change{ID: "topic:gone", Kind: plan.KindTopic, Action: plan.ActionDelete,
				Resource: plan.Resource{Type: "topic", Name: "gone"}, Before: &plan.State{Present: true, Partitions: 1}})
		}), plansign.ErrBadSignature, []string{"does not verify"}},
		{"options.policy removed, resealed", resealed(func(p *plan.Plan) { p.Options.Policy = "" }), plansign.ErrBadSignature, nil},
		{"options.resend_secrets set, resealed", resealed(func(p *plan.Plan) { p.Options.ResendSecrets = true }), plansign.ErrBadSignature, nil},
		{"resealed without a signature", rewrite(nil), plansign.ErrUnsigned, []string{"holds no signature"}},
		{"signed by another key", rewrite(other), plansign.ErrOtherKey, []string{other.ID}},
		{"signature garbled", editSig("AAAA"), plansign.ErrBadSignature, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "edited.json")
			c.write(t, path)
			if _, err := Read(path); err != nil {
				t.Fatalf("the edited file does not even read: %v", err)
			}
			_, err := ReadVerified(path, public(k))
			if !errors.Is(err, c.want) {
				t.Fatalf("ReadVerified = %v, want %v", err, c.want)
			}
			for _, n := range append([]string{path + ": ", k.ID}, c.names...) {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("%q does not name %q", err, n)
				}
			}
		})
	}
	// Seal keeps the signature of the digest it holds and drops one of
	// another.
	p, _ := Read(signed)
	if err := Seal(p); err != nil || p.Signature == nil {
		t.Fatalf("Seal of the unchanged plan dropped its signature (%v)", err)
	}
	p.Options.Prune = true
	if err := Seal(p); err != nil || p.Signature != nil {
		t.Fatalf("Seal of an edited plan kept its signature (%v)", err)
	}
}

// FuzzReadVerified gives arbitrary bytes to the plan reader and then to the
// signature check against one key: neither panics, every error names the
// file, and only the seed's own signed content verifies.
func FuzzReadVerified(f *testing.F) {
	k := signKey(3)
	p := goldenPlans(f)["empty-target.json"]
	var tap bytes.Buffer
	enc, err := EncodeSigned(p, &tap, k)
	if err != nil {
		f.Fatal(err)
	}
	p.Digest = enc.Digest
	good := tap.Bytes()
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"signature":{`), []byte(`"signature":{"key_id":null,`), 1))
	f.Add(bytes.Replace(good, []byte(`"signature":{`), []byte(`"signature":[{`), 1))
	f.Add(bytes.Replace(good, []byte(`"ed25519":"`), []byte(`"ed25519":"\u0000`), 1))
	f.Add(bytes.Replace(good, []byte(`,"signature"`), []byte(`,"signature":null,"signature"`), 1))
	f.Add([]byte(`{"format":3,"signature":"x"}`))
	pub := public(k)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode("fuzz.json", bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := plansign.Verify(pub, got.Digest, got.Signature); err != nil {
			if !strings.Contains(err.Error(), k.ID) {
				t.Fatalf("%q does not name the key", err)
			}
			return
		}
		// Verified: the content is the signed plan's.
		if got.Digest != p.Digest {
			t.Fatalf("verified a plan of digest %s, signed %s", got.Digest, p.Digest)
		}
		var a bytes.Buffer
		c := *got
		c.Signature = nil
		_ = jsonfile.Encode(&a, &c)
		var b bytes.Buffer
		c2 := *p
		c2.Signature = nil
		_ = jsonfile.Encode(&b, &c2)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("a verified plan's content differs from the signed one")
		}
	})
}
