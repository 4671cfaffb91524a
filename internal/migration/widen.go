package migration

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
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

// DeleteConfirmation is how an apply's deletes may be confirmed, as
// terraform has a destroy typed: by their count.
type DeleteConfirmation struct {
	// Saved: the plan is a saved file's, whose deletes the file chose;
	// they must be confirmed by their count. A plan computed in the same
	// command needs no count (the operator's own options chose them), but
	// a Count given must be right.
	Saved bool
	// Count is the count the operator gave (0: none).
	Count int
	// Terminal: an operator is at a terminal and can type the count.
	Terminal bool
	// DryRun: nothing is deleted, nothing is confirmed.
	DryRun bool
}

// DeleteCountError refuses an apply whose deletes are not confirmed by
// their count: Given is the count given (0: none, and no terminal to type
// it at), Deletes the plan's.
type DeleteCountError struct{ Given, Deletes int }

func (e *DeleteCountError) Error() string {
	if e.Given == 0 {
		return fmt.Sprintf("the plan deletes %s, and no count of them was confirmed", english.N(e.Deletes, "resource"))
	}
	return fmt.Sprintf("the plan deletes %s, not %d", english.N(e.Deletes, "resource"), e.Given)
}

// ConfirmDeletes checks c against p's deletes (Deletes) before anything is
// sent: a wrong count, and a saved plan's deletes unconfirmed where no
// terminal can confirm them, are a *DeleteCountError; a count given that
// is right is noted in rec's run. ask is the count the operator must type
// at the terminal (0: none to ask; then TypedDeletes notes it).
func ConfirmDeletes(ctx context.Context, rec *Recorder, p *plan.Plan, c DeleteConfirmation) (ask int, err error) {
	n := Deletes(p)
	switch {
	case c.DryRun || (!c.Saved && c.Count == 0):
		return 0, nil
	case c.Count != 0 && c.Count != n:
		return 0, &DeleteCountError{Given: c.Count, Deletes: n}
	case n == 0:
		return 0, nil
	case c.Count == n:
		rec.Note(ctx, "confirm-deletes", fmt.Sprintf("%s confirmed by their count, given", english.N(n, "delete")))
		return 0, nil
	case !c.Terminal:
		return 0, &DeleteCountError{Deletes: n}
	}
	return n, nil
}

// TypedDeletes reports whether answer, typed at the terminal, is the count
// ask of deletes, and notes the confirmation in rec's run when it is.
func TypedDeletes(ctx context.Context, rec *Recorder, ask int, answer string) bool {
	if strings.TrimSpace(answer) != strconv.Itoa(ask) {
		return false
	}
	rec.Note(ctx, "confirm-deletes", fmt.Sprintf("%s confirmed at the terminal", english.N(ask, "delete")))
	return true
}

// NoteVerified records in rec's run that the saved plan file's signature
// by key id was verified before it was read further.
func NoteVerified(ctx context.Context, rec *Recorder, file, id string) {
	if id != "" {
		rec.Note(ctx, "plan-signature", fmt.Sprintf("%s: signed by key %s, verified", file, id))
	}
}

// NoteWidened records in rec's run the options of the saved plan file
// that widen what apply may do (Planned.Widened).
func NoteWidened(ctx context.Context, rec *Recorder, file string, ws []Widening) {
	if len(ws) == 0 {
		return
	}
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.String()
	}
	rec.Note(ctx, "plan-options", file+" widens what apply may do: "+strings.Join(texts, "; "))
}

// plural counts n of a noun in English: "1 resource", "2 resources".
