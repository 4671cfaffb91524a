package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// ACLsAfter leaves the ACLs plantest.Simulate leaves: a built plan's
// creates and (with Prune) deletes, applied to the target's ACLs.
func TestACLsAfterMatchesSimulate(t *testing.T) {
	a := func(p, op, name string) snapshot.ACL {
		return snapshot.ACL{ResourceType: "Topic", ResourceName: name, PatternType: "LITERAL", Principal: p, Host: "*", Operation: op, Permission: "Allow"}
	}
	src := &snapshot.Snapshot{Format: 1, ACLs: []snapshot.ACL{a("User:alice", "Read", "orders"), a("User:bob", "Write", "orders"), a("User:carol", "Read", "pay")}}
	tgt := &snapshot.Snapshot{Format: 1, ACLs: []snapshot.ACL{a("User:bob", "Write", "orders"), a("User:old", "Read", "x")}}
	for _, prune := range []bool{false, true} {
		p, err := plan.Build(plan.Input{Source: src, Target: tgt, Options: plan.Options{Prune: prune, Include: []plan.Kind{plan.KindACL}}})
		if err != nil {
			t.Fatal(err)
		}
		want := plantest.Simulate(t, tgt, p.Changes).ACLs
		got := plan.ACLsAfter(tgt.ACLs, p)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("prune=%v (-simulated +ACLsAfter):\n%s", prune, diff)
		}
		if n := len(got); n != map[bool]int{false: 4, true: 3}[prune] {
			t.Errorf("prune=%v: %d ACLs after", prune, n)
		}
	}
}
