package plan

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// reassignment: the replica lists of an existing topic's partitions moved
// to the source's (mapped) lists.
// KindReassignment is a change to an existing topic's replicas moved to the source's layout (--reassign).
const KindReassignment Kind = "reassignment"

var reassignmentSpec = &spec{
	kind:     KindReassignment,
	resource: "topic",
	modify:   modifyReassignment,
	observe: func(ix *Target, c *Change) *State {
		tt := ix.s.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		a := assignmentOf(tt)
		if ref := refState(c); ref != nil && len(ref.Assignment) <= len(a) {
			a = a[:len(ref.Assignment)]
		}
		return &State{Assignment: a}
	},
	equal: func(obs, ref *State) bool {
		if eq, ok := bothOrNeither(obs, ref); ok {
			return eq
		}
		return equalAssignment(obs.Assignment, ref.Assignment)
	},
	fields: func(c *Change) []Field {
		b, a := orEmpty(c.Before), orEmpty(c.After)
		return []Field{field("assignment", strp(FormatAssignment(b.Assignment, 0)), strp(FormatAssignment(a.Assignment, 0)))}
	},
	label:  nameLabel,
	invert: invertSwap,
}

// modifyReassignment moves the replicas of the partitions both sides have
// (with Reassign), or notes that they differ. Without an assignment (the
// target places replicas) a different replication factor is a blocker.
func modifyReassignment(b *builder, t *topicPass) *Change {
	st, want := t.src, t.want
	if want == nil {
		if tgtRF := t.tgt.ReplicationFactor(); t.rf != tgtRF {
			b.block(catalogue.IDBlockReplicationDiffers, KindReassignment, st.Name,
				fmt.Sprintf("replication factor is %d in the source and %d in the target", t.rf, tgtRF),
				"give --broker-id-map and --reassign to change it through a reassignment", nil)
		}
		return nil
	}
	cur := assignmentOf(t.tgt)
	n := min(len(want), len(cur))
	if equalAssignment(want[:n], cur[:n]) {
		return nil
	}
	if !b.in.Options.Reassign {
		b.finding(catalogue.IDAssignmentDiffers, snapshot.SeverityInfo, st.Name,
			"the target's replica assignment differs from the source's (mapped) assignment", "re-run with --reassign to move replicas")
		return nil
	}
	if miss := b.missingBrokers(want[:n]); len(miss) > 0 {
		b.block(catalogue.IDBlockBrokerMissing, KindReassignment, st.Name, fmt.Sprintf("the mapped assignment needs target %s, which the target does not have", brokers(miss)), "fix --broker-id-map", nil)
		return nil
	}
	b.rackCheck(st.Name, want[:n], 0)
	copy(t.post.Assignment, want[:n])
	t.post.ReplicationFactor = t.rf
	return &Change{Kind: KindReassignment, Action: ActionUpdate, Resource: topicResource(st.Name),
		Before: &State{Assignment: cur[:n]}, After: &State{Assignment: want[:n]}}
}
