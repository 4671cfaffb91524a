package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// AccessJSON writes an access proof, explanation or who-list as indented
// JSON: the machine contract of `migrate access ... -o json`.
func AccessJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// safe makes a name or text from a cluster or file safe on one line.
func safe(s string) string { return termsafe.Line(s) }

// verdictLine words a verdict.
func verdictLine(r *access.Result) string {
	switch {
	case r.Verdict == access.Equivalent && r.Accepted > 0:
		return fmt.Sprintf("EQUIVALENT but for %s the operator accepted (%s, --accept)", english.N(accepted(r), "cause"), classes(r.Accepted))
	case r.Verdict == access.Equivalent:
		return "EQUIVALENT: the target decides every request class as the source does"
	case r.Verdict == access.NotProved:
		return "NOT PROVED: no difference among the requests decided, but part of them could not be decided (below)"
	}
	return fmt.Sprintf("DIFFERENCES: %s decided differently, %s", classes(r.Differing-r.Accepted), english.N(len(r.Groups)-accepted(r), "cause"))
}

// classes is "1 request class" / "3 request classes".
func classes(n int64) string { return english.N(int(n), "request class", "request classes") }

func accepted(r *access.Result) int {
	n := 0
	for _, g := range r.Groups {
		if g.Accepted {
			n++
		}
	}
	return n
}

func nameClasses(n int) string {
	if n == 1 {
		return "1 resource name class"
	}
	return fmt.Sprintf("%d resource name classes", n)
}

// authorizerText words one side's configurations.
func authorizerText(a access.Authorizer) string {
	s := safe(strings.Join(a.Nodes, ", "))
	if a.Decides == access.ScopeController {
		s += " (as controllers)"
	}
	return s + ": " + safe(a.Settings)
}

// AccessText writes an access proof for a terminal: both sides, the
// counts, each group of counterexamples with one example and both
// reasons, what is not proved, the findings, the verdict and the digest.
// At most limit groups are shown (0: all).
func AccessText(w io.Writer, r *access.Result, limit int) error {
	ew := &errWriter{w: w}
	ew.printf("migrate access diff: %s → %s\n", safe(r.Source.Name), safe(r.Target.Name))
	for _, s := range []struct {
		label string
		side  access.SideResult
	}{{"Source", r.Source}, {"Target", r.Target}} {
		ew.printf("%s: %s\n", s.label, english.N(s.side.ACLs, "ACL"))
		for _, a := range s.side.Authorizers {
			ew.printf("  %s\n", authorizerText(a))
		}
	}
	if r.PrincipalMap != "" {
		ew.printf("Principal map: %s\n", safe(r.PrincipalMap))
	}
	ew.printf("Compared %s (%s, %s, %s, every operation of each resource type, and the idempotent producer check)\n",
		classes(r.Classes), english.N(r.Principals, "principal"), english.N(r.Hosts, "host"), nameClasses(r.Names))
	ew.printf("\n%s\n", verdictLine(r))
	for i, g := range r.Groups {
		if limit > 0 && i == limit {
			ew.printf("\n… and %d more causes (--limit 0 or -o json lists all)\n", len(r.Groups)-limit)
			break
		}
		ew.printf("\n%d. [%s] %s%s\n", i+1, g.ID, notProvedMark(g), safe(g.Cause))
		ew.printf("   %s; principals: %s; resources: %s; operations: %s\n", classes(g.Classes),
			listText(firstFew(g.Principals), g.PrincipalCount), listText(firstFew(g.Resources), g.ResourceCount), safe(strings.Join(g.Operations, ", ")))
		ex := g.Example
		who := safe(ex.Principal)
		if ex.TargetPrincipal != "" {
			who += " (" + safe(ex.TargetPrincipal) + " on the target)"
		}
		ew.printf("   e.g. %s %s %s from %s:\n", who, safe(ex.Operation), safe(ex.Resource), safe(ex.Host))
		for _, d := range ex.Decisions {
			ew.printf("     %s: %s — %s\n", sideText(d), d.Outcome, safe(d.Reason))
		}
	}
	for _, id := range r.UnusedAccepts {
		ew.printf("\nNote: --accept %s matches no cause (it no longer occurs)\n", safe(id))
	}
	if len(r.Gaps) > 0 {
		ew.printf("\nNot proved:\n")
		for _, g := range r.Gaps {
			ew.printf("  - %s: %s\n", gapWhere(g), safe(g.Why))
		}
	}
	if len(r.Findings) > 0 {
		ew.printf("\nFindings:\n")
		for _, f := range r.Findings {
			ew.printf("  - [%s] %s: %s\n", f.ID, safe(f.Resource), safe(f.Message))
		}
	}
	ew.printf("\nProof digest: %s\n", r.Digest)
	return ew.err
}

// firstFew keeps the first textMax names of a list for the text view.
func firstFew(names []string) []string { return names[:min(len(names), textMax)] }

// textMax is how many principals and resources a cause lists in text.
const textMax = 6

func notProvedMark(g access.Group) string {
	if g.Accepted {
		return "(accepted: --accept) "
	}
	if g.NotProved {
		return "(not proved: it involves a setting that is not known) "
	}
	return ""
}

func sideText(d access.SideDecision) string {
	s := d.Side + " (" + safe(strings.Join(d.Nodes, ", "))
	if d.Decides == access.ScopeController {
		s += "; as controller"
	}
	return s + ")"
}

func gapWhere(g access.Gap) string {
	s := g.Side
	if len(g.Nodes) > 0 {
		s += " (" + safe(strings.Join(g.Nodes, ", ")) + ")"
	}
	return s + ", " + safe(g.Requests)
}

// listText lists names, and how many more there are.
func listText(names []string, total int) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = safe(n)
	}
	s := strings.Join(out, ", ")
	if total > len(names) {
		s += fmt.Sprintf(" (+%d more)", total-len(names))
	}
	return s
}

// AccessMarkdown writes an access proof for a change ticket.
func AccessMarkdown(w io.Writer, r *access.Result) error {
	ew := &errWriter{w: w}
	ew.printf("# Access proof: %s → %s\n\n", mdText(safe(r.Source.Name)), mdText(safe(r.Target.Name)))
	ew.printf("**%s**\n\n", mdText(verdictLine(r)))
	ew.printf("| side | ACLs | nodes | decides | settings |\n| --- | --- | --- | --- | --- |\n")
	for _, s := range []struct {
		label string
		side  access.SideResult
	}{{"source", r.Source}, {"target", r.Target}} {
		for _, a := range s.side.Authorizers {
			ew.printf("| %s | %d | %s | %s | %s |\n", s.label, s.side.ACLs, mdCell(safe(strings.Join(a.Nodes, ", "))), a.Decides, mdCell(safe(a.Settings)))
		}
	}
	if r.PrincipalMap != "" {
		ew.printf("\nPrincipal map: `%s`\n", mdCode(safe(r.PrincipalMap)))
	}
	ew.printf("\n%s compared (%s, %s, %s).\n", classes(r.Classes), english.N(r.Principals, "principal"), english.N(r.Hosts, "host"), nameClasses(r.Names))
	if len(r.Groups) > 0 {
		ew.printf("\n## Differences\n\n| id | cause | classes | principals | resources | operations |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, g := range r.Groups {
			ew.printf("| %s | %s%s | %d | %s | %s | %s |\n", g.ID, mdCell(notProvedMark(g)), mdCell(safe(g.Cause)), g.Classes,
				mdCell(listText(g.Principals, g.PrincipalCount)), mdCell(listText(g.Resources, g.ResourceCount)), mdCell(strings.Join(g.Operations, ", ")))
		}
		for _, id := range r.UnusedAccepts {
			ew.printf("\n--accept %s matches no cause (it no longer occurs).\n", mdText(safe(id)))
		}
		ew.printf("\nOne example per cause:\n\n")
		for _, g := range r.Groups {
			ex := g.Example
			ew.printf("- **%s**: `%s` %s `%s` from `%s`\n", g.ID, mdCode(safe(ex.Principal)), mdText(ex.Operation), mdCode(safe(ex.Resource)), mdCode(safe(ex.Host)))
			for _, d := range ex.Decisions {
				ew.printf("  - %s: **%s**, %s\n", mdText(sideText(d)), d.Outcome, mdText(safe(d.Reason)))
			}
		}
	}
	if len(r.Gaps) > 0 {
		ew.printf("\n## Not proved\n\n")
		for _, g := range r.Gaps {
			ew.printf("- %s: %s\n", mdText(gapWhere(g)), mdText(safe(g.Why)))
		}
	}
	if len(r.Findings) > 0 {
		ew.printf("\n## Findings\n\n")
		for _, f := range r.Findings {
			ew.printf("- [%s](docs/checks.md#%s) %s: %s\n", f.ID, anchor(f.ID), mdText(safe(f.Resource)), mdText(safe(f.Message)))
		}
	}
	ew.printf("\nProof digest: `%s`\n", r.Digest)
	return ew.err
}

// ExplainText writes how each side decides one request.
func ExplainText(w io.Writer, x *access.Explanation) error {
	ew := &errWriter{w: w}
	who := safe(x.Principal)
	if x.TargetPrincipal != "" {
		who += " (" + safe(x.TargetPrincipal) + " on the target)"
	}
	if x.Unmapped {
		who += " (the principal map gives it no target principal)"
	}
	ew.printf("%s %s %s from %s\n", who, safe(x.Operation), safe(x.Resource), safe(x.Host))
	for _, d := range x.Decisions {
		ew.printf("  %s: %s — %s\n", sideText(d), d.Outcome, safe(d.Reason))
	}
	if x.Same {
		ew.printf("Same decision on every side.\n")
	} else {
		ew.printf("DIFFERENT decisions.\n")
	}
	for _, g := range x.Gaps {
		ew.printf("Not proved: %s: %s\n", gapWhere(g), safe(g.Why))
	}
	for _, f := range x.Findings {
		ew.printf("Note: %s\n", safe(f))
	}
	return ew.err
}

// WhoText writes who may do what on one resource, on each side.
func WhoText(w io.Writer, r *access.WhoResult) error {
	ew := &errWriter{w: w}
	ew.printf("Who may do what on %s\n", safe(r.Resource))
	for i, s := range r.Sides {
		ew.printf("  [%d] %s\n", i+1, authorizerText(s))
	}
	for _, row := range r.Rows {
		mark := " "
		if row.Differs {
			mark = "≠"
		}
		who := safe(row.Principal)
		if row.TargetPrincipal != "" {
			who += " (" + safe(row.TargetPrincipal) + " on the target)"
		}
		ew.printf("%s %s from %s\n", mark, who, safe(row.Host))
		for i, ops := range row.Allowed {
			list := strings.Join(ops, ", ")
			if list == "" {
				list = "nothing"
			}
			ew.printf("    [%d] %s\n", i+1, list)
		}
	}
	for _, g := range r.Gaps {
		ew.printf("Not proved: %s: %s\n", gapWhere(g), safe(g.Why))
	}
	return ew.err
}

// AccessLine is the proof in one line for plan and apply ("Access: ..."),
// what naming what was proved; with detail, one more line per cause.
func AccessLine(w io.Writer, r *access.Result, what string, detail bool) error {
	ew := &errWriter{w: w}
	switch {
	case r.Verdict == access.Equivalent:
		s := fmt.Sprintf("Access: equivalent: %s decides every request class as the source does (%s", what, classes(r.Classes))
		if r.Accepted > 0 {
			s += fmt.Sprintf("; %s accepted", english.N(accepted(r), "cause"))
		}
		ew.printf("%s; proof %s)\n", s, r.Digest)
	case r.Verdict == access.NotProved:
		ew.printf("Access: not proved for %s: %s not decided (give --broker-config and --target-config; migrate access diff shows what)\n", what, english.N(len(r.Gaps), "part"))
	default:
		ew.printf("Access: NOT equivalent: %s decides %s differently from the source, %s", what, classes(r.Differing-r.Accepted), english.N(len(r.Groups)-accepted(r), "cause"))
		if detail {
			ew.printf(":\n")
		} else {
			ew.printf(" (--detail lists them; migrate access diff explains each)\n")
		}
	}
	if detail {
		for _, g := range r.Groups {
			if !g.Accepted {
				ew.printf("  [%s] %s%s (%s)\n", g.ID, notProvedMark(g), safe(g.Cause), classes(g.Classes))
			}
		}
		for _, g := range r.Gaps {
			ew.printf("  not proved: %s: %s\n", gapWhere(g), safe(g.Why))
		}
	}
	return ew.err
}
