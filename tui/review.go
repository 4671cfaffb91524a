package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// reviewDoneMsg is sent by the review screen when the user asks to go on
// to the confirmation with the current selection.
type reviewDoneMsg struct{}

// quitMsg is sent by a screen when the user quits without going on.
type quitMsg struct{}

type rowType uint8

const (
	rowGroup rowType = iota
	rowChange
	rowSection
	rowBlocker
	rowFinding
	rowNote // a plan-wide policy note (g -3) or a note about the run (g -4)
)

// Section rows: their g.
const (
	secBlockers = -1
	secFindings = -2
	secPolicy   = -3
	secNotes    = -4
)

// row is one line of the review list. The list holds every row once; a
// filter selects which rows are visible. lower is the precomputed lowercase
// text the search matches.
type row struct {
	t     rowType
	g     int32 // group index
	i     int32 // item, blocker or finding index
	lower string
}

// item is one change shown in the review: a planned change, or a blocked
// change carried by a blocker. Only selectable items can be selected.
type item struct {
	ch         *plan.Change
	group      int32
	selectable bool
	selected   bool
	reason     string // why not selectable
}

// group is one kind of change (or the blockers or the findings section).
type group struct {
	title      string
	kind       plan.Kind
	items      []int32 // item indexes
	selectable int
	selected   int
	actions    map[plan.Action]int // planned, per action
	sel        map[plan.Action]int // selected, per action
	rpcs       []string
	labelW     int // the widest label of its items, in cells
}

var filterActions = []plan.Action{"", plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete}

var verdictNames = []string{"all", "selectable", "blocked/denied"}

// reviewScreen shows a plan grouped by kind, with a detail pane, filters
// and selection.
type reviewScreen struct {
	navigator
	c       *Common
	p       *plan.Plan
	purpose string // "apply" or "save"
	items   []item
	groups  []group // kinds in plan.Kinds order, then any unknown kinds
	rows    []row
	vis     []int32 // visible rows (indexes into rows), ascending
	heads   []int   // positions in vis of group and section rows
	cursor  int     // position in vis
	offset  int     // first visible position shown

	query    string
	editing  bool
	kindF    int // -1 = all kinds, else group index
	actionF  int // index into filterActions
	verdictF int // index into verdictNames

	lastFilter filterState
	filtered   bool // vis was computed with lastFilter
	listH      int  // list height of the last layout

	detailFull bool
	showHelp   bool
	status     string

	selectable, selected, denied int
	actions                      map[plan.Action]int // planned, per action
	sel                          map[plan.Action]int // selected, per action
	notes                        []string            // notes about the run (Options.Notes)

	detailOff int // first line of the full detail shown
}

func newReview(c *Common, p *plan.Plan, purpose string) *reviewScreen {
	r := &reviewScreen{c: c, p: p, purpose: purpose, kindF: -1, actions: map[plan.Action]int{}, sel: map[plan.Action]int{}}
	gi := map[plan.Kind]int32{}
	newGroup := func(k plan.Kind) {
		gi[k] = int32(len(r.groups))
		r.groups = append(r.groups, group{title: string(k), kind: k, actions: map[plan.Action]int{}, sel: map[plan.Action]int{}})
	}
	for _, k := range plan.Kinds {
		newGroup(k)
	}
	groupOf := func(k plan.Kind) int32 {
		if _, ok := gi[k]; !ok {
			newGroup(k)
		}
		return gi[k]
	}
	r.items = make([]item, 0, len(p.Changes))
	for i := range p.Changes {
		c := &p.Changes[i]
		it := item{ch: c, group: groupOf(c.Kind), selectable: true, selected: true}
		if c.Verdict != nil && !c.Verdict.Allowed {
			it.selectable, it.selected = false, false
			it.reason = "denied by policy"
			if c.Verdict.Rule != "" {
				it.reason += " rule " + c.Verdict.Rule
			}
			if c.Verdict.Message != "" {
				it.reason += ": " + c.Verdict.Message
			}
			r.denied++
		} else if c.Action == plan.ActionNoOp {
			it.selectable, it.selected = false, false
			it.reason = "no change needed"
		}
		r.items = append(r.items, it)
	}
	for i := range p.Blockers {
		b := &p.Blockers[i]
		if b.Change == nil {
			continue
		}
		r.items = append(r.items, item{ch: b.Change, group: groupOf(b.Change.Kind), reason: "blocked: " + b.Reason})
	}
	// Group items, keeping plan order within a kind.
	for i := range r.items {
		it := &r.items[i]
		g := &r.groups[it.group]
		g.items = append(g.items, int32(i))
		if it.selectable {
			g.selectable++
			r.selectable++
		}
		if it.selected {
			g.selected++
			r.selected++
			g.sel[it.ch.Action]++
			r.sel[it.ch.Action]++
		}
		if i < len(p.Changes) && it.ch.Action != plan.ActionNoOp {
			g.actions[it.ch.Action]++
			r.actions[it.ch.Action]++
		}
		g.labelW = max(g.labelW, lenCells(displayName(it.ch)))
		if rpc := rpcOf(it.ch); !contains(g.rpcs, rpc) {
			g.rpcs = append(g.rpcs, rpc)
		}
	}
	// Rows: every group with items, then blockers, then findings.
	n := len(r.items) + len(r.groups) + len(p.Blockers) + len(p.Findings) + 2
	r.rows = make([]row, 0, n)
	for gi := range r.groups {
		g := &r.groups[gi]
		if len(g.items) == 0 {
			continue
		}
		r.rows = append(r.rows, row{t: rowGroup, g: int32(gi)})
		for _, ii := range g.items {
			r.rows = append(r.rows, row{t: rowChange, g: int32(gi), i: ii, lower: changeSearch(r.items[ii].ch)})
		}
	}
	if len(p.Blockers) > 0 {
		r.rows = append(r.rows, row{t: rowSection, g: secBlockers})
		for i, b := range p.Blockers {
			r.rows = append(r.rows, row{t: rowBlocker, g: secBlockers, i: int32(i),
				lower: strings.ToLower(strings.Join([]string{string(b.Kind), b.ID, b.Resource, b.Reason}, " "))})
		}
	}
	if len(p.Findings) > 0 {
		r.rows = append(r.rows, row{t: rowSection, g: secFindings})
		for i, f := range p.Findings {
			r.rows = append(r.rows, row{t: rowFinding, g: secFindings, i: int32(i),
				lower: strings.ToLower(strings.Join([]string{f.ID, f.Severity, f.Resource, f.Message}, " "))})
		}
	}
	if len(p.PolicyNotes) > 0 {
		r.rows = append(r.rows, row{t: rowSection, g: secPolicy})
		for i, n := range p.PolicyNotes {
			r.rows = append(r.rows, row{t: rowNote, g: secPolicy, i: int32(i), lower: strings.ToLower(n)})
		}
	}
	r.refilter()
	return r
}

// setNotes puts notes about the run (what a demo left out, and why) at the
// top of the list, where they are read before anything is chosen.
func (r *reviewScreen) setNotes(notes []string) {
	if len(notes) == 0 {
		return
	}
	r.notes = notes
	head := []row{{t: rowSection, g: secNotes}}
	for i, n := range notes {
		head = append(head, row{t: rowNote, g: secNotes, i: int32(i), lower: strings.ToLower(n)})
	}
	r.rows = append(head, r.rows...)
	r.filtered = false
	r.refilter()
	// The cursor starts on the first change group, below the notes.
	r.cursor, r.offset = 0, 0
	if len(r.heads) > 1 {
		r.cursor = r.heads[1]
	}
	r.clampOffset()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// rpcOf names the admin RPC apply sends for c, or says why there is none.
func rpcOf(c *plan.Change) string {
	rpc, err := apply.RPCOf(c)
	if err != nil {
		return "no RPC: " + err.Error()
	}
	return rpc
}

// changeSearch is the lowercase text a change matches the search against.
func changeSearch(c *plan.Change) string {
	parts := []string{string(c.Kind), string(c.Action), displayName(c), c.Resource.Name, rpcOf(c)}
	if a := c.Resource.ACL; a != nil {
		parts = append(parts, a.Principal, a.Operation, a.Permission, a.Host)
	}
	if c.Resource.Mechanism != "" {
		parts = append(parts, c.Resource.Mechanism)
	}
	for _, s := range []*plan.State{c.Before, c.After} {
		if s != nil {
			for _, cf := range s.Configs {
				parts = append(parts, cf.Key)
			}
		}
	}
	return strings.ToLower(strings.Join(parts, " "))
}

// filtering reports whether any filter is set.
func (r *reviewScreen) filtering() bool {
	return r.query != "" || r.kindF >= 0 || r.actionF > 0 || r.verdictF > 0
}

func (r *reviewScreen) matchItem(rw *row) bool {
	it := &r.items[rw.i]
	if r.kindF >= 0 && rw.g != int32(r.kindF) {
		return false
	}
	if r.actionF > 0 && it.ch.Action != filterActions[r.actionF] {
		return false
	}
	switch r.verdictF {
	case 1:
		if !it.selectable {
			return false
		}
	case 2:
		if it.selectable {
			return false
		}
	}
	return r.query == "" || strings.Contains(rw.lower, r.query)
}

// refilter recomputes the visible rows. It is the only O(rows) step, run
// when a filter changes; the cursor stays on the same row when it is still
// visible. When the search text only grew (typing), it narrows the rows
// visible so far instead of scanning them all.
func (r *reviewScreen) refilter() {
	keep := int32(-1)
	if r.cursor < len(r.vis) {
		keep = r.vis[r.cursor]
	}
	q := strings.ToLower(r.query)
	r.query = q
	f := filterState{q, r.kindF, r.actionF, r.verdictF}
	narrow := r.filtered && f.narrows(r.lastFilter)
	r.lastFilter, r.filtered = f, true
	var candidates []int32
	if narrow {
		candidates = r.vis
	}
	n := len(r.rows)
	if narrow {
		n = len(candidates)
	}
	vis := make([]int32, 0, min(n, 1024))
	r.heads = r.heads[:0]
	header := int32(-1) // index in rows of the pending header
	for j := 0; j < n; j++ {
		i := int32(j)
		if narrow {
			i = candidates[j]
		}
		rw := &r.rows[i]
		ok := false
		switch rw.t {
		case rowGroup, rowSection:
			header = i
			continue
		case rowChange:
			ok = r.matchItem(rw)
		case rowBlocker:
			b := &r.p.Blockers[rw.i]
			ok = r.actionF == 0 && r.verdictF != 1 &&
				(r.kindF < 0 || b.Kind == r.groups[r.kindF].kind) && (q == "" || strings.Contains(rw.lower, q))
		case rowFinding, rowNote:
			ok = r.actionF == 0 && r.verdictF == 0 && r.kindF < 0 && (q == "" || strings.Contains(rw.lower, q))
		}
		if !ok {
			continue
		}
		if header >= 0 {
			r.heads = append(r.heads, len(vis))
			vis = append(vis, header)
			header = -1
		}
		vis = append(vis, i)
	}
	r.vis = vis
	r.cursor = 0
	if keep >= 0 {
		p := sort.Search(len(vis), func(i int) bool { return vis[i] >= keep })
		if p >= len(vis) {
			p = len(vis) - 1
		}
		r.cursor = max(p, 0)
	}
	r.clampOffset()
}

// filterState is the filter a visible list was computed with.
type filterState struct {
	query                 string
	kind, action, verdict int
}

// narrows reports whether f shows a subset of what prev showed: the same
// choices and a search that only grew.
func (f filterState) narrows(prev filterState) bool {
	return f.kind == prev.kind && f.action == prev.action && f.verdict == prev.verdict &&
		strings.HasPrefix(f.query, prev.query)
}

// Layout.

func (r *reviewScreen) SetSize(w, h int) {
	r.listH = 0
	r.clampOffset()
}

func (r *reviewScreen) headerLines() []string {
	s := r.c.Styles
	w := r.c.Width
	title := "Plan review"
	if r.purpose == "apply" {
		title = "Plan review before apply"
	}
	lines := limitLines(wrapTokens([]string{title, "·", termsafe.Line(endpoint(r.p.Source)), "→", termsafe.Line(endpoint(r.p.Target))}, " ", w), 2)
	for i := range lines {
		lines[i] = s.Title.Render(lines[i])
	}
	// The counts follow the selection: what is selected, per action, and
	// what is left out.
	counts := []string{
		fmt.Sprintf("%d of %s selected:", r.selected, english.N(r.selectable, "change")),
		s.Create.Render(fmt.Sprintf("+%d create", r.sel[plan.ActionCreate])),
		s.Update.Render(fmt.Sprintf("~%d update", r.sel[plan.ActionUpdate])),
		s.Delete.Render(fmt.Sprintf("-%d delete", r.sel[plan.ActionDelete])),
	}
	if n := r.selectable - r.selected; n > 0 {
		counts = append(counts, s.Bold.Render(fmt.Sprintf("· %d excluded", n)))
	}
	counts = append(counts,
		s.Blocked.Render("· "+english.N(len(r.p.Blockers), "blocker")),
		s.Blocked.Render(fmt.Sprintf("· %d denied by policy", r.denied)),
		"· "+english.N(len(r.p.Findings), "finding"))
	lines = append(lines, limitLines(wrapTokens(counts, " ", w), 2)...)
	var kinds []string
	for gi := range r.groups {
		g := &r.groups[gi]
		if len(g.items) == 0 {
			continue
		}
		kinds = append(kinds, g.title+" "+r.groupCounts(g))
	}
	lines = append(lines, limitLines(wrapTokens(kinds, s.Subtle.Render(" · "), w), 3)...)
	return lines
}

func limitLines(l []string, n int) []string {
	if len(l) > n {
		l = l[:n]
		l[n-1] += "…"
	}
	return l
}

// groupCounts is a group's selected changes per action, and how many of
// its selectable changes are excluded: "+21 (9 excluded)".
func (r *reviewScreen) groupCounts(g *group) string {
	out := r.actionCounts(g.sel)
	if n := g.selectable - g.selected; n > 0 {
		if out != "" {
			out += " "
		}
		out += r.c.Styles.Bold.Render(fmt.Sprintf("(%d excluded)", n))
	}
	if out == "" {
		out = r.c.Styles.Subtle.Render("none selectable")
	}
	return out
}

func (r *reviewScreen) actionCounts(m map[plan.Action]int) string {
	s := r.c.Styles
	var out []string
	for _, a := range []plan.Action{plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete, plan.ActionNoOp} {
		if n := m[a]; n > 0 {
			out = append(out, s.action(a).Render(fmt.Sprintf("%s%d", actionSymbol(a), n)))
		}
	}
	return strings.Join(out, " ")
}

func (r *reviewScreen) footerLines() []string {
	return []string{r.c.helpView(r, false)}
}

// layout returns the header and footer lines and the heights of the list
// and of the detail pane (the key help takes the list's place).
func (r *reviewScreen) layout() (header, footer []string, listH, detailH int) {
	header = r.headerLines()
	footer = r.footerLines()
	rest := r.c.Height - len(header) - len(footer) - 1 // status line
	if r.detailFull {
		return header, footer, 0, max(rest-1, 0)
	}
	detailH = min(max(rest*2/5, 4), 12)
	if rest < 10 {
		detailH = 0
	}
	listH = rest - detailH
	if detailH > 0 {
		listH-- // divider
	}
	return header, footer, max(listH, 1), detailH
}

// listHeight is the list height of the last frame (the header's height
// depends on its text, so it is measured when drawing).
func (r *reviewScreen) listHeight() int {
	if r.listH == 0 {
		_, _, r.listH, _ = r.layout()
	}
	return r.listH
}

// rowHeight is the number of lines visible row i takes.
func (r *reviewScreen) rowHeight(i int) int {
	return len(r.rowLines(&r.rows[r.vis[i]], false, r.c.Width))
}

// clampOffset keeps the cursor in the list and its row whole on screen,
// looking only at the rows around it.
func (r *reviewScreen) clampOffset() {
	if r.cursor >= len(r.vis) {
		r.cursor = len(r.vis) - 1
	}
	if r.cursor < 0 {
		r.cursor = 0
	}
	if len(r.vis) == 0 {
		r.offset = 0
		return
	}
	h := r.listHeight()
	r.offset = keepVisible(r.offset, r.cursor, h, r.rowHeight)
	r.offset = max(min(r.offset, lastOffset(len(r.vis), h, r.rowHeight)), 0)
}

// Update.

func (r *reviewScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if r.editing {
		return r.updateSearch(k)
	}
	r.status = ""
	km := r.c.KeyMap
	if r.showHelp { // the key help is open: ? or esc closes it
		switch {
		case key.Matches(k, km.Quit):
			r.navigate(quitMsg{})
		case key.Matches(k, km.Help), key.Matches(k, km.Back):
			r.showHelp = false
		}
		return nil
	}
	if r.detailFull { // the full detail scrolls; d or esc goes back
		switch {
		case key.Matches(k, km.Quit):
			r.navigate(quitMsg{})
		case key.Matches(k, km.Detail), key.Matches(k, km.Back):
			r.detailFull = false
		case key.Matches(k, km.Up):
			r.detailOff--
		case key.Matches(k, km.Down):
			r.detailOff++
		case key.Matches(k, km.PageUp):
			r.detailOff -= r.c.Height / 2
		case key.Matches(k, km.PageDown):
			r.detailOff += r.c.Height / 2
		case key.Matches(k, km.Top):
			r.detailOff = 0
		case key.Matches(k, km.Bottom):
			r.detailOff = 1 << 30
		case key.Matches(k, km.Help):
			r.showHelp = true
		}
		r.detailOff = max(r.detailOff, 0) // the view clamps the end
		return nil
	}
	switch {
	case key.Matches(k, km.Quit):
		r.navigate(quitMsg{})
		return nil
	case key.Matches(k, km.Up):
		r.move(-1)
	case key.Matches(k, km.Down):
		r.move(1)
	case key.Matches(k, km.PageUp):
		r.move(-r.listHeight())
	case key.Matches(k, km.PageDown):
		r.move(r.listHeight())
	case key.Matches(k, km.Top):
		r.move(-len(r.vis))
	case key.Matches(k, km.Bottom):
		r.move(len(r.vis))
	case key.Matches(k, km.NextGroup):
		r.jumpGroup(1)
	case key.Matches(k, km.PrevGroup):
		r.jumpGroup(-1)
	case key.Matches(k, km.Toggle):
		r.toggleCurrent()
	case key.Matches(k, km.ToggleGroup):
		if rw := r.current(); rw != nil && rw.g >= 0 {
			r.toggleGroup(int(rw.g))
		}
	case key.Matches(k, km.IncludeMatching):
		r.setMatching(true)
	case key.Matches(k, km.ExcludeMatching):
		r.setMatching(false)
	case key.Matches(k, km.Search):
		r.editing = true
	case key.Matches(k, km.KindFilter):
		r.cycleKind()
	case key.Matches(k, km.ActionFilter):
		r.actionF = (r.actionF + 1) % len(filterActions)
		r.refilter()
	case key.Matches(k, km.VerdictFilter):
		r.verdictF = (r.verdictF + 1) % len(verdictNames)
		r.refilter()
	case key.Matches(k, km.ClearFilter):
		if r.filtering() {
			r.query, r.kindF, r.actionF, r.verdictF = "", -1, 0, 0
			r.refilter()
		}
	case key.Matches(k, km.Detail):
		r.detailFull, r.detailOff = true, 0
	case key.Matches(k, km.Help):
		r.showHelp = !r.showHelp
	case key.Matches(k, km.Confirm):
		if r.selected == 0 {
			r.status = "nothing selected: space includes a change"
			return nil
		}
		r.navigate(reviewDoneMsg{})
		return nil
	}
	r.clampOffset()
	return nil
}

func (r *reviewScreen) updateSearch(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		r.editing = false
	case "esc":
		r.editing = false
		r.query = ""
		r.refilter()
	case "backspace":
		if q := []rune(r.query); len(q) > 0 {
			r.query = string(q[:len(q)-1])
			r.refilter()
		}
	case "ctrl+c":
		r.navigate(quitMsg{})
		return nil
	default:
		if k.Text != "" {
			r.query += k.Text
			r.refilter()
		}
	}
	return nil
}

func (r *reviewScreen) move(d int) {
	r.cursor += d
	r.clampOffset()
}

func (r *reviewScreen) jumpGroup(d int) {
	if len(r.heads) == 0 {
		return
	}
	// heads is sorted; find the first head after (or before) the cursor.
	i := sort.SearchInts(r.heads, r.cursor+1)
	if d < 0 {
		i = sort.SearchInts(r.heads, r.cursor) - 1
	}
	if i < 0 {
		i = len(r.heads) - 1
	}
	if i >= len(r.heads) {
		i = 0
	}
	r.cursor = r.heads[i]
	// Show the group's first lines under its header.
	r.offset = r.cursor
	r.clampOffset()
}

func (r *reviewScreen) cycleKind() {
	for n := 0; n <= len(r.groups); n++ {
		r.kindF++
		if r.kindF >= len(r.groups) {
			r.kindF = -1
			break
		}
		if len(r.groups[r.kindF].items) > 0 {
			break
		}
	}
	r.refilter()
}

func (r *reviewScreen) current() *row {
	if r.cursor < 0 || r.cursor >= len(r.vis) {
		return nil
	}
	return &r.rows[r.vis[r.cursor]]
}

func (r *reviewScreen) setItem(ii int32, sel bool) {
	it := &r.items[ii]
	if !it.selectable || it.selected == sel {
		return
	}
	it.selected = sel
	d := 1
	if !sel {
		d = -1
	}
	g := &r.groups[it.group]
	g.selected += d
	r.selected += d
	g.sel[it.ch.Action] += d
	r.sel[it.ch.Action] += d
}

func (r *reviewScreen) toggleCurrent() {
	rw := r.current()
	if rw == nil {
		return
	}
	switch rw.t {
	case rowGroup:
		r.toggleGroup(int(rw.g))
	case rowChange:
		it := &r.items[rw.i]
		if !it.selectable {
			r.status = "not selectable: " + it.reason
			return
		}
		r.setItem(rw.i, !it.selected)
	default:
		r.status = "blockers and findings are not changes: nothing to select"
	}
}

func (r *reviewScreen) toggleGroup(gi int) {
	g := &r.groups[gi]
	if g.selectable == 0 {
		r.status = "nothing in " + g.title + " is selectable"
		return
	}
	sel := g.selected < g.selectable
	for _, ii := range g.items {
		r.setItem(ii, sel)
	}
	if sel {
		r.status = fmt.Sprintf("included all of %s", g.title)
	} else {
		r.status = fmt.Sprintf("excluded all of %s", g.title)
	}
}

// setMatching includes or excludes every visible change.
func (r *reviewScreen) setMatching(sel bool) {
	n := 0
	for _, vi := range r.vis {
		rw := &r.rows[vi]
		if rw.t == rowChange && r.items[rw.i].selectable {
			r.setItem(rw.i, sel)
			n++
		}
	}
	verb := "excluded"
	if sel {
		verb = "included"
	}
	r.status = fmt.Sprintf("%s %d matching changes", verb, n)
}

// selectedPlan returns a copy of the plan holding only the selected
// changes, in plan order.
func (r *reviewScreen) selectedPlan() *plan.Plan {
	out := *r.p
	out.Changes = make([]plan.Change, 0, r.selected)
	for i := range r.p.Changes {
		if r.items[i].selected {
			out.Changes = append(out.Changes, r.p.Changes[i])
		}
	}
	return &out
}

// Help.

func (r *reviewScreen) ShortHelp() []key.Binding {
	km := r.c.KeyMap
	switch {
	case r.editing:
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
		}
	case r.showHelp:
		return []key.Binding{shortKey(km.Help, "?/esc", "close the key help"), shortKey(km.Quit, "q", "quit")}
	case r.detailFull:
		return []key.Binding{shortKey(km.Up, "↑/↓", "scroll"), shortKey(km.PageDown, "pgup/pgdn", "page"),
			shortKey(km.Detail, "d/esc", "back to the list"), shortKey(km.Quit, "q", "quit"), km.Help}
	}
	// What fits 80 columns; the rest (search, filters, detail, ...) is
	// under "?".
	return []key.Binding{km.Toggle, withHelp(km.ToggleGroup, "group"),
		withHelp(km.Confirm, r.confirmVerb()), shortKey(km.Quit, "q", "quit"), km.Help}
}

func (r *reviewScreen) confirmVerb() string {
	if r.purpose == "apply" {
		return "review & apply"
	}
	return "keep selection"
}

// FullHelp is every key of the review, as `?` shows it.
func (r *reviewScreen) FullHelp() [][]key.Binding {
	km := r.c.KeyMap
	return [][]key.Binding{
		{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom, km.NextGroup, km.PrevGroup},
		{km.Toggle, km.ToggleGroup, km.IncludeMatching, km.ExcludeMatching, km.Detail},
		{km.Search, km.KindFilter, km.ActionFilter, km.VerdictFilter, km.ClearFilter},
		{withHelp(km.Confirm, r.confirmVerb()), km.Quit, km.Help},
	}
}

// shortKey is b shown as k: desc (one key of several, to save room).
func shortKey(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}

func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}
