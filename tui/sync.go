package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// RunSync shows a running sync: a live list of its rounds (newest first)
// with the lag, result and error of each, the running counts, and the
// frozen state. f asks to freeze the sync (then calls freeze, once); q or
// ctrl+c ends RunSync, and the caller stops the sync. RunSync also returns
// when rounds is closed or ctx ends. It only reads values: the sync itself
// runs in the caller.
func RunSync(ctx context.Context, title string, rounds <-chan syncer.Round, freeze func(), o Options) error {
	return RunSyncView(ctx, SyncView{Title: title, Rounds: rounds, Freeze: freeze}, o)
}

// SyncView is what the sync screen shows and can do.
type SyncView struct {
	Title  string
	Rounds <-chan syncer.Round
	Freeze func() // f asks, then calls it (once)
	// State, when set, is the sync's state (syncer.Tracker.State): the
	// banner says it as the status line and /readyz do. Without it the
	// banner judges by the last round.
	State func() syncer.State
}

// RunSyncView is RunSync of v.
func RunSyncView(ctx context.Context, v SyncView, o Options) error {
	if v.Rounds == nil {
		return errors.New("tui: no rounds")
	}
	c := common(o)
	s := newSyncScreen(c, v.Title, v.Rounds, v.Freeze)
	s.state = v.State
	m := &root{c: c, ctx: ctx, state: stateSync, sync: s}
	_, err := program(ctx, m, o).Run()
	return runErr(ctx, err)
}

// syncKeep bounds the rounds the screen keeps (the counts cover all).
const syncKeep = 500

// syncRoundsMsg carries the rounds received since the last one; closed is
// set when the channel was closed.
type syncRoundsMsg struct {
	rounds []syncer.Round
	closed bool
}

// syncTickMsg refreshes the up time once a second.
type syncTickMsg struct{}

// syncCounts are the running totals over every round.
type syncCounts struct {
	rounds, applied, failed, unverified int
	missed, drift, errors, skipped      int
	lastZxid                            int64
	lastLag, maxLag                     time.Duration
}

type syncScreen struct {
	navigator
	c      *Common
	title  string
	in     <-chan syncer.Round
	q      *queue[syncer.Round]
	freeze func()
	now    func() time.Time
	since  time.Time
	state  func() syncer.State // nil: judged by the last round

	rounds   []syncer.Round // newest last, at most syncKeep
	counts   syncCounts
	frozen   bool // a round reported frozen
	asked    bool // freeze was asked for (the next round is frozen)
	askingFz bool // the freeze question is open
	closed   bool
	offset   int // rows scrolled down from the newest
}

func newSyncScreen(c *Common, title string, in <-chan syncer.Round, freeze func()) *syncScreen {
	return &syncScreen{c: c, title: title, in: in, q: newQueue[syncer.Round](), freeze: freeze, now: time.Now, since: time.Now()}
}

// init starts the goroutine that moves rounds from the channel to the
// queue (so the sender never waits on the screen), and the clock.
func (s *syncScreen) init() tea.Cmd {
	launch := func() tea.Msg {
		go runWorker(s.q, "sync", func() error {
			for r := range s.in {
				s.q.push(r)
			}
			return nil
		})
		return s.wait()
	}
	return tea.Batch(launch, s.tick())
}

func (s *syncScreen) wait() tea.Msg {
	rs, closed, _ := s.q.wait()
	return syncRoundsMsg{rounds: rs, closed: closed}
}

func (s *syncScreen) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return syncTickMsg{} })
}

func (s *syncScreen) SetSize(w, h int) {}

func (s *syncScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case syncRoundsMsg:
		for _, r := range msg.rounds {
			s.add(r)
		}
		if msg.closed {
			s.closed = true
			return tea.Quit
		}
		return s.wait
	case syncTickMsg:
		return s.tick()
	case tea.KeyPressMsg:
		return s.updateKey(msg)
	}
	return nil
}

func (s *syncScreen) add(r syncer.Round) {
	c := &s.counts
	if r.Reason == syncer.ReasonSkipped {
		c.skipped += len(r.Skipped)
		s.keep(r)
		return
	}
	c.rounds++
	c.applied += r.Outcome.Applied
	c.failed += r.Outcome.Failed
	c.unverified += r.Outcome.Unverified
	c.missed += len(r.Missed)
	c.drift += len(r.Drift)
	if r.Err != nil {
		c.errors++
	}
	c.lastZxid = max(c.lastZxid, r.Zxid)
	if r.Lag > 0 {
		c.lastLag, c.maxLag = r.Lag, max(c.maxLag, r.Lag)
	}
	if r.Frozen {
		s.frozen = true
	}
	s.keep(r)
}

// keep adds r to the rounds shown.
func (s *syncScreen) keep(r syncer.Round) {
	s.rounds = append(s.rounds, r)
	if len(s.rounds) > syncKeep {
		s.rounds = append(s.rounds[:0:0], s.rounds[len(s.rounds)-syncKeep:]...)
	}
	if s.offset > 0 { // keep the rows the operator scrolled to in place
		s.offset += len(s.roundLines(r))
	}
}

func (s *syncScreen) updateKey(k tea.KeyPressMsg) tea.Cmd {
	km := s.c.KeyMap
	if s.askingFz {
		switch {
		case key.Matches(k, km.Yes):
			s.askingFz, s.asked = false, true
			if s.freeze != nil {
				s.freeze()
			}
		case key.Matches(k, km.No), key.Matches(k, km.Quit):
			s.askingFz = false
		}
		return nil
	}
	switch {
	case key.Matches(k, km.Quit):
		s.navigate(quitMsg{})
	case key.Matches(k, km.Freeze) && !s.frozen && !s.asked && s.freeze != nil:
		s.askingFz = true
	case key.Matches(k, km.Up):
		s.offset = max(s.offset-1, 0)
	case key.Matches(k, km.Down):
		s.offset = min(s.offset+1, max(s.lineCount()-1, 0))
	case key.Matches(k, km.Top):
		s.offset = 0
	}
	return nil
}

// roundLines is one round: its headline and, below it, its error, the
// changes a frozen round saw, and the drift and missed changes.
func (s *syncScreen) roundLines(r syncer.Round) []string {
	st := s.c.Styles
	if r.Reason == syncer.ReasonSkipped {
		var lines []string
		for i, sk := range r.Skipped {
			if i == 3 {
				lines = append(lines, st.Warn.Render(fmt.Sprintf("    … and %d more skipped", len(r.Skipped)-3)))
				break
			}
			lines = append(lines, st.Warn.Render("!")+" "+r.Finished.Format("15:04:05.000")+" skipped notification "+termsafe.Name(sk.Path)+": "+termsafe.Line(oneLine(sk.Err.Error())))
		}
		return lines
	}
	mark, ms := "✓", st.OK
	switch {
	case r.Err != nil || r.Outcome.Failed > 0:
		mark, ms = "✗", st.Error
	case r.Frozen && len(r.Changes) > 0 || len(r.Unsent) > 0:
		mark, ms = "!", st.Warn
	case len(r.Missed)+len(r.Drift) > 0 || r.Outcome.Unverified > 0:
		mark, ms = "~", st.Warn
	}
	lag := ""
	if r.Lag > 0 {
		lag = r.Lag.Round(time.Millisecond).String()
	}
	head := fmt.Sprintf("%s #%-4d %-9s %8s  ", r.Finished.Format("15:04:05.000"), r.N, r.Reason, lag)
	w := s.c.Width
	lines := hang("  ", head+roundResult(r)+roundEntities(r), w)
	lines[0] = ms.Render(mark) + " " + strings.TrimPrefix(lines[0], "  ")
	hangStyled := func(prefix string, style lipgloss.Style, text string) {
		for i, l := range hang(prefix, text, w) {
			if i == 0 {
				l = style.Render(prefix) + strings.TrimPrefix(l, prefix)
			}
			lines = append(lines, l)
		}
	}
	for _, ev := range r.Resyncs {
		why := string(ev.Cause)
		if ev.Path != "" {
			why += " " + ev.Path
		}
		if ev.Err != nil {
			why += ": " + ev.Err.Error()
		}
		hangStyled("    resync: ", st.Warn, termsafe.Line(oneLine(why)))
	}
	if r.Err != nil {
		hangStyled("    error: ", st.Error, termsafe.Line(oneLine(r.Err.Error())))
	}
	detail := func(what string, cs []plan.Change) {
		const most = 3
		for i := range cs[:min(len(cs), most)] {
			hangStyled("    "+what+" ", st.Warn, string(cs[i].Action)+" "+changeLabel(&cs[i]))
		}
		if len(cs) > most {
			lines = append(lines, st.Warn.Render(fmt.Sprintf("    and %d more", len(cs)-most)))
		}
	}
	detail("changed after the cut:", r.AfterCut)
	detail("not sent (frozen):", r.Unsent)
	detail("missed:", r.Missed)
	detail("drift:", r.Drift)
	if r.Reason == syncer.ReasonChange {
		for _, b := range r.Blockers {
			hangStyled("    blocked: ", st.Blocked, fmt.Sprintf("%s %s: %s", b.Kind, termsafe.Name(b.Resource), termsafe.Line(b.Reason)))
		}
	}
	return lines
}

func (s *syncScreen) lineCount() int {
	n := 0
	for _, r := range s.rounds {
		n += len(s.roundLines(r))
	}
	return n
}

func roundResult(r syncer.Round) string {
	switch {
	case r.Err != nil:
		return "failed"
	case r.Frozen && len(r.AfterCut) > 0:
		return "FROZEN: " + english.N(len(r.AfterCut), "change") + " after the cut, not applied"
	case r.Frozen && len(r.Changes) > 0:
		return "frozen: " + english.N(len(r.Changes), "change") + " the target lacks, not applied"
	case r.Frozen:
		return "frozen, no change"
	case len(r.Changes) == 0 && len(r.Missed)+len(r.Drift) == 0:
		return "in step"
	}
	s := fmt.Sprintf("%d applied", r.Outcome.Applied)
	if r.Outcome.Failed > 0 {
		s += fmt.Sprintf(", %d failed", r.Outcome.Failed)
	}
	if r.Outcome.Unverified > 0 {
		s += fmt.Sprintf(", %d unverified", r.Outcome.Unverified)
	}
	if len(r.Unsent) > 0 {
		s += fmt.Sprintf(", %d not sent (frozen)", len(r.Unsent))
	}
	return s
}

func roundEntities(r syncer.Round) string {
	if len(r.Entities) == 0 {
		return ""
	}
	names := make([]string, 0, 2)
	for _, e := range r.Entities[:min(len(r.Entities), 2)] {
		names = append(names, termsafe.Name(e.String()))
	}
	s := " · " + strings.Join(names, ", ")
	if len(r.Entities) > 2 {
		s += fmt.Sprintf(" +%d", len(r.Entities)-2)
	}
	return s
}

// oneLine is s on one line (callers escape it with termsafe).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (s *syncScreen) View() string {
	st := s.c.Styles
	w, h := s.c.Width, s.c.Height
	up := s.now().Sub(s.since)
	if up < 0 {
		up = 0
	}
	lines := []string{st.Title.Render(trunc("Sync "+termsafe.Line(s.title), w-14)) + st.Subtle.Render(" · up "+fmtDur(up))}
	switch {
	case s.state != nil && !s.closed:
		lines = append(lines, s.stateBanner(s.state()))
	case s.frozen:
		lines = append(lines, st.Cursor.Render(st.Error.Render(fit(" ■ FROZEN: nothing is written to the target; source changes are reported, not applied", w))))
	case s.asked:
		lines = append(lines, st.Cursor.Render(st.Warn.Render(fit(" ■ FREEZING: from the next round nothing is written to the target", w))))
	case s.closed:
		lines = append(lines, st.Warn.Render("■ sync ended"))
	case s.counts.rounds == 0:
		lines = append(lines, st.Subtle.Render("● waiting for the first round"))
	default:
		last := s.rounds[len(s.rounds)-1]
		if last.Err != nil || last.Outcome.Failed > 0 || last.Outcome.Unverified > 0 {
			lines = append(lines, st.Error.Render("● BEHIND: the last round did not finish; a full round retries it"))
		} else {
			how := " · following ZooKeeper's change feed"
			if last.Reason == syncer.ReasonPoll {
				how = " · polling the source through its brokers"
			}
			lines = append(lines, st.OK.Render("● in step")+st.Subtle.Render(how))
		}
	}
	c := s.counts
	counts := []string{
		fmt.Sprintf("rounds %d", c.rounds),
		st.OK.Render(fmt.Sprintf("applied %d", c.applied)),
		st.Error.Render(fmt.Sprintf("failed %d", c.failed)),
		fmt.Sprintf("errors %d", c.errors),
		fmt.Sprintf("missed %d", c.missed),
		fmt.Sprintf("drift %d", c.drift),
		fmt.Sprintf("zxid 0x%x", c.lastZxid),
		fmt.Sprintf("lag last %s max %s", c.lastLag.Round(time.Millisecond), c.maxLag.Round(time.Millisecond)),
	}
	if c.unverified > 0 {
		counts = append(counts[:3], append([]string{st.Warn.Render(fmt.Sprintf("unverified %d", c.unverified))}, counts[3:]...)...)
	}
	if c.skipped > 0 {
		counts = append(counts, st.Warn.Render(fmt.Sprintf("skipped notifications %d", c.skipped)))
	}
	lines = append(lines, wrapTokens(counts, st.Subtle.Render(" · "), w)...)
	lines = append(lines, "", st.Bold.Render(fmt.Sprintf("  %-12s %-5s %-9s %8s  %s", "finished", "round", "reason", "lag", "result")))

	footer := s.c.helpView(s, false)
	var dialog []string
	if s.askingFz {
		dialog = strings.Split(st.Dialog.Render(strings.Join([]string{
			st.Bold.Render("Freeze the sync?"),
			"Nothing more is written to the target; every later",
			"change to the source is reported, not applied.",
			"It cannot be undone in this run.",
			"y/enter freeze · n/esc keep syncing",
		}, "\n")), "\n")
	}
	room := h - len(lines) - len(dialog) - 1
	var rows []string
	for i := len(s.rounds) - 1; i >= 0; i-- {
		rows = append(rows, s.roundLines(s.rounds[i])...)
		if len(rows) >= s.offset+room {
			break
		}
	}
	if len(rows) == 0 {
		rows = []string{st.Subtle.Render("  (no round yet)")}
	}
	from := min(s.offset, max(len(rows)-1, 0))
	rows = rows[from:]
	if len(rows) > room {
		rows = rows[:max(room, 0)]
	}
	lines = append(lines, rows...)
	for len(lines) < h-1-len(dialog) {
		lines = append(lines, "")
	}
	lines = append(lines, dialog...)
	if len(lines) > h-1 {
		lines = lines[:h-1]
	}
	lines = append(lines, footer)
	return block(lines, w, h)
}

// stateBanner is the banner of the sync's state.
func (s *syncScreen) stateBanner(state syncer.State) string {
	st, w := s.c.Styles, s.c.Width
	switch state.Phase {
	case syncer.Frozen:
		return st.Cursor.Render(st.Error.Render(fit(" ■ FROZEN: nothing is written to the target; source changes are reported, not applied", w)))
	case syncer.Freezing:
		return st.Cursor.Render(st.Warn.Render(fit(" ■ FREEZING: the rounds in flight send nothing more", w)))
	case syncer.InStep:
		how := " · following ZooKeeper's change feed"
		if n := len(s.rounds); n > 0 && s.rounds[n-1].Reason == syncer.ReasonPoll {
			how = " · polling the source through its brokers"
		}
		return st.OK.Render("● IN STEP") + st.Subtle.Render(how)
	}
	return st.Error.Render("● " + termsafe.Line(oneLine(state.Describe(s.now()))))
}

func (s *syncScreen) ShortHelp() []key.Binding {
	km := s.c.KeyMap
	if s.askingFz {
		return []key.Binding{withHelp(km.Yes, "freeze"), withHelp(km.No, "keep syncing")}
	}
	bs := []key.Binding{withHelp(km.Up, "newer"), withHelp(km.Down, "older")}
	if !s.frozen && !s.asked && s.freeze != nil {
		bs = append(bs, km.Freeze)
	}
	return append(bs, withHelp(km.Quit, "stop sync"))
}

func (s *syncScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }
