package migration

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Widening is an option of a saved plan that widens what apply may do
// beyond creating and updating what the source holds. A saved plan's
// options come from its file, which its digest does not tie to whoever
// made it (a signature does): apply shows and records each before it sends
// anything (SavedRequest, Planned.Widened).
type Widening struct {
	// Option is the member of the plan file that gives it, as the file
	// names it: "options.prune", "options.policy", "reverts.delete_created_topics", ...
	Option string
	// Text is what it lets apply do, in this plan.
	Text string
}

func (w Widening) String() string { return w.Option + ": " + w.Text }

// Widenings lists the options of p that widen what apply may do: prune
// (with the plan's count of deletes), prune_cluster_configs,
// resend_secrets, reassign, placement "target" (auto and source keep the
// source's replica lists where the target has their brokers),
// raise_to_target_minimums, the absence of a topic policy (unless one is
// given at apply: policyGiven, which is evaluated whatever the file says),
// and a revert plan's delete_created_topics.
func Widenings(p *plan.Plan, policyGiven bool) []Widening {
	var ws []Widening
	o := p.Options
	if r := p.Reverts; r != nil {
		if r.DeleteCreatedTopics {
			ws = append(ws, Widening{"reverts.delete_created_topics", fmt.Sprintf("deletes the topics the run created, with their data: %s in this plan", deletesText(Deletes(p)))})
		}
		return ws // a revert plan is built from the audit record, with no options
	}
	if o.Prune {
		ws = append(ws, Widening{"options.prune", fmt.Sprintf("deletes what the target has and the source does not: %s in this plan", deletesText(Deletes(p)))})
	}
	if o.PruneClusterConfigs {
		ws = append(ws, Widening{"options.prune_cluster_configs", "also deletes cluster-level broker configs the source does not have"})
	}
	if o.ResendSecrets {
		ws = append(ws, Widening{"options.resend_secrets", "sends sensitive configs and SCRAM credentials even where the target has them, replacing them"})
	}
	if o.Reassign {
		ws = append(ws, Widening{"options.reassign", "moves the replicas of topics the target already has"})
	}
	switch o.Placement {
	case "", plan.PlacementAuto:
	case plan.PlacementTarget:
		ws = append(ws, Widening{"options.placement", fmt.Sprintf("%q: the target places the replicas of new topics and partitions, never the source's lists", o.Placement)})
	}
	if o.RaiseToTargetMinimums {
		ws = append(ws, Widening{"options.raise_to_target_minimums", "creates topics with config values the source does not have, raised to the target's minimums"})
	}
	if o.Policy == "" && !policyGiven {
		ws = append(ws, Widening{"options.policy", "absent: no topic policy checks the topic changes"})
	}
	return ws
}

// Deletes is the number of p's changes that delete a resource (a topic,
// an ACL, a quota, a SCRAM credential, ...): the plan's "to delete" count.
// Config keys an update removes are not counted: they are that update's.
func Deletes(p *plan.Plan) int {
	n := 0
	for i := range p.Changes {
		if p.Changes[i].Action == plan.ActionDelete {
			n++
		}
	}
	return n
}

func deletesText(n int) string {
	if n == 1 {
		return "1 delete"
	}
	return fmt.Sprintf("%d deletes", n)
}
