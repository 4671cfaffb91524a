package render_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// checkFixture audits check's legacy fixture snapshot for target.
func checkFixture(t *testing.T, target string) *check.Report {
	t.Helper()
	s, err := snapshot.Load(filepath.Join("..", "check", "testdata", "legacy.snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := check.ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := check.Run(s, check.Options{TargetVersion: target})
	if err != nil {
		t.Fatal(err)
	}
	return check.NewReport("zookeeper "+s.Address, tg, fs)
}

func TestCheckGoldenReports(t *testing.T) {
	r := checkFixture(t, "4.1")
	var txt, js, md bytes.Buffer
	if err := render.CheckText(&txt, r, 20); err != nil {
		t.Fatal(err)
	}
	if err := render.CheckJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := render.CheckMarkdown(&md, r, 20); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "check-legacy.txt"), txt.String())
	golden(t, filepath.Join("testdata", "check-legacy.json"), js.String())
	golden(t, filepath.Join("testdata", "check-legacy.md"), md.String())

	// The JSON is the machine contract: it decodes back to the same findings.
	var back check.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, &back); d != "" {
		t.Errorf("JSON round trip differs:\n%s", d)
	}
	// No secret reference leaks as a value.
	for _, out := range []string{txt.String(), js.String(), md.String()} {
		if strings.Contains(out, "<secret") {
			t.Errorf("a secret reference was printed")
		}
	}
}

// noIDFindings are n KRAFT-TOPIC-NO-ID findings, sorted.
func noIDFindings(n int) []check.Finding {
	r, _ := check.Lookup("KRAFT-TOPIC-NO-ID")
	fs := make([]check.Finding, n)
	for i := range fs {
		fs[i] = check.Finding{ID: r.ID, Severity: r.Severity, Resource: fmt.Sprintf("topic:t%05d", i), Message: "topic has no topic id", Why: r.Why, Fix: r.Fix}
	}
	check.Sort(fs)
	return fs
}

func TestCheckLimit(t *testing.T) {
	fs := noIDFindings(30)
	r := check.NewReport("", check.Target{Major: 4, Minor: 1}, fs)
	tests := []struct {
		name  string
		write func(io.Writer, *check.Report, int) error
		limit int
		row   string
		rows  int
		more  string
	}{
		{"text limit 20", render.CheckText, 20, "  - topic:", 20, "… and 10 more"},
		{"text no limit", render.CheckText, 0, "  - topic:", 30, ""},
		{"markdown limit 5", render.CheckMarkdown, 5, "| `topic:", 5, "… and 25 more"},
		{"markdown no limit", render.CheckMarkdown, 0, "| `topic:", 30, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b, r, tt.limit); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(b.String(), tt.row); n != tt.rows {
				t.Errorf("listed %d findings, want %d", n, tt.rows)
			}
			if got := strings.Contains(b.String(), "more"); got != (tt.more != "") || !strings.Contains(b.String(), tt.more) {
				t.Errorf("elision line: want %q in:\n%s", tt.more, b.String())
			}
		})
	}
}

func TestCheckEmptyReport(t *testing.T) {
	var txt, js, md bytes.Buffer
	r := check.NewReport("snap.json", check.Target{Major: 4, Minor: 1}, nil)
	_ = render.CheckText(&txt, r, 0)
	_ = render.CheckJSON(&js, r)
	_ = render.CheckMarkdown(&md, r, 0)
	if !strings.Contains(txt.String(), "no findings") || !strings.Contains(md.String(), "no findings") {
		t.Errorf("empty report text %q markdown %q", txt.String(), md.String())
	}
	if !strings.Contains(js.String(), `"findings": []`) {
		t.Errorf("empty JSON report must carry an empty list: %s", js.String())
	}
}

func TestCheckMarkdownEscapes(t *testing.T) {
	fs := []check.Finding{{ID: "READ-PROBLEM", Severity: "warning", Resource: "file:a|b`c", Message: "x | y <z>", Fix: "f"}}
	var b bytes.Buffer
	_ = render.CheckMarkdown(&b, check.NewReport("", check.Target{Major: 4, Minor: 1}, fs), 0)
	out := b.String()
	if !strings.Contains(out, "`file:a\\|b'c`") || !strings.Contains(out, `x \| y &lt;z&gt;`) {
		t.Errorf("cells not escaped:\n%s", out)
	}
}

// A finding whose id is not in the catalogue still renders, under its id.
func TestCheckUnknownID(t *testing.T) {
	fs := []check.Finding{{ID: "NOT-A-RULE", Severity: "error", Resource: "topic:x", Message: "m"}}
	var b bytes.Buffer
	if err := render.CheckText(&b, check.NewReport("", check.Target{Major: 4, Minor: 1}, fs), 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "[NOT-A-RULE] NOT-A-RULE\n  - topic:x: m\n") {
		t.Errorf("unknown id rendered as:\n%s", b.String())
	}
}

func BenchmarkCheckText50k(b *testing.B) {
	r := check.NewReport("bench", check.Target{Major: 4, Minor: 1}, noIDFindings(50000))
	b.ReportAllocs()
	for b.Loop() {
		if err := render.CheckText(io.Discard, r, 20); err != nil {
			b.Fatal(err)
		}
	}
}
