package cmdline

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func toy() *cobra.Command {
	root := &cobra.Command{Use: "tool"}
	sub := &cobra.Command{Use: "run", Run: func(*cobra.Command, []string) {}}
	var s string
	var b bool
	var l StringList
	sub.Flags().StringVar(&s, "bootstrap-server", "", "")
	sub.Flags().BoolVar(&b, "yes", false, "")
	sub.Flags().Var(&l, "config", "")
	OutputFlag(sub.Flags(), &s, "output: text or json", "text", "json")
	root.AddCommand(sub)
	return root
}

// TestNormalizeArgs: Go-style single-dash long flags get their second
// dash, --o loses one, values and what follows "--" are left alone.
func TestNormalizeArgs(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{[]string{"run", "-bootstrap-server", "-x"}, []string{"run", "--bootstrap-server", "-x"}},
		{[]string{"run", "--o", "json", "-yes"}, []string{"run", "-o", "json", "--yes"}},
		{[]string{"run", "-o=json", "--", "-yes"}, []string{"run", "-o=json", "--", "-yes"}},
	} {
		if got := NormalizeArgs(toy(), tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("NormalizeArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFlagErrorText: pflag's errors worded flag first, with its dashes.
func TestFlagErrorText(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope"},
		{[]string{"--bootstrap-server"}, "flag --bootstrap-server needs a value"},
		{[]string{"--yes=maybe"}, `--yes "maybe": `},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.SetOutput(nil)
		var s string
		var b bool
		fs.StringVar(&s, "bootstrap-server", "", "")
		fs.BoolVar(&b, "yes", false, "")
		err := fs.Parse(tt.args)
		if err == nil {
			t.Fatalf("%q parsed", tt.args)
		}
		if got := FlagErrorText(err); !strings.HasPrefix(got, tt.want) {
			t.Errorf("FlagErrorText(%v) = %q, want %q...", tt.args, got, tt.want)
		}
	}
	if got := FlagErrorText(errors.New("other")); got != "other" {
		t.Errorf("another error worded %q", got)
	}
}
