// Package planfile reads and writes saved plans (migrate plan --out): the
// file format, its digest and the checks a file must pass before apply
// looks at it. The format is documented in docs/plan-file.md.
package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plansign"
)

// Digest returns the digest of p's content: "sha256:" and the hex SHA-256 of
// its canonical encoding (compact JSON, as encoding/json writes the plan,
// with a newline) with the Digest and Signature fields left out.
// Compression and whitespace do not change it; any change to a value does.
func Digest(p *plan.Plan) (string, error) {
	c := *p
	c.Digest, c.Signature = "", nil
	h := sha256.New()
	if err := jsonfile.Encode(h, &c); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Seal sets p's digest, as Write does (plan.Build sets its format version),
// and drops a signature p held of another digest (WriteSigned signs).
func Seal(p *plan.Plan) error {
	d, err := Digest(p)
	if err != nil {
		return err
	}
	if d != p.Digest {
		p.Signature = nil
	}
	p.Digest = d
	return nil
}

// Write seals p and saves it to path: compact JSON, zstd-compressed
// unless the name ends in .json (jsonfile.Compressed; `zstd -dc FILE`
// shows a compressed one), atomically, encoded one change at a time and
// only once: the encoding without a digest (Digest's) is hashed and
// written as it is made, and the digest member is added at its end, so the
// file holds it last.
func Write(path string, p *plan.Plan) error { return WriteSigned(path, p, nil) }

// WriteSigned is Write with the plan signed by key (nil: unsigned): the
// signature of its digest (plansign.Sign) is the object's last member,
// after the digest. p's Digest and Signature are set to the file's.
func WriteSigned(path string, p *plan.Plan, key *plansign.Key) error {
	var digest string
	var sig *plan.Signature
	err := jsonfile.WriteAtomic(path, 0o600, func(w io.Writer) error {
		var err error
		digest, sig, err = encode(w, jsonfile.Compressed(path), p, nil, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p.Digest, p.Signature = digest, sig
	return nil
}

// Encoded is a plan encoded as Write saves it, held in memory.
type Encoded struct {
	Data      []byte          // the file's bytes: the JSON text, zstd-compressed
	Digest    string          // the digest the text holds
	Signature *plan.Signature // the signature it holds (nil: none)
}

// Encode encodes p as Write would save it, and writes the same JSON text,
// uncompressed, to tap as it is made (nil: nowhere), so that one encoding
// serves the plan file and another record of the same text (the audit
// trail). p is not changed; Save writes the result.
func Encode(p *plan.Plan, tap io.Writer) (*Encoded, error) { return EncodeSigned(p, tap, nil) }

// EncodeSigned is Encode with the plan signed by key (nil: unsigned), as
// WriteSigned saves it.
func EncodeSigned(p *plan.Plan, tap io.Writer, key *plansign.Key) (*Encoded, error) {
	var b bytes.Buffer
	digest, sig, err := encode(&b, true, p, tap, key)
	if err != nil {
		return nil, err
	}
	return &Encoded{Data: b.Bytes(), Digest: digest, Signature: sig}, nil
}

// Save writes e, p's encoding (Encode), to path atomically and seals p
// with its digest, as Write does: decompressed when the name ends in .json
// (jsonfile.Compressed).
func (e *Encoded) Save(path string, p *plan.Plan) error {
	err := jsonfile.WriteAtomic(path, 0o600, func(w io.Writer) error {
		if jsonfile.Compressed(path) {
			_, err := w.Write(e.Data)
			return err
		}
		r, err := jsonfile.NewReader(bytes.NewReader(e.Data))
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p.Digest, p.Signature = e.Digest, e.Signature
	return nil
}

// encode writes p's file form to w, compressed or not, and its JSON text to tap
// (unless nil), encoding it once: the encoding without a digest (Digest's)
// is hashed and written as it is made, and the digest member is added at
// its end, then the signature of the digest by key (unless nil). It
// returns the digest and the signature.
func encode(w io.Writer, compress bool, p *plan.Plan, tap io.Writer, key *plansign.Key) (string, *plan.Signature, error) {
	if key != nil && !key.CanSign() {
		return "", nil, fmt.Errorf("key %s: a public key cannot sign; give the private key", key.ID)
	}
	c := *p
	c.Digest, c.Signature = "", nil
	name := "plan.json" // jsonfile.NewFileWriter's plain JSON
	if compress {
		name = "plan.zst"
	}
	zw, err := jsonfile.NewFileWriter(w, name)
	if err != nil {
		return "", nil, err
	}
	var out io.Writer = zw
	if tap != nil {
		out = io.MultiWriter(zw, tap)
	}
	dw := &digestWriter{h: sha256.New(), w: out, key: key}
	if err := jsonfile.Encode(dw, &c); err != nil {
		zw.Close()
		return "", nil, err
	}
	digest, sig, err := dw.finish()
	if err != nil {
		zw.Close()
		return "", nil, err
	}
	return digest, sig, zw.Close()
}

// digestWriter hashes a plan's canonical encoding (a JSON object and a
// newline) as it passes and writes it on, holding back its last two bytes:
// finish replaces the closing "}\n" with the digest member (and the
// signature member, with a key) and "}\n".
type digestWriter struct {
	h    hash.Hash
	w    io.Writer
	key  *plansign.Key // signs the digest (nil: no signature)
	tail []byte        // the last bytes written, not yet passed on (at most 2)
	err  error
}

func (d *digestWriter) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	d.h.Write(p)
	d.tail = append(d.tail, p...)
	if n := len(d.tail) - 2; n > 0 {
		if _, d.err = d.w.Write(d.tail[:n]); d.err != nil {
			return 0, d.err
		}
		d.tail = append(d.tail[:0], d.tail[n:]...)
	}
	return len(p), nil
}

// finish writes the digest member, the signature member (with a key) and
// the end of the object, and returns the digest and the signature.
func (d *digestWriter) finish() (string, *plan.Signature, error) {
	if d.err != nil {
		return "", nil, d.err
	}
	if string(d.tail) != "}\n" {
		return "", nil, fmt.Errorf("plan encoding ends in %q, not an object", d.tail)
	}
	digest := "sha256:" + hex.EncodeToString(d.h.Sum(nil))
	end := `,"digest":"` + digest + `"`
	var sig *plan.Signature
	if d.key != nil {
		var err error
		if sig, err = plansign.Sign(d.key, digest); err != nil {
			return "", nil, err
		}
		b, err := json.Marshal(sig)
		if err != nil {
			return "", nil, err
		}
		end += `,"signature":` + string(b)
	}
	_, err := io.WriteString(d.w, end+"}\n")
	return digest, sig, err
}

// Read loads and checks the plan file at path (see Decode), opened as an
// infile.Plan (a regular file within its cap, decompressed bytes
// included); an error is an *infile.Error (the file is at fault).
func Read(path string) (*plan.Plan, error) {
	c, err := infile.OpenContent(path, infile.Plan)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Expect(); err != nil {
		return nil, err
	}
	p, err := decode(path, c)
	return p, infile.Wrap(path, infile.Plan, err)
}

// ReadVerified is Read, and then the plan's signature must be key's over
// the digest Read checked (plansign.Verify): an unsigned plan, a signature
// by another key and one that does not verify are refused, each naming the
// file and key's ID. Nothing of the plan is acted on before this returns.
func ReadVerified(path string, key *plansign.Key) (*plan.Plan, error) {
	p, err := Read(path)
	if err != nil {
		return nil, err
	}
	if err := plansign.Verify(key, p.Digest, p.Signature); err != nil {
		return nil, infile.Wrap(path, infile.Plan, fmt.Errorf("%s: %w", path, err))
	}
	return p, nil
}

// Decode reads a plan file (plain, gzip or zstd JSON, at most
// infile.Plan's cap decompressed) from r and checks it: its format
// version, that its content matches its digest, and that it records the
// source and target cluster ids (a revert plan: the run it reverts and its
// record digest instead of a source). Every error names the file (name)
// and, where there is one, the field.
func Decode(name string, r io.Reader) (*plan.Plan, error) {
	c, err := infile.NewContent(name, r, infile.Plan)
	if err != nil {
		return nil, fmt.Errorf("%s: not a plan file: %v", name, err)
	}
	defer c.Close()
	if err := c.Expect(); err != nil {
		return nil, err
	}
	return decode(name, c)
}

// decode reads a plan from its decompressed content and checks it.
func decode(name string, r io.Reader) (*plan.Plan, error) {
	var p plan.Plan
	if err := jsonfile.Decode(r, &p); err != nil {
		var ie *infile.Error
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, fmt.Errorf("%s: not a plan file: %v", name, err)
	}
	if err := Check(name, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// ErrDigest marks a plan file whose content does not match its digest.
var ErrDigest = errors.New("digest mismatch")

// Check applies Decode's checks to a decoded plan.
func Check(name string, p *plan.Plan) error {
	switch {
	case p.Format == 0:
		return fmt.Errorf("%s: field format: missing; not a plan file written by migrate plan --out", name)
	case p.Format < plan.FormatVersion:
		return fmt.Errorf("%s: field format: %d was written by an older zkmigrate (%s); re-run migrate plan --out (this version writes and reads format %d)", name, p.Format, olderFormat(p.Format), plan.FormatVersion)
	case p.Format > plan.FormatVersion:
		return fmt.Errorf("%s: field format: %d was written by a newer zkmigrate; this version reads format %d only", name, p.Format, plan.FormatVersion)
	case p.Digest == "":
		return fmt.Errorf("%s: field digest: missing; the file was not written by migrate plan --out, or was edited", name)
	}
	want, err := Digest(p)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if p.Digest != want {
		return fmt.Errorf("%s: field digest: %w: the file is corrupted or was edited after migrate plan wrote it; re-run migrate plan --out", name, ErrDigest)
	}
	if r := p.Reverts; r != nil {
		// A revert plan is justified by an audited run, not by a source.
		if r.Run <= 0 || r.Seq <= 0 || r.Digest == "" {
			return fmt.Errorf("%s: field reverts: the run, seq and digest of the reverted run's record are required; re-run migrate audit revert --out", name)
		}
	} else if p.Source.ClusterID == "" {
		return fmt.Errorf("%s: field source.cluster_id: empty; apply cannot check that the plan is for this source; re-run plan against a source with a cluster id", name)
	}
	if p.Target.ClusterID == "" {
		return fmt.Errorf("%s: field target.cluster_id: empty; apply cannot check that the plan is for this target; re-run plan against the target", name)
	}
	return nil
}

// olderFormat says what a plan file of an older format lacks or holds that
// this version does not read.
func olderFormat(v int) string {
	if v < 2 {
		return "without a digest or cluster ids"
	}
	return "its changes name the RPC that carries them, which apply now decides"
}
