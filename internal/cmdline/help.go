package cmdline

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Groups puts flags under help headings: Of names a flag's group, Order
// lists the groups in the order --help shows them. The groups in Named
// (those many commands share) --help lists by their flags' names alone.
type Groups struct {
	Order []string
	Of    func(f *pflag.Flag) string
	Named map[string]bool
}

// AnnotationGroupsInFull on a command lists (comma-separated) the Named
// groups its --help shows flag by flag: where they mean something of its
// own (the demo's audit database).
const AnnotationGroupsInFull = "zkmigrate_groups_in_full"

// helpWidth is the width help wraps its texts at; wideWidth the width a
// flag's one-line summary may reach before it goes to a line of its own.
const (
	helpWidth = 80
	wideWidth = 100
	nameWidth = 30
)

// A flag's usage text is its summary (its first line, which --help shows
// and completion offers) and, after a newline, the rest that completes it
// (which FlagsHelp shows too, joined with a space).

// PrintHelp is a command's --help, within about 80 lines: its text (usage
// lines, what it does, exit codes), its subcommands, its flags by group,
// one line each (a Named group by name only), where to read every flag in
// full when a summary leaves something out, then its footer (where to find
// the TUI keys, on commands that have a TUI).
func PrintHelp(w io.Writer, c *cobra.Command, groups Groups, fullHelp string) {
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
	var b strings.Builder
	partial := false
	for _, g := range groupedFlags(c, groups) {
		if groups.Named[g.name] && !slices.Contains(strings.Split(c.Annotations[AnnotationGroupsInFull], ","), g.name) {
			writeNames(&b, g)
			partial = true
			continue
		}
		fmt.Fprintf(&b, "\n%s flags:\n", g.name)
		for _, f := range g.flags {
			partial = writeSummary(&b, f) || partial
		}
	}
	fmt.Fprint(w, b.String())
	if partial && fullHelp != "" {
		fmt.Fprintf(w, "\nEvery flag in full: %s\n", fullHelp)
	}
	if f := c.Annotations["footer"]; f != "" {
		fmt.Fprint(w, "\n"+strings.TrimRight(f, "\n")+"\n")
	}
}

// FlagsHelp is every flag of c in full, by group: its name line and its
// whole text wrapped under it, with its default.
func FlagsHelp(w io.Writer, c *cobra.Command, groups Groups) {
	var b strings.Builder
	fmt.Fprintf(&b, "Flags of %s:\n", c.CommandPath())
	for _, g := range groupedFlags(c, groups) {
		fmt.Fprintf(&b, "\n%s flags:\n", g.name)
		for _, f := range g.flags {
			name, text, def := flagParts(f)
			b.WriteString(name + "\n")
			wrap(&b, "        ", strings.ReplaceAll(text, "\n", " ")+def, helpWidth)
		}
	}
	fmt.Fprint(w, b.String())
}

type flagGroup struct {
	name  string
	flags []*pflag.Flag
}

// groupedFlags are c's flags (its own and inherited; not hidden, not
// --help) by group, in the groups' order.
func groupedFlags(c *cobra.Command, groups Groups) []flagGroup {
	by := map[string][]*pflag.Flag{}
	add := func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			by[groups.Of(f)] = append(by[groups.Of(f)], f)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	var out []flagGroup
	for _, g := range groups.Order {
		if len(by[g]) > 0 {
			out = append(out, flagGroup{g, by[g]})
		}
	}
	return out
}

// writeNames lists a group's flags by name, wrapped.
func writeNames(b *strings.Builder, g flagGroup) {
	names := make([]string, len(g.flags))
	for i, f := range g.flags {
		names[i] = "--" + f.Name
	}
	fmt.Fprintf(b, "\n%s flags:\n", g.name)
	wrap(b, "  ", strings.Join(names, ", "), helpWidth)
}

// writeSummary writes a flag on one line, its name and its summary (on a
// line of its own under a long name), and reports whether the summary
// leaves some of its text out.
func writeSummary(b *strings.Builder, f *pflag.Flag) bool {
	name, text, def := flagParts(f)
	summary, _, cut := strings.Cut(text, "\n")
	summary = strings.TrimRight(summary, ":;,") + def
	line := fmt.Sprintf("%-*s %s", nameWidth, name, summary)
	if len(line) > wideWidth {
		b.WriteString(name + "\n")
		wrap(b, "        ", summary, helpWidth)
	} else {
		b.WriteString(line + "\n")
	}
	return cut
}

// flagParts are a flag's name line ("  -o, --output FORMAT"), its text and
// its default (" (default 500)"; "" when it is the zero value).
func flagParts(f *pflag.Flag) (name, text, def string) {
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
	name = "  "
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
			def = fmt.Sprintf(" (default %q)", f.DefValue)
		} else {
			def = " (default " + f.DefValue + ")"
		}
	}
	return name, text, def
}

// wrap writes text's words after indent, in lines of at most width.
func wrap(b *strings.Builder, indent, text string, width int) {
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
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
