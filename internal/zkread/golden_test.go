package zkread

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// treeFixtures returns the captured trees in testdata (every *.json except
// the SCRAM credentials side files).
func treeFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".scram.json") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatal("no tree fixtures in testdata")
	}
	return out
}

// encoderSecretFor reads <fixture>.encoder-secret when present.
func encoderSecretFor(t *testing.T, fixture string) []string {
	b, err := os.ReadFile(strings.TrimSuffix(fixture, ".json") + ".encoder-secret")
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return []string{strings.TrimSpace(string(b))}
}

// TestGolden reads every captured tree in both modes and compares the
// snapshot JSON with testdata/golden/<fixture>.<mode>.json (-update
// rewrites them).
func TestGolden(t *testing.T) {
	for _, file := range treeFixtures(t) {
		tree, err := zktree.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, full := range []bool{false, true} {
			mode := ModeMigration
			if full {
				mode = ModeFull
			}
			t.Run(name+"/"+mode, func(t *testing.T) {
				s, err := Read(context.Background(), tree, Options{Full: full, EncoderSecrets: encoderSecretFor(t, file), Now: fixedNow, Workers: 8})
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := snapshot.Encode(&buf, s); err != nil {
					t.Fatal(err)
				}
				golden.Assert(t, filepath.Join("testdata", "golden", name+"."+mode+".json"), buf.Bytes())
			})
		}
	}
}
