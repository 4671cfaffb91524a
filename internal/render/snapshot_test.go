package render_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// The goldens were written by `migrate snapshot`'s summary before it moved
// here: the move kept every byte.
func TestSnapshotSummaryGolden(t *testing.T) {
	tests := []struct{ fixture, saved, golden string }{
		{filepath.Join("..", "check", "testdata", "legacy.snapshot.json"), "saved.json", "snapshot-legacy.txt"},
		{filepath.Join("..", "snapshot", "testdata", "valid.snapshot.json"), "saved.json", "snapshot-valid.txt"},
		// The test bed's Kafka 3.9 source read through its brokers
		// (migrate snapshot --source-bootstrap-server -o json).
		{filepath.Join("testdata", "kafka.snapshot.json"), "", "snapshot-kafka.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			s, err := snapshot.Load(tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := render.SnapshotSummary(&b, s, tt.saved); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.golden), b.String())
		})
	}
}

func TestSnapshotSummaryFindingsLimit(t *testing.T) {
	tests := []struct {
		findings, listed int
		more             string
	}{
		{0, 0, ""},
		{30, 30, ""},
		{31, 30, "  ... and 1 more (-o json lists all)\n"},
		{100, 30, "  ... and 70 more (-o json lists all)\n"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.findings), func(t *testing.T) {
			s := &snapshot.Snapshot{Source: snapshot.SourceZooKeeper}
			for i := range tt.findings {
				s.Findings = append(s.Findings, snapshot.Finding{ID: "znode-malformed", Severity: snapshot.SeverityError, Resource: fmt.Sprintf("/z/%03d", i), Message: " bad \n"})
			}
			var b bytes.Buffer
			if err := render.SnapshotSummary(&b, s, ""); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if n := strings.Count(out, "  error   znode-malformed          /z/"); n != tt.listed {
				t.Errorf("listed %d findings, want %d:\n%s", n, tt.listed, out)
			}
			if !strings.Contains(out, fmt.Sprintf("Findings: %d errors, 0 warnings, 0 info\n", tt.findings)) {
				t.Errorf("no counts line:\n%s", out)
			}
			if got := strings.Contains(out, "more (-o json"); got != (tt.more != "") || !strings.Contains(out, tt.more) {
				t.Errorf("want elision %q:\n%s", tt.more, out)
			}
			if strings.Contains(out, "Saved to") {
				t.Errorf("nothing was saved, but the summary says so:\n%s", out)
			}
		})
	}
}
