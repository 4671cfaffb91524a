package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkmigrate/zkmigrate/internal/cmdline"
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
	"delete-created-topics":    groupSelection,
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

// helpGroups is how --help groups the flags.
var helpGroups = cmdline.Groups{Order: groupOrder, Of: groupOf}

func groupOf(f *pflag.Flag) string {
	if g, ok := flagGroups[f.Name]; ok {
		return g
	}
	return groupOther
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
			if o := f.Annotations[cmdline.AnnotationValues]; o != nil {
				vs, ok = o, true
			}
			if !ok || len(vs) == 0 {
				return
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, cmdline.CompleteFrom(vs, lists[f.Name]))
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}
