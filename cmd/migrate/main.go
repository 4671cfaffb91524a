// Command migrate moves a ZooKeeper-mode Kafka cluster's metadata onto a
// KRaft cluster through the admin protocol, and audits what it reads,
// decides and does.
//
// The command line is built with spf13/cobra and spf13/pflag (GNU-style
// --long-flags, grouped help, shell completion); see cli.go.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes, documented in --help.
const (
	exitOK      = 0 // success, or nothing to do
	exitError   = 1 // error; nothing was changed by this command
	exitPending = 2 // plan: runnable changes pending
	exitPartial = 3 // apply: some resources failed; check/policy test: findings at or above the threshold; audit verify: chain broken
)

// env is what a command gets from the process: its arguments (those after
// the command's name, as typed), streams, whether stdout is a terminal and
// whether stderr is one (progress is drawn there).
type env struct {
	args      []string
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	tty       bool
	stderrTTY bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		tty: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr)}
	os.Exit(runEnv(ctx, e))
}

// run runs the command line args with the given streams; tty says whether
// stdout (and stderr) are a terminal. Tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool) int {
	return runEnv(ctx, &env{args: args, stdin: stdin, stdout: stdout, stderr: stderr, tty: tty, stderrTTY: tty})
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
