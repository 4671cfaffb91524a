package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/demo"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// allCommands walks the command tree and returns every command a user can
// ask --help of, as its path after "migrate" (root is "").
func allCommands(t *testing.T) []string {
	t.Helper()
	root := (&cli{e: &env{}}).root()
	var paths []string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Name() == "help" {
			return
		}
		paths = append(paths, strings.Join(path, " "))
		for _, s := range c.Commands() {
			walk(s, append(slices.Clone(path), s.Name()))
		}
	}
	walk(root, nil)
	return paths
}

// TestHelpGolden keeps the --help of every command in testdata/help
// (rewrite with go test -run TestHelpGolden -update).
func TestHelpGolden(t *testing.T) {
	for _, path := range allCommands(t) {
		name := strings.ReplaceAll(path, " ", "_")
		if name == "" {
			name = "migrate"
		}
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(path), "--help")
			code, out, errs := runMigrate(t, args...)
			if code != exitOK || errs != "" {
				t.Fatalf("migrate %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
			}
			got := strings.ReplaceAll(out, audit.DefaultPath(), "<DEFAULT-AUDIT-DB>")
			got = strings.ReplaceAll(got, demo.AuditDirPattern, "<DEMO-AUDIT-DB>")
			goldenFile(t, filepath.Join("testdata", "help", name+".txt"), got)
		})
	}
}

// TestHelpFitsAndIsGrouped: help lines fit 80 columns (but for one
// unbreakable list), every flag is shown with two dashes, and the TUI keys
// are one help topic: plan --help points to it, 'migrate help keys' has
// them under one heading.
func TestHelpFitsAndIsGrouped(t *testing.T) {
	_, out, _ := runMigrate(t, "plan", "--help")
	for _, want := range []string{"Source flags:", "Target flags:", "Selection flags:", "Safety flags:", "Output flags:", "Audit trail flags:",
		"  --bootstrap-server host:port", "  -o, --output FORMAT", "  --include KINDS"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --help lacks %q", want)
		}
	}
	if !strings.HasSuffix(out, "Terminal UI keys: 'migrate help keys' (and ? in the UI).\n") || strings.Contains(out, "plan review") {
		t.Errorf("plan --help does not point to 'migrate help keys', or repeats the keys:\n%s", out)
	}
	code, out, errs := runMigrate(t, "help", "keys")
	if code != exitOK || errs != "" || !strings.Contains(out, "plan review") || !strings.Contains(out, "shift+tab") {
		t.Errorf("migrate help keys: exit %d, %q:\n%s", code, errs, out)
	}
	headings := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, ":") && strings.Contains(strings.ToLower(l), "keys") {
			headings++
		}
	}
	if headings != 1 {
		t.Errorf("plan --help has %d keys headings, want one:\n%s", headings, out)
	}
	for _, path := range allCommands(t) {
		_, out, _ := runMigrate(t, append(strings.Fields(path), "--help")...)
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "-") && !strings.HasPrefix(strings.TrimSpace(l), "--") &&
				!strings.HasPrefix(strings.TrimSpace(l), "-o, --") && !strings.HasPrefix(strings.TrimSpace(l), "-v, --") &&
				!strings.HasPrefix(strings.TrimSpace(l), "-h, --") && !strings.HasPrefix(strings.TrimSpace(l), "- ") {
				t.Errorf("migrate %s --help: single-dash flag line %q", path, l)
			}
		}
	}
}

// TestEveryFlagHasAGroup: a new flag gets a help group in flagGroups.
func TestEveryFlagHasAGroup(t *testing.T) {
	root := (&cli{e: &env{}}).root()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !strings.HasPrefix(c.CommandPath(), "migrate completion") && c != root && groupOf(f) == groupOther {
				t.Errorf("%s --%s has no help group: add it to flagGroups in help.go", c.CommandPath(), f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestUsageErrors: a bad flag, a missing or bad value, an unknown command
// is one line on stderr, names the flag with its dashes, and exits 1.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--bogus"}, "migrate plan: unknown flag --bogus (see 'migrate plan --help')"},
		{[]string{"snapshot", "--bogus"}, "migrate snapshot: unknown flag --bogus (see 'migrate snapshot --help')"},
		{[]string{"plan", "-x"}, "migrate plan: unknown flag -x (see 'migrate plan --help')"},
		{[]string{"plan", "--zookeeper"}, "migrate plan: flag --zookeeper needs a value (see 'migrate plan --help')"},
		{[]string{"apply", "--plan"}, "migrate apply: flag --plan needs a value (see 'migrate apply --help')"},
		{[]string{"check", "-o"}, "migrate check: flag -o needs a value (see 'migrate check --help')"},
		{[]string{"apply", "--batch-size", "many"}, `migrate apply: --batch-size "many": must be an integer (see 'migrate apply --help')`},
		{[]string{"snapshot", "--zk-timeout", "soon"}, `migrate snapshot: --zk-timeout "soon": must be a duration like "30s" or "5m" (see 'migrate snapshot --help')`},
		{[]string{"audit", "show", "--bogus"}, "migrate audit show: unknown flag --bogus (see 'migrate audit show --help')"},
		{[]string{"policy", "test", "--policy"}, "migrate policy test: flag --policy needs a value (see 'migrate policy test --help')"},
		{[]string{"demo", "--brokers=x"}, `migrate demo: --brokers "x": must be an integer (see 'migrate demo --help')`},
		{[]string{"demo", "--brokers", "0"}, `migrate demo: --brokers "0": want 1 to 32 (see 'migrate demo --help')`},
		{[]string{"demo", "--brokers", "-1"}, `migrate demo: --brokers "-1": want 1 to 32 (see 'migrate demo --help')`},
		{[]string{"apply", "--max-in-flight", "9223372036854775807"}, `migrate apply: --max-in-flight "9223372036854775807": want 1 to 64 (see 'migrate apply --help')`},
		{[]string{"check", "--max-per-check", "-1"}, `migrate check: --max-per-check "-1": want 0 or more (see 'migrate check --help')`},
		{[]string{"snapshot", "--zk-connections", "100000"}, `migrate snapshot: --zk-connections "100000": want 1 to 64 (see 'migrate snapshot --help')`},
		{[]string{"frobnicate"}, `migrate: unknown command "frobnicate" (try 'migrate --help')`},
		{[]string{"plna"}, `migrate: unknown command "plna"; did you mean plan? (try 'migrate --help')`},
		{[]string{"snapshto"}, `migrate: unknown command "snapshto"; did you mean snapshot? (try 'migrate --help')`},
		{[]string{"plan", "--bootsrap-server", "x:9092"}, `migrate plan: unknown flag --bootsrap-server; did you mean --bootstrap-server? (see 'migrate plan --help')`},
		{[]string{"apply", "--zookeper=x"}, `migrate apply: unknown flag --zookeper; did you mean --zookeeper? (see 'migrate apply --help')`},
		{[]string{"--verison"}, `migrate: unknown flag --verison; did you mean --version? (try 'migrate --help')`},
		{[]string{"plan", "--include", "topics", "--snapshot", "x", "--target-snapshot", "y"}, `migrate plan: --include: unknown kind "topics"; did you mean topic? (kinds: topic,partitions,reassignment,topic-config,broker-config,quota,acl,scram-user,client-metrics,group-config)`},
		{[]string{"plan", "--exclude", "acls", "--snapshot", "x", "--target-snapshot", "y"}, `migrate plan: --exclude: unknown kind "acls"; did you mean acl? (kinds: topic,partitions,reassignment,topic-config,broker-config,quota,acl,scram-user,client-metrics,group-config)`},
		{[]string{"audit", "show", "1", "--kind", "scram-users"}, `migrate audit show: --kind: unknown kind "scram-users"; did you mean scram-user? (kinds: topic,partitions,reassignment,topic-config,broker-config,quota,acl,scram-user,client-metrics,group-config)`},
		{[]string{"audit", "show", "1", "--status", "faild"}, `migrate audit show: --status "faild": want planned, sent, validated, succeeded, failed, skipped or excluded; did you mean failed?`},
		{[]string{"apply", "--snapshot", "s.zst"}, `migrate apply: give the target: --bootstrap-server host:port [--command-config client.properties] (apply writes to a live cluster)`},
		{[]string{"apply", "--plan", "p.zst", "--snapshot", "s.zst"}, `migrate apply: give the target: --bootstrap-server host:port [--command-config client.properties] (apply writes to a live cluster)`},
		{[]string{"audit", "shwo"}, `migrate audit: unknown subcommand "shwo"; did you mean show? (log, show, export, verify, keygen, revert)`},
		{[]string{"--bogus"}, `migrate: unknown flag --bogus (try 'migrate --help')`},
		{[]string{"snapshot", "--snapshot", "x", "extra"}, `migrate snapshot: unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runMigrate(t, tt.args...)
			if code != exitError {
				t.Errorf("exit %d, want 1", code)
			}
			if errs != tt.want+"\n" {
				t.Errorf("stderr %q, want the one line %q", errs, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

// TestGoStyleFlagsStillWork: scripts written for the standard flag
// package (-long-flag, --o, -flag=value) keep working.
func TestGoStyleFlagsStillWork(t *testing.T) {
	root := (&cli{e: &env{}}).root()
	tests := []struct{ in, want []string }{
		{[]string{"plan", "-bootstrap-server", "h:9092", "-zookeeper", "z:2181"}, []string{"plan", "--bootstrap-server", "h:9092", "--zookeeper", "z:2181"}},
		{[]string{"plan", "-o=json", "-topics=^a", "-prune"}, []string{"plan", "-o=json", "--topics=^a", "--prune"}},
		{[]string{"plan", "--o", "json", "-o", "text"}, []string{"plan", "-o", "json", "-o", "text"}},
		// a value that looks like a flag stays a value
		{[]string{"plan", "--topics", "-prune"}, []string{"plan", "--topics", "-prune"}},
		{[]string{"apply", "-v", "-yes", "-help"}, []string{"apply", "-v", "--yes", "--help"}},
		{[]string{"audit", "show", "1", "-audit-db", "x.db", "-kind", "acl"}, []string{"audit", "show", "1", "--audit-db", "x.db", "--kind", "acl"}},
		// unknown single-dash words are left for the parser to reject
		{[]string{"plan", "-bogus"}, []string{"plan", "-bogus"}},
		{[]string{"plan", "--", "-prune"}, []string{"plan", "--", "-prune"}},
	}
	for _, tt := range tests {
		if got := cmdline.NormalizeArgs(root, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("cmdline.NormalizeArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	// And end to end: Go-style flags read a saved snapshot, plan it
	// against itself offline and print JSON.
	dir := t.TempDir()
	src, _ := handmadeSnapshot(t)
	snap := filepath.Join(dir, "s.json")
	if err := snapshot.Save(snap, src); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runMigrate(t, "plan", "-snapshot", snap, "-target-snapshot", snap, "-no-audit", "-o=json")
	if code != exitOK || !strings.Contains(out, `"changes"`) {
		t.Errorf("plan with Go-style flags: exit %d, stderr %q, stdout %.200q", code, errs, out)
	}
}

// TestCompletion: the completion scripts exist for bash, zsh and fish, and
// --include/--exclude/-o complete their values.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errs := runMigrate(t, "completion", sh)
		if code != exitOK || !strings.Contains(out, "migrate") || errs != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", sh, code, len(out), errs)
		}
	}
	tests := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"plan", "--include", ""}, []string{"topic", "acl", "scram-user", "broker-config"}, nil},
		{[]string{"apply", "--exclude", "acl,"}, []string{"acl,topic", "acl,quota"}, []string{"acl,acl"}},
		{[]string{"check", "-o", ""}, []string{"text", "json", "markdown"}, nil},
		{[]string{"audit", "export", "-o", ""}, []string{"json", "csv"}, []string{"text"}},
		{[]string{"check", "--fail-on", ""}, []string{"error", "warning", "info", "none"}, nil},
		{[]string{"audit", "show", "--status", ""}, []string{"failed", "succeeded", "validated"}, nil},
		{[]string{"plan", "--placement", ""}, []string{"auto", "source", "target"}, nil},
		{[]string{""}, []string{"plan", "apply", "check", "audit", "completion"}, nil},
	}
	for _, tt := range tests {
		code, out, _ := runMigrate(t, append([]string{"__complete"}, tt.args...)...)
		if code != exitOK {
			t.Errorf("__complete %q: exit %d", tt.args, code)
		}
		lines := strings.Split(out, "\n")
		for _, w := range tt.want {
			if !slices.ContainsFunc(lines, func(l string) bool { return l == w || strings.HasPrefix(l, w+"\t") }) {
				t.Errorf("completing %q: %q missing from %q", tt.args, w, out)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(lines, n) {
				t.Errorf("completing %q: %q offered", tt.args, n)
			}
		}
	}
}

// TestInlineZKAuthWarns: a ZooKeeper password on the command line is
// readable by every user in the process list; migrate says so (without
// repeating it) and points to @FILE, which draws no warning.
func TestInlineZKAuthWarns(t *testing.T) {
	dir := t.TempDir()
	src, _ := handmadeSnapshot(t)
	snap := filepath.Join(dir, "s.json")
	if err := snapshot.Save(snap, src); err != nil {
		t.Fatal(err)
	}
	_, _, errs := runMigrate(t, "snapshot", "--snapshot", snap, "--zk-auth", "digest:ops:hunter22")
	if !strings.Contains(errs, "migrate snapshot: warning: --zk-auth digest:... on the command line can be read by other users") ||
		!strings.Contains(errs, "--zk-auth @FILE") {
		t.Errorf("no warning about the inline --zk-auth: %q", errs)
	}
	if strings.Contains(errs, "hunter22") {
		t.Errorf("the warning repeats the password: %q", errs)
	}
	_, _, errs = runMigrate(t, "snapshot", "--snapshot", snap, "--zk-auth", "@"+filepath.Join(dir, "auth"))
	if strings.Contains(errs, "warning") {
		t.Errorf("--zk-auth @FILE warned: %q", errs)
	}
}

// TestHelpTopics: 'migrate help CMD' is CMD --help; an unknown topic is one
// line with a suggestion, exit 1.
func TestHelpTopics(t *testing.T) {
	_, viaHelp, _ := runMigrate(t, "help", "audit", "show")
	_, viaFlag, _ := runMigrate(t, "audit", "show", "--help")
	if viaHelp != viaFlag || viaHelp == "" {
		t.Errorf("migrate help audit show differs from audit show --help:\n%s\n---\n%s", viaHelp, viaFlag)
	}
	code, out, errs := runMigrate(t, "help", "kyes")
	if code != exitError || out != "" || errs != "migrate help: unknown help topic \"kyes\"; did you mean keys? (a command, keys, or flags and a command)\n" {
		t.Errorf("migrate help kyes: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestHelpLength: a command's --help fits 80 lines, each flag on one line
// of at most 100 columns (its summary); 'migrate help flags CMD' has every
// flag in full, the part after the summary included.
func TestHelpLength(t *testing.T) {
	for _, path := range allCommands(t) {
		_, out, _ := runMigrate(t, append(strings.Fields(path), "--help")...)
		if n := strings.Count(out, "\n"); n > 80 {
			t.Errorf("migrate %s --help: %d lines, want at most 80", path, n)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  --") && len(l) > 100 {
				t.Errorf("migrate %s --help: flag line of %d columns, want at most 100: %q", path, len(l), l)
			}
		}
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		// --help's summary, then the rest of the text, and the default.
		{[]string{"help", "flags", "apply"}, exitOK, "never sent"},
		{[]string{"help", "flags", "apply"}, exitOK, "(default 1m0s)"},
		{[]string{"help", "flags", "audit", "verify"}, exitOK, "--anchor HASH"},
		// A Named group's flags, by name alone in --help, in full here.
		{[]string{"help", "flags", "plan"}, exitOK, "read only; never\n        written"},
		{[]string{"help", "flags", "nosuch"}, exitError, `unknown help topic "nosuch"`},
		{[]string{"help", "flags"}, exitError, `unknown help topic "flags"`},
	}
	for _, tt := range tests {
		code, out, errs := runMigrate(t, tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("migrate %s: exit %d, want %d with %q in:\n%s%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out, errs)
		}
	}
	_, out, _ := runMigrate(t, "apply", "--help")
	if !strings.Contains(out, "Every flag in full: migrate help flags apply\n") || strings.Contains(out, "never sent") {
		t.Errorf("apply --help: no pointer to its flags in full, or a flag's whole text:\n%s", out)
	}
}
