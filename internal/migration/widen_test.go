package migration

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Each option that widens what apply may do is named, prune with the
// plan's count of deletes; the absence of a policy only when none is given
// at apply; a revert plan's delete_created_topics; nothing for a plan that
// only creates and updates under a policy.
func TestWidenings(t *testing.T) {
	del := plan.Change{ID: "topic:x", Kind: plan.KindTopic, Action: plan.ActionDelete}
	upd := plan.Change{ID: "topic-config:y", Kind: plan.KindTopicConfig, Action: plan.ActionUpdate}
	for _, c := range []struct {
		name        string
		p           plan.Plan
		policyGiven bool
		want        []string
	}{
		{"creates under a policy", plan.Plan{Options: plan.Options{Policy: "sha256:x", Placement: plan.PlacementAuto}}, false, nil},
		{"no policy in the file, none given", plan.Plan{}, false, []string{"options.policy: absent: no topic policy checks the topic changes"}},
		{"no policy in the file, one given", plan.Plan{}, true, nil},
		{"prune with two deletes", plan.Plan{Options: plan.Options{Policy: "p", Prune: true, PruneClusterConfigs: true}, Changes: []plan.Change{del, upd, del}}, false,
			[]string{"options.prune: deletes what the target has and the source does not: 2 deletes in this plan",
				"options.prune_cluster_configs: also deletes cluster-level broker configs the source does not have"}},
		{"every other option", plan.Plan{Options: plan.Options{Policy: "p", ResendSecrets: true, Reassign: true, Placement: plan.PlacementTarget, RaiseToTargetMinimums: true}}, false,
			[]string{"options.resend_secrets: sends sensitive configs and SCRAM credentials even where the target has them, replacing them",
				"options.reassign: moves the replicas of topics the target already has",
				`options.placement: "target": the target places the replicas of new topics and partitions, never the source's lists`,
				"options.raise_to_target_minimums: creates topics with config values the source does not have, raised to the target's minimums"}},
		{"placement source", plan.Plan{Options: plan.Options{Policy: "p", Placement: plan.PlacementSource}}, false, nil},
		{"a revert deleting created topics", plan.Plan{Reverts: &plan.Reverts{Run: 1, DeleteCreatedTopics: true}, Changes: []plan.Change{del}}, false,
			[]string{"reverts.delete_created_topics: deletes the topics the run created, with their data: 1 delete in this plan"}},
		{"a revert keeping them", plan.Plan{Reverts: &plan.Reverts{Run: 1}}, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, w := range Widenings(&c.p, c.policyGiven) {
				got = append(got, w.String())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
	if n := Deletes(&plan.Plan{Changes: []plan.Change{del, upd, del}}); n != 2 {
		t.Errorf("Deletes = %d, want 2", n)
	}
}

// ConfirmDeletes: a saved plan's deletes need their count (given, or asked
// at a terminal); a wrong count is refused naming the plan's; a plan
// computed now needs none unless one is given; a dry run none.
func TestConfirmDeletes(t *testing.T) {
	del := plan.Change{ID: "topic:x", Kind: plan.KindTopic, Action: plan.ActionDelete}
	two := &plan.Plan{Changes: []plan.Change{del, del}}
	none := &plan.Plan{}
	for _, c := range []struct {
		name string
		p    *plan.Plan
		c    DeleteConfirmation
		ask  int
		err  *DeleteCountError
	}{
		{"saved, no count, no terminal", two, DeleteConfirmation{Saved: true}, 0, &DeleteCountError{Deletes: 2}},
		{"saved, no count, at a terminal", two, DeleteConfirmation{Saved: true, Terminal: true}, 2, nil},
		{"saved, the count", two, DeleteConfirmation{Saved: true, Count: 2}, 0, nil},
		{"saved, a wrong count", two, DeleteConfirmation{Saved: true, Count: 3, Terminal: true}, 0, &DeleteCountError{Given: 3, Deletes: 2}},
		{"saved, a count but no deletes", none, DeleteConfirmation{Saved: true, Count: 1}, 0, &DeleteCountError{Given: 1, Deletes: 0}},
		{"saved, no deletes", none, DeleteConfirmation{Saved: true}, 0, nil},
		{"saved, dry run", two, DeleteConfirmation{Saved: true, DryRun: true}, 0, nil},
		{"computed, no count", two, DeleteConfirmation{}, 0, nil},
		{"computed, a wrong count", two, DeleteConfirmation{Count: 1}, 0, &DeleteCountError{Given: 1, Deletes: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ask, err := ConfirmDeletes(context.Background(), &Recorder{}, c.p, c.c)
			var de *DeleteCountError
			if ask != c.ask || (c.err == nil) != (err == nil) || (c.err != nil && (!errors.As(err, &de) || *de != *c.err)) {
				t.Fatalf("ConfirmDeletes = %d, %v; want %d, %v", ask, err, c.ask, c.err)
			}
		})
	}
	if !TypedDeletes(context.Background(), &Recorder{}, 2, " 2\n") || TypedDeletes(context.Background(), &Recorder{}, 2, "y\n") {
		t.Error("TypedDeletes accepts another answer or refuses the count")
	}
}
