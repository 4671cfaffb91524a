package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// applyEventsMsg carries the apply events observed since the last one;
// done is set once the apply function has returned, with its error.
type applyEventsMsg struct {
	events []apply.Event
	done   bool
	err    error
}

// applyTickMsg refreshes the elapsed time and rates once a second.
type applyTickMsg struct{}

type kindProgress struct {
	kind                       plan.Kind
	total, ok, failed, skipped int
}

type problem struct {
	mark, what, msg string
}

// applyScreen runs the apply function and shows its progress, then the
// results (the end screen).
type applyScreen struct {
	navigator
	c          *Common
	p          *plan.Plan
	run        ApplyFunc
	ctx        context.Context // the apply's context; cancel stops it after the batch in flight
	cancel     context.CancelFunc
	q          *queue[apply.Event]
	now        func() time.Time
	auditRunID int64
	auditShow  func(run int64) string // the command that shows the audit run

	started, ended time.Time
	kinds          []kindProgress
	kindIdx        map[plan.Kind]int
	total          int
	ok, failed     int
	skipped        int
	validated      int
	batch          string
	problems       []problem

	askCancel, stopping bool
	finished            bool
	finish              *apply.RunFinished
	runErr              error
	errOffset           int
}

func newApply(c *Common, ctx context.Context, p *plan.Plan, run ApplyFunc, auditRunID int64) *applyScreen {
	actx, cancel := context.WithCancel(ctx)
	a := &applyScreen{c: c, p: p, run: run, ctx: actx, cancel: cancel, q: newQueue[apply.Event](), now: time.Now,
		auditRunID: auditRunID, kindIdx: map[plan.Kind]int{}, total: len(p.Changes)}
	var order []plan.Kind
	count := map[plan.Kind]int{}
	for i := range p.Changes {
		k := p.Changes[i].Kind
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	for _, k := range orderKinds(order) {
		a.kindIdx[k] = len(a.kinds)
		a.kinds = append(a.kinds, kindProgress{kind: k, total: count[k]})
	}
	return a
}

// start launches the apply in its own goroutine; events come back through
// the queue as applyEventsMsg.
func (a *applyScreen) start() tea.Cmd {
	a.started = a.now()
	launch := func() tea.Msg {
		go runWorker(a.q, "apply", func() error { return a.run(a.ctx, a.p, apply.ObserverFunc(a.q.push)) })
		return a.wait()
	}
	return tea.Batch(launch, a.tick())
}

func (a *applyScreen) wait() tea.Msg {
	evs, done, err := a.q.wait()
	return applyEventsMsg{events: evs, done: done, err: err}
}

func (a *applyScreen) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return applyTickMsg{} })
}

func (a *applyScreen) SetSize(w, h int) {}

func (a *applyScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case applyEventsMsg:
		for _, e := range msg.events {
			a.observe(e)
		}
		if msg.done {
			a.finished = true
			a.runErr = msg.err
			a.ended = a.now()
			a.cancel()
			return nil
		}
		return a.wait
	case applyTickMsg:
		if a.finished {
			return nil
		}
		return a.tick()
	case tea.KeyPressMsg:
		return a.updateKey(msg)
	}
	return nil
}

func (a *applyScreen) updateKey(k tea.KeyPressMsg) tea.Cmd {
	km := a.c.KeyMap
	if a.finished {
		switch {
		case key.Matches(k, km.Quit), key.Matches(k, km.Confirm), key.Matches(k, km.Back):
			a.navigate(quitMsg{})
			return nil
		case key.Matches(k, km.Up):
			a.errOffset = max(a.errOffset-1, 0)
		case key.Matches(k, km.Down):
			a.errOffset = min(a.errOffset+1, max(len(a.problems)-1, 0))
		}
		return nil
	}
	if a.askCancel {
		switch {
		case key.Matches(k, km.Yes), key.Matches(k, km.Interrupt):
			a.askCancel, a.stopping = false, true
			a.cancel()
		case key.Matches(k, km.No):
			a.askCancel = false
		}
		return nil
	}
	if key.Matches(k, km.Interrupt) && !a.stopping {
		a.askCancel = true
	}
	return nil
}

func (a *applyScreen) kindOf(c *plan.Change) *kindProgress {
	if c == nil {
		return nil
	}
	i, ok := a.kindIdx[c.Kind]
	if !ok {
		a.kindIdx[c.Kind] = len(a.kinds)
		a.kinds = append(a.kinds, kindProgress{kind: c.Kind})
		i = len(a.kinds) - 1
	}
	return &a.kinds[i]
}

func (a *applyScreen) observe(e apply.Event) {
	switch e := e.(type) {
	case apply.RunStarted:
		if !e.Time.IsZero() {
			a.started = e.Time
		}
		if e.Total > 0 {
			a.total = e.Total
		}
	case apply.ChangeSkipped:
		if k := a.kindOf(e.Change); k != nil {
			k.skipped++
		}
		a.skipped++
		if e.Reason == apply.ReasonNotSent || e.Reason == apply.ReasonHalted {
			// Left unsent by the run: its Detail ("not sent: ...") says why.
			a.problems = append(a.problems, problem{mark: "!", what: changeLabel(e.Change), msg: termsafe.Line(e.Detail)})
		}
	case apply.BatchSent:
		s := fmt.Sprintf("batch %d %s", e.Batch, e.RPC)
		if e.Broker >= 0 {
			s += fmt.Sprintf(" → broker %d", e.Broker)
		}
		s += " · " + english.N(len(e.Changes), "change")
		if e.ValidateOnly {
			s += " · preflight (validate only)"
		}
		if e.Attempt > 1 {
			s += fmt.Sprintf(" · attempt %d", e.Attempt)
		}
		a.batch = s
	case apply.BatchDone:
		if e.Err != nil {
			a.problems = append(a.problems, problem{mark: "✗", what: fmt.Sprintf("batch %d %s", e.Batch, e.RPC), msg: termsafe.Line(e.Err.Error())})
		}
	case apply.ResourceResult:
		if e.ValidateOnly {
			a.validated++
			if e.Err != nil {
				a.problems = append(a.problems, problem{mark: "✗", what: changeLabel(e.Change) + " (preflight)", msg: resultMessage(e)})
			}
			return
		}
		k := a.kindOf(e.Change)
		if e.Err != nil || e.ErrorCode != 0 {
			a.failed++
			if k != nil {
				k.failed++
			}
			a.problems = append(a.problems, problem{mark: "✗", what: changeLabel(e.Change), msg: resultMessage(e)})
		} else {
			a.ok++
			if k != nil {
				k.ok++
			}
		}
	case apply.RunFinished:
		f := e
		a.finish = &f
		if !e.Time.IsZero() {
			a.ended = e.Time
		}
		if e.Err != nil {
			a.problems = append(a.problems, problem{mark: "✗", what: "run", msg: termsafe.Line(e.Err.Error())})
		}
	}
}

func changeLabel(c *plan.Change) string {
	if c == nil {
		return "?"
	}
	return string(c.Kind) + " " + displayName(c)
}

func resultMessage(e apply.ResourceResult) string {
	var parts []string
	if e.ErrorName != "" {
		parts = append(parts, e.ErrorName)
	}
	if e.Message != "" {
		parts = append(parts, e.Message)
	} else if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	return termsafe.Line(strings.Join(parts, ": "))
}

// result is what Session returns.
func (a *applyScreen) result() Result {
	r := Result{Succeeded: a.ok, Failed: a.failed, Skipped: a.skipped, Canceled: a.stopping}
	if f := a.finish; f != nil {
		r = Result{Succeeded: f.Succeeded, Failed: f.Failed, Skipped: f.Skipped, Canceled: f.Canceled || a.stopping}
	}
	return r
}

func (a *applyScreen) elapsed() time.Duration {
	end := a.now()
	if a.finished && !a.ended.IsZero() {
		end = a.ended
	}
	d := end.Sub(a.started)
	if d < 0 {
		d = 0
	}
	return d
}

func fmtDur(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func rate(n int, d time.Duration) string {
	if d < 100*time.Millisecond {
		return "-"
	}
	return fmt.Sprintf("%.1f/s", float64(n)/d.Seconds())
}

func (a *applyScreen) View() string {
	st := a.c.Styles
	w, h := a.c.Width, a.c.Height
	el := a.elapsed()
	done := a.ok + a.failed + a.skipped
	var lines []string
	if a.finished {
		lines = append(lines, a.endHeader()...)
	} else {
		title := fmt.Sprintf("Applying %s to %s", english.N(a.total, "change"), endpoint(a.p.Target))
		lines = append(lines, st.Title.Render(trunc(title, w-16))+st.Subtle.Render(" · elapsed "+fmtDur(el)))
	}
	barW := min(max(w-52, 10), 40)
	lines = append(lines, st.bar(done, a.total, barW)+fmt.Sprintf(" %d/%d %s · %s · ", done, a.total, percent(done, a.total), rate(done, el))+
		st.OK.Render(fmt.Sprintf("%d ok", a.ok))+" · "+st.Error.Render(fmt.Sprintf("%d failed", a.failed))+fmt.Sprintf(" · %d skipped", a.skipped))
	lines = append(lines, "", st.Bold.Render(fmt.Sprintf("  %-15s %11s %6s %7s %8s %8s", "kind", "done/total", "ok", "failed", "skipped", "rate")))
	for _, k := range a.kinds {
		d := k.ok + k.failed + k.skipped
		line := fmt.Sprintf("%-15s %11s %6d %7d %8d %8s", k.kind, fmt.Sprintf("%d/%d", d, k.total), k.ok, k.failed, k.skipped, rate(d, el))
		switch {
		case k.failed > 0:
			line = st.Error.Render("✗ ") + line
		case d == k.total && k.total > 0:
			line = st.OK.Render("✓ ") + line
		default:
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	if !a.finished {
		now := "waiting for the first batch"
		if a.batch != "" {
			now = a.batch
		}
		if a.stopping {
			now = "stopping after the batch in flight · " + now
		}
		lines = append(lines, st.Subtle.Render("now: ")+now)
	}
	footer := a.c.helpView(a, false)
	if a.askCancel {
		dialog := st.Dialog.Render(strings.Join([]string{
			st.Bold.Render("Stop after the batch in flight?"),
			"Changes already sent stay applied; the rest are",
			"skipped and recorded as canceled in the audit trail.",
			"y/enter/ctrl+c stop · n/esc keep going",
		}, "\n"))
		lines = append(lines, strings.Split(dialog, "\n")...)
	}
	room := h - len(lines) - 1
	if room >= 2 {
		lines = append(lines, a.problemLines(room)...)
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:h-1], footer)
	return block(lines, w, h)
}

// problemLines lists per-resource errors, the newest last while running;
// scrollable on the end screen.
func (a *applyScreen) problemLines(room int) []string {
	st := a.c.Styles
	if len(a.problems) == 0 {
		if a.finished && a.runErr == nil {
			return []string{st.OK.Render("no errors")}
		}
		return nil
	}
	out := []string{st.Error.Render(fmt.Sprintf("Errors (%d):", len(a.problems)))}
	// Newest last while running (as many as fit, whole); scrolled by
	// problem on the end screen.
	lines := func(p problem) []string {
		prefix := "  " + p.mark + " "
		ls := hang(prefix, p.what+": "+p.msg, a.c.Width)
		for i := range ls {
			ls[i] = st.Error.Render(ls[i])
		}
		return ls
	}
	from := 0
	if a.finished {
		from = min(a.errOffset, max(len(a.problems)-1, 0))
	} else {
		used := 0
		for from = len(a.problems); from > 0; from-- {
			n := len(lines(a.problems[from-1]))
			if used+n > room-1 && from < len(a.problems) {
				break
			}
			used += n
		}
	}
	for i := from; i < len(a.problems) && len(out) < room; i++ {
		for _, l := range lines(a.problems[i]) {
			if len(out) < room {
				out = append(out, l)
			}
		}
	}
	return out
}

func (a *applyScreen) endHeader() []string {
	st := a.c.Styles
	r := a.result()
	head := "Apply finished"
	hs := st.OK
	switch {
	case r.Canceled:
		head, hs = "Apply stopped (canceled after the batch in flight)", st.Warn
	case a.runErr != nil:
		head, hs = "Apply failed", st.Error
	case r.Failed > 0:
		head, hs = "Apply finished with failures", st.Error
	}
	lines := []string{hs.Render(head) + fmt.Sprintf(": %d succeeded · %d failed · %d skipped", r.Succeeded, r.Failed, r.Skipped) +
		st.Subtle.Render(" · "+fmtDur(a.elapsed()))}
	if a.runErr != nil {
		lines = append(lines, st.Error.Render("error: "+termsafe.Line(a.runErr.Error())))
	}
	if a.auditRunID > 0 {
		show := fmt.Sprintf("migrate audit show %d", a.auditRunID)
		if a.auditShow != nil {
			show = a.auditShow(a.auditRunID)
		}
		lines = append(lines, fmt.Sprintf("audit run id %d; to see it:", a.auditRunID), st.Subtle.Render("  "+show))
	} else {
		lines = append(lines, st.Subtle.Render("no audit run id"))
	}
	return lines
}

func (a *applyScreen) ShortHelp() []key.Binding {
	km := a.c.KeyMap
	switch {
	case a.finished:
		return []key.Binding{withHelp(km.Up, "scroll errors"), km.Down, withHelp(km.Confirm, "exit"), withHelp(km.Quit, "exit")}
	case a.askCancel:
		return []key.Binding{withHelp(km.Yes, "stop after batch"), withHelp(km.No, "keep going")}
	case a.stopping:
		return []key.Binding{key.NewBinding(key.WithKeys(), key.WithHelp("", "stopping after the batch in flight…"))}
	}
	return []key.Binding{km.Interrupt}
}

func (a *applyScreen) FullHelp() [][]key.Binding { return [][]key.Binding{a.ShortHelp()} }
