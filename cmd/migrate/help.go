package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Help groups, in the order --help shows them.
const (
	groupSource    = "Source"
	groupTarget    = "Target"
	groupSelection = "Selection"
	groupSafety    = "Safety"
	groupOutput    = "Output"
	groupAudit     = "Audit trail"
	groupOther     = "Other"
)

var groupOrder = []string{groupSource, groupTarget, groupSelection, groupSafety, groupOutput, groupAudit, groupOther}

// flagGroups puts every flag in a help group. A flag not listed here shows
// under "Other flags" (TestEveryFlagHasAGroup fails on one).
var flagGroups = map[string]string{
	// where the metadata comes from
	"zookeeper":                    groupSource,
	"zk-auth":                      groupSource,
	"zk-tls-config-file":           groupSource,
	"broker-config":                groupSource,
	"password-encoder-secret-file": groupSource,
	"snapshot":                     groupSource,
	"source-bootstrap-server":      groupSource,
	"source-command-config":        groupSource,
	"zk-data-dir":                  groupSource,
	"zk-data-log-dir":              groupSource,
	"zk-chroot":                    groupSource,
	"zk-zxid":                      groupSource,
	"zk-time":                      groupSource,
	"full":                         groupSource,
	"zk-requests-in-flight":        groupSource,
	"zk-connections":               groupSource,
	"zk-no-multi-read":             groupSource,
	"zk-timeout":                   groupSource,
	"scram-credentials":            groupSource,
	// where it goes
	"bootstrap-server": groupTarget,
	"command-config":   groupTarget,
	"principal":        groupTarget,
	"target-snapshot":  groupTarget,
	"target-version":   groupTarget,
	"brokers":          groupTarget,
	"target-config":    groupTarget,
	"principal-map":    groupSelection,
	"planned":          groupSelection,
	"accept":           groupSafety,
	"no-access-proof":  groupSafety,
	"operation":        groupSelection,
	"resource":         groupSelection,
	"host":             groupSelection,
	// what moves
	"plan":                     groupSelection,
	"include":                  groupSelection,
	"exclude":                  groupSelection,
	"topics":                   groupSelection,
	"principals":               groupSelection,
	"broker-id-map":            groupSelection,
	"reassign":                 groupSelection,
	"prune":                    groupSelection,
	"resend-secrets":           groupSelection,
	"placement":                groupSelection,
	"prune-cluster-configs":    groupSelection,
	"raise-to-target-minimums": groupSelection,
	"kind":                     groupSelection,
	"status":                   groupSelection,
	"limit":                    groupSelection,
	// what guards it
	"policy":         groupSafety,
	"yes":            groupSafety,
	"validate-only":  groupSafety,
	"no-preflight":   groupSafety,
	"verify-timeout": groupSafety,
	// sync
	"freeze":            groupSafety,
	"exit-on-change":    groupSafety,
	"keep-target-edits": groupSafety,
	"reconcile-every":   groupSafety,
	"poll-every":        groupSafety,
	"status-every":      groupOutput,
	"metrics-addr":      groupOutput,
	"batch-size":        groupSafety,
	"max-in-flight":     groupSafety,
	"rate":              groupSafety,
	"fail-on":           groupSafety,
	"anchor":            groupSafety,
	// what it shows and writes
	"output":                groupOutput,
	"out":                   groupOutput,
	"verbose":               groupOutput,
	"quiet":                 groupOutput,
	"interactive":           groupOutput,
	"no-tui":                groupOutput,
	"scram-resets":          groupOutput,
	"max-per-check":         groupOutput,
	"catalogue":             groupOutput,
	"controller-config-out": groupOutput,
	"detail":                groupOutput,
	// the audit trail
	"audit-db":     groupAudit,
	"no-audit":     groupAudit,
	"audit-key":    groupAudit,
	"receipt-file": groupAudit,
}

func groupOf(f *pflag.Flag) string {
	if g, ok := flagGroups[f.Name]; ok {
		return g
	}
	return groupOther
}

// printHelp is a command's --help: its text (usage lines, what it does,
// exit codes), its subcommands, its flags by group, then its footer (the
// TUI keys for commands that have a TUI).
func printHelp(w io.Writer, c *cobra.Command) {
	long := c.Long
	if long == "" {
		long = "Usage: " + c.UseLine() + "\n\n" + c.Short + "\n"
	}
	fmt.Fprint(w, strings.TrimRight(long, "\n")+"\n")
	if c.HasAvailableSubCommands() && c.Annotations["subcommands-in-text"] == "" {
		fmt.Fprintln(w, "\nCommands:")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				fmt.Fprintf(w, "  %-12s %s\n", s.Name(), s.Short)
			}
		}
	}
	fmt.Fprint(w, flagHelp(c))
	if f := c.Annotations["footer"]; f != "" {
		fmt.Fprint(w, "\n"+strings.TrimRight(f, "\n")+"\n")
	}
}

// flagHelp lists a command's flags under their group headings.
func flagHelp(c *cobra.Command) string {
	sets := map[string]*pflag.FlagSet{}
	add := func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		g := groupOf(f)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	var b strings.Builder
	for _, g := range groupOrder {
		if sets[g] == nil {
			continue
		}
		fmt.Fprintf(&b, "\n%s flags:\n", g)
		sets[g].VisitAll(func(f *pflag.Flag) { writeFlagUsage(&b, f) })
	}
	return b.String()
}

// helpWidth is the width --help wraps its flag texts at.
const helpWidth = 80

// writeFlagUsage writes one flag as its name line and, indented under it,
// its text wrapped to helpWidth, with the default when it is not the zero
// value.
func writeFlagUsage(b *strings.Builder, f *pflag.Flag) {
	varname, text := pflag.UnquoteUsage(f)
	switch varname {
	case "string", "stringList":
		varname = "VALUE"
	case "int", "float", "float64", "uint":
		varname = "N"
	case "duration":
		varname = "DURATION"
	}
	if f.Value.Type() == "bool" {
		varname = ""
	}
	name := "  "
	if f.Shorthand != "" {
		name += "-" + f.Shorthand + ", "
	}
	name += "--" + f.Name
	if varname != "" {
		name += " " + varname
	}
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
	default:
		if f.Value.Type() == "string" {
			text += fmt.Sprintf(" (default %q)", f.DefValue)
		} else {
			text += " (default " + f.DefValue + ")"
		}
	}
	b.WriteString(name + "\n")
	const indent = "        "
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > helpWidth {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}

// registerCompletions gives shell completion the values of enumerable flags
// on every command that has them; other flags complete file names.
func registerCompletions(root *cobra.Command) {
	kinds := make([]string, len(plan.Kinds))
	for i, k := range plan.Kinds {
		kinds[i] = string(k)
	}
	values := map[string][]string{
		"include":        kinds,
		"exclude":        kinds,
		"kind":           kinds,
		"fail-on":        {"error", "warning", "info", "none"},
		"target-version": {"4.0", "4.1"},
		"status":         {"planned", "sent", "validated", "succeeded", "failed", "skipped"},
		"placement":      {plan.PlacementAuto, plan.PlacementSource, plan.PlacementTarget},
	}
	lists := map[string]bool{"include": true, "exclude": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			vs, ok := values[f.Name]
			if o := f.Annotations[annotationValues]; o != nil {
				vs, ok = o, true
			}
			if !ok || len(vs) == 0 {
				return
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, completeFrom(vs, lists[f.Name]))
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// annotationValues on a flag lists the values it takes, for completion.
const annotationValues = "zkmigrate_values"

// outputFlag registers -o/--output with its choices (the first is the
// default).
func outputFlag(fs *pflag.FlagSet, p *string, usage string, values ...string) {
	fs.StringVarP(p, "output", "o", values[0], "`FORMAT`: "+strings.TrimPrefix(usage, "output: "))
	_ = fs.SetAnnotation("output", annotationValues, values)
}

// completeFrom completes one of vs; for a comma list (--include a,b) it
// completes the item after the last comma.
func completeFrom(vs []string, list bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if !list {
			return vs, cobra.ShellCompDirectiveNoFileComp
		}
		prefix := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix = toComplete[:i+1]
		}
		var out []string
		for _, v := range vs {
			if !strings.Contains(","+prefix, ","+v+",") {
				out = append(out, prefix+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}
