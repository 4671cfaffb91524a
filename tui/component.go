package tui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// component is the contract of every screen: it updates in place, renders
// to a string of exactly its size, and lists its keys for the help bar.
type component interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	help.KeyMap
	takeNav() tea.Msg
}

// navigator is embedded by every screen. A screen asks the root to move
// (to the confirmation, back, out) by setting a message with navigate; the
// root handles it within the same update, so keys typed ahead land on the
// next screen.
type navigator struct{ nav tea.Msg }

func (n *navigator) navigate(msg tea.Msg) { n.nav = msg }

func (n *navigator) takeNav() tea.Msg {
	m := n.nav
	n.nav = nil
	return m
}

// helpView renders the help bar for km: one line, or every key when all.
func (c *Common) helpView(km help.KeyMap, all bool) string {
	h := help.New()
	s := c.Styles
	h.Styles = help.Styles{Ellipsis: s.HelpDesc, ShortKey: s.HelpKey, ShortDesc: s.HelpDesc, ShortSeparator: s.HelpDesc,
		FullKey: s.HelpKey, FullDesc: s.HelpDesc, FullSeparator: s.HelpDesc}
	h.ShortSeparator = " · "
	h.FullSeparator = "   "
	h.SetWidth(c.Width)
	h.ShowAll = all
	return h.View(km)
}
