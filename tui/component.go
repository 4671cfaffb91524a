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
