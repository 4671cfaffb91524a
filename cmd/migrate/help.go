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

// flagGroups puts every flag in a help group, listed by group. A flag not
// listed shows under "Other flags" (TestEveryFlagHasAGroup fails on one).
var flagGroups = func() map[string]string {
	m := map[string]string{}
	for group, names := range map[string][]string{
		groupSource:    {"zookeeper", "zk-auth", "zk-tls-config-file", "broker-config", "password-encoder-secret-file", "snapshot", "source-bootstrap-server", "source-command-config", "zk-data-dir", "zk-data-log-dir", "zk-chroot", "zk-zxid", "zk-time", "full", "zk-requests-in-flight", "zk-connections", "zk-no-multi-read", "zk-timeout", "scram-credentials"},
		groupTarget:    {"bootstrap-server", "command-config", "principal", "target-snapshot", "target-version", "brokers", "target-config", "metadata-dir", "in"},
		groupSelection: {"principal-map", "planned", "operation", "resource", "host", "plan", "include", "exclude", "topics", "principals", "broker-id-map", "reassign", "prune", "resend-secrets", "placement", "prune-cluster-configs", "raise-to-target-minimums", "delete-created-topics", "kind", "status", "limit", "topic-ids", "delegation-tokens"},
		groupSafety:    {"accept", "no-access-proof", "policy", "yes", "validate-only", "no-preflight", "verify-timeout", "verify-key", "confirm-deletes", "freeze", "exit-on-change", "keep-target-edits", "reconcile-every", "poll-every", "batch-size", "max-in-flight", "rate", "fail-on", "anchor", "dry-run"},
		groupOutput:    {"status-every", "metrics-addr", "output", "no-color", "out", "verbose", "quiet", "interactive", "no-tui", "scram-resets", "max-per-check", "catalogue", "controller-config-out", "detail", "show", "sign-key"},
		groupAudit:     {"audit-db", "no-audit", "audit-key", "receipt-file"},
	} {
		for _, n := range names {
			m[n] = group
		}
	}
	return m
}()

// helpGroups is how --help groups the flags: the source and audit trail
// flags, which most commands share, by name (migrate help flags CMD has
// their texts).
var helpGroups = cmdline.Groups{Order: groupOrder, Of: groupOf, Named: map[string]bool{groupSource: true, groupAudit: true}}

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
	cmdline.RegisterCompletions(root, values, map[string]bool{"include": true, "exclude": true})
}
