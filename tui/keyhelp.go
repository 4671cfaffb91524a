package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyHelp returns every key of the TUI as plain text, one per line, grouped
// by screen, for a command's --help. It is built from the same key map the
// screens use, so it cannot drift from them.
func KeyHelp() string {
	km := defaultKeyMap()
	groups := []struct {
		title string
		keys  []key.Binding
	}{
		{"plan review", []key.Binding{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom, km.NextGroup, km.PrevGroup,
			km.Toggle, km.ToggleGroup, km.IncludeMatching, km.ExcludeMatching,
			km.Search, km.KindFilter, km.ActionFilter, km.VerdictFilter, km.ClearFilter,
			km.Detail, km.Help, withHelp(km.Confirm, "go to the confirmation"), withHelp(km.Quit, "quit without saving or applying")}},
		{"confirmation", []key.Binding{withHelp(km.Yes, "apply (plan --interactive: keep the selection)"),
			withHelp(km.No, "back to the review"), withHelp(km.Up, "scroll"), withHelp(km.Quit, "quit")}},
		{"apply", []key.Binding{withHelp(km.Interrupt, "ask to stop after the batch in flight"),
			withHelp(km.Yes, "(in the question) stop"), withHelp(km.No, "(in the question) keep going"),
			withHelp(km.Up, "(end screen) scroll the errors"), withHelp(km.Confirm, "(end screen) exit")}},
		{"history", []key.Binding{km.Up, km.Down, withHelp(km.Open, "open a run"), km.SwitchPane,
			withHelp(km.Back, "back to the runs"), km.Quit}},
		{"sync", []key.Binding{withHelp(km.Up, "scroll to newer rounds"), withHelp(km.Down, "scroll to older rounds"),
			withHelp(km.Top, "back to the newest round"), withHelp(km.Freeze, "freeze: stop writing, report source changes (asks first)"),
			withHelp(km.Yes, "(in the question) freeze"), withHelp(km.No, "(in the question) keep syncing"),
			withHelp(km.Quit, "stop sync")}},
		{"loading", []key.Binding{withHelp(km.Interrupt, "cancel")}},
	}
	var b strings.Builder
	b.WriteString("TUI keys:\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "  %s\n", g.title)
		for _, k := range g.keys {
			h := k.Help()
			fmt.Fprintf(&b, "    %-12s %s\n", h.Key, h.Desc)
		}
	}
	return b.String()
}
