package render_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// bigPlan has more changes, blockers and findings than the summary lists.
func bigPlan(topics, acls, blockers int) *plan.Plan {
	p := &plan.Plan{Format: plan.FormatVersion}
	for i := range topics {
		action := plan.ActionCreate
		if i%5 == 4 {
			action = plan.ActionUpdate
		}
		name := fmt.Sprintf("t%03d", i)
		p.Changes = append(p.Changes, plan.Change{ID: "topic:" + name, Kind: plan.KindTopic, Action: action, Resource: plan.Resource{Type: "topic", Name: name},
			After: &plan.State{Partitions: 2, ReplicationFactor: 3, Assignment: [][]int32{{1, 2, 3}, {2, 3, 1}}}})
	}
	for i := range acls {
		a := snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("t%03d", i), PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}
		p.Changes = append(p.Changes, plan.Change{ID: "acl:" + a.String(), Kind: plan.KindACL, Action: plan.ActionCreate, Resource: plan.Resource{Type: "acl", Name: a.String(), ACL: &a},
			After: &plan.State{Present: true}})
	}
	for i := range blockers {
		id := "scram-no-password"
		if i%4 == 0 {
			id = "tiered-storage-topic"
		}
		p.Blockers = append(p.Blockers, plan.Blocker{ID: id, Kind: plan.KindScramUser, Resource: fmt.Sprintf("User:u%03d", i), Reason: "no password", Fix: "give it"})
		p.Findings = append(p.Findings, snapshot.Finding{ID: id + "-finding", Severity: snapshot.SeverityInfo, Resource: fmt.Sprintf("r%03d", i), Message: "m"})
	}
	return p
}

func TestPlanTextSummaryAndDetail(t *testing.T) {
	cases := []struct {
		name   string
		p      *plan.Plan
		detail bool
	}{
		{"large-summary", bigPlan(35, 21, 30), false},
		{"large-detail", bigPlan(35, 21, 30), true},
		{"at-limit", bigPlan(render.SummaryLimit, render.SummaryLimit, render.SummaryLimit), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render.PlanTextWith(&b, c.p, render.TextOptions{Detail: c.detail}); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", c.name+".txt"), b.String())
		})
	}
}

// TestSummaryOnlyShortensLargeSections: at or below the limit the summary is
// the detail, byte for byte; above it, what is left out is counted, and the
// counts add up to the plan.
func TestSummaryOnlyShortensLargeSections(t *testing.T) {
	text := func(p *plan.Plan, detail bool) string {
		var b bytes.Buffer
		if err := render.PlanTextWith(&b, p, render.TextOptions{Detail: detail}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	small := bigPlan(render.SummaryLimit, 3, render.SummaryLimit)
	if diff := cmp.Diff(text(small, true), text(small, false)); diff != "" {
		t.Errorf("a plan within the limits is shortened (-detail +summary):\n%s", diff)
	}
	large := bigPlan(1000, 500, 200)
	sum, det := text(large, false), text(large, true)
	if got := strings.Count(sum, "\n+ topic ") + strings.Count(sum, "\n~ topic "); got != render.SummaryFirst {
		t.Errorf("summary shows %d topic changes, want %d", got, render.SummaryFirst)
	}
	for _, want := range []string{"... and 990 more topic changes (792 to create, 198 to update)", "... and 490 more acl changes (490 to create)",
		"## tiered-storage-topic (50)", "## scram-no-password (150)", "... and 147 more scram-no-password blockers", "... and 47 more tiered-storage-topic-finding findings",
		"Plan: 1300 to create, 200 to update, 0 to delete; 200 blocked.", "Shortened: --detail"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Count(det, "\n! ") != 200 || strings.Count(det, "\n* ") != 200 || strings.Contains(det, "more") || strings.Contains(det, "Shortened") {
		t.Errorf("detail does not list every blocker and finding, or says it is shortened")
	}
	if len(sum) > len(det)/10 {
		t.Errorf("summary is %d bytes, detail %d: not much shorter", len(sum), len(det))
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.AssertString(t, path, got)
}

// TestPlanTextColor: with a trusted writer each change line and field
// line is coloured by its mark (+ green, ~ yellow, - red) and reset on
// the same line; a name from the cluster still passes the barrier
// escaped; without one the text has no escape sequence at all, and with
// the colours stripped it is the uncoloured text byte for byte.
func TestPlanTextColor(t *testing.T) {
	evil := "orders\x1b[2J"
	p := &plan.Plan{Format: plan.FormatVersion, Changes: []plan.Change{
		{ID: "topic:" + evil, Kind: plan.KindTopic, Action: plan.ActionCreate, Resource: plan.Resource{Type: "topic", Name: evil},
			After: &plan.State{Partitions: 1, ReplicationFactor: 1, Assignment: [][]int32{{1}}}},
		{ID: "topic-config:t", Kind: plan.KindTopicConfig, Action: plan.ActionUpdate, Resource: plan.Resource{Type: "topic", Name: "t"},
			Before: &plan.State{Configs: []snapshot.Config{{Key: "retention.ms", Value: "1"}}}, After: &plan.State{Configs: []snapshot.Config{{Key: "retention.ms", Value: "2"}}}},
		{ID: "acl:x", Kind: plan.KindACL, Action: plan.ActionDelete, Resource: plan.Resource{Type: "acl", Name: "x", ACL: &snapshot.ACL{ResourceType: "Topic", ResourceName: "t", PatternType: "LITERAL", Principal: "User:a", Host: "*", Operation: "Read", Permission: "Allow"}},
			Before: &plan.State{Present: true}},
	}}
	var plain, colored bytes.Buffer
	if err := render.PlanTextWith(termsafe.NewWriter(&plain), p, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	tw := termsafe.NewWriter(&colored)
	if err := render.PlanTextWith(tw, p, render.TextOptions{Color: tw.Trusted()}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("without Color the text has escape sequences:\n%q", plain.String())
	}
	out := colored.String()
	for _, want := range []string{"\x1b[32m+ topic orders\\x1b[2J\x1b[0m", "\x1b[33m~ topic-config t\x1b[0m", "\x1b[31m- acl ", "    \x1b[33m~ retention.ms: 1 -> 2\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured text lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Count(l, "\x1b[3") != strings.Count(l, "\x1b[0m") {
			t.Errorf("line %q leaves a colour on", l)
		}
	}
	stripped := strings.NewReplacer("\x1b[32m", "", "\x1b[33m", "", "\x1b[31m", "", "\x1b[0m", "").Replace(out)
	if stripped != plain.String() {
		t.Errorf("coloured text without its colours differs from the plain text:\n%s\n---\n%s", stripped, plain.String())
	}
}
