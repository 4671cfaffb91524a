package cmdline

import (
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestIntIn: a bounded int flag refuses a value outside its range when
// parsed, with the range in the message, and keeps its default otherwise.
func TestIntIn(t *testing.T) {
	tests := []struct {
		args    []string
		min     int
		max     int
		want    int
		wantErr string
	}{
		{nil, 1, 32, 3, ""},
		{[]string{"--n", "1"}, 1, 32, 1, ""},
		{[]string{"--n", "32"}, 1, 32, 32, ""},
		{[]string{"--n", "0"}, 1, 32, 3, `--n "0": want 1 to 32`},
		{[]string{"--n", "-1"}, 1, 32, 3, `--n "-1": want 1 to 32`},
		{[]string{"--n", "33"}, 1, 32, 3, `--n "33": want 1 to 32`},
		{[]string{"--n", "x"}, 1, 32, 3, `--n "x": must be an integer`},
		{[]string{"--n", "99999999999999999999"}, 1, 32, 3, `--n "99999999999999999999": must be an integer`},
		{[]string{"--n", "-1"}, 0, math.MaxInt, 3, `--n "-1": want 0 or more`},
		{[]string{"--n", "0"}, 1, math.MaxInt, 3, `--n "0": want at least 1`},
		{[]string{"--n", "9223372036854775807"}, 0, math.MaxInt, math.MaxInt, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var n int
			IntIn(fs, &n, "n", 3, tt.min, tt.max, "`N` things")
			err := fs.Parse(tt.args)
			got := ""
			if err != nil {
				got = FlagErrorText(err)
			}
			if got != tt.wantErr || n != tt.want {
				t.Errorf("n = %d, error %q; want %d, %q", n, got, tt.want, tt.wantErr)
			}
		})
	}
}

// TestSuggest: a typo within two edits (a swap counts one) or a plural
// gets its candidate; a word far from all, or as near two, gets none.
func TestSuggest(t *testing.T) {
	kinds := []string{"topic", "partitions", "reassignment", "topic-config", "broker-config", "quota", "acl", "scram-user", "client-metrics", "group-config"}
	cmds := []string{"access", "apply", "audit", "bootstrap", "check", "completion", "demo", "explain", "plan", "policy", "snapshot", "sync", "version"}
	flags := []string{"bootstrap-server", "command-config", "zookeeper", "snapshot", "target-snapshot", "include", "exclude"}
	tests := []struct {
		typed string
		from  []string
		want  string
	}{
		{"plna", cmds, "plan"},
		{"aply", cmds, "apply"},
		{"snapshto", cmds, "snapshot"},
		{"verison", cmds, "version"},
		{"frobnicate", cmds, ""},
		{"bootsrap-server", flags, "bootstrap-server"},
		{"zookeper", flags, "zookeeper"},
		{"inclde", flags, "include"},
		{"topics", kinds, "topic"},
		{"acls", kinds, "acl"},
		{"quotas", kinds, "quota"},
		{"scram-users", kinds, "scram-user"},
		{"TOPIC", kinds, "topic"},
		{"partition", kinds, "partitions"},
		{"x", kinds, ""},
		{"configs", kinds, ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.typed, tt.from); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// PositiveDuration refuses a duration that is not positive as the flag's
// own error, worded flag first.
func TestPositiveDuration(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" accepted
	}{
		{[]string{"--d", "2s"}, ""},
		{[]string{"--d", "0s"}, `--d "0s": want a positive duration`},
		{[]string{"--d", "-1s"}, `--d "-1s": want a positive duration`},
		{[]string{"--d", "soon"}, `--d "soon": must be a duration like "30s" or "5m"`},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		d := PositiveDuration(15 * time.Second)
		fs.Var(&d, "d", "")
		err := fs.Parse(tc.args)
		got := ""
		if err != nil {
			got = FlagErrorText(err)
		}
		if got != tc.want {
			t.Errorf("%v: error %q, want %q", tc.args, got, tc.want)
		}
		if fs.Lookup("d").DefValue != "15s" {
			t.Errorf("default %q, want 15s", fs.Lookup("d").DefValue)
		}
	}
}
