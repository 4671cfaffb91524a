// Package cmdline is the command-line machinery the commands share, whichever
// commands there are: flags as a Kafka operator types them (GNU long flags,
// and Go's single-dash ones kept working: NormalizeArgs), pflag's errors
// worded flag first (FlagErrorText), --help with the flags under group
// headings and wrapped (PrintHelp), shell completion of flag values
// (CompleteFrom, OutputFlag), and a repeatable string flag (StringList).
// It knows no command and no flag of its own.
package cmdline

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// AnnotationValues on a flag lists the values it takes, for completion.
const AnnotationValues = "zkmigrate_values"

// StringList is a repeatable string flag.
type StringList []string

func (l *StringList) String() string     { return strings.Join(*l, ",") }
func (l *StringList) Set(v string) error { *l = append(*l, v); return nil }
func (l *StringList) Type() string       { return "stringList" }

// FlagErrorText words pflag's errors the way the rest of migrate words
// errors: the flag first, with its dashes.
func FlagErrorText(err error) string {
	var notExist *pflag.NotExistError
	var needsValue *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist):
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return fmt.Sprintf("unknown flag -%s", notExist.GetSpecifiedName())
		}
		return fmt.Sprintf("unknown flag --%s", notExist.GetSpecifiedName())
	case errors.As(err, &needsValue):
		if needsValue.GetSpecifiedShortnames() != "" {
			return fmt.Sprintf("flag -%s needs a value", needsValue.GetSpecifiedName())
		}
		return fmt.Sprintf("flag --%s needs a value", needsValue.GetSpecifiedName())
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return fmt.Sprintf("--%s %q: %v", f.Name, invalid.GetValue(), invalid.Unwrap())
	}
	return err.Error()
}

// NormalizeArgs keeps Go-style single-dash long flags working
// (-bootstrap-server x, -o=json, --o json, as the standard flag package
// took them): a single-dash word that names one of the command's long flags
// gets its second dash, and --x for a one-letter shorthand loses one.
// Values are left alone, and so is everything after "--".
func NormalizeArgs(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil || (len(args) > 0 && strings.HasPrefix(args[0], "__complete")) {
		return args
	}
	cmd.InitDefaultHelpFlag()
	fs := cmd.Flags()
	fs.AddFlagSet(cmd.InheritedFlags())
	out := make([]string, 0, len(args))
	takesValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--"):
			if len(name) == 1 && fs.Lookup(name) == nil {
				if f = fs.ShorthandLookup(name); f != nil {
					a = a[1:]
				}
			} else {
				f = fs.Lookup(name)
			}
		case strings.HasPrefix(a, "-") && len(name) > 1:
			if f = fs.Lookup(name); f != nil {
				a = "-" + a
			}
		case strings.HasPrefix(a, "-") && len(name) == 1:
			f = fs.ShorthandLookup(name)
		}
		out = append(out, a)
		if !hasValue && takesValue(f) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// ArgsAfter returns the arguments of the command line after cmd's name (and
// its parents' names), as typed: what the audit trail records.
func ArgsAfter(cmd *cobra.Command, args []string) []string {
	var path []string
	for p := cmd; p.HasParent(); p = p.Parent() {
		path = append([]string{p.Name()}, path...)
	}
	rest := args
	for _, name := range path {
		for i, a := range rest {
			if a == name {
				rest = append(append([]string{}, rest[:i]...), rest[i+1:]...)
				break
			}
		}
	}
	return rest
}

// OutputFlag registers -o/--output with its choices (the first is the
// default).
func OutputFlag(fs *pflag.FlagSet, p *string, usage string, values ...string) {
	fs.StringVarP(p, "output", "o", values[0], "`FORMAT`: "+strings.TrimPrefix(usage, "output: "))
	_ = fs.SetAnnotation("output", AnnotationValues, values)
}

// CompleteFrom completes one of vs; for a comma list (--include a,b) it
// completes the item after the last comma.
func CompleteFrom(vs []string, list bool) cobra.CompletionFunc {
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

// RegisterCompletions completes, on every command under root, the flags
// values names with those values, and a flag whose values it annotates
// (AnnotationValues: OutputFlag's) with them; a flag in lists takes a
// comma list. Other flags complete file names.
func RegisterCompletions(root *cobra.Command, values map[string][]string, lists map[string]bool) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			vs, ok := values[f.Name]
			if o := f.Annotations[AnnotationValues]; o != nil {
				vs, ok = o, true
			}
			if !ok || len(vs) == 0 {
				return
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, CompleteFrom(vs, lists[f.Name]))
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// PositiveDuration is a duration flag whose values must be positive:
// --zk-timeout -1s or 0s is refused as the flag's own error.
type PositiveDuration time.Duration

func (p *PositiveDuration) String() string { return time.Duration(*p).String() }
func (p *PositiveDuration) Type() string   { return "duration" }
func (p *PositiveDuration) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New(`must be a duration like "30s" or "5m"`)
	}
	if d <= 0 {
		return errors.New("want a positive duration")
	}
	*p = PositiveDuration(d)
	return nil
}
