// Package render turns plans and apply events into text and JSON for people
// and scripts. It computes nothing: plan decides, render shows.
package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Symbols for actions, as in Terraform's plan output.
var symbols = map[plan.Action]string{plan.ActionCreate: "+", plan.ActionUpdate: "~", plan.ActionDelete: "-", plan.ActionNoOp: " "}

// PlanJSON writes the plan as indented JSON (the saved-plan schema), one
// change at a time, each change with its fields (plan.Fields: derived for
// the view as it is written, never held by the plan). Secrets appear as
// references only.
func PlanJSON(w io.Writer, p *plan.Plan) error {
	v := planJSON{Format: p.Format, Digest: p.Digest, Signature: p.Signature, Fingerprint: p.Fingerprint, Source: p.Source, Target: p.Target, Options: p.Options,
		Reverts: p.Reverts, Blockers: p.Blockers, Findings: p.Findings, PolicyNotes: p.PolicyNotes}
	if p.Changes != nil { // null stays null
		v.Changes = make([]changeJSON, len(p.Changes))
	}
	for i := range p.Changes {
		v.Changes[i] = changeJSON{&p.Changes[i]}
	}
	return jsonfile.EncodeIndent(w, &v)
}

// planJSON is a plan as `plan -o json` shows it: plan.Plan's members, in
// its order (TestPlanJSONMirrorsPlan), each change with its fields.
type planJSON struct {
	Format      int                `json:"format"`
	Digest      string             `json:"digest,omitempty"`
	Signature   *plan.Signature    `json:"signature,omitempty"`
	Fingerprint string             `json:"fingerprint"`
	Source      plan.Endpoint      `json:"source"`
	Target      plan.Endpoint      `json:"target"`
	Options     plan.Options       `json:"options"`
	Reverts     *plan.Reverts      `json:"reverts,omitempty"`
	Changes     []changeJSON       `json:"changes"`
	Blockers    []plan.Blocker     `json:"blockers,omitempty"`
	Findings    []snapshot.Finding `json:"findings,omitempty"`
	PolicyNotes []string           `json:"policy_notes,omitempty"`
}

// changeJSON is a change with its fields, computed when it is written.
type changeJSON struct{ c *plan.Change }

func (c changeJSON) MarshalJSON() ([]byte, error) {
	fields, err := plan.Fields(c.c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		*plan.Change
		Fields []plan.Field `json:"fields,omitempty"`
	}{c.c, fields})
}

// TextOptions shape the text diff.
type TextOptions struct {
	// Detail lists every change, blocker and finding. Without it a kind
	// with more than SummaryLimit changes shows its first SummaryFirst and
	// counts the rest, and more than SummaryLimit blockers or findings are
	// grouped by id, SummaryFirstPerID of each shown.
	Detail bool
	// Color, when not nil, is the trusted side of the terminal barrier
	// (termsafe.Writer.Trusted) the diff's colours go to: each change line
	// and each field line in the colour of its mark (+ green, ~ yellow,
	// - red), as terraform colours its plans. Only the escape sequences go
	// there; every name still passes the barrier. Nil: no colour.
	Color io.Writer
}

// ANSI colours of the text diff (TextOptions.Color).
const (
	colorGreen  = "\x1b[32m"
	colorYellow = "\x1b[33m"
	colorRed    = "\x1b[31m"
	colorReset  = "\x1b[0m"
)

// markColor is the colour of a line starting with mark ("" none).
func markColor(mark string) string {
	switch mark {
	case "+":
		return colorGreen
	case "~":
		return colorYellow
	case "-":
		return colorRed
	}
	return ""
}

// Summary sizes of the text diff without --detail.
const (
	SummaryLimit      = 20 // up to this many items a section lists them all
	SummaryFirst      = 10 // changes shown per kind beyond the limit
	SummaryFirstPerID = 3  // blockers or findings shown per id beyond the limit
)

// PlanText writes the text diff a person reads: PlanTextWith without
// Detail (every change of a small plan; counts and the first changes of
// each kind of a large one).
func PlanText(w io.Writer, p *plan.Plan) error { return PlanTextWith(w, p, TextOptions{}) }

// PlanTextWith writes a terraform-like diff: changes grouped by kind, then
// blockers, findings and a summary line.
func PlanTextWith(w io.Writer, p *plan.Plan, o TextOptions) error {
	ew := &errWriter{w: bufio.NewWriterSize(w, 64<<10), color: o.Color}
	counts := map[plan.Action]int{}
	byKind := map[plan.Kind][]*plan.Change{}
	for i := range p.Changes {
		c := &p.Changes[i]
		byKind[c.Kind] = append(byKind[c.Kind], c)
		counts[c.Action]++
	}
	if r := p.Reverts; r != nil {
		ew.printf("Reverts run %d (its record ends at seq %d, digest %s): back to the state before it.\n\n", r.Run, r.Seq, r.Digest)
	}
	shortened := false
	for _, k := range plan.Kinds {
		cs := byKind[k]
		if len(cs) == 0 {
			continue
		}
		ew.printf("# %s (%d)\n", k, len(cs))
		shown := cs
		if !o.Detail && len(cs) > SummaryLimit {
			shown = cs[:SummaryFirst]
		}
		for _, c := range shown {
			writeChange(ew, c)
		}
		if rest := cs[len(shown):]; len(rest) > 0 {
			shortened = true
			ew.printf("... and %d more %s changes (%s)\n", len(rest), k, actionCounts(rest))
		}
		ew.printf("\n")
	}
	if len(p.Blockers) > 0 {
		ew.printf("# blockers (%d): wanted changes the tool will not or cannot make\n", len(p.Blockers))
		shortened = writeGrouped(ew, o, len(p.Blockers), func(i int) string { return p.Blockers[i].ID }, func(i int) {
			b := p.Blockers[i]
			ew.printf("! %s %s: %s\n", b.Kind, b.Resource, b.Reason)
			if b.Fix != "" {
				ew.printf("    fix: %s\n", b.Fix)
			}
		}, "blockers") || shortened
		ew.printf("\n")
	}
	if len(p.PolicyNotes) > 0 {
		ew.printf("# policy\n")
		for _, n := range p.PolicyNotes {
			ew.printf("  %s\n", n)
		}
		ew.printf("\n")
	}
	if len(p.Findings) > 0 {
		ew.printf("# findings (%d)\n", len(p.Findings))
		shortened = writeGrouped(ew, o, len(p.Findings), func(i int) string { return p.Findings[i].ID }, func(i int) {
			f := p.Findings[i]
			ew.printf("* [%s] %s %s: %s\n", f.Severity, f.ID, f.Resource, f.Message)
			if f.Fix != "" {
				ew.printf("    fix: %s\n", f.Fix)
			}
		}, "findings") || shortened
		ew.printf("\n")
	}
	switch {
	case len(p.Changes) == 0 && p.Reverts != nil:
		ew.printf("No changes: nothing run %d changed is left to revert", p.Reverts.Run)
		if len(p.Blockers) > 0 {
			ew.printf(" but for %s", english.N(len(p.Blockers), "blocker"))
		}
		ew.printf(".\n")
	case len(p.Changes) == 0:
		ew.printf("No changes. The target matches the source")
		if len(p.Blockers) > 0 {
			ew.printf(" except for %s", english.N(len(p.Blockers), "blocker"))
		}
		ew.printf(".\n")
	default:
		ew.printf("Plan: %d to create, %d to update, %d to delete", counts[plan.ActionCreate], counts[plan.ActionUpdate], counts[plan.ActionDelete])
		if len(p.Blockers) > 0 {
			ew.printf("; %d blocked", len(p.Blockers))
		}
		ew.printf(".\n")
	}
	if shortened {
		ew.printf("Shortened: --detail lists every change, blocker and finding; -o json holds them all.\n")
	}
	if ew.err == nil {
		ew.err = ew.w.(*bufio.Writer).Flush()
	}
	return ew.err
}

// writeGrouped writes n items: all of them with Detail or when few, else
// grouped by id in order of first appearance, the first few of each id and
// a count of the rest. It reports whether it left any out.
func writeGrouped(ew *errWriter, o TextOptions, n int, id func(int) string, write func(int), what string) bool {
	if o.Detail || n <= SummaryLimit {
		for i := range n {
			write(i)
		}
		return false
	}
	var ids []string
	byID := map[string][]int{}
	for i := range n {
		k := id(i)
		if _, ok := byID[k]; !ok {
			ids = append(ids, k)
		}
		byID[k] = append(byID[k], i)
	}
	for _, k := range ids {
		is := byID[k]
		ew.printf("## %s (%d)\n", k, len(is))
		for _, i := range is[:min(len(is), SummaryFirstPerID)] {
			write(i)
		}
		if len(is) > SummaryFirstPerID {
			ew.printf("... and %d more %s %s\n", len(is)-SummaryFirstPerID, k, what)
		}
	}
	return true
}

// actionCounts renders "12 to create, 3 to update" for the changes given.
func actionCounts(cs []*plan.Change) string {
	n := map[plan.Action]int{}
	for _, c := range cs {
		n[c.Action]++
	}
	var parts []string
	for _, a := range []struct {
		action plan.Action
		verb   string
	}{{plan.ActionCreate, "create"}, {plan.ActionUpdate, "update"}, {plan.ActionDelete, "delete"}, {plan.ActionNoOp, "leave as they are"}} {
		if n[a.action] > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", n[a.action], a.verb))
		}
	}
	return strings.Join(parts, ", ")
}

func writeChange(ew *errWriter, c *plan.Change) {
	ew.paint(markColor(symbols[c.Action]))
	ew.printf("%s %s %s", symbols[c.Action], c.Kind, resourceLabel(c))
	ew.paint("")
	if c.Verdict != nil && c.Verdict.Rule != "" {
		ew.printf("  (policy: %s)", c.Verdict.Rule)
	}
	ew.printf("\n")
	for _, line := range ChangeDetail(c) {
		ew.printf("    ")
		mark, _, _ := strings.Cut(line, " ")
		ew.paint(markColor(mark))
		ew.printf("%s", line)
		ew.paint("")
		ew.printf("\n")
	}
}

func resourceLabel(c *plan.Change) string { return plan.Label(c) }

// ChangeDetail returns the lines of a change: its fields (plan.Fields),
// then its notes. The text diff shows them; the TUI detail pane shows the
// same fields through FieldText. Secrets show as references only.
func ChangeDetail(c *plan.Change) []string {
	fields, err := plan.Fields(c)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	out := make([]string, 0, len(fields)+len(c.Notes))
	for _, f := range fields {
		out = append(out, FieldText(f, "->"))
	}
	for _, n := range c.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// FieldText renders one field, arrow between the values of an altered one:
// "+ key = after", "- key (was before)", "~ key: before -> after", or
// "= key = value". A sensitive field shows "(sensitive)" or its secret's
// reference, never a value.
func FieldText(f plan.Field, arrow string) string {
	v := func(s *string) string { return FieldValue(f, s) }
	switch f.Mark() {
	case "+":
		return "+ " + f.Key + " = " + v(f.After)
	case "-":
		return "- " + f.Key + " (was " + v(f.Before) + ")"
	case "=":
		return "= " + f.Key + " = " + v(f.After)
	}
	return "~ " + f.Key + ": " + v(f.Before) + " " + arrow + " " + v(f.After)
}

// FieldValue renders one side of a field: "(unset)" for nil, a sensitive
// one as "(sensitive)" or "(sensitive, from REF)", a value bare unless it is
// empty or needs escaping (then quoted).
func FieldValue(f plan.Field, s *string) string {
	switch {
	case s == nil:
		return "(unset)"
	case f.Sensitive && *s == "":
		return "(sensitive)"
	case f.Sensitive:
		return "(sensitive, from " + *s + ")"
	}
	if q := strconv.Quote(*s); *s == "" || q[1:len(q)-1] != *s || strings.TrimSpace(*s) != *s {
		return q
	}
	return *s
}

type errWriter struct {
	w     io.Writer
	err   error
	color io.Writer // the trusted side for colours (nil: none)
	on    bool      // a colour is on
}

// paint switches to colour c ("": back to none) when the writer has
// colour: what was printed so far is flushed through the barrier first,
// then the escape sequence goes to the trusted side, so the two stay in
// order.
func (e *errWriter) paint(c string) {
	if e.color == nil || e.err != nil || (c == "" && !e.on) {
		return
	}
	if f, ok := e.w.(interface{ Flush() error }); ok {
		if e.err = f.Flush(); e.err != nil {
			return
		}
	}
	if c == "" {
		c = colorReset
	}
	_, e.err = io.WriteString(e.color, c)
	e.on = c != colorReset
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
