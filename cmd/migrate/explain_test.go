package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

// `migrate explain ID` prints every id of the vocabulary whole (title,
// severity, who reports it, why, fix, docs link), and each former id as
// what it names now.
func TestExplainEveryID(t *testing.T) {
	for _, f := range catalogue.Findings() {
		code, out, stderr := runMigrate(t, "explain", f.ID)
		if code != exitOK {
			t.Errorf("explain %s: exit %d: %s", f.ID, code, stderr)
			continue
		}
		for _, want := range []string{f.ID + "  [", f.Title, "why: " + f.Why, "fix: " + f.Fix, "reported by: ", "docs: " + catalogue.DocsURL(f.ID)} {
			if !strings.Contains(out, want) {
				t.Errorf("explain %s lacks %q:\n%s", f.ID, want, out)
			}
		}
		if !strings.Contains(out, "["+f.Severity) && !strings.Contains(out, "[blocks the change") {
			t.Errorf("explain %s names no severity:\n%s", f.ID, out)
		}
		for _, a := range f.Aliases {
			code, out, _ := runMigrate(t, "explain", strings.ToLower(a))
			if code != exitOK || !strings.Contains(out, f.ID) {
				t.Errorf("explain %s (a former id of %s): exit %d:\n%s", a, f.ID, code, out)
			}
		}
	}
	// A former id of one finding explains it, saying so.
	_, out, _ := runMigrate(t, "explain", "KRAFT-PENDING-NOTIFICATIONS")
	if !strings.HasPrefix(out, "KRAFT-PENDING-NOTIFICATIONS is a former id of notifications-pending.") {
		t.Errorf("explain KRAFT-PENDING-NOTIFICATIONS:\n%s", out)
	}
	// -o json: the entries, with who reports them and the docs link.
	code, out, _ := runMigrate(t, "explain", "tiered-storage-topic", "-o", "json")
	var got []struct {
		ID         string   `json:"id"`
		Aliases    []string `json:"aliases"`
		ReportedBy []string `json:"reported_by"`
		Docs       string   `json:"docs"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || len(got) != 1 || got[0].ID != "tiered-storage-topic" ||
		len(got[0].Aliases) != 1 || len(got[0].ReportedBy) != 2 || got[0].Docs == "" {
		t.Errorf("explain -o json: exit %d, %v, %+v:\n%s", code, err, got, out)
	}
}

func TestExplainUnknownID(t *testing.T) {
	code, out, stderr := runMigrate(t, "explain", "pending")
	if code != exitError || out != "" || !strings.Contains(stderr, `no finding, check or blocker has the id "pending"`) ||
		!strings.Contains(stderr, "notifications-pending") {
		t.Errorf("explain pending: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, _, stderr := runMigrate(t, "explain"); code != exitError || !strings.Contains(stderr, "name an id") {
		t.Errorf("explain without an id: exit %d, %q", code, stderr)
	}
}

// Completion offers the vocabulary's ids; check --catalogue lists every id.
func TestExplainCompletionAndCatalogue(t *testing.T) {
	_, out, _ := runMigrate(t, "__complete", "explain", "")
	_, cat, _ := runMigrate(t, "check", "--catalogue")
	for _, id := range catalogue.IDs() {
		if !strings.Contains(out, id+"\n") {
			t.Errorf("completion of explain lacks %s", id)
		}
		if !strings.Contains(cat, id+"  [") {
			t.Errorf("check --catalogue lacks %s", id)
		}
	}
}
