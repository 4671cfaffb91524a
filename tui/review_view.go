package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

var _ tea.Msg = reviewDoneMsg{}

// View renders the review screen: header, list (only the rows in view),
// status line, detail pane and help bar; `?` puts every key in the list's
// place.
func (r *reviewScreen) View() string {
	header, footer, listH, detailH := r.layout()
	if !r.detailFull && listH != r.listH {
		r.listH = listH
		r.clampOffset()
	}
	w := r.c.Width
	lines := make([]string, 0, r.c.Height)
	lines = append(lines, header...)
	lines = append(lines, r.statusLine())
	if r.showHelp {
		room := r.c.Height - len(lines) - len(footer)
		help := r.c.keyPage(r.FullHelp(), w)
		if len(help) > room {
			help = help[:room]
		}
		lines = append(lines, help...)
		for len(lines) < r.c.Height-len(footer) {
			lines = append(lines, "")
		}
		lines = append(lines, footer...)
		return block(lines, w, r.c.Height)
	}
	if !r.detailFull {
		n := 0
		for p := r.offset; p < len(r.vis) && n < listH; p++ {
			for _, l := range r.rowLines(&r.rows[r.vis[p]], p == r.cursor, w) {
				if n < listH {
					lines = append(lines, l)
					n++
				}
			}
		}
		if len(r.vis) == 0 {
			lines = append(lines, r.c.Styles.Subtle.Render("  no change matches the filter (esc clears it)"))
			n++
		}
		for ; n < listH; n++ {
			lines = append(lines, "")
		}
	}
	if detailH > 0 {
		title := " detail "
		if r.detailFull {
			title = " detail (d or esc: back to the list) "
		}
		lines = append(lines, r.c.Styles.Subtle.Render(rule(title, w)))
		d := wrapLines(r.detailLines(), w)
		if r.detailFull {
			// The full detail scrolls: ↑/↓ move through it.
			r.detailOff = min(r.detailOff, max(len(d)-detailH, 0))
			d = d[r.detailOff:]
		}
		if len(d) > detailH {
			more := len(d) - detailH + 1
			hint := " (d: full detail)"
			if r.detailFull {
				hint = " (↓ scrolls)"
			}
			d = append(d[:detailH-1:detailH-1], r.c.Styles.Subtle.Render(fmt.Sprintf("%s below%s", english.N(more, "more line"), hint)))
		}
		for i := 0; i < detailH; i++ {
			if i < len(d) {
				lines = append(lines, d[i])
			} else {
				lines = append(lines, "")
			}
		}
	}
	lines = append(lines, footer...)
	return block(lines, w, r.c.Height)
}

func (r *reviewScreen) statusLine() string {
	s := r.c.Styles
	w := r.c.Width
	pos := fmt.Sprintf("%d/%d", min(r.cursor+1, len(r.vis)), len(r.vis))
	var left string
	switch {
	case r.editing:
		left = s.Bold.Render("/"+r.query) + "█"
	case r.status != "":
		left = s.Warn.Render(r.status)
	case r.filtering():
		var f []string
		if r.query != "" {
			f = append(f, "/"+r.query)
		}
		if r.kindF >= 0 {
			f = append(f, "kind="+r.groups[r.kindF].title)
		}
		if r.actionF > 0 {
			f = append(f, "action="+string(filterActions[r.actionF]))
		}
		if r.verdictF > 0 {
			f = append(f, "verdict="+verdictNames[r.verdictF])
		}
		left = s.Bold.Render("filter: "+strings.Join(f, " ")) + s.Subtle.Render("  (+/- all matching, esc clears)")
	default:
		left = s.Subtle.Render("space include/exclude · x whole group · / search · ? keys")
	}
	left = trunc(left, max(w-len(pos)-1, 0))
	gap := w - len(pos) - lenCells(left)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + s.Subtle.Render(pos)
}

func (r *reviewScreen) checkbox(it *item) string {
	s := r.c.Styles
	switch {
	case !it.selectable:
		return s.Blocked.Render("[!]")
	case it.selected:
		return "[x]"
	}
	return "[ ]"
}

// rowLines renders one list row to lines of at most w cells. What names
// the row (a change's label, a finding's id and resource) is always whole,
// wrapped onto more lines when it does not fit; its description is
// condensed to the lines the name takes (what is left out is counted, and
// d shows it all).
func (r *reviewScreen) rowLines(rw *row, cur bool, w int) []string {
	s := r.c.Styles
	w-- // the first column is the cursor's
	var plain []string
	style := s.Subtle
	switch rw.t {
	case rowGroup:
		g := &r.groups[rw.g]
		box := "[~]"
		switch {
		case g.selectable == 0:
			box = "[!]"
		case g.selected == g.selectable:
			box = "[x]"
		case g.selected == 0:
			box = "[ ]"
		}
		text := fmt.Sprintf("%s %s · %d selected of %d · ", box, g.title, g.selected, len(g.items))
		counts := r.groupCounts(g)
		if lenCells(text)+lenCells(counts) <= w && !cur {
			return []string{" " + s.Group.Render(text) + counts}
		}
		plain, style = wrapCells(text+stripAnsi(counts), w), s.Group
	case rowSection:
		var text string
		switch rw.g {
		case secBlockers:
			text = fmt.Sprintf("Blockers (%d): wanted changes the tool will not or cannot make", len(r.p.Blockers))
		case secFindings:
			text = fmt.Sprintf("Findings (%d)", len(r.p.Findings))
		case secPolicy:
			text = fmt.Sprintf("Policy notes (%d)", len(r.p.PolicyNotes))
		default:
			text = fmt.Sprintf("Notes about this run (%d)", len(r.notes))
		}
		plain, style = wrapCells(text, w), s.Group
	case rowChange:
		return r.changeLines(&r.items[rw.i], cur, w)
	case rowBlocker:
		b := &r.p.Blockers[rw.i]
		id := string(b.Kind) + " " + termsafe.Name(b.Resource)
		plain = capLines(hang("  ✗ ", id+": "+termsafe.Line(b.Reason), w), len(hang("  ✗ ", id, w))+1, w, moreDetail)
		style = s.Blocked
	case rowNote:
		text := r.noteText(rw)
		prefix := "  "
		if rw.g == secPolicy {
			prefix = "  [policy] "
		}
		plain = capLines(hang(prefix, text, w), 3, w, moreDetail)
	case rowFinding:
		f := &r.p.Findings[rw.i]
		prefix := "  " + severityMark(f.Severity) + " "
		id := f.ID + " " + termsafe.Name(f.Resource)
		plain = capLines(hang(prefix, id+": "+termsafe.Line(f.Message), w), len(hang(prefix, id, w))+1, w, moreDetail)
		switch f.Severity {
		case "error":
			style = s.Error
		case "warning":
			style = s.Warn
		}
	}
	return r.paint(plain, cur, style, w)
}

// moreDetail ends a description condensed in a list row.
const moreDetail = "(d: more)"

// paint styles a row's plain lines, marking the cursor's.
func (r *reviewScreen) paint(plain []string, cur bool, style lipgloss.Style, w int) []string {
	out := make([]string, len(plain))
	for i, l := range plain {
		mark := " "
		if cur && i == 0 {
			mark = "›"
		}
		if cur {
			out[i] = r.c.Styles.Cursor.Render(fit(mark+l, w+1))
		} else {
			out[i] = mark + style.Render(l)
		}
	}
	return out
}

// noteText is the text of a note row.
func (r *reviewScreen) noteText(rw *row) string {
	if rw.g == secPolicy {
		return termsafe.Line(r.p.PolicyNotes[rw.i])
	}
	return termsafe.Line(r.notes[rw.i])
}

// changeLines is a change's row: checkbox, action, its label whole in a
// column as wide as its group's widest label (up to half the width), and
// its fields or the reason it cannot be selected beside it.
func (r *reviewScreen) changeLines(it *item, cur bool, w int) []string {
	s := r.c.Styles
	c := it.ch
	const lead = 8 // "  [x] + "
	nameW := min(max(r.groups[it.group].labelW, 16), max((w-lead)/2, 8))
	parts, keys := summaryParts(c)
	if it.selectable && len(parts) == 0 {
		nameW = w - lead // nothing beside it (an ACL): the label takes the row
	}
	sumW := max(w-lead-nameW-1, 8)
	names := wrapCells(displayName(c), nameW)
	var sums []string
	if !it.selectable {
		sums = condense(termsafe.Line(it.reason), sumW, max(len(names), 2), moreDetail)
	} else {
		sums = listParts(parts, keys, sumW, len(names))
	}
	box := r.checkbox(it)
	sym := actionSymbol(c.Action)
	st := s.action(c.Action)
	sumStyle := s.Subtle
	if !it.selectable {
		sumStyle = s.Blocked
	} else if !it.selected {
		st = s.Subtle
	}
	n := max(len(names), len(sums))
	out := make([]string, n)
	for i := 0; i < n; i++ {
		name, sum := "", ""
		if i < len(names) {
			name = names[i]
		}
		if i < len(sums) {
			sum = sums[i]
		}
		head := "        "
		if i == 0 {
			head = "  " + stripAnsi(box) + " " + sym + " "
		}
		if cur {
			mark := " "
			if i == 0 {
				mark = "›"
			}
			out[i] = s.Cursor.Render(fit(strings.TrimRight(mark+head+pad(name, nameW)+" "+sum, " "), w+1))
			continue
		}
		line := " " + head
		if i == 0 {
			line = "   " + box + " " + st.Render(sym) + " "
		}
		out[i] = strings.TrimRight(line+st.Render(pad(name, nameW))+" "+sumStyle.Render(sum), " ")
	}
	return out
}

func severityMark(sev string) string {
	switch sev {
	case "error":
		return "[error]"
	case "warning":
		return "[warn]"
	}
	return "[info]"
}

// displayName is the name of a change's resource, as plan labels it, with
// any control character escaped.
func displayName(c *plan.Change) string { return termsafe.Name(plan.Label(c)) }

// summaryParts describes what a change does, field by field: "key=value"
// set, "key before→after" altered, "-key" removed; keys are the fields'
// keys alone (for a row too narrow for the values).
func summaryParts(c *plan.Change) (parts, keys []string) {
	fields, err := plan.Fields(c)
	if err != nil {
		return []string{termsafe.Line(err.Error())}, nil
	}
	parts = make([]string, 0, len(fields))
	keys = make([]string, 0, len(fields))
	for _, f := range fields {
		k := termsafe.Name(f.Key)
		switch f.Mark() {
		case "+", "=":
			parts = append(parts, k+"="+fieldValue(f, f.After))
			keys = append(keys, k)
		case "-":
			parts = append(parts, "-"+k)
			keys = append(keys, "-"+k)
		default:
			parts = append(parts, k+" "+fieldValue(f, f.Before)+"→"+fieldValue(f, f.After))
			keys = append(keys, "~"+k)
		}
	}
	return parts, keys
}

// fieldValue is render.FieldValue for one line of the TUI.
func fieldValue(f plan.Field, v *string) string { return termsafe.Line(render.FieldValue(f, v)) }
