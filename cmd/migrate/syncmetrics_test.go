package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSyncMetricsAddr: migrate sync --metrics-addr serves the state and
// the rounds (a kfake source polled into a kfake target): /readyz is 200
// once the first round put the target in step, /metrics counts that
// round, and a stop in step exits 0.
func TestSyncMetricsAddr(t *testing.T) {
	src, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("metrics-src"), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	tgt, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("metrics-tgt"))
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sync", "--source-bootstrap-server", strings.Join(src.ListenAddrs(), ","), "--bootstrap-server", strings.Join(tgt.ListenAddrs(), ","),
			"--topics", "^orders$", "--include", "topic", "--placement", "target", "--yes", "-o", "json", "--status-every", "0", "--reconcile-every", "0",
			"--metrics-addr", "127.0.0.1:0", "--audit-db", filepath.Join(t.TempDir(), "audit.db")}, nil, io.Discard, &stderr, false)
	}()
	served := regexp.MustCompile(`Serving metrics on (http://[^/]+)/metrics`)
	get := func(path string) (int, string) {
		t.Helper()
		var base string
		deadline := time.Now().Add(30 * time.Second)
		for base == "" {
			if m := served.FindStringSubmatch(stderr.String()); m != nil {
				base = m[1]
			} else if time.Now().After(deadline) {
				t.Fatalf("no metrics address announced: %s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for code, body := get("/readyz"); code != http.StatusOK; code, body = get("/readyz") {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d %q; want 200 once in step (stderr: %s)", code, body, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("/metrics"); code != http.StatusOK || !strings.Contains(body, `zkmigrate_sync_rounds_total{kind="initial",result="applied"} 1`) || !strings.Contains(body, "zkmigrate_sync_in_step 1") {
		t.Errorf("/metrics %d lacks the initial round or the state:\n%s", code, body)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d; want 200", code)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("sync stopped in step exited %d; want 0 (stderr: %s)", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("sync did not stop")
	}
}
