package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

// rowSet collects the rows of one list and fails the test when a row ends
// in an ellipsis, does not hold its change's name whole, or reads like
// another row of the same list.
type rowSet struct {
	t     *testing.T
	where string
	seen  map[string]string // rendered row → the change that rendered it
}

func newRowSet(t *testing.T, where string) *rowSet {
	return &rowSet{t: t, where: where, seen: map[string]string{}}
}

// squash drops every space, so that text wrapped onto lines compares whole.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// holdsWhole reports whether lines show name whole: its characters in
// order, continued from the end of its part on one line to the next line
// (a name wrapped in a column, with other columns beside it).
func holdsWhole(lines []string, name string) bool {
	rest := name
	for _, l := range lines {
		if rest == "" {
			break
		}
		k := len(rest)
		for k > 0 && !strings.Contains(l, rest[:k]) {
			k--
		}
		rest = rest[k:]
	}
	return rest == ""
}

func (s *rowSet) add(id, name string, lines []string, w int) {
	s.t.Helper()
	var text []string
	for _, l := range lines {
		l = strings.TrimRight(ansi.Strip(l), " ")
		if n := ansi.StringWidth(l); n > w {
			s.t.Errorf("%s: %s: a line is %d cells wide, more than %d: %q", s.where, id, n, w, l)
		}
		if strings.HasSuffix(l, "…") {
			s.t.Errorf("%s: %s: a row ends in an ellipsis: %q", s.where, id, l)
		}
		text = append(text, l)
	}
	row := strings.Join(text, "\n")
	if !holdsWhole(text, name) {
		s.t.Errorf("%s: %s: the row does not show the name %q whole:\n%s", s.where, id, name, row)
	}
	if other, dup := s.seen[row]; dup {
		s.t.Errorf("%s: %s and %s render alike:\n%s", s.where, other, id, row)
	}
	s.seen[row] = id
}

// TestRowsWhole renders every change of a large plan of long, alike names
// in every list (review, confirmation, history, sync, apply errors) at
// three widths: each row holds its change's name whole, none ends in an
// ellipsis, and no two rows of a list read alike.
func TestRowsWhole(t *testing.T) {
	p := fixture.Wide(1200)
	for _, sz := range sizes {
		w, h := sz.w, sz.h
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			m := newTestRoot(w, h, p, "apply")
			r := m.review
			groups := map[int32]*rowSet{}
			for _, vi := range r.vis {
				rw := &r.rows[vi]
				if rw.t != rowChange {
					continue
				}
				it := &r.items[rw.i]
				if groups[rw.g] == nil {
					groups[rw.g] = newRowSet(t, "review "+string(it.ch.Kind))
				}
				groups[rw.g].add(it.ch.ID, displayName(it.ch), r.rowLines(rw, false, w), w)
			}

			drive(t, m, "enter")
			if m.state != stateConfirm {
				t.Fatalf("state %v, want the confirmation", m.state)
			}
			conf := newRowSet(t, "confirmation")
			for i := range m.confirm.p.Changes {
				c := &m.confirm.p.Changes[i]
				conf.add(c.ID, displayName(c), m.confirm.changeLines(c), w)
			}

			hs := newHistory(newCommon(true, w, h), context.Background(), emptyHistory{})
			d := RunDetail{}
			hist := newRowSet(t, "history")
			for i := range p.Changes {
				c := &p.Changes[i]
				row := ChangeRow{Kind: string(c.Kind), Action: string(c.Action), Resource: plan.Label(c), Status: "succeeded"}
				d.Changes = append(d.Changes, row)
				hist.add(c.ID, displayName(c), hs.changeLines(row), w)
			}

			ss := newSyncScreen(newCommon(true, w, h), "t", nil, nil)
			sy := newRowSet(t, "sync")
			for i := range p.Changes {
				c := &p.Changes[i]
				round := syncer.Round{N: 1, Reason: syncer.ReasonReconcile, Finished: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC),
					Drift: p.Changes[i : i+1]}
				sy.add(c.ID, displayName(c), ss.roundLines(round)[1:], w)
			}

			a := newApply(newCommon(true, w, h), context.Background(), p, nil, 1)
			for i := range p.Changes {
				a.observe(applyResultFailed(&p.Changes[i]))
			}
			errs := newRowSet(t, "apply errors")
			for i, pr := range a.problems {
				c := &p.Changes[i]
				errs.add(c.ID, displayName(c), hang("  "+pr.mark+" ", pr.what+": "+pr.msg, w), w)
			}
		})
	}
}

// TestKeyHelpPage: at 80×24 `?` shows every key of the review (shift+tab
// included), none cut.
func TestKeyHelpPage(t *testing.T) {
	m := newTestRoot(80, 24, fixture.Plan(), "apply")
	drive(t, m, "?")
	v := ansi.Strip(view(m))
	for _, g := range m.review.FullHelp() {
		for _, b := range g {
			hp := b.Help()
			if !strings.Contains(v, hp.Key+" ") || !strings.Contains(v, hp.Desc) {
				t.Errorf("the key help lacks %q %q:\n%s", hp.Key, hp.Desc, v)
			}
		}
	}
	if !strings.Contains(v, "shift+tab") {
		t.Errorf("the key help lacks shift+tab:\n%s", v)
	}
	if page := v[strings.Index(v, "↑/k"):]; strings.Contains(page, "…") {
		t.Errorf("the key help is cut:\n%s", page)
	}
	drive(t, m, "?")
	if m.review.showHelp {
		t.Error("? did not close the key help")
	}
}

// TestCountsFollowSelection: excluding changes moves the header's and the
// group's counts.
func TestCountsFollowSelection(t *testing.T) {
	m := newTestRoot(120, 35, fixture.Plan(), "apply")
	drive(t, m, "K", "K", "K", "K", "K", "K", "K") // the ACL group
	drive(t, m, "j", "space", "j", "space")        // exclude two ACLs
	v := ansi.Strip(view(m))
	for _, want := range []string{"acl +2 (2 excluded)", "· 2 excluded ·", "19 of 21 changes selected: +12 create ~6 update -1 delete", "acl · 2 selected of 4"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

// TestNotesShownInReview: Options.Notes are at the top of the review.
func TestNotesShownInReview(t *testing.T) {
	m := newTestRoot(80, 24, fixture.Plan(), "apply")
	m.review.setNotes([]string{"demo: 3 ACLs on User resources left out: the in-process Kafka cannot store them"})
	v := ansi.Strip(view(m))
	if !strings.Contains(v, "Notes about this run (1)") || !strings.Contains(squash(v), squash("3 ACLs on User resources left out")) {
		t.Errorf("the review does not show the note:\n%s", v)
	}
}

// applyResultFailed is a failed result for c.
func applyResultFailed(c *plan.Change) apply.ResourceResult {
	return apply.ResourceResult{Change: c, ErrorCode: 44, ErrorName: "POLICY_VIOLATION", Message: "refused", Err: errBench}
}
