package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/secret"
)

// oldDigest is Digest as it was computed before snapshots were encoded one
// element at a time: json.Encoder over the whole value.
func oldDigest(s *Snapshot) string {
	c := *s
	c.Read = ReadInfo{}
	h := sha256.New()
	_ = json.NewEncoder(h).Encode(&c)
	return hex.EncodeToString(h.Sum(nil))
}

// TestSaveLoadOldAndNewFormat: today's plain-JSON snapshot files load, and
// the compressed file Save writes loads to the same snapshot with the same
// digest as before the format changed.
func TestSaveLoadOldAndNewFormat(t *testing.T) {
	files, _ := filepath.Glob("../zkread/testdata/golden/*.json")
	files = append(files, "../check/testdata/legacy.snapshot.json")
	if len(files) < 3 {
		t.Fatalf("fixtures missing: %v", files)
	}
	dir := t.TempDir()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want Snapshot
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			old, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&want, old, cmp.AllowUnexported(secret.Secret{})); diff != "" {
				t.Fatalf("old format (-unmarshal +Load):\n%s", diff)
			}
			path := filepath.Join(dir, filepath.Base(f))
			if err := Save(path, old); err != nil {
				t.Fatal(err)
			}
			saved, _ := os.ReadFile(path)
			if len(saved) >= len(raw) {
				t.Errorf("saved %d bytes, the plain file has %d: not compressed", len(saved), len(raw))
			}
			got, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&want, got, cmp.AllowUnexported(secret.Secret{})); diff != "" {
				t.Errorf("new format (-want +got):\n%s", diff)
			}
			if Digest(got) != oldDigest(&want) {
				t.Errorf("digest changed with the file format: %s, was %s", Digest(got), oldDigest(&want))
			}
		})
	}
}

func TestLoadRejects(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"future-format": `{"format": 99, "source": "zookeeper"}`,
		"no-format":     `{"source": "zookeeper"}`,
		"not-json":      `format: 1`,
		"trailing":      `{"format": 1} {"format": 1}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
