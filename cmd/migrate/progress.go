package main

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

// Progress on long work is drawn here, by the command: zkread and apply
// only report counts (zkread.Options.Progress, apply events). On a
// terminal it is one line on stderr, redrawn at most ten times a second
// and erased at the end, drawn with the bubbles spinner and progress bar;
// elsewhere, and with --quiet, there is none.

// meterInterval is how often a meter redraws at most.
const meterInterval = 100 * time.Millisecond

// meter draws "⠹ reading ZooKeeper: 12,345 znodes · 8,210/s" (total
// unknown) or "[███░░░] 1,200/5,000 changes · 410/s · ETA 9s" (total
// known) on one terminal line. Its methods are safe for concurrent use.
type meter struct {
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

// newMeter returns a meter drawing on w, or nil (which draws nothing) when
// w is nil.
func newMeter(w io.Writer, label, unit string) *meter {
	if w == nil {
		return nil
	}
	return &meter{w: w, label: label, unit: unit, now: time.Now,
		bar: progress.New(progress.WithWidth(24), progress.WithoutPercentage(), progress.WithFillCharacters('█', '░'))}
}

// zkMeter is the meter for a ZooKeeper read reporting to progress: the
// terminal, the TUI's loading screen, or nothing (io.Discard).
func zkMeter(progress io.Writer) *meter {
	switch w := progress.(type) {
	case nil:
		return nil
	case stepWriter:
		m := newMeter(io.Discard, "reading ZooKeeper", "znodes")
		m.step = w.step
		return m
	}
	if progress == io.Discard {
		return nil
	}
	return newMeter(progress, "reading ZooKeeper", "znodes")
}

// progressOut is where a command draws progress: stderr when it is a
// terminal and --quiet is not given, else nowhere.
func (e *env) progressOut(quiet bool) io.Writer {
	if e.stderrTTY && !quiet {
		return e.stderr
	}
	return io.Discard
}

// set records done (of total, 0 when unknown) and redraws when the last
// draw is old enough.
func (m *meter) set(done, total int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.total = done, total
	m.drawLocked(false)
}

// update is set for a callback that knows only the count (zkread).
func (m *meter) update(done int) { m.set(done, 0) }

func (m *meter) drawLocked(force bool) {
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
func (m *meter) lineLocked(now time.Time) string {
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

// clear erases the line if it was drawn.
func (m *meter) clear() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clearLocked()
}

func (m *meter) clearLocked() {
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
	m            *meter
	inner        apply.Observer
	sameTerminal bool // inner writes to the terminal the meter draws on
	done, total  int
}

// withMeter puts a progress meter around a text-mode apply's printer when
// stderr is a terminal (and not --quiet); else it returns text as it is.
func withMeter(e *env, quiet bool, text apply.Observer) apply.Observer {
	out := e.progressOut(quiet)
	if out == io.Discard {
		return text
	}
	return &meterObserver{m: newMeter(out, "applied", "changes"), inner: text, sameTerminal: e.tty}
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
