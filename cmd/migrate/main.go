// Command migrate moves a ZooKeeper-mode Kafka cluster's metadata onto a
// KRaft cluster through the admin protocol, and audits what it reads,
// decides and does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes, documented in --help.
const (
	exitOK      = 0 // success, or nothing to do
	exitError   = 1 // error; nothing was changed by this command
	exitPending = 2 // plan: runnable changes pending
	exitPartial = 3 // apply: some resources failed; check/policy test: findings at or above the threshold
)

// env is what a command gets from the process: arguments, streams and
// whether stdout is a terminal.
type env struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	tty    bool
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, e *env) int
}

// commands is the table of subcommands. Each lives in its own file.
var commands = map[string]command{
	"version":  {"print the version", runVersion},
	"plan":     {"compute the changes that bring the target in line with the source (diff, -o json, --out plan.json)", runPlan},
	"apply":    {"apply a plan through the admin protocol (batched, validated, resumable, audited)", runApply},
	"demo":     {"the whole flow on a bundled legacy cluster and an in-process Kafka, no servers needed", runDemo},
	"audit":    {"the audit trail: log, show, export, verify (tamper evidence)", runAudit},
	"check":    {"pre-upgrade audit: what breaks on KRaft/Kafka 4, what cannot move, ACL hygiene, policy", runCheck},
	"snapshot": {"read the legacy cluster's metadata from ZooKeeper into a snapshot (summary, -o json, --out FILE)", runSnapshot},
	"policy":   {"TopicActionPolicy: convert legacy policy keys, test existing topics", runPolicy},
}

const usageHead = `migrate — move a ZooKeeper-mode Kafka cluster's metadata to KRaft, with proof.

Usage: migrate <command> [flags]

Commands:
`

const usageTail = `
Source:  --zookeeper host:port[,host:port][/chroot] [--zk-auth digest:user:pass]
         [--zk-tls-config-file FILE] [--broker-config server.properties]...
         [--password-encoder-secret-file FILE]   or   --snapshot FILE
Target:  --bootstrap-server host:port [--command-config client.properties]
Output:  human text by default; -o json everywhere.

Exit codes:
  0  success, or nothing to do
  1  error; nothing was changed by this command (a one-line cause on stderr)
  2  plan: runnable changes pending
  3  partial: apply with some resources failed; check / policy test with
     findings at or above --fail-on

Out of scope: message data and consumer offsets (MirrorMaker 2's job);
zkmigrate moves metadata and works alongside it.

Run 'migrate <command> --help' for a command's flags.
`

func usage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, usageTail)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, isTerminal(os.Stdout)))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "migrate: unknown command %q (try 'migrate --help')\n", args[0])
		return exitError
	}
	return c.run(ctx, &env{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr, tty: tty})
}

func runVersion(_ context.Context, e *env) int {
	fmt.Fprintf(e.stdout, "migrate %s\n", version)
	return exitOK
}

// fail prints a one-line error for cmd and returns exitError.
func fail(e *env, cmd string, err error) int {
	msg := strings.TrimSpace(err.Error())
	fmt.Fprintf(e.stderr, "migrate %s: %s\n", cmd, msg)
	return exitError
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// parseExit is the exit code for a flag parsing error: 0 for -h/--help
// (the usage was printed), 1 otherwise (flag printed the problem).
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitError
}
