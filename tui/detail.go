package tui

import (
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// detailLines renders the detail pane for the row under the cursor.
func (r *reviewScreen) detailLines() []string {
	rw := r.current()
	if rw == nil {
		return nil
	}
	s := r.c.Styles
	switch rw.t {
	case rowGroup:
		g := &r.groups[rw.g]
		return []string{
			s.Group.Render(g.title) + fmt.Sprintf(": %s (%s)", english.N(len(g.items), "change"), r.actionCounts(g.actions)),
			fmt.Sprintf("selected %d of %d selectable: %s", g.selected, g.selectable, r.groupCounts(g)),
			"sent with " + strings.Join(g.rpcs, ", "),
			s.Subtle.Render("x or space includes/excludes the whole group"),
		}
	case rowSection:
		switch rw.g {
		case secBlockers:
			return []string{"Blockers are wanted changes the tool will not or cannot make;", "each names the reason and the fix. They are never applied."}
		case secFindings:
			return []string{"Findings are facts worth knowing before the migration."}
		case secNotes:
			return []string{"Notes about this run: what it left out or changed, and why."}
		}
		return []string{"Policy notes are not verdicts on one change (for example legacy", "policy classes, which the target's controllers enforce)."}
	case rowNote:
		if rw.g == secPolicy {
			return r.wrap("[policy] " + r.noteText(rw))
		}
		return r.wrap(r.noteText(rw))
	case rowBlocker:
		b := &r.p.Blockers[rw.i]
		out := []string{s.Blocked.Render("✗ blocker "+b.ID) + " · " + string(b.Kind) + " " + termsafe.Name(b.Resource)}
		out = append(out, r.wrap("reason: "+termsafe.Line(b.Reason))...)
		if b.Fix != "" {
			out = append(out, r.wrap("fix: "+termsafe.Line(b.Fix))...)
		}
		if b.Change != nil {
			out = append(out, "blocked change:")
			out = append(out, changeDetail(s, b.Change)...)
		}
		return out
	case rowFinding:
		f := &r.p.Findings[rw.i]
		out := []string{severityMark(f.Severity) + " " + f.ID + " · " + termsafe.Name(f.Resource)}
		out = append(out, r.wrap(termsafe.Line(f.Message))...)
		if f.Fix != "" {
			out = append(out, r.wrap("fix: "+termsafe.Line(f.Fix))...)
		}
		return out
	}
	it := &r.items[rw.i]
	c := it.ch
	st := s.action(c.Action)
	out := []string{st.Render(actionSymbol(c.Action)+" "+string(c.Action)+" "+string(c.Kind)+" "+displayName(c)) +
		s.Subtle.Render(" · "+rpcOf(c)+" · id "+termsafe.Line(c.ID))}
	switch {
	case !it.selectable:
		for _, l := range r.wrap("[!] not selectable: " + termsafe.Line(it.reason)) {
			out = append(out, s.Blocked.Render(l))
		}
	case it.selected:
		out = append(out, "[x] selected (space excludes)")
	default:
		out = append(out, s.Subtle.Render("[ ] excluded (space includes)"))
	}
	if v := c.Verdict; v != nil && v.Allowed {
		out = append(out, s.Subtle.Render("policy: allowed"+ruleSuffix(termsafe.Line(v.Rule))))
	}
	out = append(out, changeDetail(s, c)...)
	for _, n := range c.Notes {
		for _, l := range r.wrap("note: " + termsafe.Line(n)) {
			out = append(out, s.Subtle.Render(l))
		}
	}
	return out
}

func ruleSuffix(rule string) string {
	if rule == "" {
		return ""
	}
	return " by rule " + rule
}

// changeDetail is the before → after of one change: its fields as plan
// gives them and render writes them, styled by what happens to each.
// Secrets show their reference only; Reveal is never called.
func changeDetail(s Styles, c *plan.Change) []string {
	fields, err := plan.Fields(c)
	if err != nil {
		return []string{s.Blocked.Render("error: " + termsafe.Line(err.Error()))}
	}
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		st := s.NoOp
		switch f.Mark() {
		case "+":
			st = s.Create
		case "-":
			st = s.Delete
		case "~":
			st = s.Update
		}
		out = append(out, st.Render(termsafe.Line(render.FieldText(fieldEscaped(f), "→"))))
	}
	return out
}

// fieldEscaped is f with its key escaped (its values render.FieldValue
// quotes when they need it).
func fieldEscaped(f plan.Field) plan.Field {
	f.Key = termsafe.Name(f.Key)
	return f
}

// wrap word-wraps prose (reasons, messages, notes) to the screen width;
// tables and titles are truncated instead.
func (r *reviewScreen) wrap(text string) []string {
	return wrapLines([]string{text}, r.c.Width)
}
