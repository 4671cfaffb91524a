package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
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
			m := newMeter(&b, label, unit)
			now := t0
			m.now = func() time.Time { return now }
			m.set(0, tt.total) // starts the clock
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
	o := &meterObserver{m: newMeter(&term, "applied", "changes"), inner: text, sameTerminal: true}
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

// TestMainProcess runs main's code path (terminal detection included) as a
// child process, for the pseudo-terminal tests.
func TestMainProcess(t *testing.T) {
	args := os.Getenv("ZKM_MAIN_ARGS")
	if args == "" {
		return
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	os.Exit(runEnv(context.Background(), processEnv(argv)))
}

// runWithStderr runs migrate args in a child process whose stdout is a
// pipe and whose stderr is a pseudo-terminal (onTTY) or a pipe, and
// returns what stderr received.
func runWithStderr(t *testing.T, onTTY bool, args ...string) string {
	t.Helper()
	argv, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainProcess$")
	cmd.Env = append(os.Environ(), "ZKM_MAIN_ARGS="+string(argv))
	cmd.Stdout = io.Discard
	var errb bytes.Buffer
	if !onTTY {
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errb.String())
		}
		return errb.String()
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd.Stderr = tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(ptmx); done <- b }() // ends with EIO when the child exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	select {
	case b := <-done:
		return string(b)
	case <-time.After(30 * time.Second):
		t.Fatal("pseudo-terminal output did not end")
	}
	return ""
}

// TestProgressOnTerminalOnly: a text-mode apply (the demo's) draws its
// progress on stderr when that is a terminal, erases it at the end, and
// draws nothing on a pipe or with --quiet.
func TestProgressOnTerminalOnly(t *testing.T) {
	args := []string{"demo", "--no-tui", "--no-audit"}
	out := runWithStderr(t, true, args...)
	if !strings.Contains(ansi.Strip(out), "applied 0/59 changes") || !strings.Contains(out, "\r\x1b[K") {
		t.Errorf("no progress on the terminal: %q", out)
	}
	if out := runWithStderr(t, true, append(args, "--quiet")...); strings.Contains(out, "applied") {
		t.Errorf("progress despite --quiet: %q", out)
	}
	if out := runWithStderr(t, false, args...); strings.Contains(out, "applied") || strings.Contains(out, "\x1b[") {
		t.Errorf("progress on a pipe: %q", out)
	}
}

// TestReadProgressOnTerminalOnly: reading ZooKeeper shows znodes read on a
// terminal, and nothing on a pipe.
func TestReadProgressOnTerminalOnly(t *testing.T) {
	// A generated cluster large enough for zkread to report progress (it
	// reports every 500 znodes), in a chroot of its own, deleted after.
	addr := strings.TrimSuffix(testbed.ZK(t), "/") + fmt.Sprintf("/zkm-progress-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := zkgen.DialZK(addr, 2, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if err := w.Prepare(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := zkgen.Delete(context.Background(), w.Conns(), w.Chroot(), 200); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	sum, err := zkgen.Generate(ctx, zkgen.Small(7), w, zkgen.Options{Writers: 2, Batch: 50})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Znodes < 501 {
		t.Fatalf("generated only %d znodes", sum.Znodes)
	}
	args := []string{"snapshot", "--zookeeper", addr, "--full"}
	if out := runWithStderr(t, true, args...); !strings.Contains(ansi.Strip(out), "reading ZooKeeper: ") || !strings.Contains(out, "znodes") {
		t.Errorf("no read progress on the terminal: %q", out)
	}
	if out := runWithStderr(t, false, args...); strings.Contains(out, "reading ZooKeeper") {
		t.Errorf("read progress on a pipe: %q", out)
	}
}
