package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/buildinfo"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
)

// The command line is spf13/cobra over spf13/pflag: the library kubectl,
// helm and most Go operator tools use, so flags behave as a Kafka operator
// expects (--long-flags, -o json, --flag=value), help is grouped, and
// `migrate completion bash|zsh|fish` comes with it. Each command is built
// by a newXxxCmd function next to its code; flags are registered by the
// same register functions as before (pflag's StringVar, BoolVar, ... take
// the arguments the standard flag package's did).

// cli is one run of the command line: the process environment and the exit
// code the command that ran chose.
type cli struct {
	e       *env
	code    int
	noColor bool // --no-color, on the commands that show plans
}

// colorFlag registers --no-color, on the commands that show a text plan or
// the terminal UI.
func (c *cli) colorFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&c.noColor, "no-color", false, "no colour in the text plan and the terminal UI\n(as NO_COLOR=1 does)")
}

// runFunc is a command's body: it gets the environment (e.args are the
// arguments after the command's name, as typed) and the positional
// arguments left after the flags, and returns the exit code.
type runFunc func(ctx context.Context, e *env, args []string) int

// command builds a cobra command whose body is run. long is the text of
// `--help` above the flags (usage lines, what it does, exit codes).
func (c *cli) command(use, short, long string, run runFunc) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long, Args: cobra.ArbitraryArgs}
	if run != nil {
		cmd.RunE = func(cc *cobra.Command, args []string) error {
			se := *c.e
			se.args = cmdline.ArgsAfter(cc, c.e.args)
			se.noColor = se.noColor || c.noColor
			c.code = run(cc.Context(), &se, args)
			return nil
		}
	}
	cmd.Flags().SortFlags = false
	return cmd
}

// leaf is command for a command that takes no positional argument: one
// given is refused, naming it, before run.
func (c *cli) leaf(use, short, long string, run runFunc) *cobra.Command {
	var cmd *cobra.Command
	cmd = c.command(use, short, long, func(ctx context.Context, e *env, args []string) int {
		if len(args) > 0 {
			return fail(e, strings.TrimPrefix(cmd.CommandPath(), "migrate "), fmt.Errorf("unexpected argument %q", args[0]))
		}
		return run(ctx, e, args)
	})
	return cmd
}

// root builds the whole command tree.
func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:           "migrate",
		Short:         "move a ZooKeeper-mode Kafka cluster's metadata to KRaft, with proof",
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("migrate {{.Version}}\n")
	// Before the completion command is made: it keeps the writer it sees.
	root.SetIn(c.e.stdin)
	root.SetOut(c.e.stdout)
	root.SetErr(c.e.stderr)
	root.CompletionOptions.HiddenDefaultCmd = false
	root.AddCommand(
		c.newVersionCmd(),
		c.newSnapshotCmd(),
		c.newCheckCmd(),
		c.newExplainCmd(),
		c.newPlanCmd(),
		c.newApplyCmd(),
		c.newSyncCmd(),
		c.newAuditCmd(),
		c.newPolicyCmd(),
		c.newDemoCmd(),
		c.newBootstrapCmd(),
		c.newAccessCmd(),
	)
	root.InitDefaultCompletionCmd()
	if cc, _, err := root.Find([]string{"completion"}); err == nil && cc != root {
		cc.Short = "print a shell completion script: migrate completion bash|zsh|fish"
	}
	root.SetHelpFunc(func(cc *cobra.Command, _ []string) {
		if cc == root {
			usage(cc.OutOrStdout(), root)
			return
		}
		cmdline.PrintHelp(cc.OutOrStdout(), cc, helpGroups, "migrate help flags "+strings.TrimPrefix(cc.CommandPath(), "migrate "))
	})
	root.SetHelpCommand(c.newHelpCmd(root))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRun = func(cc *cobra.Command, _ []string) { warnInlineSecrets(c.e, cc) }
	registerCompletions(root)
	return root
}

// usageError is a bad flag or a missing or bad flag value.
type usageError struct{ err error }

func (u usageError) Error() string { return cmdline.FlagErrorText(u.err) }

func (u usageError) Unwrap() error { return u.err }

// runEnv runs one command line. Everything it writes to stdout and stderr
// passes the terminal barrier (termsafe.Writer): a name or value from a
// cluster or a file, whichever view prints it, cannot drive the terminal.
// Only the TUI and the progress line, which escape what they show
// themselves, write around it (env.trusted).
func runEnv(ctx context.Context, e *env) int {
	out, errw := termsafe.NewWriter(e.stdout), termsafe.NewWriter(e.stderr)
	defer func() { _ = out.Flush(); _ = errw.Flush() }()
	se := *e
	se.stdout, se.stderr = out, errw
	e = &se
	c := &cli{e: e}
	root := c.root()
	args := cmdline.NormalizeArgs(root, e.args)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return c.code
	}
	if cmd == nil || cmd == root {
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			hint := ""
			if s := root.SuggestionsFor(args[0]); len(s) > 0 {
				hint = "; did you mean " + strings.Join(s, " or ") + "?"
			}
			fmt.Fprintf(e.stderr, "migrate: unknown command %q%s (try 'migrate --help')\n", args[0], hint)
		} else {
			fmt.Fprintf(e.stderr, "migrate: %s (try 'migrate --help')\n", cmdline.FlagErrorTextFor(root, err))
		}
		return exitError
	}
	fmt.Fprintf(e.stderr, "%s: %s (see '%s --help')\n", cmd.CommandPath(), cmdline.FlagErrorTextFor(cmd, err), cmd.CommandPath())
	return exitError
}

// warnInlineSecrets warns when a credential was given on the command line,
// where every user of the machine can read it (ps, /proc/PID/cmdline).
func warnInlineSecrets(e *env, cmd *cobra.Command) {
	f := cmd.Flags().Lookup("zk-auth")
	if f == nil || !f.Changed || strings.HasPrefix(f.Value.String(), "@") {
		return
	}
	scheme, _, _ := strings.Cut(f.Value.String(), ":")
	fmt.Fprintf(e.stderr, "%s: warning: --zk-auth %s:... on the command line can be read by other users of this machine in the process list; "+
		"put it in a file only you can read and pass --zk-auth @FILE\n", cmd.CommandPath(), scheme)
}

// fail prints a one-line error for cmd and returns exitError.
func fail(e *env, cmd string, err error) int {
	msg := strings.TrimSpace(cliflags.ErrorText(err))
	fmt.Fprintf(e.stderr, "migrate %s: %s\n", cmd, msg)
	return exitError
}

func (c *cli) newVersionCmd() *cobra.Command {
	var output string
	cmd := c.leaf("version", "print the version, commit, build date and Go version",
		"Usage: migrate version [-o text|json]\n\nPrint the version, the commit it was built from (and whether the tree\nhad uncommitted changes), the build date (the commit's time unless a\nrelease build set it) and the Go version.\n",
		func(_ context.Context, e *env, args []string) int {
			view, err := render.VersionView(render.Output(output), e.stdout)
			if err != nil {
				return fail(e, "version", err)
			}
			_ = view(buildinfo.Read(version, commit, buildDate))
			return exitOK
		})
	cmdline.OutputFlag(cmd.Flags(), &output, "output: text or json", "text", "json")
	return cmd
}

var usageHead = usageText("usage_head")

var usageTail = usageText("usage_tail")

// usage is `migrate --help`.
func usage(w io.Writer, root *cobra.Command) {
	fmt.Fprint(w, usageHead)
	cmds := root.Commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	for _, c := range cmds {
		if c.IsAvailableCommand() && c.Name() != "help" {
			fmt.Fprintf(w, "  %-10s %s\n", c.Name(), c.Short)
		}
	}
	fmt.Fprint(w, usageTail)
}

// trusted returns the writer under w's terminal barrier, for output that
// escapes what it shows itself and draws with escape sequences of its own
// (the progress line); w itself when it has no barrier.
func trusted(w io.Writer) io.Writer {
	if t, ok := w.(*termsafe.Writer); ok {
		return t.Trusted()
	}
	return w
}

// terminal returns the stream under w's terminal barrier itself, for the
// TUI: a full-screen program needs the terminal's file to learn its size
// and set its modes, and escapes every name it shows (internal/termsafe).
func terminal(w io.Writer) io.Writer {
	if t, ok := w.(*termsafe.Writer); ok {
		return t.Terminal()
	}
	return w
}

// newHelpCmd is `migrate help [COMMAND... | keys | flags COMMAND...]`: a
// command's help, as its --help; the help topic "keys" (the terminal UI's
// keys, which every command with a UI points to instead of repeating
// them); or "flags" and a command, every flag of the command in full
// (--help gives each one line).
func (c *cli) newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | keys | flags command]",
		Short: "help about a command, its flags in full (migrate help flags CMD), or the terminal UI's keys (migrate help keys)",
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			out := []string{"keys", "flags"}
			for _, s := range root.Commands() {
				if s.IsAvailableCommand() {
					out = append(out, s.Name())
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		Run: func(cc *cobra.Command, args []string) {
			if len(args) == 1 && args[0] == "keys" {
				fmt.Fprint(cc.OutOrStdout(), keyHelp())
				return
			}
			flags := len(args) > 1 && args[0] == "flags"
			if flags {
				args = args[1:]
			}
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 || (flags && target == root) {
				topic := strings.Join(args, " ")
				fmt.Fprintf(c.e.stderr, "migrate help: unknown help topic %q%s (a command, keys, or flags and a command)\n", topic,
					cmdline.DidYouMean(topic, append([]string{"keys", "flags"}, commandNames(root)...), ""))
				c.code = exitError
				return
			}
			if flags {
				cmdline.FlagsHelp(cc.OutOrStdout(), target, helpGroups)
				return
			}
			_ = target.Help()
		},
	}
}

// commandNames are the names of root's commands.
func commandNames(root *cobra.Command) []string {
	var out []string
	for _, s := range root.Commands() {
		if s.IsAvailableCommand() {
			out = append(out, s.Name())
		}
	}
	return out
}
