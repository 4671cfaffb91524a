package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// confirmMsg is sent by the confirmation screen: yes goes on, no goes back
// to the review.
type confirmMsg struct{ yes bool }

// confirmScreen shows exactly what was selected and asks to go on.
type confirmScreen struct {
	navigator
	c        *Common
	p        *plan.Plan // the selection
	purpose  string     // "apply" or "save"
	excluded int        // selectable changes the user excluded
	blocked  int        // changes never selectable
	offset   int
	kinds    []string // per-kind counts, computed once (the selection can hold 100,000 changes)
}

func newConfirm(c *Common, r *reviewScreen) *confirmScreen {
	s := &confirmScreen{c: c, p: r.selectedPlan(), purpose: r.purpose,
		excluded: r.selectable - r.selected, blocked: len(r.items) - r.selectable}
	s.kinds = kindCounts(c.Styles, s.p)
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

func (s *confirmScreen) SetSize(w, h int) {}

func (s *confirmScreen) listHeight() int { return max(s.c.Height-7, 1) }

func (s *confirmScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	km := s.c.KeyMap
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
		s.offset -= s.listHeight()
	case key.Matches(k, km.PageDown):
		s.offset += s.listHeight()
	}
	s.offset = max(min(s.offset, len(s.p.Changes)-s.listHeight()), 0)
	return nil
}

func (s *confirmScreen) View() string {
	st := s.c.Styles
	w := s.c.Width
	n := len(s.p.Changes)
	title := fmt.Sprintf("Apply these %d changes to %s?", n, endpoint(s.p.Target))
	if s.purpose != "apply" {
		title = fmt.Sprintf("Keep this selection of %d changes?", n)
	}
	lines := []string{st.Title.Render(trunc(title, w))}
	kl := limitLines(wrapTokens(s.kinds, st.Subtle.Render(" · "), w), 2)
	lines = append(lines, kl...)
	lines = append(lines, st.Subtle.Render(trunc(fmt.Sprintf("not in the selection: %d excluded by you · %d blocked or denied by policy", s.excluded, s.blocked), w)))
	lines = append(lines, st.Subtle.Render(strings.Repeat("─", w)))
	lh := s.c.Height - len(lines) - 2
	nameW := min(max((w-20)*2/5, 12), 40)
	for i := 0; i < lh; i++ {
		j := s.offset + i
		if j >= n {
			lines = append(lines, "")
			continue
		}
		c := &s.p.Changes[j]
		lines = append(lines, trunc(" "+st.action(c.Action).Render(actionSymbol(c.Action)+" "+fit(string(c.Kind), 14)+" "+fit(displayName(c), nameW))+" "+st.Subtle.Render(summary(c)), w))
	}
	pos := fmt.Sprintf("%d–%d of %d", min(s.offset+1, n), min(s.offset+lh, n), n)
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
	return []key.Binding{withHelp(km.Yes, yes), withHelp(km.No, "back to review"), km.Up, km.Down, km.Quit}
}

func (s *confirmScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }
