package history

import (
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
)

// TestRows: a run and a recorded change as the browser's rows.
func TestRows(t *testing.T) {
	code := 3
	started := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name          string
		run           audit.RunSummary
		outcome       string
		exit, changes int
	}{
		{"finished", audit.RunSummary{ID: 7, Command: "apply", Outcome: "partial", ExitCode: &code, Started: started, Succeeded: 2, Failed: 1, Skipped: 1}, "partial", 3, 4},
		{"unfinished", audit.RunSummary{ID: 8, Command: "sync", Started: started}, "unfinished", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runRow(tt.run)
			if r.ID != tt.run.ID || r.Command != tt.run.Command || r.Outcome != tt.outcome || r.ExitCode != tt.exit || r.Changes != tt.changes || r.Started != "2026-11-24 09:00:00" {
				t.Errorf("runRow = %+v", r)
			}
		})
	}
	for _, tt := range []struct{ id, kind, resource, want string }{
		{"scram-user:alice:SCRAM-SHA-256", "scram-user", "alice", "alice:SCRAM-SHA-256"},
		{"topic:orders", "topic", "orders", "orders"},
		{"", "topic", "orders", "orders"},
	} {
		if got := changeName(audit.ChangeRecord{ChangeID: tt.id, Kind: tt.kind, Resource: tt.resource}); got != tt.want {
			t.Errorf("changeName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}
