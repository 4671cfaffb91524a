package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// TestMeterLine: the meter's line at given moments: a count and rate for
// a read of unknown size, a bar, count, rate and ETA for a known total.
func TestMeterLine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		done, total int
		at          time.Duration
		want        []string
		not         []string
	}{
		{"read, first draw", 0, 0, 0, []string{"reading ZooKeeper: 0 znodes"}, []string{"/s"}},
		{"read after 2s", 24690, 0, 2 * time.Second, []string{"reading ZooKeeper: 24,690 znodes", "· 12,345/s"}, []string{"ETA"}},
		{"apply half after 10s", 500, 1000, 10 * time.Second, []string{"applied 500/1,000 changes", "· 50/s", "· ETA 10s"}, nil},
		{"apply done", 1000, 1000, 20 * time.Second, []string{"applied 1,000/1,000 changes", "· 50/s"}, []string{"ETA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			label, unit := "reading ZooKeeper", "znodes"
			if tt.total > 0 {
				label, unit = "applied", "changes"
			}
			var b bytes.Buffer
			m := NewMeter(&b, label, unit)
			now := t0
			m.now = func() time.Time { return now }
			m.Set(0, tt.total) // starts the clock
			now = t0.Add(tt.at)
			m.mu.Lock()
			m.done = tt.done
			line := ansi.Strip(m.lineLocked(now))
			m.mu.Unlock()
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(line, n) {
					t.Errorf("line %q has %q", line, n)
				}
			}
			if tt.total > 0 && !strings.ContainsAny(line, "█░") {
				t.Errorf("line %q has no bar", line)
			}
		})
	}
}

// TestMeterObserverKeepsLinesApart: on a shared terminal the meter line is
// erased before every line the apply printer writes, and erased at the end.
func TestMeterObserverKeepsLinesApart(t *testing.T) {
	var term bytes.Buffer
	text := apply.ObserverFunc(func(ev apply.Event) {
		if _, ok := ev.(apply.ResourceResult); ok {
			term.WriteString("+ topic t: created\n")
		}
	})
	o := &meterObserver{m: NewMeter(&term, "applied", "changes"), inner: text, sameTerminal: true}
	o.Observe(apply.RunStarted{Total: 2})
	o.Observe(apply.ResourceResult{})
	o.Observe(apply.ResourceResult{})
	o.Observe(apply.RunFinished{Succeeded: 2})
	out := term.String()
	for _, l := range strings.Split(out, "\n") {
		// a printed line starts at the left margin of an erased line
		if i := strings.Index(l, "+ topic"); i >= 0 && !strings.HasSuffix(l[:i], "\r\x1b[K") {
			t.Errorf("printed line mixed with the meter: %q", l)
		}
	}
	if !strings.Contains(ansi.Strip(out), "applied 1/2 changes") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("meter not drawn, or not erased at the end: %q", out)
	}
}
