package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

var explainUsage = usageText("explain_usage")

func (c *cli) newExplainCmd() *cobra.Command {
	var output string
	cmd := c.command("explain", "what a finding, check or blocker id means, and its fix", explainUsage,
		func(_ context.Context, e *env, args []string) int { return runExplain(e, output, args) })
	cmdline.OutputFlag(cmd.Flags(), &output, "output: text or json", "text", "json")
	cmd.ValidArgsFunction = func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return catalogue.IDs(), cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

func runExplain(e *env, output string, args []string) int {
	if len(args) == 0 {
		return fail(e, "explain", fmt.Errorf("name an id: migrate explain ID (migrate check --catalogue lists them)"))
	}
	if output != "text" && output != "json" {
		return fail(e, "explain", fmt.Errorf("-o %q: want text or json", output))
	}
	found := make([][]catalogue.Finding, len(args))
	for i, id := range args {
		found[i] = catalogue.Lookup(id)
		if len(found[i]) == 0 {
			return fail(e, "explain", unknownIDError(id))
		}
	}
	for i, id := range args {
		var err error
		if output == "json" {
			err = render.ExplainIDJSON(e.stdout, found[i])
		} else {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			err = render.ExplainIDText(e.stdout, id, found[i])
		}
		if err != nil {
			return fail(e, "explain", err)
		}
	}
	return exitOK
}

// unknownIDError names an id the vocabulary lacks and the ids that look
// like it.
func unknownIDError(id string) error {
	var near []string
	for _, known := range catalogue.IDs() {
		if strings.Contains(strings.ToLower(known), strings.ToLower(id)) || strings.Contains(strings.ToLower(id), strings.ToLower(known)) {
			near = append(near, known)
		}
	}
	msg := fmt.Sprintf("no finding, check or blocker has the id %q (migrate check --catalogue lists them)", id)
	if len(near) > 0 && len(near) <= 6 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return fmt.Errorf("%s", msg)
}
