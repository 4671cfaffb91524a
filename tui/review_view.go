package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var _ tea.Msg = reviewDoneMsg{}

// View renders the review screen: header, list (only the rows in view),
// status line, detail pane and help bar.
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
	if !r.detailFull {
		for i := 0; i < listH; i++ {
			p := r.offset + i
			if p >= len(r.vis) {
				if len(r.vis) == 0 && i == 0 {
					lines = append(lines, r.c.Styles.Subtle.Render("  no change matches the filter (esc clears it)"))
					continue
				}
				lines = append(lines, "")
				continue
			}
			lines = append(lines, r.renderRow(&r.rows[r.vis[p]], p == r.cursor, w))
		}
	}
	if detailH > 0 {
		title := " detail "
		if r.detailFull {
			title = " detail (d or esc: back to the list) "
		}
		lines = append(lines, r.c.Styles.Subtle.Render(rule(title, w)))
		d := r.detailLines()
		if len(d) > detailH {
			more := len(d) - detailH + 1
			d = append(d[:detailH-1:detailH-1], r.c.Styles.Subtle.Render(fmt.Sprintf("… %d more lines (d: full detail)", more)))
			if r.detailFull {
				d[len(d)-1] = r.c.Styles.Subtle.Render(fmt.Sprintf("… %d more lines", more))
			}
		}
		for i := 0; i < detailH; i++ {
			if i < len(d) {
				lines = append(lines, trunc(d[i], w))
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

// renderRow renders one list row to exactly w cells.
func (r *reviewScreen) renderRow(rw *row, cur bool, w int) string {
	s := r.c.Styles
	var plain, styled string
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
		plain = text + stripAnsi(r.actionCounts(g.actions))
		styled = s.Group.Render(text) + r.actionCounts(g.actions)
	case rowSection:
		switch rw.g {
		case -1:
			plain = fmt.Sprintf("Blockers (%d): wanted changes the tool will not or cannot make", len(r.p.Blockers))
		case -2:
			plain = fmt.Sprintf("Findings (%d)", len(r.p.Findings))
		default:
			plain = fmt.Sprintf("Policy notes (%d)", len(r.p.PolicyNotes))
		}
		styled = s.Group.Render(plain)
	case rowChange:
		it := &r.items[rw.i]
		c := it.ch
		nameW := min(max((w-10)*2/5, 12), 40)
		sym := actionSymbol(c.Action)
		name := fit(displayName(c), nameW)
		sum := summary(c)
		if !it.selectable {
			sum = it.reason
		}
		box := r.checkbox(it)
		plain = fmt.Sprintf("  %s %s %s %s", stripAnsi(box), sym, name, sum)
		st := s.action(c.Action)
		sumStyle := s.Subtle
		if !it.selectable {
			sumStyle = s.Blocked
		} else if !it.selected {
			st = s.Subtle
		}
		styled = "  " + box + " " + st.Render(sym+" "+name) + " " + sumStyle.Render(sum)
	case rowBlocker:
		b := &r.p.Blockers[rw.i]
		plain = fmt.Sprintf("  ✗ %s %s: %s", b.Kind, b.Resource, b.Reason)
		styled = s.Blocked.Render(plain)
	case rowNote:
		plain = "  [policy] " + r.p.PolicyNotes[rw.i]
		styled = s.Subtle.Render(plain)
	case rowFinding:
		f := &r.p.Findings[rw.i]
		plain = fmt.Sprintf("  %s %s: %s", severityMark(f.Severity), f.Resource, f.Message)
		st := s.Subtle
		switch f.Severity {
		case "error":
			st = s.Error
		case "warning":
			st = s.Warn
		}
		styled = st.Render(plain)
	}
	if cur {
		return s.Cursor.Render(fit("›"+plain, w))
	}
	return trunc(" "+styled, w)
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

// displayName is the name of a change's resource, as plan labels it.
func displayName(c *plan.Change) string { return plan.Label(c) }

// summary is a one-line description of what a change does: its fields,
// "key=value" set, "key before→after" altered, "-key" removed.
func summary(c *plan.Change) string {
	fields, err := plan.Fields(c)
	if err != nil {
		return err.Error()
	}
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		switch f.Mark() {
		case "+", "=":
			parts = append(parts, f.Key+"="+render.FieldValue(f, f.After))
		case "-":
			parts = append(parts, "-"+f.Key)
		default:
			parts = append(parts, f.Key+" "+render.FieldValue(f, f.Before)+"→"+render.FieldValue(f, f.After))
		}
	}
	return strings.Join(parts, ", ")
}
