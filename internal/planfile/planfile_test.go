package planfile

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// goldenPlans returns the plans of internal/plan's golden files, with
// cluster ids set as a real source and target give them.
func goldenPlans(t testing.TB) map[string]*plan.Plan {
	t.Helper()
	files, _ := filepath.Glob("../plan/testdata/*.json")
	if len(files) < 5 {
		t.Fatalf("fixtures missing: %v", files)
	}
	out := map[string]*plan.Plan{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p plan.Plan
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		p.Source.ClusterID, p.Target.ClusterID = "source-id", "target-id"
		out[filepath.Base(f)] = &p
	}
	return out
}

var secretCmp = cmp.AllowUnexported(secret.Secret{})

// Every golden plan survives Write and Read unchanged, compressed or as
// the plain JSON a person gets from zstd -dc, indented or not.
func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for name, p := range goldenPlans(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.TrimSuffix(name, ".json")+".zst")
			if err := Write(path, p); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(p.Digest, "sha256:") || p.Format != plan.FormatVersion {
				t.Fatalf("Write left format %d digest %q", p.Format, p.Digest)
			}
			raw, _ := os.ReadFile(path)
			if jsonfile.Detect(raw) != jsonfile.Zstd {
				t.Fatalf("Write wrote %s, want zstd", jsonfile.Detect(raw))
			}
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			// The goldens are plan -o json output, with each change's
			// fields: those are derived for display, never saved.
			if d := cmp.Diff(p, got, secretCmp); d != "" {
				t.Fatalf("(-written +read):\n%s", d)
			}
			zr, err := jsonfile.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			zr.Close()
			if err != nil || bytes.Contains(plain, []byte(`"fields"`)) {
				t.Errorf("the saved plan holds fields (or does not read: %v)", err)
			}
			indented, _ := json.MarshalIndent(p, "", "  ")
			if _, err := Decode("plain.json", bytes.NewReader(indented)); err != nil {
				t.Errorf("the same plan as indented plain JSON, with fields as plan -o json prints it: %v", err)
			}
		})
	}
}

// seal returns a golden plan sealed, as bytes of indented plain JSON.
func sealed(t testing.TB) []byte {
	t.Helper()
	p := goldenPlans(t)["empty-target.json"]
	if err := Seal(p); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// What Decode refuses, each with the file and field named.
func TestDecodeRefuses(t *testing.T) {
	good := string(sealed(t))
	if _, err := Decode("plan.json", strings.NewReader(good)); err != nil {
		t.Fatalf("the good file is refused: %v", err)
	}
	digestLine := good[strings.Index(good, `"digest"`):]
	digestLine = digestLine[:strings.IndexByte(digestLine, '\n')]
	for _, c := range []struct {
		name, file, want string
	}{
		{"a byte of a value changed", strings.Replace(good, `"partitions": 3`, `"partitions": 4`, 1), "field digest: digest mismatch"},
		{"a byte of the digest changed", strings.Replace(good, `"digest": "sha256:`, `"digest": "sha256:0`, 1), "field digest: digest mismatch"},
		{"digest removed", strings.Replace(good, digestLine, "", 1), "field digest: missing"},
		{"digest emptied", strings.Replace(good, digestLine, `"digest": "",`, 1), "field digest: missing"},
		{"format 1", strings.Replace(good, `"format": 3`, `"format": 1`, 1), "field format: 1 was written by an older zkmigrate (without a digest or cluster ids)"},
		{"format 2", strings.Replace(good, `"format": 3`, `"format": 2`, 1), "field format: 2 was written by an older zkmigrate (its changes name the RPC"},
		{"format 4", strings.Replace(good, `"format": 3`, `"format": 4`, 1), "field format: 4 was written by a newer zkmigrate"},
		{"no format", strings.Replace(good, `"format": 3,`, ``, 1), "field format: missing"},
		{"not JSON", "PK\x03\x04 a zip file", "not a plan file"},
		{"truncated", good[:len(good)/2], "not a plan file"},
		{"a list for the changes", strings.Replace(good, `"changes": [`, `"changes": {"x": [`, 1), "not a plan file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("plan.json", strings.NewReader(c.file))
			if err == nil || !strings.Contains(err.Error(), "plan.json: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode = %v, want an error naming plan.json and %q", err, c.want)
			}
		})
	}
	// Cluster ids: a plan resealed without one (as an editor able to
	// recompute the digest would) is still refused.
	for _, side := range []string{"source", "target"} {
		p := goldenPlans(t)["empty-target.json"]
		if side == "source" {
			p.Source.ClusterID = ""
		} else {
			p.Target.ClusterID = ""
		}
		if err := Seal(p); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		_, err := Decode("plan.json", bytes.NewReader(b))
		if err == nil || !strings.Contains(err.Error(), "field "+side+".cluster_id: empty") {
			t.Errorf("no %s cluster id: Decode = %v", side, err)
		}
	}
}

// The digest is over the content, not its bytes: compression, indentation
// and member order do not change it; any value does.
func TestDigestIsOverTheContent(t *testing.T) {
	p := goldenPlans(t)["prune.json"]
	d1, err := Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Digest = "sha256:whatever"
	if d2, _ := Digest(p); d2 != d1 {
		t.Errorf("the digest depends on the digest field")
	}
	p.Changes[0].ID += "x"
	if d3, _ := Digest(p); d3 == d1 {
		t.Errorf("the digest does not see a changed id")
	}
}

// Write encodes the plan once, hashing the encoding as it writes it, so the
// digest member comes last in the file: the file holds the same members and
// values as one encoded with the digest in its struct place (as files were
// written before, and still read), the digest is Digest's, an edited file
// is refused, and a file of the earlier layout reads the same.
func TestWriteDigestLast(t *testing.T) {
	dir := t.TempDir()
	for name, p := range goldenPlans(t) {
		t.Run(name, func(t *testing.T) {
			want, err := Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name)
			if err := Write(path, p); err != nil {
				t.Fatal(err)
			}
			if p.Digest != want {
				t.Fatalf("Write sealed the plan with %s; Digest gives %s", p.Digest, want)
			}
			plain := readPlain(t, path)
			if !bytes.HasSuffix(plain, []byte(`,"digest":"`+want+"\"}\n")) || bytes.Count(plain, []byte(`"digest":"sha256:`)) != 1 {
				t.Fatalf("the file does not end with its one digest member: ...%q", plain[max(0, len(plain)-100):])
			}
			// The layout before: the whole sealed plan encoded, the digest
			// second.
			old := filepath.Join(dir, "old-"+name)
			if err := jsonfile.Write(old, 0o600, p); err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal(plain, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(readPlain(t, old), &b); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(b, a); d != "" {
				t.Fatalf("the file's JSON differs from the whole sealed plan's (-before +now):\n%s", d)
			}
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			gotOld, err := Read(old)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(gotOld, got, secretCmp); d != "" {
				t.Fatalf("the two layouts read differently (-before +now):\n%s", d)
			}
			// A value edited in the file is refused.
			edited := bytes.Replace(plain, []byte(`"fingerprint":"`), []byte(`"fingerprint":"x`), 1)
			if _, err := Decode("edited.json", bytes.NewReader(edited)); err == nil || !strings.Contains(err.Error(), "digest mismatch") {
				t.Fatalf("an edited file: Decode = %v, want a digest mismatch", err)
			}
		})
	}
}

// readPlain returns a saved file's JSON, decompressed.
func readPlain(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := jsonfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFileNameDecidesEncoding: a plan saved as NAME.json is plain JSON
// (jq reads it), as NAME.zst or NAME.json.zst zstd, whether written at
// once (Write) or from the encoding shared with the audit trail (Save);
// each reads back to the same plan with the same digest.
func TestFileNameDecidesEncoding(t *testing.T) {
	var p *plan.Plan
	for _, gp := range goldenPlans(t) {
		p = gp
		break
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		want string
	}{
		{"plan.json", jsonfile.Plain},
		{"PLAN.JSON", jsonfile.Plain},
		{"plan.zst", jsonfile.Zstd},
		{"plan.json.zst", jsonfile.Zstd},
		{"plan", jsonfile.Zstd},
	} {
		for _, via := range []string{"Write", "Save"} {
			t.Run(via+"/"+tt.name, func(t *testing.T) {
				path := filepath.Join(dir, via+"-"+tt.name)
				c := *p
				if via == "Write" {
					if err := Write(path, &c); err != nil {
						t.Fatal(err)
					}
				} else {
					enc, err := Encode(&c, nil)
					if err != nil {
						t.Fatal(err)
					}
					if err := enc.Save(path, &c); err != nil {
						t.Fatal(err)
					}
				}
				raw, _ := os.ReadFile(path)
				if got := jsonfile.Detect(raw); got != tt.want {
					t.Fatalf("%s holds %s, want %s", tt.name, got, tt.want)
				}
				if tt.want == jsonfile.Plain && !json.Valid(raw) {
					t.Fatalf("%s is not valid JSON: %.80q", tt.name, raw)
				}
				got, err := Read(path)
				if err != nil {
					t.Fatal(err)
				}
				if got.Digest != c.Digest {
					t.Errorf("read digest %s, wrote %s", got.Digest, c.Digest)
				}
			})
		}
	}
}
