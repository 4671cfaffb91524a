package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

type state int

const (
	stateReview state = iota
	stateConfirm
	stateApply
	stateHistory
	stateLoading
	stateSync
)

// root is the router: it holds the screens, handles the window size and
// the moves between screens, and hands every other message to the active
// screen.
type root struct {
	c     *Common
	ctx   context.Context // session context, for the commands that run apply and history reads
	state state

	review  *reviewScreen
	confirm *confirmScreen
	apply   *applyScreen
	history *historyScreen
	loading *loadingScreen
	sync    *syncScreen

	// session settings
	run        ApplyFunc
	auditRunID int64
	auditShow  func(run int64) string

	confirmed bool // the user confirmed the selection (Review)
	quit      bool
}

func newReviewRoot(ctx context.Context, c *Common, p *plan.Plan, purpose string) *root {
	return &root{c: c, ctx: ctx, state: stateReview, review: newReview(c, p, purpose)}
}

func (m *root) active() component {
	switch m.state {
	case stateConfirm:
		return m.confirm
	case stateApply:
		return m.apply
	case stateHistory:
		return m.history
	case stateLoading:
		return m.loading
	case stateSync:
		return m.sync
	}
	return m.review
}

func (m *root) Init() tea.Cmd {
	switch m.state {
	case stateHistory:
		return m.history.init()
	case stateLoading:
		return m.loading.init()
	case stateSync:
		return m.sync.init()
	}
	return nil
}

func (m *root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = max(msg.Width, 20), max(msg.Height, 8)
		for _, s := range m.screens() {
			s.SetSize(m.c.Width, m.c.Height)
		}
		return m, nil
	case quitMsg:
		m.quit = true
		return m, tea.Quit
	case reviewDoneMsg:
		m.confirm = newConfirm(m.c, m.review)
		m.state = stateConfirm
		return m, nil
	case confirmMsg:
		return m, m.updateConfirm(msg)
	}
	s := m.active()
	cmd := s.Update(msg)
	if nav := s.takeNav(); nav != nil {
		_, next := m.Update(nav)
		return m, tea.Batch(cmd, next)
	}
	return m, cmd
}

// screens lists the screens that exist.
func (m *root) screens() []component {
	var out []component
	if m.review != nil {
		out = append(out, m.review)
	}
	if m.confirm != nil {
		out = append(out, m.confirm)
	}
	if m.apply != nil {
		out = append(out, m.apply)
	}
	if m.history != nil {
		out = append(out, m.history)
	}
	if m.loading != nil {
		out = append(out, m.loading)
	}
	if m.sync != nil {
		out = append(out, m.sync)
	}
	return out
}

func (m *root) updateConfirm(msg confirmMsg) tea.Cmd {
	if !msg.yes {
		m.state = stateReview
		return nil
	}
	m.confirmed = true
	if m.run == nil { // Review: the selection is the result
		return tea.Quit
	}
	m.apply = newApply(m.c, m.ctx, m.confirm.p, m.run, m.auditRunID)
	m.apply.auditShow = m.auditShow
	m.state = stateApply
	return m.apply.start()
}

func (m *root) View() tea.View {
	v := tea.NewView(m.active().View())
	v.AltScreen = true
	v.WindowTitle = "migrate"
	return v
}
