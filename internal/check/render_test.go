package check

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

var update = flag.Bool("update", false, "rewrite golden files (and docs/checks.md)")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/check -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test ./internal/check -update to accept):\n%s", path, d)
	}
}

func fixtureReport(t *testing.T, target string, limit int) *Report {
	t.Helper()
	s, err := snapshot.Load(filepath.Join("testdata", "legacy.snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Run(s, Options{TargetVersion: target})
	if err != nil {
		t.Fatal(err)
	}
	return NewReport("zookeeper "+s.Address, tg, fs)
}

func TestGoldenReports(t *testing.T) {
	r := fixtureReport(t, "4.1", 0)
	var txt, js, md bytes.Buffer
	if err := r.WriteText(&txt, 20); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, 20); err != nil {
		t.Fatal(err)
	}
	golden(t, "legacy.report.txt", txt.Bytes())
	golden(t, "legacy.report.json", js.Bytes())
	golden(t, "legacy.report.md", md.Bytes())

	// The JSON is the machine contract: it decodes back to the same findings.
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, &back); d != "" {
		t.Errorf("JSON round trip differs:\n%s", d)
	}
	// No secret reference leaks as a value, and nothing prints like a key.
	for _, out := range []string{txt.String(), js.String(), md.String()} {
		if strings.Contains(out, "<secret") {
			t.Errorf("a secret reference was printed")
		}
	}
}

// Target 4.0 downgrades the topic segment.bytes finding to a warning.
func TestGoldenTarget40(t *testing.T) {
	r := fixtureReport(t, "4.0", 0)
	var found bool
	for _, f := range r.Findings {
		if f.ID == "K4-TOPIC-SEGMENT-BYTES" {
			found = true
			if f.Severity != SeverityWarning {
				t.Errorf("segment.bytes on 4.0: severity %s, want warning", f.Severity)
			}
		}
	}
	if !found {
		t.Fatal("no K4-TOPIC-SEGMENT-BYTES finding for target 4.0")
	}
	if r.Target != "4.0" || r.Counts.Error != fixtureReport(t, "4.1", 0).Counts.Error-1 {
		t.Errorf("target %s, errors %d", r.Target, r.Counts.Error)
	}
}

func TestTextLimit(t *testing.T) {
	fs := make([]Finding, 0, 30)
	c := &run{}
	for i := 0; i < 30; i++ {
		c.add("KRAFT-TOPIC-NO-ID", "topic:t"+string(rune('a'+i%26))+string(rune('a'+i/26)), "topic has no topic id", "")
	}
	fs = append(fs, c.out...)
	Sort(fs)
	var b bytes.Buffer
	if err := NewReport("", Target{4, 1}, fs).WriteText(&b, 20); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "  - topic:"); n != 20 {
		t.Errorf("listed %d findings, want 20", n)
	}
	if !strings.Contains(b.String(), "… and 10 more") {
		t.Errorf("no elision line:\n%s", b.String())
	}
	b.Reset()
	if err := NewReport("", Target{4, 1}, fs).WriteMarkdown(&b, 0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "| `topic:"); n != 30 {
		t.Errorf("markdown with no limit listed %d rows, want 30", n)
	}
}

func TestEmptyReport(t *testing.T) {
	var txt, js, md bytes.Buffer
	r := NewReport("snap.json", Target{4, 1}, nil)
	_ = r.WriteText(&txt, 0)
	_ = r.WriteJSON(&js)
	_ = r.WriteMarkdown(&md, 0)
	if !strings.Contains(txt.String(), "no findings") || !strings.Contains(md.String(), "no findings") {
		t.Errorf("empty report text %q markdown %q", txt.String(), md.String())
	}
	if !strings.Contains(js.String(), `"findings": []`) {
		t.Errorf("empty JSON report must carry an empty list: %s", js.String())
	}
}

func TestMarkdownEscapes(t *testing.T) {
	fs := []Finding{{ID: "READ-PROBLEM", Severity: "warning", Resource: "file:a|b`c", Message: "x | y <z>", Fix: "f"}}
	var b bytes.Buffer
	_ = NewReport("", Target{4, 1}, fs).WriteMarkdown(&b, 0)
	out := b.String()
	if !strings.Contains(out, "`file:a\\|b'c`") || !strings.Contains(out, `x \| y &lt;z&gt;`) {
		t.Errorf("cells not escaped:\n%s", out)
	}
}

// docs/checks.md is generated from the catalogue; CI runs this test, so a
// catalogue change without regenerating the docs fails the build.
func TestDocsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalogueMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "checks.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/checks.md is not current: run go run ./internal/check/gen\n%s", cmp.Diff(string(have), b.String()))
	}
	for _, r := range Catalogue() {
		if !bytes.Contains(have, []byte("### "+r.ID+"\n")) {
			t.Errorf("docs/checks.md has no section for %s", r.ID)
		}
	}
}
