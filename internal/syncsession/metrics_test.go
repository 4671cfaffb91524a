package syncsession

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSessionServesMetrics: the metrics a session serves count the rounds
// it reports (sync --metrics-addr, below the command).
func TestSessionServesMetrics(t *testing.T) {
	b := newPollBed(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Open(ctx, b.req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Close(context.Background()) })
	addr, err := s.ServeMetrics(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := next(t, s); !ok {
		t.Fatal("no first round")
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `zkmigrate_sync_rounds_total{kind="initial",result="applied"} 1`) {
		t.Errorf("/metrics after the first round lacks it:\n%s", body)
	}
}
