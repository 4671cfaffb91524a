package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

// The key flows run the whole program with teatest/v2: keys go in as
// messages, the screen comes out of the renderer, the final model is
// checked. Waits have generous deadlines and assert nothing about time.

func typeKeys(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		for _, msg := range press(k) {
			tm.Send(msg)
		}
	}
}

// probeMsg asks the running program for its current screen. The program
// filter (probeFilter) answers it from the event loop, so the test reads
// the view without racing the program, and without decoding the
// renderer's cursor moves (which split text across escape sequences).
type probeMsg struct{ screen chan string }

func probeFilter(m tea.Model, msg tea.Msg) tea.Msg {
	if p, ok := msg.(probeMsg); ok {
		p.screen <- ansi.Strip(m.View().Content)
		return nil
	}
	return msg
}

func newFlow(t *testing.T, m *root) *teatest.TestModel {
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
}

// waitText waits until the screen shows every text.
func waitText(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	screen := ""
	for time.Now().Before(deadline) {
		p := probeMsg{screen: make(chan string, 1)}
		tm.Send(p)
		select {
		case screen = <-p.screen:
		case <-time.After(time.Second):
			continue
		}
		ok := true
		for _, text := range texts {
			if !strings.Contains(screen, text) {
				ok = false
				break
			}
		}
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the screen does not show %q:\n%s", texts, screen)
}

func sessionRoot(run ApplyFunc) *root {
	c := newCommon(true, 100, 30)
	m := newReviewRoot(context.Background(), c, fixture.Plan(), "apply")
	m.run, m.auditRunID = run, 7
	return m
}

func kindsOf(p *plan.Plan) map[plan.Kind]int {
	out := map[plan.Kind]int{}
	for _, c := range p.Changes {
		out[c.Kind]++
	}
	return out
}

func TestFlowFilterExcludeGroupConfirmApplyWithFailure(t *testing.T) {
	var applied *plan.Plan
	fake := fixture.FakeApply(fixture.ApplyOptions{BatchSize: 2, Fail: failPayments})
	run := func(ctx context.Context, p *plan.Plan, obs applyObserver) error {
		applied = p
		return fake(ctx, p, obs)
	}
	m := sessionRoot(run)
	tm := newFlow(t, m)
	waitText(t, tm, "Plan review")
	// Filter to the ACLs, exclude them all, clear the filter, exclude the
	// topic group (the cursor is on it), and go on.
	typeKeys(tm, "/", "acl", "enter")
	waitText(t, tm, "filter: /acl")
	typeKeys(tm, "-", "esc", "g", "x", "enter")
	fp := fixture.Plan()
	left := selectable(fp) - selectableOf(fp, plan.KindACL) - selectableOf(fp, plan.KindTopic)
	waitText(t, tm, fmt.Sprintf("Apply these %d changes", left))
	typeKeys(tm, "y")
	waitText(t, tm, "Apply finished with failures", "audit run id 7")
	typeKeys(tm, "enter")
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*root)

	if applied == nil {
		t.Fatal("the apply function was not called")
	}
	got := kindsOf(applied)
	if got[plan.KindACL] != 0 || got[plan.KindTopic] != 0 {
		t.Errorf("applied kinds %v: ACLs and topics were excluded", got)
	}
	if len(applied.Changes) != left {
		t.Errorf("applied %d changes, want %d", len(applied.Changes), left)
	}
	r := fm.apply.result()
	if want := (Result{Succeeded: left - 1, Failed: 1}); r != want {
		t.Errorf("result %+v, want %+v", r, want)
	}
}

func TestFlowCancelStopsAfterBatch(t *testing.T) {
	release := make(chan struct{})
	fake := fixture.FakeApply(fixture.ApplyOptions{BatchSize: 1})
	started := make(chan struct{})
	// The first batch waits until the test has asked to stop; the apply then
	// sees the canceled context and skips the rest.
	run := func(ctx context.Context, p *plan.Plan, obs applyObserver) error {
		close(started)
		<-release
		return fake(ctx, p, obs)
	}
	m := sessionRoot(run)
	tm := newFlow(t, m)
	waitText(t, tm, "Plan review")
	typeKeys(tm, "enter", "y")
	<-started
	waitText(t, tm, fmt.Sprintf("Applying %d changes", selectable(fixture.Plan())))
	typeKeys(tm, "ctrl+c")
	waitText(t, tm, "Stop after the batch in flight?")
	typeKeys(tm, "y")
	waitText(t, tm, "stopping after the batch in flight")
	close(release)
	waitText(t, tm, "Apply stopped")
	typeKeys(tm, "q")
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*root)
	r := fm.apply.result()
	if n := selectable(fixture.Plan()); !r.Canceled || r.Skipped != n || r.Succeeded != 0 {
		t.Errorf("result %+v, want canceled with %d skipped", r, n)
	}
}

func TestFlowCancelDialogKeepGoing(t *testing.T) {
	release := make(chan struct{})
	fake := fixture.FakeApply(fixture.ApplyOptions{BatchSize: 4})
	run := func(ctx context.Context, p *plan.Plan, obs applyObserver) error { <-release; return fake(ctx, p, obs) }
	m := sessionRoot(run)
	tm := newFlow(t, m)
	waitText(t, tm, "Plan review")
	typeKeys(tm, "enter", "y")
	waitText(t, tm, fmt.Sprintf("Applying %d changes", selectable(fixture.Plan())))
	typeKeys(tm, "ctrl+c")
	waitText(t, tm, "Stop after the batch in flight?")
	typeKeys(tm, "n")
	close(release)
	waitText(t, tm, "Apply finished")
	typeKeys(tm, "q")
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*root)
	if r, n := fm.apply.result(), selectable(fixture.Plan()); r.Canceled || r.Succeeded != n {
		t.Errorf("result %+v, want %d succeeded, not canceled", r, n)
	}
}

// selectable counts the changes of p the review lets the user select (all
// but the policy-denied ones).
func selectable(p *plan.Plan) int { return selectableOf(p, "") }

// selectableOf is selectable for one kind ("" for all).
func selectableOf(p *plan.Plan, k plan.Kind) int {
	n := 0
	for _, c := range p.Changes {
		if (k == "" || c.Kind == k) && (c.Verdict == nil || c.Verdict.Allowed) && c.Action != plan.ActionNoOp {
			n++
		}
	}
	return n
}

// TestReviewAPI drives the public Review through Options.Input and Output
// with raw terminal bytes.
func TestReviewAPI(t *testing.T) {
	cases := []struct {
		name      string
		input     string
		confirmed bool
		changes   int
	}{
		{"keep everything", "\ry", true, selectable(fixture.Plan())},
		{"exclude topics", "x\ry", true, selectable(fixture.Plan()) - selectableOf(fixture.Plan(), plan.KindTopic)},
		{"exclude one then back and quit", " \rnq", false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				for _, b := range []byte(tc.input) {
					time.Sleep(20 * time.Millisecond) // one key per read
					if _, err := pw.Write([]byte{b}); err != nil {
						return
					}
				}
			}()
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			sel, ok, err := Review(ctx, fixture.Plan(), Options{NoColor: true, Width: 80, Height: 24, Input: pr, Output: &out})
			pw.Close()
			if err != nil {
				t.Fatalf("Review: %v", err)
			}
			if ok != tc.confirmed {
				t.Fatalf("confirmed = %v, want %v", ok, tc.confirmed)
			}
			if ok && len(sel.Changes) != tc.changes {
				t.Errorf("selected %d changes, want %d", len(sel.Changes), tc.changes)
			}
			// Keys can beat the first frame, so any of the screens may be
			// the one drawn; what matters is that Options.Output got it.
			if screen := ansi.Strip(out.String()); !strings.Contains(screen, "Plan review") && !strings.Contains(screen, "Keep this selection") {
				t.Errorf("Options.Output never showed the review or the confirmation: %q", screen)
			}
			if ok {
				for _, c := range sel.Changes {
					if c.Verdict != nil && !c.Verdict.Allowed {
						t.Errorf("policy-denied change %s was selected", c.ID)
					}
				}
			}
		})
	}
}

var _ tea.Model = (*root)(nil)
