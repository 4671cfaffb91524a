package main

import (
	"io"

	"github.com/zkmigrate/zkmigrate/internal/render"
)

// Progress on long work is drawn by render's meter, on stderr when it is
// a terminal (and not --quiet); elsewhere there is none.

// progressOut is where a command draws progress: stderr when it is a
// terminal and --quiet is not given, else nowhere.
func (e *env) progressOut(quiet bool) io.Writer {
	if e.stderrTTY && !quiet {
		return trusted(e.stderr) // the line redraws itself: \r, erase to the end
	}
	return io.Discard
}

// zkMeter is the meter for a ZooKeeper read reporting to progress: the
// terminal, the TUI's loading screen, or nothing (nil, io.Discard).
func zkMeter(progress io.Writer) *render.Meter {
	switch w := progress.(type) {
	case nil:
		return nil
	case stepWriter:
		return render.NewStepMeter(w.step, "reading ZooKeeper", "znodes")
	}
	if progress == io.Discard {
		return nil
	}
	return render.NewMeter(progress, "reading ZooKeeper", "znodes")
}

// meterOut is where an apply's progress meter draws: stderr when it is a
// terminal (and not --quiet), else nil (no meter).
func (e *env) meterOut(quiet bool) io.Writer {
	if out := e.progressOut(quiet); out != io.Discard {
		return out
	}
	return nil
}
