package tui

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/tui/internal/fixture"
)

const benchChanges = 100_000

// BenchmarkReviewBuild measures opening the review of a 100,000-change
// plan: grouping and precomputing the search strings (once per plan).
func BenchmarkReviewBuild(b *testing.B) {
	p := fixture.Large(benchChanges)
	b.ReportAllocs()
	defer reportCPU(b)()
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
			defer reportCPU(b)()
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
	defer reportCPU(b)()
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
	defer reportCPU(b)()
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

// cpuTime is the process's user+system CPU time. The benchmarks report it
// per op (cpu-ms/op) next to wall time: on a shared, loaded machine the
// wall time mostly measures the wait for a core.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// reportCPU wraps a benchmark loop: call the returned func after the loop.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric((cpuTime()-start)/float64(b.N), "cpu-ms/op") }
}

// BenchmarkApplyFrame measures the apply screen of a 100,000-change run:
// taking in a batch of 500 results (1% failing) and drawing the frame.
func BenchmarkApplyFrame(b *testing.B) {
	p := fixture.Large(benchChanges)
	c := newCommon(true, 120, 40)
	a := newApply(c, context.Background(), p, nil, 1)
	evs := make([]apply.Event, 0, 500)
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		evs = evs[:0]
		for j := 0; j < 500; j++ {
			ch := &p.Changes[i%len(p.Changes)]
			r := apply.ResourceResult{Change: ch, Batch: i / 500}
			if i%100 == 0 {
				r.ErrorCode, r.ErrorName, r.Err = 44, "POLICY_VIOLATION", errBench
			}
			evs = append(evs, r)
			i++
		}
		a.Update(applyEventsMsg{events: evs})
		_ = a.View()
	}
}

var errBench = errors.New("policy violation")
