package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// confirmMsg is sent by the confirmation screen: yes goes on, no goes back
// to the review.
type confirmMsg struct{ yes bool }

// confirmScreen shows exactly what was selected and asks to go on.
type confirmScreen struct {
	navigator
	c        *Common
	p        *plan.Plan        // the selection
	purpose  string            // "apply" or "save"
	excluded int               // selectable changes the user excluded
	blocked  int               // changes never selectable
	offset   int               // first change shown
	kinds    []string          // per-kind counts, computed once (the selection can hold 100,000 changes)
	labelW   map[plan.Kind]int // the widest label of each kind selected, in cells
	listH    int               // list height of the last frame
}

func newConfirm(c *Common, r *reviewScreen) *confirmScreen {
	s := &confirmScreen{c: c, p: r.selectedPlan(), purpose: r.purpose,
		excluded: r.selectable - r.selected, blocked: len(r.items) - r.selectable}
	s.kinds = kindCounts(c.Styles, s.p)
	s.labelW = map[plan.Kind]int{}
	for _, it := range r.items {
		if it.selected {
			s.labelW[it.ch.Kind] = max(s.labelW[it.ch.Kind], lenCells(displayName(it.ch)))
		}
	}
	return s
}

// kindCounts renders "kind +n ~n -n" for each kind of p, in plan.Kinds order.
func kindCounts(st Styles, p *plan.Plan) []string {
	byKind := map[plan.Kind]map[plan.Action]int{}
	var order []plan.Kind
	for i := range p.Changes {
		c := &p.Changes[i]
		if byKind[c.Kind] == nil {
			byKind[c.Kind] = map[plan.Action]int{}
			order = append(order, c.Kind)
		}
		byKind[c.Kind][c.Action]++
	}
	var kinds []string
	for _, k := range orderKinds(order) {
		var parts []string
		for _, a := range []plan.Action{plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete} {
			if m := byKind[k][a]; m > 0 {
				parts = append(parts, st.action(a).Render(fmt.Sprintf("%s%d", actionSymbol(a), m)))
			}
		}
		kinds = append(kinds, string(k)+" "+strings.Join(parts, " "))
	}
	return kinds
}

func (s *confirmScreen) SetSize(w, h int) { s.listH = 0 }

// header is the title, the counts per kind and what is left out.
func (s *confirmScreen) header() []string {
	st := s.c.Styles
	w := s.c.Width
	n := len(s.p.Changes)
	title := fmt.Sprintf("Apply these %s to %s?", english.N(n, "change"), termsafe.Line(endpoint(s.p.Target)))
	if s.purpose != "apply" {
		title = fmt.Sprintf("Keep this selection of %s?", english.N(n, "change"))
	}
	lines := []string{st.Title.Render(trunc(title, w))}
	lines = append(lines, limitLines(wrapTokens(s.kinds, st.Subtle.Render(" · "), w), 2)...)
	lines = append(lines, st.Subtle.Render(trunc(fmt.Sprintf("not in the selection: %d excluded by you · %d blocked or denied by policy", s.excluded, s.blocked), w)))
	return append(lines, st.Subtle.Render(strings.Repeat("─", w)))
}

// listHeight is the lines the list of changes has.
func (s *confirmScreen) listHeight() int {
	if s.listH == 0 {
		s.listH = max(s.c.Height-len(s.header())-2, 1)
	}
	return s.listH
}

// changeLines is one change as it will be sent: action, kind, its label
// whole (wrapped in its column) and its fields beside it.
func (s *confirmScreen) changeLines(c *plan.Change) []string {
	st := s.c.Styles
	w := s.c.Width - 1
	const kindW = 14
	lead := 2 + kindW + 1 // "~ " kind " "
	nameW := min(max(s.labelW[c.Kind], 16), max((w-lead)/2, 8))
	parts, keys := summaryParts(c)
	if len(parts) == 0 {
		nameW = w - lead // nothing beside it (an ACL): the label takes the row
	}
	sumW := max(w-lead-nameW-1, 8)
	names := wrapCells(displayName(c), nameW)
	sums := listParts(parts, keys, sumW, max(len(names), 2))
	as := st.action(c.Action)
	head := as.Render(actionSymbol(c.Action) + " " + pad(string(c.Kind), kindW))
	rows := columns(" ", []int{lead - 1, nameW}, []string{head}, paintAll(as, names), paintAll(st.Subtle, sums))
	for i := range rows {
		rows[i] = " " + rows[i]
	}
	return rows
}

// paintAll styles every line.
func paintAll(st lipgloss.Style, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = st.Render(l)
	}
	return out
}

func (s *confirmScreen) height(i int) int { return len(s.changeLines(&s.p.Changes[i])) }

func (s *confirmScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	km := s.c.KeyMap
	lh := s.listHeight()
	switch {
	case key.Matches(k, km.Yes):
		s.navigate(confirmMsg{yes: true})
		return nil
	case key.Matches(k, km.No):
		s.navigate(confirmMsg{yes: false})
		return nil
	case key.Matches(k, km.Quit):
		s.navigate(quitMsg{})
		return nil
	case key.Matches(k, km.Up):
		s.offset--
	case key.Matches(k, km.Down):
		s.offset++
	case key.Matches(k, km.PageUp):
		s.offset -= lh
	case key.Matches(k, km.PageDown):
		s.offset += lh
	case key.Matches(k, km.Top):
		s.offset = 0
	case key.Matches(k, km.Bottom):
		s.offset = len(s.p.Changes)
	}
	s.offset = max(min(s.offset, lastOffset(len(s.p.Changes), lh, s.height)), 0)
	return nil
}

func (s *confirmScreen) View() string {
	st := s.c.Styles
	w := s.c.Width
	n := len(s.p.Changes)
	lines := s.header()
	lh := s.listHeight()
	used, last := 0, s.offset
	for j := s.offset; j < n && used < lh; j++ {
		for _, l := range s.changeLines(&s.p.Changes[j]) {
			if used < lh {
				lines = append(lines, l)
				used++
			}
		}
		last = j
	}
	for ; used < lh; used++ {
		lines = append(lines, "")
	}
	pos := fmt.Sprintf("changes %d–%d of %d", min(s.offset+1, n), min(last+1, n), n)
	lines = append(lines, st.Subtle.Render(pos))
	lines = append(lines, s.c.helpView(s, false))
	return block(lines, w, s.c.Height)
}

// orderKinds sorts kinds in plan.Kinds order, unknown kinds last.
func orderKinds(ks []plan.Kind) []plan.Kind {
	var out []plan.Kind
	seen := map[plan.Kind]bool{}
	for _, k := range ks {
		seen[k] = true
	}
	for _, k := range plan.Kinds {
		if seen[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	for _, k := range ks {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out
}

func (s *confirmScreen) ShortHelp() []key.Binding {
	km := s.c.KeyMap
	yes := "apply"
	if s.purpose != "apply" {
		yes = "keep selection"
	}
	return []key.Binding{withHelp(km.Yes, yes), withHelp(km.No, "back to review"),
		shortKey(km.Down, "↑↓ pgup pgdn", "scroll"), shortKey(km.Quit, "q", "quit")}
}

func (s *confirmScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }
