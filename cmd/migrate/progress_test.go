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

	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
)

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
