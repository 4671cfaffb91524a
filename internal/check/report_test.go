package check

import (
	"path/filepath"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func fixtureReport(t *testing.T, target string) *Report {
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

// Target 4.0 downgrades the topic segment.bytes finding to a warning.
func TestGoldenTarget40(t *testing.T) {
	r := fixtureReport(t, "4.0")
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
	if r.Target != "4.0" || r.Counts.Error != fixtureReport(t, "4.1").Counts.Error-1 {
		t.Errorf("target %s, errors %d", r.Target, r.Counts.Error)
	}
}
