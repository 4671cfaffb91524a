package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/english"
)

// CheckJSON writes a `migrate check` report as indented JSON, the machine
// contract (it decodes back to the same check.Report).
func CheckJSON(w io.Writer, r *check.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// CheckText writes a `migrate check` report for a terminal, grouped by
// severity and id. At most limit findings are listed per id (0 lists all).
func CheckText(w io.Writer, r *check.Report, limit int) error {
	ew := &errWriter{w: w}
	src := ""
	if r.Source != "" {
		src = r.Source + ", "
	}
	ew.printf("migrate check: %starget Kafka %s: %s\n", src, r.Target, checkSummary(r))
	sev := ""
	for _, g := range checkGroups(r.Findings) {
		if g.severity != sev {
			sev = g.severity
			n := 0
			for _, f := range r.Findings {
				if f.Severity == sev {
					n++
				}
			}
			ew.printf("\n%s (%d)\n", strings.ToUpper(severityHeading[sev]), n)
		}
		ew.printf("\n[%s] %s\n", g.rule.ID, g.rule.Title)
		if g.rule.Why != "" {
			ew.printf("  why: %s\n", g.rule.Why)
		}
		if g.rule.Fix != "" {
			ew.printf("  fix: %s\n", g.rule.Fix)
		}
		for i, f := range g.findings {
			if limit > 0 && i == limit {
				ew.printf("  … and %d more (-o json lists every finding)\n", len(g.findings)-limit)
				break
			}
			ew.printf("  - %s: %s\n", f.Resource, f.Message)
			if f.Fix != "" && f.Fix != g.rule.Fix {
				ew.printf("    fix: %s\n", f.Fix)
			}
		}
	}
	return ew.err
}

// CheckMarkdown writes a `migrate check` report for a change ticket: a
// summary table, then one section per id with why, fix and a table of
// resources. At most limit rows are listed per id (0 lists all).
func CheckMarkdown(w io.Writer, r *check.Report, limit int) error {
	ew := &errWriter{w: w}
	ew.printf("## Pre-upgrade audit\n\n")
	if r.Source != "" {
		ew.printf("- Source: `%s`\n", mdCode(r.Source))
	}
	ew.printf("- Target: Kafka %s\n", r.Target)
	ew.printf("- Result: %s\n", checkSummary(r))
	gs := checkGroups(r.Findings)
	if len(gs) == 0 {
		return ew.err
	}
	ew.printf("\n| Severity | Check | Findings | What |\n| --- | --- | ---: | --- |\n")
	for _, g := range gs {
		ew.printf("| %s | [%s](#%s) | %d | %s |\n", g.severity, g.rule.ID, anchor(g.rule.ID), len(g.findings), mdCell(g.rule.Title))
	}
	sev := ""
	for _, g := range gs {
		if g.severity != sev {
			sev = g.severity
			ew.printf("\n### %s\n", severityHeading[sev])
		}
		ew.printf("\n#### %s\n\n%s\n\n", g.rule.ID, mdText(g.rule.Title))
		if g.rule.Why != "" {
			ew.printf("- **Why:** %s\n", mdText(g.rule.Why))
		}
		if g.rule.Fix != "" {
			ew.printf("- **Fix:** %s\n", mdText(g.rule.Fix))
		}
		specific := false
		for _, f := range g.findings {
			if f.Fix != "" && f.Fix != g.rule.Fix {
				specific = true
			}
		}
		if specific {
			ew.printf("\n| Resource | Finding | Fix |\n| --- | --- | --- |\n")
		} else {
			ew.printf("\n| Resource | Finding |\n| --- | --- |\n")
		}
		for i, f := range g.findings {
			if limit > 0 && i == limit {
				ew.printf("\n… and %d more (`-o json` lists every finding).\n", len(g.findings)-limit)
				break
			}
			if specific {
				fix := ""
				if f.Fix != g.rule.Fix {
					fix = f.Fix
				}
				ew.printf("| `%s` | %s | %s |\n", mdCode(f.Resource), mdCell(f.Message), mdCell(fix))
			} else {
				ew.printf("| `%s` | %s |\n", mdCode(f.Resource), mdCell(f.Message))
			}
		}
	}
	return ew.err
}

// checkSummary is the one-line result: "2 errors, 1 warning, 3 info".
func checkSummary(r *check.Report) string {
	if len(r.Findings) == 0 {
		return "no findings"
	}
	return fmt.Sprintf("%s, %s, %d info", english.N(r.Counts.Error, "error"), english.N(r.Counts.Warning, "warning"), r.Counts.Info)
}

// checkGroup is the findings of one id within one severity.
type checkGroup struct {
	rule     check.Rule
	severity string
	findings []check.Finding
}

// checkGroups splits sorted findings by severity, then id.
func checkGroups(fs []check.Finding) []checkGroup {
	var out []checkGroup
	for _, f := range fs {
		if n := len(out); n > 0 && out[n-1].rule.ID == f.ID && out[n-1].severity == f.Severity {
			out[n-1].findings = append(out[n-1].findings, f)
			continue
		}
		r, ok := check.Lookup(f.ID)
		if !ok {
			r = check.Rule{ID: f.ID, Title: f.ID}
		}
		out = append(out, checkGroup{rule: r, severity: f.Severity, findings: []check.Finding{f}})
	}
	return out
}

var severityHeading = map[string]string{check.SeverityError: "Errors", check.SeverityWarning: "Warnings", check.SeverityInfo: "Info"}

// plural returns "1 topic" / "3 topics".
// anchor is the GitHub heading anchor of an id.
func anchor(id string) string { return catalogue.Anchor(id) }

// mdText escapes text for a Markdown paragraph.
func mdText(s string) string {
	return strings.NewReplacer("\n", " ", "<", "&lt;", ">", "&gt;", "*", "\\*", "_", "\\_").Replace(s)
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", "\\|") }

// mdCode makes s safe inside a code span.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "|", "\\|").Replace(s)
}

// CatalogueMarkdown writes docs/checks.md: the whole finding vocabulary
// (internal/catalogue), check's rules first, then the readers', the plan's
// findings and its blockers, each with its id, severity, what it reports,
// why it matters and the fix.
func CatalogueMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	rules := catalogue.FindingsFrom(catalogue.FromCheck)
	ew.printf("# `migrate check`: the catalogue\n\n")
	ew.printf("<!-- Generated by `go run ./tools/checksdoc` from the finding vocabulary in internal/catalogue (findings*.go). Do not edit by hand; CI fails when this file is not current. -->\n\n")
	ew.printf("`migrate check` audits a ZooKeeper-mode cluster (live, with `--zookeeper`, through its brokers with `--source-bootstrap-server`, or a saved `--snapshot`) before a move to KRaft and Kafka 4; given both `--zookeeper` and `--source-bootstrap-server` it also compares what ZooKeeper holds with what the brokers serve (the CROSS-* ids). ")
	ew.printf("Every finding carries one of the ids below, a severity, the resource it is about (`topic:NAME`, `broker:ID`, `broker:<default>`, `file:PATH`, `acl:TYPE:PATTERN:NAME`, `principal:User:NAME`, `scram-user:User:NAME`, `delegation-token:ID`, `consumer-group:NAME`, `znode:PATH`), what is wrong, why it matters and the fix. ")
	ew.printf("Ids are stable: a check may be refined, but an id never changes meaning and a retired id is not reused.\n\n")
	ew.printf("Exit codes: 0 when no finding is at or above `--fail-on` (default `error`), 3 when one is, 1 when the check itself failed. ")
	ew.printf("`--target-version` (default %s) selects the version-dependent checks.\n\n", check.DefaultTargetVersion)
	ew.printf("The ids the readers, `migrate snapshot` and `migrate plan` report come from the same vocabulary (check reports the readers' findings under their own ids too) and are listed after check's ([other findings](#other-findings)). ")
	ew.printf("`migrate explain ID` prints any entry, and accepts an entry's former ids.\n\n")
	ew.printf("| Id | Severity | What it detects |\n| --- | --- | --- |\n")
	for _, r := range rules {
		ew.printf("| [%s](#%s) | %s | %s |\n", r.ID, anchor(r.ID), severityCell(r), mdCell(r.Title))
	}
	ew.printf("\n\\* the severity varies; see the entry.\n")
	catalogueSections(ew, rules)

	others := slices.DeleteFunc(catalogue.Findings(), func(f catalogue.Finding) bool { return f.From == catalogue.FromCheck })
	ew.printf("\n## Other findings\n\n")
	ew.printf("The readers (ZooKeeper, a Kafka cluster, a snapshot file, the source flags) report findings into the snapshot: `migrate snapshot` lists them, `migrate plan` carries them into the plan, and `migrate check` reports them under the same ids. ")
	ew.printf("`migrate plan` adds findings of its own, and blockers: a blocked change is not made, and the plan exits 2 listing it (`-o json`: `blockers[].id`). ")
	ew.printf("`migrate access diff` reports the ACCESS-* ids above and one of its own about its inputs. ")
	ew.printf("A finding check and plan both report (a topic pending deletion, a delegation token, ...) has one id, listed once. ")
	ew.printf("A retired id is kept as an alias (\"former id\") that `migrate explain` still accepts.\n\n")
	ew.printf("| Id | Reported by | Severity | What it reports |\n| --- | --- | --- | --- |\n")
	for _, r := range others {
		ew.printf("| [%s](#%s) | %s | %s | %s |\n", r.ID, anchor(r.ID), reporters(r), severityCell(r), mdCell(r.Title))
	}
	catalogueSections(ew, others)
	return ew.err
}

// fromText names who reports a finding, for docs/checks.md.
var fromText = map[string]string{
	catalogue.FromCheck: "check", catalogue.FromReader: "reader", catalogue.FromPlan: "plan", catalogue.FromBlocker: "plan (blocker)",
	catalogue.FromAccess: "access diff",
}

// reporters names everyone who reports r: "reader, check".
func reporters(r catalogue.Finding) string {
	var out []string
	for _, f := range r.ReportedBy() {
		out = append(out, fromText[f])
	}
	return strings.Join(out, ", ")
}

func severityCell(r catalogue.Finding) string {
	if r.From == catalogue.FromBlocker {
		return "blocks"
	}
	if r.SeverityNote != "" {
		return r.Severity + "*"
	}
	return r.Severity
}

// catalogueSections writes one section per category, one entry per id.
func catalogueSections(ew *errWriter, rules []catalogue.Finding) {
	cat := ""
	for _, r := range rules {
		if r.Category != cat {
			cat = r.Category
			ew.printf("\n## %s\n", cat)
		}
		ew.printf("\n### %s\n\n%s\n\n", r.ID, mdText(r.Title))
		sev := r.Severity
		if r.From == catalogue.FromBlocker {
			sev = "blocks the change"
		}
		if r.SeverityNote != "" {
			sev += " (" + r.SeverityNote + ")"
		}
		ew.printf("- **Severity:** %s\n", mdText(sev))
		if len(r.ReportedBy()) > 1 {
			ew.printf("- **Reported by:** %s\n", reporters(r))
		}
		ew.printf("- **Why it matters:** %s\n", mdText(r.Why))
		ew.printf("- **Fix:** %s\n", mdText(r.Fix))
		if r.Ref != "" {
			ew.printf("- **Reference:** %s\n", mdText(r.Ref))
		}
		if len(r.Aliases) > 0 {
			ew.printf("- **Former id:** %s\n", mdText(strings.Join(r.Aliases, ", ")))
		}
	}
}

// CatalogueText lists the whole finding vocabulary for a terminal: every
// id check, the readers and the plan report.
func CatalogueText(w io.Writer) error {
	ew := &errWriter{w: w}
	for _, r := range catalogue.Findings() {
		writeEntry(ew, r, false)
		ew.printf("\n")
	}
	return ew.err
}

// CatalogueJSON writes the whole finding vocabulary as a JSON array.
func CatalogueJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(catalogueEntries(catalogue.Findings()))
}

// catalogueEntry is a vocabulary entry as JSON shows it.
type catalogueEntry struct {
	catalogue.Finding
	ReportedBy []string `json:"reported_by"`
	Docs       string   `json:"docs"`
}

func catalogueEntries(fs []catalogue.Finding) []catalogueEntry {
	out := make([]catalogueEntry, len(fs))
	for i, f := range fs {
		out[i] = catalogueEntry{Finding: f, ReportedBy: f.ReportedBy(), Docs: catalogue.DocsURL(f.ID)}
	}
	return out
}

// writeEntry writes one vocabulary entry: id and severity, what it
// reports, who reports it, why, fix and, with full, reference, former ids
// and the docs link.
func writeEntry(ew *errWriter, r catalogue.Finding, full bool) {
	sev := r.Severity
	if r.From == catalogue.FromBlocker {
		sev = "blocks the change"
	}
	if r.SeverityNote != "" {
		sev += " (" + r.SeverityNote + ")"
	}
	ew.printf("%s  [%s]\n  %s\n", r.ID, sev, r.Title)
	if full {
		ew.printf("  reported by: %s\n", reporters(r))
	}
	ew.printf("  why: %s\n  fix: %s\n", r.Why, r.Fix)
	if !full {
		return
	}
	if r.Ref != "" {
		ew.printf("  reference: %s\n", r.Ref)
	}
	if len(r.Aliases) > 0 {
		ew.printf("  former id: %s\n", strings.Join(r.Aliases, ", "))
	}
	ew.printf("  docs: %s\n", catalogue.DocsURL(r.ID))
}

// ExplainIDText writes what `migrate explain ID` prints for the findings an
// id names: one in full, or, for a former id that covered several, a list
// of them (each explained by its own id).
func ExplainIDText(w io.Writer, id string, fs []catalogue.Finding) error {
	ew := &errWriter{w: w}
	if len(fs) == 1 {
		if !strings.EqualFold(fs[0].ID, id) {
			ew.printf("%s is a former id of %s.\n\n", id, fs[0].ID)
		}
		writeEntry(ew, fs[0], true)
		return ew.err
	}
	ew.printf("%s is a former id: the findings it covered are reported under these ids now (migrate explain ID):\n", id)
	for _, f := range fs {
		ew.printf("  %-34s %s\n", f.ID, f.Title)
	}
	return ew.err
}

// ExplainIDJSON writes the findings an id names as a JSON array.
func ExplainIDJSON(w io.Writer, fs []catalogue.Finding) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(catalogueEntries(fs))
}
