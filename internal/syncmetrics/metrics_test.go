package syncmetrics_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/syncmetrics"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

const fixture = "../zkread/testdata/kafka39-legacy.json"

// scrape reads /metrics and returns the value of each series, keyed by
// its name and labels as exposed ("zkmigrate_sync_rounds_total{kind=\"change\",result=\"applied\"}").
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsMoveWithRounds runs a sync over an in-memory source and
// target, scraping /metrics as rounds go: the rounds, changes and lag
// series move with them; /readyz answers 503 before the first round is
// done and while a change's rounds fail, 200 while in step; /healthz
// answers 200 while the loop turns.
func TestMetricsMoveWithRounds(t *testing.T) {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var src atomic.Pointer[zktree.Tree]
	src.Store(base)
	var target atomic.Pointer[snapshot.Snapshot]
	target.Store(&snapshot.Snapshot{ClusterID: "target"})
	var down atomic.Bool
	first := make(chan struct{})
	opts := plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}, TopicRegex: "^(orders|payments)$", Placement: plan.PlacementTarget}
	stages := syncer.Stages{
		ReadTarget: func(context.Context) (*snapshot.Snapshot, error) {
			<-first
			c := *target.Load()
			return &c, nil
		},
		Plan: func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
			return plan.Build(plan.Input{Source: s, Target: tg, Options: opts})
		},
		Apply: func(_ context.Context, p *plan.Plan, _ *snapshot.Snapshot, _ syncer.Round) (syncer.Outcome, error) {
			if down.Load() {
				return syncer.Outcome{}, errors.New("dial tcp: connection refused")
			}
			target.Store(plantest.Simulate(t, target.Load(), p.Changes))
			return syncer.Outcome{Applied: len(p.Changes)}, nil
		},
	}
	tracker := syncer.NewTracker(nil)
	m := syncmetrics.New(tracker)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	feed := make(chan zkfeed.Event, 4)
	rounds := make(chan syncer.Round, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go syncer.Run(ctx, syncer.Config{Source: treeSource{&src}, Feed: feed, Stages: stages, Tracker: tracker, Coalesce: time.Millisecond}, rounds)
	take := func(what string) syncer.Round {
		t.Helper()
		select {
		case r := <-rounds:
			m.Observe(r)
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s round", what)
			return syncer.Round{}
		}
	}
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "BEHIND") {
		t.Errorf("/readyz before the first round: %d %q; want 503, BEHIND", code, body)
	}
	close(first)
	take("initial")
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusOK || !strings.Contains(body, "IN STEP") {
		t.Errorf("/readyz in step: %d %q; want 200", code, body)
	}
	if code, _ := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d; want 200", code)
	}
	s := scrape(t, srv.URL)
	if s[`zkmigrate_sync_rounds_total{kind="initial",result="applied"}`] != 1 || s[`zkmigrate_sync_changes_total{outcome="applied"}`] == 0 || s["zkmigrate_sync_in_step"] != 1 {
		t.Fatalf("after the first round: rounds %v, applied %v, in step %v", s[`zkmigrate_sync_rounds_total{kind="initial",result="applied"}`], s[`zkmigrate_sync_changes_total{outcome="applied"}`], s["zkmigrate_sync_in_step"])
	}
	applied := s[`zkmigrate_sync_changes_total{outcome="applied"}`]

	notify := func(topic, v string) {
		tr := src.Load()
		n := &zktree.Tree{}
		for _, node := range tr.Nodes {
			if node.Path != "/config/topics/"+topic {
				n.Nodes = append(n.Nodes, node)
			}
		}
		n.Nodes = append(n.Nodes, zktree.Node{Path: "/config/topics/" + topic, Data: []byte(`{"version":1,"config":{"retention.ms":"` + v + `"}}`)})
		n.Sort()
		src.Store(n)
		feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/" + topic}}, Seen: time.Now().Add(-time.Second)}
	}
	notify("orders", "1")
	if r := take("change"); r.Outcome.Applied != 1 {
		t.Fatalf("change round %+v", r)
	}
	s = scrape(t, srv.URL)
	if s[`zkmigrate_sync_rounds_total{kind="change",result="applied"}`] != 1 || s[`zkmigrate_sync_changes_total{outcome="applied"}`] != applied+1 ||
		s["zkmigrate_sync_lag_seconds_count"] != 1 || s["zkmigrate_sync_lag_seconds_sum"] < 1 || s[`zkmigrate_sync_feed_events_total{type="entity"}`] != 1 {
		t.Fatalf("after a change round: change rounds %v, applied %v, lag count %v sum %v, feed entities %v",
			s[`zkmigrate_sync_rounds_total{kind="change",result="applied"}`], s[`zkmigrate_sync_changes_total{outcome="applied"}`],
			s["zkmigrate_sync_lag_seconds_count"], s["zkmigrate_sync_lag_seconds_sum"], s[`zkmigrate_sync_feed_events_total{type="entity"}`])
	}

	// The target goes down: rounds fail, readiness flips.
	down.Store(true)
	notify("payments", "2")
	if r := take("failing change"); r.Err == nil {
		t.Fatalf("round %d did not fail", r.N)
	}
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "BEHIND: 1 pending, 1 failed") {
		t.Errorf("/readyz while a change fails: %d %q; want 503 naming 1 pending, failed", code, body)
	}
	s = scrape(t, srv.URL)
	if s[`zkmigrate_sync_rounds_total{kind="change",result="failed"}`] != 1 || s["zkmigrate_sync_pending_changes"] != 1 || s["zkmigrate_sync_failed_changes"] != 1 ||
		s["zkmigrate_sync_oldest_pending_seconds"] <= 0 || s["zkmigrate_sync_in_step"] != 0 {
		t.Fatalf("while failing: failed rounds %v, pending %v, failed %v, oldest %v, in step %v", s[`zkmigrate_sync_rounds_total{kind="change",result="failed"}`],
			s["zkmigrate_sync_pending_changes"], s["zkmigrate_sync_failed_changes"], s["zkmigrate_sync_oldest_pending_seconds"], s["zkmigrate_sync_in_step"])
	}
	// Back: the retry applies it and readiness returns.
	down.Store(false)
	for r := take("retry"); r.Reason != syncer.ReasonRetry || r.Err != nil; r = take("retry") {
	}
	if code, _ := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after the retry: %d; want 200", code)
	}
	if s = scrape(t, srv.URL); s[`zkmigrate_sync_rounds_total{kind="retry",result="applied"}`] < 1 || s["zkmigrate_sync_pending_changes"] != 0 {
		t.Errorf("after the retry: retry rounds %v, pending %v", s[`zkmigrate_sync_rounds_total{kind="retry",result="applied"}`], s["zkmigrate_sync_pending_changes"])
	}
}

// treeSource is a source whose tree the test replaces.
type treeSource struct{ t *atomic.Pointer[zktree.Tree] }

func (s treeSource) Get(p string) ([]byte, zktree.Stat, error) { return s.t.Load().Get(p) }
func (s treeSource) Children(p string) ([]string, error)       { return s.t.Load().Children(p) }
