package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
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

	cmdW, outW int // column widths of the runs: command, outcome
	startedW   int // column width of the RPCs' start times
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
		h.cmdW, h.outW = len("command"), len("outcome")
		for _, r := range h.runs {
			h.cmdW, h.outW = max(h.cmdW, lenCells(r.Command)), max(h.outW, lenCells(r.Outcome))
		}
		h.outW = min(h.outW, 20) // a longer outcome wraps
		return nil
	case runLoadedMsg:
		h.loading = false
		if msg.err != nil {
			h.err = msg.err
			return nil
		}
		d := msg.detail
		h.detail, h.pane, h.dOffset, h.err = &d, 0, 0, nil
		h.startedW = len("started")
		for _, p := range d.RPCs {
			h.startedW = max(h.startedW, lenCells(p.Started))
		}
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
	h.offset = keepVisible(h.offset, h.cursor, h.listHeight(), func(i int) int { return len(h.runLines(i, false)) })
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

// detailHeight is the lines a run's changes or RPCs have.
func (h *historyScreen) detailHeight() int { return max(h.c.Height-6, 1) }

// detailLines is item i of the open pane.
func (h *historyScreen) detailLines(i int) []string {
	if h.pane == 0 {
		return h.changeLines(h.detail.Changes[i])
	}
	return h.rpcLines(h.detail.RPCs[i])
}

func (h *historyScreen) updateDetail(k tea.KeyPressMsg) tea.Cmd {
	km := h.c.KeyMap
	lh := h.detailHeight()
	switch {
	case key.Matches(k, km.Back):
		h.detail = nil
		return nil
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
	case key.Matches(k, km.Top):
		h.dOffset = 0
	case key.Matches(k, km.Bottom):
		h.dOffset = h.detailRows()
	}
	h.dOffset = max(min(h.dOffset, lastOffset(h.detailRows(), lh, func(i int) int { return len(h.detailLines(i)) })), 0)
	return nil
}

// Column widths of the history's tables.
const (
	histKindW    = 14 // client-metrics
	histActionW  = 6
	histStatusW  = 9 // succeeded
	histStartedW = 19
)

// runLines is run j of the list: id, start, command, outcome, exit code,
// changes and target, the outcome and the target wrapped whole.
func (h *historyScreen) runLines(j int, cur bool) []string {
	st := h.c.Styles
	w := h.c.Width - 2
	r := h.runs[j]
	cmdW, outW := h.cmdW, h.outW
	fixed := h.runFixedW()
	target := termsafe.Name(r.Target)
	if r.Target == "" {
		target = "-"
	}
	cells := [][]string{{fmt.Sprintf("%5d", r.ID)}, {r.Started}, {termsafe.Line(r.Command)}, wrapCells(termsafe.Line(r.Outcome), outW),
		{fmt.Sprintf("%4d", r.ExitCode)}, {fmt.Sprintf("%7d", r.Changes)}}
	widths := []int{5, histStartedW, cmdW, outW, 4, 7}
	var lines []string
	if w-fixed >= 16 {
		lines = columns(" ", widths, append(cells, wrapCells(target, w-fixed))...)
	} else {
		lines = append(columns(" ", widths, cells...), hang("      target ", target, w)...)
	}
	if cur {
		for i, l := range lines {
			mark := "  "
			if i == 0 {
				mark = "› "
			}
			lines[i] = st.Cursor.Render(fit(mark+l, w+2))
		}
		return lines
	}
	os := st.OK
	switch r.Outcome {
	case "ok", "success", "succeeded", "passed", "applied":
	case "":
		os = st.Subtle
	default:
		os = st.Warn
	}
	if r.ExitCode != 0 && r.Outcome != "pending" {
		os = st.Error
	}
	for i, l := range lines {
		lines[i] = "  " + os.Render(l)
	}
	return lines
}

// runFixedW is the width of a run's columns before its target.
func (h *historyScreen) runFixedW() int {
	return 5 + 1 + histStartedW + 1 + h.cmdW + 1 + h.outW + 1 + 4 + 1 + 7 + 2
}

// changeLines is one change of a run: kind, action, status and its
// resource whole, its error on the lines below.
func (h *historyScreen) changeLines(c ChangeRow) []string {
	st := h.c.Styles
	w := h.c.Width - 2
	lead := histKindW + 1 + histActionW + 1 + histStatusW + 1
	lines := columns(" ", []int{histKindW, histActionW, histStatusW},
		[]string{c.Kind}, []string{c.Action}, []string{termsafe.Line(c.Status)}, wrapCells(termsafe.Name(c.Resource), max(w-lead, 8)))
	style := st.Subtle
	switch {
	case c.Error != "":
		style = st.Error
	case c.Status == "ok" || c.Status == "applied" || c.Status == "succeeded":
		style = st.OK
	}
	for i, l := range lines {
		lines[i] = "  " + style.Render(l)
	}
	if c.Error != "" {
		for _, l := range hang("✗ ", termsafe.Line(c.Error), w-lead) {
			lines = append(lines, "  "+strings.Repeat(" ", lead)+st.Error.Render(l))
		}
	}
	return lines
}

// rpcWidths are the API column's width and that of the other columns but
// the result.
func (h *historyScreen) rpcWidths() (apiW, fixed int) {
	fixed = 7 + 6 + h.startedW + 6 + 9 + 6 // and 6 separators
	return min(max(h.c.Width-2-fixed-8, 12), 34), fixed
}

// rpcLines is one RPC of a run: its batch and attempt, the API (marked
// when it was a validate-only preflight), broker, start, duration,
// resources and result.
func (h *historyScreen) rpcLines(p RPCRow) []string {
	w := h.c.Width - 2
	api := p.API
	if p.ValidateOnly {
		api += " (validate)"
	}
	apiW, fixed := h.rpcWidths()
	lines := columns(" ", []int{7, apiW, 6, h.startedW, 6, 9},
		[]string{fmt.Sprintf("#%d.%d", p.Batch, max(p.Attempt, 1))}, wrapCells(api, apiW),
		[]string{fmt.Sprintf("%6d", p.Broker)}, []string{p.Started}, []string{fmt.Sprintf("%6d", p.DurationMS)},
		[]string{fmt.Sprintf("%9d", p.Resources)}, wrapCells(termsafe.Line(p.Result), max(w-fixed-apiW, 8)))
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return lines
}

func (h *historyScreen) View() string {
	if h.detail != nil {
		return h.viewDetail()
	}
	st := h.c.Styles
	w := h.c.Width
	lines := []string{st.Title.Render("Audit history · " + english.N(len(h.runs), "run"))}
	switch {
	case h.err != nil:
		lines = append(lines, st.Error.Render("error: "+termsafe.Line(h.err.Error())))
	case !h.loaded:
		lines = append(lines, st.Subtle.Render("reading the audit database…"))
	case len(h.runs) == 0:
		lines = append(lines, st.Subtle.Render("no runs recorded yet"))
	default:
		head := fmt.Sprintf("  %5s %-*s %-*s %-*s %4s %7s", "id", histStartedW, "started", h.cmdW, "command", h.outW, "outcome", "exit", "changes")
		if w-2-h.runFixedW() >= 16 {
			head += "  target"
		}
		lines = append(lines, st.Bold.Render(trunc(head, w)))
	}
	lh := h.listHeight()
	used := 0
	for j := h.offset; j < len(h.runs) && used < lh && h.err == nil; j++ {
		for _, l := range h.runLines(j, j == h.cursor) {
			if used < lh {
				lines = append(lines, l)
				used++
			}
		}
	}
	for ; used < lh; used++ {
		lines = append(lines, "")
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
		st.Title.Render(trunc(fmt.Sprintf("Run %d · %s · %s (exit %d)", r.ID, termsafe.Line(r.Command), termsafe.Line(r.Outcome), r.ExitCode), w)),
		st.Subtle.Render(trunc(fmt.Sprintf("started %s · target %s · %s", r.Started, termsafe.Name(r.Target), english.N(r.Changes, "change")), w)),
	}
	tabs := []string{fmt.Sprintf("Changes (%d)", len(d.Changes)), fmt.Sprintf("RPCs (%d)", len(d.RPCs))}
	tabs[h.pane] = st.Bold.Render("[" + tabs[h.pane] + "]")
	tabs[1-h.pane] = st.Subtle.Render(" " + tabs[1-h.pane] + " ")
	lines = append(lines, strings.Join(tabs, "  "))
	var head string
	if h.pane == 0 {
		head = fmt.Sprintf("  %-*s %-*s %-*s %s", histKindW, "kind", histActionW, "action", histStatusW, "status", "resource")
	} else {
		apiW, _ := h.rpcWidths()
		head = fmt.Sprintf("  %-7s %-*s %6s %-*s %6s %9s %s", "batch", apiW, "api", "broker", h.startedW, "started", "ms", "resources", "result")
	}
	lines = append(lines, st.Bold.Render(trunc(head, w)))
	lh := h.detailHeight()
	used := 0
	for i := h.dOffset; i < h.detailRows() && used < lh; i++ {
		for _, l := range h.detailLines(i) {
			if used < lh {
				lines = append(lines, l)
				used++
			}
		}
	}
	for len(lines) < h.c.Height-1 {
		lines = append(lines, "")
	}
	lines = append(lines, h.c.helpView(h, false))
	return block(lines, w, h.c.Height)
}

func (h *historyScreen) ShortHelp() []key.Binding {
	km := h.c.KeyMap
	if h.detail != nil {
		return []key.Binding{km.SwitchPane, shortKey(km.Down, "↑↓ pgup pgdn", "scroll"), withHelp(km.Back, "back to runs"), shortKey(km.Quit, "q", "quit")}
	}
	return []key.Binding{shortKey(km.Down, "↑↓ pgup pgdn", "move"), withHelp(km.Open, "open run"), shortKey(km.Quit, "q/esc", "quit")}
}

func (h *historyScreen) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
