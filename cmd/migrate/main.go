// Command migrate moves a ZooKeeper-mode Kafka cluster's metadata onto a
// KRaft cluster through the admin protocol, and audits what it reads,
// decides and does.
//
// The command line is built with spf13/cobra and spf13/pflag (GNU-style
// --long-flags, grouped help, shell completion); see cli.go.
package main

import (
	"context"
	"github.com/zkmigrate/zkmigrate/internal/memprofile"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"
)

// version, commit and buildDate are set by a release build with -ldflags
// "-X main.version=... -X main.commit=... -X main.buildDate=..."; an
// empty commit or date is taken from what the Go toolchain stamped
// (internal/buildinfo).
var (
	version   = "0.1.0-dev"
	commit    string
	buildDate string
)

// Exit codes, documented in --help.
const (
	exitOK      = 0 // success, or nothing to do
	exitError   = 1 // error; nothing was changed by this command
	exitPending = 2 // plan: runnable changes pending
	exitPartial = 3 // apply: some resources failed; check/policy test: findings at or above the threshold; audit verify: chain broken
)

// env is what a command gets from the process: its arguments (those after
// the command's name, as typed), streams, whether stdout is a terminal and
// whether stderr is one (progress is drawn there), and how the user runs
// this program (for hints they can paste).
type env struct {
	args      []string
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	tty       bool
	stderrTTY bool
	prog      string // "migrate", "bin/migrate", "go run ./cmd/migrate"
	auditDB   string // the audit database this run records in, when not the default
	noColor   bool   // --no-color, or NO_COLOR set (https://no-color.org): no colour anywhere
}

// textOptions are the text diff's options: colour (through the barrier's
// trusted side) only on a terminal, and neither with --no-color nor
// NO_COLOR.
func (e *env) textOptions(detail bool) render.TextOptions {
	o := render.TextOptions{Detail: detail}
	if e.tty && !e.noColor {
		o.Color = trusted(e.stdout)
	}
	return o
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile := memprofile.StartCPU()
	code := runEnv(ctx, processEnv(os.Args[1:]))
	stopProfile()
	os.Exit(code)
}

// processEnv is the environment of this process: its standard streams and
// which of them are terminals.
func processEnv(args []string) *env {
	return &env{args: args, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		tty: isTerminal(os.Stdout), stderrTTY: isTerminal(os.Stderr), prog: progName(os.Args[0]), noColor: os.Getenv("NO_COLOR") != ""}
}

// run runs the command line args with the given streams; tty says whether
// stdout (and stderr) are a terminal. Tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool) int {
	return runEnv(ctx, &env{args: args, stdin: stdin, stdout: stdout, stderr: stderr, tty: tty, stderrTTY: tty, prog: "migrate"})
}

// progName is how hints name this program: as it was started, except that
// a binary `go run` built in its cache (gone when it exits) is named by the
// go run command.
func progName(arg0 string) string {
	if strings.Contains(arg0, "go-build") {
		return "go run ./cmd/migrate"
	}
	return arg0
}

// auditCmd is an audit subcommand on the database this run records in,
// ready to paste: "bin/migrate audit show 3 --audit-db /tmp/demo.db".
func (e *env) auditCmd(sub string, args ...string) string {
	parts := append([]string{e.prog, "audit", sub}, args...)
	if e.auditDB != "" {
		parts = append(parts, "--audit-db", shellQuote(e.auditDB))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isTerminal reports whether f is a terminal (not merely a character
// device such as /dev/null).
func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }
