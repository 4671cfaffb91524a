package plan

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

// partitions: partitions added to an existing topic.
// KindPartitions is a change to more partitions for an existing topic.
const KindPartitions Kind = "partitions"

var partitionsSpec = &spec{
	kind: KindPartitions,
	valid: func(c *Change) string {
		if why := needsBefore(c); why != "" {
			return why
		}
		if c.After.Partitions <= c.Before.Partitions {
			return fmt.Sprintf("a partitions change from %d to %d partitions adds none", c.Before.Partitions, c.After.Partitions)
		}
		return ""
	},
	resource: "topic",
	modify:   modifyPartitions,
	observe: func(ix *Target, c *Change) *State {
		tt := ix.s.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		s := &State{Partitions: int32(len(tt.Partitions))}
		if c.After != nil && c.After.Assignment != nil && c.Before != nil && int(c.Before.Partitions) <= len(tt.Partitions) {
			s.Assignment = assignmentOf(tt)[c.Before.Partitions:]
		}
		return s
	},
	equal: func(obs, ref *State) bool {
		if eq, ok := bothOrNeither(obs, ref); ok {
			return eq
		}
		if obs.Partitions != ref.Partitions {
			return false
		}
		return ref.Assignment == nil || equalAssignment(obs.Assignment, ref.Assignment)
	},
	fields: func(c *Change) []Field {
		b, a := orEmpty(c.Before), orEmpty(c.After)
		out := []Field{field("partitions", strp(strconv.Itoa(int(b.Partitions))), strp(strconv.Itoa(int(a.Partitions))))}
		if a.Assignment != nil {
			out = append(out, field("assignment", nil, strp(FormatAssignment(a.Assignment, int(b.Partitions)))))
		}
		return out
	},
	label:  nameLabel,
	invert: invertPartitions,
}

// modifyPartitions adds the partitions the source has beyond the target's;
// fewer in the source is a blocker (Kafka cannot remove partitions).
func modifyPartitions(b *builder, t *topicPass) *Change {
	st, want := t.src, t.want
	srcN, tgtN := int32(len(st.Partitions)), int32(len(t.tgt.Partitions))
	if srcN < tgtN {
		b.block(catalogue.IDBlockPartitionsDecrease, KindPartitions, st.Name,
			fmt.Sprintf("the target has %d partitions and the source %d; Kafka cannot remove partitions", tgtN, srcN),
			"leave the target as it is, or delete and recreate the topic by hand (losing its data)", nil)
	}
	if srcN <= tgtN {
		return nil
	}
	after := &State{Partitions: srcN}
	if want != nil {
		after.Assignment = want[tgtN:]
		if miss := b.missingBrokers(after.Assignment); len(miss) > 0 {
			b.block(catalogue.IDBlockBrokerMissing, KindPartitions, st.Name, fmt.Sprintf("the mapped assignment needs target %s, which the target does not have", brokers(miss)),
				"fix --broker-id-map or add the brokers to the target", nil)
			return nil
		}
		b.rackCheck(st.Name, after.Assignment, int(tgtN))
	}
	b.noteUnplaced(st.Name, KindPartitions)
	t.post.Partitions = srcN
	if want != nil {
		t.post.Assignment = append(slices.Clone(t.post.Assignment), after.Assignment...)
	}
	return &Change{Kind: KindPartitions, Action: ActionUpdate, Resource: topicResource(st.Name),
		Before: &State{Partitions: tgtN}, After: after}
}
