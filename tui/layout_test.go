package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

// screensAt returns a root for every screen, sized w×h.
func screensAt(t *testing.T, w, h int) map[string]*root {
	out := map[string]*root{}
	out["review"] = newTestRoot(w, h, fixture.Plan(), "apply")
	d := newTestRoot(w, h, fixture.Plan(), "apply")
	drive(t, d, "jjjjjjjjjjjjj", "d")
	out["detail"] = d
	c := newTestRoot(w, h, fixture.Plan(), "apply")
	drive(t, c, "enter")
	out["confirm"] = c
	m, a := startedApply(t, w, h, fixture.Plan())
	evs := events(a.p, failPayments)
	send(m, applyEventsMsg{events: evs[:len(evs)/2]})
	drive(t, m, "ctrl+c")
	out["apply-cancel"] = m
	e, a2 := startedApply(t, w, h, fixture.Plan())
	send(e, applyEventsMsg{events: events(a2.p, failPayments), done: true})
	out["end"] = e
	cm := newCommon(true, w, h)
	hs := newHistory(cm, context.Background(), fakeHistory{})
	hr := &root{c: cm, state: stateHistory, history: hs}
	send(hr, hs.init()())
	out["history"] = hr
	var froze int
	out["sync"] = newSyncRoot(w, h, &froze, syncRounds()...)
	fq := newSyncRoot(w, h, &froze, syncRounds()...)
	drive(t, fq, "f")
	out["sync-freeze-question"] = fq
	out["sync-frozen"] = newSyncRoot(w, h, &froze, append(syncRounds(), frozenRounds()...)...)
	return out
}

// TestEveryScreenFitsAndResizes checks that every screen fills exactly its
// size, at 80×24 and after resizes down to 60×16 and up to 160×50.
func TestEveryScreenFitsAndResizes(t *testing.T) {
	for name, m := range screensAt(t, 80, 24) {
		for _, sz := range []struct{ w, h int }{{80, 24}, {60, 16}, {160, 50}, {100, 30}} {
			send(m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			lines := strings.Split(view(m), "\n")
			if len(lines) != sz.h {
				t.Errorf("%s at %dx%d: %d lines", name, sz.w, sz.h, len(lines))
			}
			for i, l := range lines {
				if n := ansi.StringWidth(l); n > sz.w {
					t.Errorf("%s at %dx%d: line %d is %d cells wide: %q", name, sz.w, sz.h, i, n, ansi.Strip(l))
				}
			}
		}
	}
}

// TestNoColor checks that NO_COLOR and Options.NoColor leave no colour in
// the views, and that without them colour is used.
func TestNoColor(t *testing.T) {
	hasColor := func(s string) bool {
		// SGR foreground colours: 30-37, 90-97, 38;5;n.
		for _, p := range []string{"\x1b[3", "\x1b[9", ";3", "38;5"} {
			if strings.Contains(s, p) {
				return true
			}
		}
		return false
	}
	render := func(c *Common) string {
		m := newReviewRoot(context.Background(), c, fixture.Plan(), "apply")
		return view(m)
	}
	t.Setenv("NO_COLOR", "")
	if !hasColor(render(common(Options{}))) {
		t.Fatal("no colour without NO_COLOR: the check below would prove nothing")
	}
	if got := render(common(Options{NoColor: true})); hasColor(got) {
		t.Errorf("Options.NoColor: the view has colour codes")
	}
	t.Setenv("NO_COLOR", "1")
	if got := render(common(Options{})); hasColor(got) {
		t.Errorf("NO_COLOR=1: the view has colour codes")
	}
}

var _ apply.Observer = apply.ObserverFunc(nil)

func TestKeyHelp(t *testing.T) {
	requireGolden(t, KeyHelp())
}

// TestFootersFit: at 80 columns every screen's key footer is whole (no
// "…": keys left out) and the review's ends with "? all keys", which shows
// the rest.
func TestFootersFit(t *testing.T) {
	for name, m := range screensAt(t, 80, 24) {
		lines := strings.Split(ansi.Strip(view(m)), "\n")
		footer := strings.TrimRight(lines[len(lines)-1], " ")
		if strings.Contains(footer, "…") {
			t.Errorf("%s at 80 columns: footer cut: %q", name, footer)
		}
		if name == "review" && !strings.HasSuffix(footer, "? all keys") {
			t.Errorf("review at 80 columns: footer %q does not end with \"? all keys\"", footer)
		}
	}
}
