package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// loadingStep is one progress report from the work of a loading screen.
type loadingStep struct {
	msg         string
	done, total int
}

// loadingMsg carries the steps reported since the last one; done is set
// when the work has returned, with its error.
type loadingMsg struct {
	steps []loadingStep
	done  bool
	err   error
}

// loadingScreen shows the progress of work that runs before a review
// (reading ZooKeeper and the target).
type loadingScreen struct {
	navigator
	c      *Common
	title  string
	ctx    context.Context
	cancel context.CancelFunc
	work   func(ctx context.Context, step func(msg string, done, total int)) error
	q      *queue[loadingStep]
	spin   spinner.Model

	steps    []string // finished step messages
	cur      loadingStep
	finished bool
	err      error
	stopping bool
}

func newLoading(c *Common, ctx context.Context, title string, work func(ctx context.Context, step func(msg string, done, total int)) error) *loadingScreen {
	wctx, cancel := context.WithCancel(ctx)
	sp := spinner.New(spinner.WithSpinner(spinner.Line))
	return &loadingScreen{c: c, title: title, ctx: wctx, cancel: cancel, work: work, q: newQueue[loadingStep](), spin: sp}
}

func (l *loadingScreen) init() tea.Cmd {
	launch := func() tea.Msg {
		go runWorker(l.q, "loading", func() error {
			return l.work(l.ctx, func(msg string, done, total int) { l.q.push(loadingStep{msg, done, total}) })
		})
		return l.wait()
	}
	return tea.Batch(launch, l.spin.Tick)
}

func (l *loadingScreen) wait() tea.Msg {
	steps, done, err := l.q.wait()
	return loadingMsg{steps: steps, done: done, err: err}
}

func (l *loadingScreen) SetSize(w, h int) {}

func (l *loadingScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadingMsg:
		for _, s := range msg.steps {
			if l.cur.msg != "" && s.msg != l.cur.msg {
				l.steps = append(l.steps, l.cur.msg)
			}
			l.cur = s
		}
		if msg.done {
			l.finished, l.err = true, msg.err
			l.cancel()
			return tea.Quit
		}
		return l.wait
	case spinner.TickMsg:
		var cmd tea.Cmd
		l.spin, cmd = l.spin.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		if key.Matches(msg, l.c.KeyMap.Interrupt) || msg.String() == "q" {
			l.stopping = true
			l.cancel()
		}
	}
	return nil
}

func (l *loadingScreen) View() string {
	st := l.c.Styles
	w, h := l.c.Width, l.c.Height
	lines := []string{st.Title.Render(trunc(termsafe.Line(l.title), w)), ""}
	room := h - 7
	from := max(len(l.steps)-room, 0)
	for _, s := range l.steps[from:] {
		lines = append(lines, st.OK.Render("✓ ")+termsafe.Line(s))
	}
	cur := termsafe.Line(l.cur.msg)
	if cur == "" {
		cur = "starting"
	}
	if l.cur.total > 0 {
		cur += fmt.Sprintf(" (%d/%d)", l.cur.done, l.cur.total)
	}
	lines = append(lines, l.spin.View()+" "+cur)
	if l.cur.total > 0 {
		lines = append(lines, "  "+st.bar(l.cur.done, l.cur.total, min(40, w-10))+" "+percent(l.cur.done, l.cur.total))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	help := st.HelpKey.Render("ctrl+c") + " " + st.HelpDesc.Render("cancel")
	if l.stopping {
		help = st.Warn.Render("canceling…")
	}
	lines = append(lines, help)
	return block(lines, w, h)
}

func (l *loadingScreen) ShortHelp() []key.Binding {
	return []key.Binding{withHelp(l.c.KeyMap.Interrupt, "cancel")}
}

func (l *loadingScreen) FullHelp() [][]key.Binding { return [][]key.Binding{l.ShortHelp()} }
