package tui

import (
	"image/color"
	"os"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// Common is what every screen shares: the terminal size, the styles and the
// key map.
type Common struct {
	Styles  Styles
	KeyMap  KeyMap
	Width   int
	Height  int
	NoColor bool
}

func newCommon(noColor bool, w, h int) *Common {
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	return &Common{Styles: newStyles(noColor), KeyMap: defaultKeyMap(), Width: w, Height: h, NoColor: noColor}
}

// noColorEnv reports whether NO_COLOR asks for no colour (any non-empty
// value, as https://no-color.org says).
func noColorEnv() bool { return os.Getenv("NO_COLOR") != "" }

// Styles are the lipgloss styles of every screen. With NoColor they carry
// no colour, only attributes; every meaning shown by colour is also shown by
// a symbol or a word.
type Styles struct {
	Title    lipgloss.Style
	Subtle   lipgloss.Style
	Bold     lipgloss.Style
	Create   lipgloss.Style
	Update   lipgloss.Style
	Delete   lipgloss.Style
	NoOp     lipgloss.Style
	Blocked  lipgloss.Style
	Cursor   lipgloss.Style
	Group    lipgloss.Style
	Error    lipgloss.Style
	OK       lipgloss.Style
	Warn     lipgloss.Style
	Dialog   lipgloss.Style
	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	BarFull  lipgloss.Style
	BarEmpty lipgloss.Style
}

func newStyles(noColor bool) Styles {
	fg := func(c string) lipgloss.Style {
		if noColor {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(lipgloss.Color(c))
	}
	var dialogBorder color.Color = lipgloss.Color("3")
	if noColor {
		dialogBorder = lipgloss.NoColor{}
	}
	return Styles{
		Title:    fg("6").Bold(true),
		Subtle:   fg("8"),
		Bold:     lipgloss.NewStyle().Bold(true),
		Create:   fg("2"),
		Update:   fg("3"),
		Delete:   fg("1"),
		NoOp:     fg("8"),
		Blocked:  fg("5"),
		Cursor:   cursorStyle(noColor),
		Group:    fg("4").Bold(true),
		Error:    fg("1"),
		OK:       fg("2"),
		Warn:     fg("3"),
		Dialog:   lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(dialogBorder).Padding(0, 1),
		HelpKey:  fg("7").Bold(true),
		HelpDesc: fg("8"),
		BarFull:  fg("2"),
		BarEmpty: fg("8"),
	}
}

// KeyMap is every key binding of the TUI. Each is shown in the help bar of
// the screens that use it and listed in docs/tui.md.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	NextGroup, PrevGroup                    key.Binding
	Toggle, ToggleGroup                     key.Binding
	IncludeMatching, ExcludeMatching        key.Binding
	Search, KindFilter, ActionFilter        key.Binding
	VerdictFilter, ClearFilter              key.Binding
	Detail, Help                            key.Binding
	Confirm, Back, Yes, No, Quit, Interrupt key.Binding
	SwitchPane, Open                        key.Binding
	Freeze                                  key.Binding
}

func defaultKeyMap() KeyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return KeyMap{
		Up:              b([]string{"up", "k"}, "↑/k", "up"),
		Down:            b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:          b([]string{"pgup", "ctrl+b"}, "pgup/ctrl+b", "page up"),
		PageDown:        b([]string{"pgdown", "ctrl+f"}, "pgdn/ctrl+f", "page down"),
		Top:             b([]string{"home", "g"}, "home/g", "top"),
		Bottom:          b([]string{"end", "G"}, "end/G", "bottom"),
		NextGroup:       b([]string{"tab"}, "tab", "next group"),
		PrevGroup:       b([]string{"shift+tab"}, "shift+tab", "previous group"),
		Toggle:          b([]string{"space"}, "space", "include/exclude"),
		ToggleGroup:     b([]string{"x"}, "x", "include/exclude group"),
		IncludeMatching: b([]string{"+"}, "+", "include all matching"),
		ExcludeMatching: b([]string{"-"}, "-", "exclude all matching"),
		Search:          b([]string{"/"}, "/", "search"),
		KindFilter:      b([]string{"K"}, "K", "kind filter"),
		ActionFilter:    b([]string{"A"}, "A", "action filter"),
		VerdictFilter:   b([]string{"V"}, "V", "verdict filter"),
		ClearFilter:     b([]string{"esc"}, "esc", "clear filters"),
		Detail:          b([]string{"d"}, "d", "full detail"),
		Help:            b([]string{"?"}, "?", "all keys"),
		Confirm:         b([]string{"enter"}, "enter", "continue"),
		Back:            b([]string{"esc"}, "esc", "back"),
		Yes:             b([]string{"y", "enter"}, "y/enter", "yes"),
		No:              b([]string{"n", "esc"}, "n/esc", "no"),
		Quit:            b([]string{"q", "ctrl+c"}, "q/ctrl+c", "quit"),
		Interrupt:       b([]string{"ctrl+c"}, "ctrl+c", "stop after batch"),
		SwitchPane:      b([]string{"tab"}, "tab", "changes/RPCs"),
		Open:            b([]string{"enter"}, "enter", "open"),
		Freeze:          b([]string{"f"}, "f", "freeze"),
	}
}

// cursorStyle marks the line under the cursor: a background colour, or
// reverse video without colour.
func cursorStyle(noColor bool) lipgloss.Style {
	if noColor {
		return lipgloss.NewStyle().Bold(true).Reverse(true)
	}
	return lipgloss.NewStyle().Bold(true).Background(lipgloss.Color("237")).Foreground(lipgloss.Color("15"))
}

// keyPage lays out every key of groups as "key  what it does" entries in
// as many columns as fit w cells, for `?`.
func (c *Common) keyPage(groups [][]key.Binding, w int) []string {
	s := c.Styles
	var entries []key.Help
	for _, g := range groups {
		for _, b := range g {
			if h := b.Help(); h.Key != "" {
				entries = append(entries, h)
			}
		}
	}
	kw, dw := 0, 0
	for _, e := range entries {
		kw, dw = max(kw, lenCells(e.Key)), max(dw, lenCells(e.Desc))
	}
	colW := kw + 1 + dw + 3
	cols := max(min(w/colW, len(entries)), 1)
	rows := (len(entries) + cols - 1) / cols
	lines := make([]string, rows)
	for i, e := range entries {
		r := i % rows
		cell := s.HelpKey.Render(pad(e.Key, kw)) + " " + s.HelpDesc.Render(e.Desc)
		if i/rows < cols-1 {
			cell = pad(cell, colW)
		}
		lines[r] += cell
	}
	return lines
}
