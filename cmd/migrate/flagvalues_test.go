package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestNoPanicOnAnyNumericValue gives every numeric flag of every command
// the values that break code that trusts them (negative counts, zero, the
// int64 edges, overflow, NaN, negative durations): each run ends with exit
// 1 and one line on stderr, never a panic, and records no audit run.
func TestNoPanicOnAnyNumericValue(t *testing.T) {
	values := []string{"-1", "0", "-9223372036854775808", "9223372036854775807", "99999999999999999999", "NaN", "-Inf", "1e400", "-1s", "0s", "-2562047h"}
	root := (&cli{e: &env{}}).root()
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Name() == "help" || c.Name() == "completion" {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "int", "int64", "uint", "float64", "duration":
			default:
				return
			}
			for _, v := range values {
				args := append(append([]string{}, path...), "--"+f.Name+"="+v)
				if c.Flags().Lookup("audit-db") != nil {
					args = append(args, "--audit-db", filepath.Join(t.TempDir(), "audit.db"))
				}
				t.Run(strings.Join(args[:len(path)+1], " "), func(t *testing.T) {
					code, errs := runNoPanic(t, args)
					if code != exitError || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
						t.Errorf("migrate %s: exit %d, stderr %q; want exit 1 and one line", strings.Join(args, " "), code, errs)
					}
					if db := args[len(args)-1]; strings.HasSuffix(db, "audit.db") {
						if _, err := os.Stat(db); err == nil {
							t.Errorf("migrate %s: created an audit database", strings.Join(args, " "))
						}
					}
				})
			}
		})
		for _, s := range c.Commands() {
			walk(s, append(append([]string{}, path...), s.Name()))
		}
	}
	walk(root, nil)
}

// runNoPanic runs args in-process and fails the test, naming args, when
// the command panics.
func runNoPanic(t *testing.T, args []string) (code int, stderr string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("migrate %s panicked: %v", strings.Join(args, " "), r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, _, stderr = runMigrateCtx(ctx, args...)
	return code, stderr
}
