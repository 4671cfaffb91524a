package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// runsLoadedMsg carries the list of past runs read from the HistorySource.
type runsLoadedMsg struct {
	runs []RunRow
	err  error
}

// runLoadedMsg carries one run's detail.
type runLoadedMsg struct {
	detail RunDetail
	err    error
}

// historyScreen lists past runs and opens one to its changes and RPCs.
type historyScreen struct {
	navigator
	c   *Common
	ctx context.Context // for the HistorySource calls, run in tea.Cmds
	src HistorySource

	runs    []RunRow
	loaded  bool
	err     error
	cursor  int
	offset  int
	detail  *RunDetail
	loading bool
	pane    int // 0 changes, 1 RPCs
	dOffset int
}

func newHistory(c *Common, ctx context.Context, src HistorySource) *historyScreen {
	return &historyScreen{c: c, ctx: ctx, src: src}
}

func (h *historyScreen) init() tea.Cmd {
	return func() tea.Msg {
		runs, err := h.src.Runs(h.ctx)
		return runsLoadedMsg{runs: runs, err: err}
	}
}

func (h *historyScreen) SetSize(w, ht int) {}

func (h *historyScreen) listHeight() int { return max(h.c.Height-4, 1) }

func (h *historyScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case runsLoadedMsg:
		h.runs, h.err, h.loaded = msg.runs, msg.err, true
		return nil
	case runLoadedMsg:
		h.loading = false
		if msg.err != nil {
			h.err = msg.err
			return nil
		}
		d := msg.detail
		h.detail, h.pane, h.dOffset, h.err = &d, 0, 0, nil
		return nil
	case tea.KeyPressMsg:
		if h.detail != nil {
			return h.updateDetail(msg)
		}
		return h.updateList(msg)
	}
	return nil
}

func (h *historyScreen) updateList(k tea.KeyPressMsg) tea.Cmd {
	km := h.c.KeyMap
	switch {
	case key.Matches(k, km.Quit), key.Matches(k, km.Back):
		h.navigate(quitMsg{})
		return nil
	case key.Matches(k, km.Up):
		h.cursor--
	case key.Matches(k, km.Down):
		h.cursor++
	case key.Matches(k, km.PageUp):
		h.cursor -= h.listHeight()
	case key.Matches(k, km.PageDown):
		h.cursor += h.listHeight()
	case key.Matches(k, km.Top):
		h.cursor = 0
	case key.Matches(k, km.Bottom):
		h.cursor = len(h.runs) - 1
	case key.Matches(k, km.Open):
		if h.cursor < len(h.runs) && !h.loading {
			id := h.runs[h.cursor].ID
			h.loading = true
			return func() tea.Msg {
				d, err := h.src.Run(h.ctx, id)
				if err != nil {
					err = fmt.Errorf("run %d: %w", id, err)
				}
				return runLoadedMsg{detail: d, err: err}
			}
		}
	}
	h.cursor = max(min(h.cursor, len(h.runs)-1), 0)
	lh := h.listHeight()
	if h.cursor < h.offset {
		h.offset = h.cursor
	}
	if h.cursor >= h.offset+lh {
		h.offset = h.cursor - lh + 1
	}
	return nil
}

func (h *historyScreen) detailRows() int {
	if h.detail == nil {
		return 0
	}
	if h.pane == 0 {
		return len(h.detail.Changes)
	}
	return len(h.detail.RPCs)
}

func (h *historyScreen) updateDetail(k tea.KeyPressMsg) tea.Cmd {
	km := h.c.KeyMap
	lh := h.c.Height - 6
	switch {
	case key.Matches(k, km.Back):
		h.detail = nil
	case key.Matches(k, km.Quit):
		h.navigate(quitMsg{})
		return nil
	case key.Matches(k, km.SwitchPane):
		h.pane = 1 - h.pane
		h.dOffset = 0
	case key.Matches(k, km.Up):
		h.dOffset--
	case key.Matches(k, km.Down):
		h.dOffset++
	case key.Matches(k, km.PageUp):
		h.dOffset -= lh
	case key.Matches(k, km.PageDown):
		h.dOffset += lh
	}
	h.dOffset = max(min(h.dOffset, h.detailRows()-lh), 0)
	return nil
}

func (h *historyScreen) View() string {
	if h.detail != nil {
		return h.viewDetail()
	}
	st := h.c.Styles
	w := h.c.Width
	lines := []string{st.Title.Render(fmt.Sprintf("Audit history · %d runs", len(h.runs)))}
	switch {
	case h.err != nil:
		lines = append(lines, st.Error.Render("error: "+h.err.Error()))
	case !h.loaded:
		lines = append(lines, st.Subtle.Render("reading the audit database…"))
	case len(h.runs) == 0:
		lines = append(lines, st.Subtle.Render("no runs recorded yet"))
	default:
		lines = append(lines, st.Bold.Render(trunc(fmt.Sprintf("  %5s  %-20s %-8s %-9s %4s %7s  %s", "id", "started", "command", "outcome", "exit", "changes", "target"), w)))
	}
	lh := h.listHeight()
	for i := 0; i < lh; i++ {
		j := h.offset + i
		if j >= len(h.runs) || h.err != nil {
			lines = append(lines, "")
			continue
		}
		r := h.runs[j]
		text := fmt.Sprintf("%5d  %-20s %-8s %-9s %4d %7d  %s", r.ID, r.Started, r.Command, r.Outcome, r.ExitCode, r.Changes, r.Target)
		if j == h.cursor {
			lines = append(lines, st.Cursor.Render(fit("›"+" "+text, w)))
			continue
		}
		os := st.OK
		switch r.Outcome {
		case "ok", "success", "succeeded":
		case "":
			os = st.Subtle
		default:
			os = st.Warn
		}
		if r.ExitCode != 0 && r.Outcome != "pending" {
			os = st.Error
		}
		lines = append(lines, trunc("  "+os.Render(text), w))
	}
	status := ""
	if h.loading {
		status = st.Subtle.Render("opening run…")
	}
	lines = append(lines, status, h.c.helpView(h, false))
	return block(lines, w, h.c.Height)
}

func (h *historyScreen) viewDetail() string {
	st := h.c.Styles
	w := h.c.Width
	d := h.detail
	r := d.Run
	lines := []string{
		st.Title.Render(trunc(fmt.Sprintf("Run %d · %s · %s (exit %d)", r.ID, r.Command, r.Outcome, r.ExitCode), w)),
		st.Subtle.Render(trunc(fmt.Sprintf("started %s · target %s · %d changes", r.Started, r.Target, r.Changes), w)),
	}
	tabs := []string{fmt.Sprintf("Changes (%d)", len(d.Changes)), fmt.Sprintf("RPCs (%d)", len(d.RPCs))}
	tabs[h.pane] = st.Bold.Render("[" + tabs[h.pane] + "]")
	tabs[1-h.pane] = st.Subtle.Render(" " + tabs[1-h.pane] + " ")
	lines = append(lines, strings.Join(tabs, "  "))
	var head string
	var rows []string
	if h.pane == 0 {
		head = fmt.Sprintf("  %-14s %-7s %-28s %-10s %s", "kind", "action", "resource", "status", "error")
		for i := h.dOffset; i < len(d.Changes) && len(rows) < h.c.Height-6; i++ {
			c := d.Changes[i]
			line := fmt.Sprintf("%-14s %-7s %-28s %-10s %s", c.Kind, c.Action, c.Resource, c.Status, c.Error)
			st2 := st.Subtle
			switch {
			case c.Error != "":
				st2 = st.Error
			case c.Status == "ok" || c.Status == "applied" || c.Status == "succeeded":
				st2 = st.OK
			}
			rows = append(rows, "  "+st2.Render(line))
		}
	} else {
		head = fmt.Sprintf("  %-26s %6s %-20s %8s %9s  %s", "api", "broker", "started", "ms", "resources", "result")
		for i := h.dOffset; i < len(d.RPCs) && len(rows) < h.c.Height-6; i++ {
			p := d.RPCs[i]
			rows = append(rows, fmt.Sprintf("  %-26s %6d %-20s %8d %9d  %s", p.API, p.Broker, p.Started, p.DurationMS, p.Resources, p.Result))
		}
	}
	lines = append(lines, st.Bold.Render(trunc(head, w)))
	lines = append(lines, rows...)
	for len(lines) < h.c.Height-1 {
		lines = append(lines, "")
	}
	lines = append(lines, h.c.helpView(h, false))
	return block(lines, w, h.c.Height)
}

func (h *historyScreen) ShortHelp() []key.Binding {
	km := h.c.KeyMap
	if h.detail != nil {
		return []key.Binding{km.SwitchPane, km.Up, km.Down, withHelp(km.Back, "back to runs"), km.Quit}
	}
	return []key.Binding{km.Up, km.Down, withHelp(km.Open, "open run"), km.Quit}
}

func (h *historyScreen) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
