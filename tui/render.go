package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// actionSymbol is the one-character mark of an action; it carries the
// meaning when there is no colour.
func actionSymbol(a plan.Action) string {
	switch a {
	case plan.ActionCreate:
		return "+"
	case plan.ActionUpdate:
		return "~"
	case plan.ActionDelete:
		return "-"
	}
	return "="
}

func (s Styles) action(a plan.Action) lipgloss.Style {
	switch a {
	case plan.ActionCreate:
		return s.Create
	case plan.ActionUpdate:
		return s.Update
	case plan.ActionDelete:
		return s.Delete
	}
	return s.NoOp
}

// fit truncates plain text to w cells (with an ellipsis) and pads it to
// exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// trunc truncates text (which may be styled) to w cells.
func trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// block makes lines into exactly h lines, each truncated to w cells.
func block(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := 0; i < h && i < len(lines); i++ {
		out[i] = trunc(lines[i], w)
	}
	return strings.Join(out, "\n")
}

// wrapTokens joins tokens with sep into lines no wider than w.
func wrapTokens(tokens []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, t := range tokens {
		switch {
		case cur == "":
			cur = t
		case ansi.StringWidth(cur)+ansi.StringWidth(sep)+ansi.StringWidth(t) <= w:
			cur += sep + t
		default:
			lines = append(lines, cur)
			cur = t
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// bar draws a w-cell progress bar for done out of total.
func (s Styles) bar(done, total, w int) string {
	if w < 1 {
		return ""
	}
	full := 0
	if total > 0 {
		full = done * w / total
	}
	if full > w {
		full = w
	}
	return s.BarFull.Render(strings.Repeat("█", full)) + s.BarEmpty.Render(strings.Repeat("░", w-full))
}

func percent(done, total int) string {
	if total == 0 {
		return "100%"
	}
	return fmt.Sprintf("%d%%", done*100/total)
}

// helpLine renders key bindings as one line no wider than w.
func (s Styles) helpLine(w int, bs ...[2]string) string {
	tokens := make([]string, 0, len(bs))
	for _, b := range bs {
		tokens = append(tokens, s.HelpKey.Render(b[0])+" "+s.HelpDesc.Render(b[1]))
	}
	lines := wrapTokens(tokens, s.HelpDesc.Render(" · "), w)
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// endpoint describes a plan endpoint in a few words.
func endpoint(e plan.Endpoint) string {
	s := e.Kind
	if e.Address != "" {
		s += " " + e.Address
	}
	if s == "" {
		s = "?"
	}
	return termsafe.Line(s)
}

func lenCells(s string) int { return ansi.StringWidth(s) }

func stripAnsi(s string) string { return ansi.Strip(s) }

// rule is a horizontal line of exactly w cells with a title.
func rule(title string, w int) string {
	s := "──" + title
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat("─", n)
	}
	return ansi.Truncate(s, w, "")
}

// wrapLines word-wraps each line to w cells (hard-wrapping words longer
// than w), keeping styles.
func wrapLines(lines []string, w int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, w, " "), "\n")...)
	}
	return out
}
