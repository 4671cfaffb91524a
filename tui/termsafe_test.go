package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// evilPlan is a plan whose names and values carry ESC, BEL, CR, backspace,
// an OSC title and bidi overrides, in every place the screens show one.
func evilPlan() *plan.Plan {
	user := "ev\x1b[2J\x1b[31mil"
	acl := snapshot.ACL{ResourceType: "Topic", ResourceName: "orders\a\r\b", PatternType: "LITERAL", Principal: "User:" + user + "\u202e",
		Host: "10.0.0.1\x1b[9m", Operation: "Read", Permission: "Allow"}
	e := snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: user}, {Type: snapshot.EntityClientID, Name: "cli\aent\u2066"}}
	return &plan.Plan{Format: plan.FormatVersion,
		Source: plan.Endpoint{Kind: "zookeeper", Address: "zk1:2181\x1b[5m"}, Target: plan.Endpoint{Kind: "kafka", Address: "kraft1:9092"},
		Changes: []plan.Change{
			{ID: "topic-config:orders", Kind: plan.KindTopicConfig, Action: plan.ActionUpdate, Resource: plan.Resource{Type: "topic", Name: "orders"},
				Before: &plan.State{Configs: []snapshot.Config{{Key: "compression.type", Value: "gzip"}}},
				After:  &plan.State{Configs: []snapshot.Config{{Key: "compression.type\x1b[7m", Value: "producer\x1b]0;pwned\a"}}},
				Notes:  []string{"note about " + user}},
			{ID: "quota:" + e.String(), Kind: plan.KindQuota, Action: plan.ActionCreate, Resource: plan.Resource{Type: "quota", Name: e.String(), Entity: e},
				After: &plan.State{Quota: map[string]float64{"producer_byte_rate": 1024}}},
			{ID: "acl:" + acl.String(), Kind: plan.KindACL, Action: plan.ActionCreate, Resource: plan.Resource{Type: "acl", Name: acl.String(), ACL: &acl},
				After: &plan.State{Present: true}, Verdict: &plan.Verdict{Allowed: false, Rule: "r\x1b[9m", Message: "denied " + user}},
		},
		Blockers:    []plan.Blocker{{ID: "scram-no-password", Kind: plan.KindScramUser, Resource: user, Reason: "no password for " + user, Fix: "give " + user}},
		Findings:    []snapshot.Finding{{ID: "znode-malformed", Severity: "warning", Resource: "/config/users/" + user, Message: "bad " + user}},
		PolicyNotes: []string{"policy " + user},
	}
}

// injected are the sequences the names carry; with NoColor the screens
// draw no colour of their own, so any of them in a view came from a name.
var injected = []string{"\x1b[2J", "\x1b[31m", "\x1b[9m", "\x1b[5m", "\x1b[7m", "\x1b]0;", "\a", "\r", "\b", "\u202e", "\u2066"}

func assertNoInjected(t *testing.T, what, v string) {
	t.Helper()
	for _, s := range injected {
		if strings.Contains(v, s) {
			t.Errorf("%s: %q reaches the terminal", what, s)
		}
	}
}

// TestScreensEscapeNames: every screen shows the evil names escaped — the
// review (rows, detail, key help), the confirmation, the apply with errors
// naming them, the history and the sync screen.
func TestScreensEscapeNames(t *testing.T) {
	m := newTestRoot(120, 35, evilPlan(), "apply")
	m.review.setNotes([]string{"demo note \x1b[2J"})
	for i := 0; i < 14; i++ {
		assertNoInjected(t, "review", view(m))
		drive(t, m, "d")
		assertNoInjected(t, "detail", view(m))
		drive(t, m, "d", "j")
	}
	if v := view(m); !strings.Contains(v, `\x1b[2J`) {
		t.Errorf("the review does not show the escaped name:\n%s", v)
	}
	drive(t, m, "g", "enter")
	assertNoInjected(t, "confirmation", view(m))

	p := evilPlan()
	p.Changes = p.Changes[:2]
	ma, a := startedApply(t, 120, 35, p)
	send(ma, applyEventsMsg{events: []apply.Event{
		apply.ResourceResult{Change: &p.Changes[1], ErrorCode: 44, ErrorName: "POLICY_VIOLATION", Message: "refused \x1b[2J", Err: errors.New("x")},
		apply.ChangeSkipped{Change: &p.Changes[0], Reason: apply.ReasonNotSent, Detail: "not sent: changed \a"},
	}, done: true, err: errors.New("run failed \x1b[31m")})
	_ = a
	assertNoInjected(t, "apply end", view(ma))
	if v := view(ma); !strings.Contains(v, "not sent: changed") {
		t.Errorf("the apply's end does not list the change it did not send:\n%s", v)
	}

	c := newCommon(true, 120, 35)
	hs := newHistory(c, context.Background(), emptyHistory{})
	hr := &root{c: c, state: stateHistory, history: hs}
	send(hr, runsLoadedMsg{runs: []RunRow{{ID: 1, Command: "apply", Outcome: "partial\x1b[2J", Target: "kraft\a"}}})
	assertNoInjected(t, "history", view(hr))
	send(hr, runLoadedMsg{detail: RunDetail{Run: RunRow{ID: 1, Target: "kraft\a"},
		Changes: []ChangeRow{{Kind: "acl", Action: "create", Resource: p.Changes[1].Resource.Name, Status: "failed", Error: "refused \x1b[2J"}},
		RPCs:    []RPCRow{{API: "CreateAcls", Result: "error \a"}}}})
	assertNoInjected(t, "history run", view(hr))
	drive(t, hr, "tab")
	assertNoInjected(t, "history RPCs", view(hr))

	var froze int
	sr := newSyncRoot(120, 35, &froze, syncer.Round{N: 1, Reason: syncer.ReasonReconcile, Finished: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC),
		Drift: evilPlan().Changes, Err: errors.New("failed \x1b[2J")})
	assertNoInjected(t, "sync", view(sr))
}
