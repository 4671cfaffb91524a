package tui

import (
	"testing"

	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

const benchChanges = 100_000

// BenchmarkReviewBuild measures opening the review of a 100,000-change
// plan: grouping and precomputing the search strings (once per plan).
func BenchmarkReviewBuild(b *testing.B) {
	p := fixture.Large(benchChanges)
	b.ReportAllocs()
	for b.Loop() {
		newReview(newCommon(true, 120, 40), p, "apply")
	}
}

// BenchmarkReviewScrollFrame measures one frame while scrolling: a key
// press that moves the cursor, then View.
func BenchmarkReviewScrollFrame(b *testing.B) {
	for _, sz := range sizes {
		b.Run(sizeName(sz.w, sz.h), func(b *testing.B) {
			m := newTestRoot(sz.w, sz.h, fixture.Large(benchChanges), "apply")
			keys := [][]string{{"j"}, {"pgdown"}, {"k"}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				for _, msg := range press(keys[i%len(keys)][0]) {
					m.Update(msg)
				}
				_ = m.View()
				i++
			}
		})
	}
}

// BenchmarkReviewFilterFrame measures one frame while typing a search: the
// filter changes (one pass over the precomputed lowercase strings) and the
// screen is drawn.
func BenchmarkReviewFilterFrame(b *testing.B) {
	m := newTestRoot(120, 40, fixture.Large(benchChanges), "apply")
	drive(nil, m, "/")
	queries := []string{"t", "to", "top", "topi", "topic-00", "topic-000", "topic-0001", "acl u4", ""}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.review.query = queries[i%len(queries)]
		m.review.refilter()
		_ = m.View()
		i++
	}
}

// BenchmarkReviewToggleGroupFrame measures excluding or including a whole
// group of 12,500 changes and drawing the frame.
func BenchmarkReviewToggleGroupFrame(b *testing.B) {
	m := newTestRoot(120, 40, fixture.Large(benchChanges), "apply")
	b.ReportAllocs()
	for b.Loop() {
		for _, msg := range press("x") {
			m.Update(msg)
		}
		_ = m.View()
	}
}

func sizeName(w, h int) string {
	return itoa(w) + "x" + itoa(h)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestFrameWorkIndependentOfPlanSize checks that drawing a frame and moving
// the cursor do no per-change work: a 100,000-change plan allocates no more
// per frame than a 1,000-change one. (Allocations, not time: a check that
// cannot flake on a busy machine.)
func TestFrameWorkIndependentOfPlanSize(t *testing.T) {
	frame := func(n int) float64 {
		m := newTestRoot(120, 40, fixture.Large(n), "apply")
		drive(t, m, "jjjjj") // into the first group
		down, up := press("j")[0], press("k")[0]
		i := 0
		return testing.AllocsPerRun(50, func() {
			if i%2 == 0 {
				m.Update(down)
			} else {
				m.Update(up)
			}
			i++
			_ = m.View()
		})
	}
	small, large := frame(1_000), frame(benchChanges)
	if large > small*1.1+5 {
		t.Errorf("allocations per frame: %.0f with 100,000 changes, %.0f with 1,000: the frame does work per change", large, small)
	}
}
