package render

import (
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// TestApplyTextShowsRetries: the verbose batch line names the attempt of a
// retried request, and only of a retried one.
func TestApplyTextShowsRetries(t *testing.T) {
	tests := []struct {
		attempt int
		want    string
	}{
		{1, "  CreateTopics v7 to broker 1 in 3ms: ok\n"},
		{2, "  CreateTopics v7 to broker 1 in 3ms (attempt 2): ok\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		a := &ApplyText{W: &b, Verbose: true}
		a.Observe(apply.BatchDone{Batch: 4, RPC: apply.RPCCreateTopics, Version: 7, Broker: 1, Duration: 3 * time.Millisecond, Attempt: tt.attempt})
		if b.String() != tt.want {
			t.Errorf("attempt %d: %q, want %q", tt.attempt, b.String(), tt.want)
		}
	}
}
