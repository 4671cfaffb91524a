package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

var sizes = []struct{ w, h int }{{80, 24}, {120, 35}, {200, 50}}

// press turns key names into key press messages: "space", "enter",
// "ctrl+c", "esc", "tab", "down", or text such as "x" or "/pay".
func press(s string) []tea.Msg {
	named := map[string]tea.Key{
		"space": {Code: tea.KeySpace, Text: " "}, "enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape},
		"tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"down": {Code: tea.KeyDown}, "up": {Code: tea.KeyUp}, "backspace": {Code: tea.KeyBackspace},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "pgdown": {Code: tea.KeyPgDown}, "end": {Code: tea.KeyEnd},
	}
	if k, ok := named[s]; ok {
		return []tea.Msg{tea.KeyPressMsg(k)}
	}
	var out []tea.Msg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg(tea.Key{Code: r, Text: string(r)}))
	}
	return out
}

// drive sends keys to m, running the commands they return (no I/O ones:
// those tests feed results as messages) the way the program would.
func drive(t testing.TB, m *root, keys ...string) {
	if t != nil {
		t.Helper()
	}
	for _, k := range keys {
		for _, msg := range press(k) {
			send(m, msg)
		}
	}
}

// send updates m with msg. Commands are not run: navigation is
// synchronous, and the commands that follow other messages wait on a worker
// (apply, loading) that the value tests replace by feeding messages.
func send(m *root, msg tea.Msg) { m.Update(msg) }

func newTestRoot(w, h int, p *plan.Plan, purpose string) *root {
	c := newCommon(true, w, h)
	m := newReviewRoot(context.Background(), c, p, purpose)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func view(m *root) string { return m.View().Content }

func forSizes(t *testing.T, f func(t *testing.T, w, h int)) {
	for _, s := range sizes {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) { f(t, s.w, s.h) })
	}
}

func TestReviewScreens(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"initial", nil},
		{"cursor-on-config-change", []string{"jjjjjjjjjjj"}},
		{"detail-full", []string{"jjjjjjjjjjjjj", "d"}},
		{"filter-text", []string{"/pay", "enter"}},
		{"filter-editing", []string{"/orde"}},
		{"filter-kind-action", []string{"K", "A"}},
		{"filter-no-match", []string{"K", "A", "A"}},
		{"filter-verdict-denied", []string{"VV"}},
		{"group-excluded", []string{"x"}},
		{"exclude-matching", []string{"/pay", "enter", "-"}},
		{"blocked-not-selectable", []string{"jjj", "space"}},
		{"blockers-and-findings", []string{"G"}},
		{"help", []string{"?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forSizes(t, func(t *testing.T, w, h int) {
				m := newTestRoot(w, h, fixture.Plan(), "apply")
				drive(t, m, tc.keys...)
				requireGolden(t, view(m))
			})
		})
	}
}

func TestConfirmScreenSave(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		m := newTestRoot(w, h, fixture.Plan(), "save") // plan --interactive
		drive(t, m, "j", "space", "enter")             // exclude the first topic
		requireGolden(t, view(m))
	})
}

func TestConfirmScreen(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		m := newTestRoot(w, h, fixture.Plan(), "apply")
		drive(t, m, "x", "enter") // exclude the topic group, go on
		if m.state != stateConfirm {
			t.Fatalf("state = %v, want confirm", m.state)
		}
		requireGolden(t, view(m))
	})
}

// fixedClock returns a clock that advances by step on every call.
func fixedClock(step time.Duration) func() time.Time {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * step) }
}

// startedApply returns a root in the apply state whose apply screen is fed
// events by the test instead of running an apply.
func startedApply(t *testing.T, w, h int, p *plan.Plan) (*root, *applyScreen) {
	m := newTestRoot(w, h, p, "apply")
	m.run = func(context.Context, *plan.Plan, apply.Observer) error { return nil }
	m.auditRunID = 42
	drive(t, m, "enter", "y")
	a := m.apply
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	a.now = func() time.Time { return t0.Add(4 * time.Second) }
	a.started = t0
	return m, a
}

// events runs the fake apply over p synchronously and returns its events.
func events(p *plan.Plan, fail func(*plan.Change) bool) []apply.Event {
	var evs []apply.Event
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	run := fixture.FakeApply(fixture.ApplyOptions{BatchSize: 3, Fail: fail, Now: func() time.Time { return t0 }})
	_ = run(context.Background(), p, apply.ObserverFunc(func(e apply.Event) { evs = append(evs, e) }))
	return evs
}

func failPayments(c *plan.Change) bool {
	return c.Kind == plan.KindTopicConfig && c.Resource.Name == "payments"
}

func TestApplyScreens(t *testing.T) {
	cases := []struct {
		name  string
		upTo  func(evs []apply.Event) int // how many events to feed
		fail  func(*plan.Change) bool
		keys  []string
		done  bool
		runEr error
	}{
		{name: "progress-midway", upTo: func(e []apply.Event) int { return len(e) / 2 }},
		{name: "progress-one-failing", upTo: func(e []apply.Event) int { return len(e) - 1 }, fail: failPayments},
		{name: "cancel-dialog", upTo: func(e []apply.Event) int { return len(e) / 3 }, keys: []string{"ctrl+c"}},
		{name: "stopping", upTo: func(e []apply.Event) int { return len(e) / 3 }, keys: []string{"ctrl+c", "y"}},
		{name: "end", upTo: func(e []apply.Event) int { return len(e) }, fail: failPayments, done: true},
		{name: "end-run-error", upTo: func(e []apply.Event) int { return 5 }, done: true, runEr: errors.New("apply: connect kraft1:9092: connection refused")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forSizes(t, func(t *testing.T, w, h int) {
				m, a := startedApply(t, w, h, fixture.Plan())
				evs := events(a.p, tc.fail)
				send(m, applyEventsMsg{events: evs[:tc.upTo(evs)], done: tc.done, err: tc.runEr})
				drive(t, m, tc.keys...)
				requireGolden(t, view(m))
			})
		})
	}
}

func TestLoadingScreen(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		c := newCommon(true, w, h)
		l := newLoading(c, context.Background(), "Reading the source and the target", nil)
		m := &root{c: c, state: stateLoading, loading: l}
		send(m, loadingMsg{steps: []loadingStep{
			{"connecting to ZooKeeper zk1:2181", 0, 0},
			{"reading topics", 120, 500},
			{"reading topics", 250, 500},
		}})
		requireGolden(t, view(m))
	})
}

type fakeHistory struct{}

func (fakeHistory) Runs(context.Context) ([]RunRow, error) {
	return []RunRow{
		{ID: 43, Command: "apply", Outcome: "partial", Started: "2026-11-29 12:00:01", Target: "kraft1:9092", ExitCode: 3, Changes: 12},
		{ID: 42, Command: "plan", Outcome: "pending", Started: "2026-11-29 11:58:40", Target: "kraft1:9092", ExitCode: 2, Changes: 14},
		{ID: 41, Command: "check", Outcome: "ok", Started: "2026-11-28 09:12:00", Target: "", ExitCode: 0, Changes: 0},
	}, nil
}

func (fakeHistory) Run(_ context.Context, id int64) (RunDetail, error) {
	runs, _ := fakeHistory{}.Runs(context.Background())
	dnACL := "Allow User:" + fixture.LongDN + " Read on Topic:LITERAL:" + fixture.LongTopic + " from *"
	for _, r := range runs {
		if r.ID == id {
			return RunDetail{Run: r,
				Changes: []ChangeRow{
					{Kind: "topic", Action: "create", Resource: "orders", Status: "succeeded"},
					{Kind: "topic", Action: "create", Resource: fixture.LongTopic, Status: "succeeded"},
					{Kind: "topic", Action: "create", Resource: fixture.LongTopic3, Status: "excluded"},
					{Kind: "topic-config", Action: "update", Resource: "payments", Status: "failed", Error: "POLICY_VIOLATION: reserved name"},
					{Kind: "acl", Action: "create", Resource: dnACL, Status: "succeeded"},
					{Kind: "acl", Action: "create", Resource: strings.Replace(dnACL, " Read ", " Write ", 1), Status: "succeeded"},
					{Kind: "scram-user", Action: "create", Resource: "alice/SCRAM-SHA-256", Status: "succeeded"},
					{Kind: "scram-user", Action: "create", Resource: "alice/SCRAM-SHA-512", Status: "succeeded"},
				},
				RPCs: []RPCRow{
					{Batch: 1, Attempt: 1, API: "CreateTopics", ValidateOnly: true, Broker: 1, Started: "12:00:02", DurationMS: 20, Resources: 2, Result: "ok"},
					{Batch: 1, Attempt: 1, API: "CreateTopics", Broker: 1, Started: "12:00:02", DurationMS: 35, Resources: 2, Result: "ok"},
					{Batch: 2, Attempt: 1, API: "IncrementalAlterConfigs", Broker: 1, Started: "12:00:03", DurationMS: 12, Resources: 1, Result: "error"},
					{Batch: 2, Attempt: 2, API: "IncrementalAlterConfigs", Broker: 1, Started: "12:00:04", DurationMS: 11, Resources: 1, Result: "error"},
				}}, nil
		}
	}
	return RunDetail{}, errors.New("no such run")
}

type failingHistory struct{}

func (failingHistory) Runs(context.Context) ([]RunRow, error) {
	return nil, errors.New("audit: open /var/lib/zkmigrate/audit.db: permission denied")
}

func (failingHistory) Run(context.Context, int64) (RunDetail, error) { return RunDetail{}, nil }

type emptyHistory struct{}

func (emptyHistory) Runs(context.Context) ([]RunRow, error)        { return nil, nil }
func (emptyHistory) Run(context.Context, int64) (RunDetail, error) { return RunDetail{}, nil }

func TestHistoryStates(t *testing.T) {
	cases := []struct {
		name string
		src  HistorySource
	}{
		{"error", failingHistory{}},
		{"empty", emptyHistory{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCommon(true, 80, 24)
			hs := newHistory(c, context.Background(), tc.src)
			m := &root{c: c, state: stateHistory, history: hs}
			send(m, hs.init()())
			requireGolden(t, view(m))
		})
	}
}

func TestHistoryScreens(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"list", []string{"j"}},
		{"detail-changes", []string{"enter"}},
		{"detail-rpcs", []string{"enter", "tab"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forSizes(t, func(t *testing.T, w, h int) {
				c := newCommon(true, w, h)
				hs := newHistory(c, context.Background(), fakeHistory{})
				m := &root{c: c, state: stateHistory, history: hs}
				send(m, hs.init()())
				for _, k := range tc.keys {
					for _, msg := range press(k) {
						_, cmd := m.Update(msg)
						if cmd != nil {
							send(m, cmd()) // the history read, run synchronously
						}
					}
				}
				requireGolden(t, view(m))
			})
		})
	}
}

// TestNoSecretInViews checks that no screen shows a secret's value.
func TestNoSecretInViews(t *testing.T) {
	p := fixture.Plan()
	for i := range p.Changes {
		if p.Changes[i].Kind == plan.KindScramUser {
			p.Changes[i].After.Password = ptrSecret("scram-credentials:alice/SCRAM-SHA-256", "hunter2-secret")
		}
	}
	m := newTestRoot(120, 40, p, "apply")
	var all strings.Builder
	for i := 0; i < 40; i++ {
		drive(t, m, "j")
		all.WriteString(view(m))
		drive(t, m, "d")
		all.WriteString(view(m))
		drive(t, m, "d")
	}
	if strings.Contains(all.String(), "hunter2") {
		t.Fatal("a view shows the secret value")
	}
	if !strings.Contains(all.String(), "scram-credentials:alice/SCRAM-SHA-256") {
		t.Fatal("no view shows the secret's reference; the test did not reach the SCRAM change")
	}
}
