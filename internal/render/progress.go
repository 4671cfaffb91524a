package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/spinner"

	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// Progress on long work is drawn here, for the commands: zkread and apply
// only report counts (zkread.Options.Progress, apply events). On a
// terminal it is one line on stderr, redrawn at most ten times a second
// and erased at the end, drawn with the bubbles spinner and progress bar;
// elsewhere, and with --quiet, there is none.

// meterInterval is how often a meter redraws at most.
const meterInterval = 100 * time.Millisecond

// Meter draws "⠹ reading ZooKeeper: 12,345 znodes · 8,210/s" (total
// unknown) or "[███░░░] 1,200/5,000 changes · 410/s · ETA 9s" (total
// known) on one terminal line. Its methods are safe for concurrent use.
type Meter struct {
	w     io.Writer
	step  func(msg string, done, total int) // instead of w: the TUI's loading screen, plain text
	label string                            // "reading ZooKeeper", "applying"
	unit  string                            // "znodes", "changes"

	mu    sync.Mutex
	now   func() time.Time
	start time.Time
	last  time.Time
	done  int
	total int
	frame int
	drawn bool
	bar   progress.Model
}

// NewMeter returns a meter drawing on w, or nil (which draws nothing) when
// w is nil.
func NewMeter(w io.Writer, label, unit string) *Meter {
	if w == nil {
		return nil
	}
	return &Meter{w: w, label: label, unit: unit, now: time.Now,
		bar: progress.New(progress.WithWidth(24), progress.WithoutPercentage(), progress.WithFillCharacters('█', '░'))}
}

// NewStepMeter returns a meter that reports each draw to step (the TUI's
// loading screen) as plain text instead of drawing a line.
func NewStepMeter(step func(msg string, done, total int), label, unit string) *Meter {
	m := NewMeter(io.Discard, label, unit)
	m.step = step
	return m
}

// Set records done (of total, 0 when unknown) and redraws when the last
// draw is old enough.
func (m *Meter) Set(done, total int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.total = done, total
	m.drawLocked(false)
}

// Update is Set for a callback that knows only the count (zkread).
func (m *Meter) Update(done int) { m.Set(done, 0) }

func (m *Meter) drawLocked(force bool) {
	now := m.now()
	if m.start.IsZero() {
		m.start = now
	}
	if !force && now.Sub(m.last) < meterInterval {
		return
	}
	m.last = now
	if m.step != nil {
		m.step(fmt.Sprintf("%s: %s %s", m.label, thousands(m.done), m.unit), m.done, m.total)
		return
	}
	fmt.Fprint(m.w, "\r"+m.lineLocked(now)+"\x1b[K")
	m.drawn = true
}

// lineLocked is the text of the line at now.
func (m *Meter) lineLocked(now time.Time) string {
	elapsed := now.Sub(m.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(m.done) / elapsed.Seconds()
	}
	var b strings.Builder
	if m.total > 0 {
		b.WriteString(m.bar.ViewAs(float64(m.done) / float64(m.total)))
		fmt.Fprintf(&b, " %s %s/%s %s", m.label, thousands(m.done), thousands(m.total), m.unit)
	} else {
		b.WriteString(spinner.Dot.Frames[m.frame%len(spinner.Dot.Frames)])
		m.frame++
		fmt.Fprintf(&b, " %s: %s %s", m.label, thousands(m.done), m.unit)
	}
	if elapsed >= time.Second {
		fmt.Fprintf(&b, " · %s/s", thousands(int(rate+0.5)))
		if m.total > 0 && rate > 0 && m.done < m.total {
			eta := time.Duration(float64(m.total-m.done) / rate * float64(time.Second))
			fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
		}
	}
	return b.String()
}

// Clear erases the line if it was drawn.
func (m *Meter) Clear() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clearLocked()
}

func (m *Meter) clearLocked() {
	if m.drawn {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.drawn = false
	}
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// meterObserver counts an apply's changes on a meter around the observer
// that prints them. When both write to the same terminal the meter line
// is erased before the inner observer prints and drawn again after, so
// their lines never mix.
type meterObserver struct {
	m            *Meter
	inner        apply.Observer
	sameTerminal bool // inner writes to the terminal the meter draws on
	done, total  int
}

// WithMeter puts a progress meter drawing on out around an apply's text
// printer inner; sameTerminal says inner writes to the terminal out is.
// With out nil it returns inner as it is.
func WithMeter(out io.Writer, sameTerminal bool, inner apply.Observer) apply.Observer {
	if out == nil {
		return inner
	}
	return &meterObserver{m: NewMeter(out, "applied", "changes"), inner: inner, sameTerminal: sameTerminal}
}

func (o *meterObserver) Observe(ev apply.Event) {
	switch ev := ev.(type) {
	case apply.RunStarted:
		o.total = ev.Total
	case apply.ResourceResult, apply.ChangeSkipped:
		o.done++
	}
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	cleared := false
	if o.sameTerminal && o.m.drawn {
		o.m.clearLocked()
		cleared = true
	}
	if o.inner != nil {
		o.inner.Observe(ev)
	}
	if _, end := ev.(apply.RunFinished); end {
		o.m.clearLocked()
		return
	}
	o.m.done, o.m.total = o.done, o.total
	o.m.drawLocked(cleared)
}
