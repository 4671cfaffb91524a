package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func (b *builder) desiredAssignment(st *snapshot.Topic) (want [][]int32, missing []int32, err error) {
	o := b.in.Options
	if o.Placement == PlacementTarget {
		return nil, nil, nil
	}
	out := make([][]int32, len(st.Partitions))
	for i, p := range st.Partitions {
		if int(p.ID) != i {
			return nil, nil, &Error{Msg: fmt.Sprintf("topic %s: partitions are not numbered 0..%d", st.Name, len(st.Partitions)-1)}
		}
		for _, r := range p.TargetReplicas() {
			to := r
			if len(o.BrokerIDMap) > 0 {
				var ok bool
				if to, ok = o.BrokerIDMap[r]; !ok {
					return nil, nil, &Error{"broker_id_map", fmt.Sprintf("has no entry for source broker %d, which topic %s partition %d needs", r, st.Name, p.ID)}
				}
			}
			out[i] = append(out[i], to)
		}
	}
	if len(o.BrokerIDMap) > 0 {
		return out, nil, nil
	}
	if miss := b.missingBrokers(out); len(miss) > 0 {
		return nil, miss, nil
	}
	return out, nil, nil
}

// unplaced notes a topic that is created (or grows) without the source's
// replica lists because the target lacks brokers they name.
type unplaced struct {
	topic   string
	missing []int32
}

// noteUnplaced records that topic gets replicas placed by the target for
// lack of the brokers in b.missing (when any).
func (b *builder) noteUnplaced(topic string, k Kind) {
	if len(b.missing) > 0 && b.wantKind(k) {
		b.unplaced = append(b.unplaced, unplaced{topic, b.missing})
	}
}

// placementFindings reports the topics the target places for lack of
// brokers (PlacementAuto), or stops the plan (PlacementSource).
func (b *builder) placementFindings() error {
	if len(b.unplaced) == 0 {
		return nil
	}
	var all []int32
	var names []string
	for _, u := range b.unplaced {
		for _, id := range u.missing {
			if !slices.Contains(all, id) {
				all = append(all, id)
			}
		}
		names = append(names, fmt.Sprintf("%s (needs %s)", u.topic, joinIDs(u.missing)))
	}
	slices.Sort(all)
	list := strings.Join(names[:min(len(names), 10)], ", ")
	if len(names) > 10 {
		list += fmt.Sprintf(" and %d more", len(names)-10)
	}
	if b.in.Options.Placement == PlacementSource {
		return &Error{"placement", fmt.Sprintf("source: the target has no %s, which %s %s: %s", brokers(all), english.N(len(names), "topic"), english.Agree(len(names), "needs", "need"), list)}
	}
	b.finding(catalogue.IDPlacementByTarget, snapshot.SeverityWarning, "topics",
		fmt.Sprintf("%s %s %s, which the target does not have, so the target places %s replicas (preferred leaders may move): %s", english.N(len(names), "topic"), english.Agree(len(names), "names", "name"), brokers(all), english.Agree(len(names), "its", "their"), list),
		"give --broker-id-map to place them explicitly, or add the brokers to the target; --placement target lets the target place every topic without this finding")
	return nil
}

// rackCheck warns when an explicit assignment puts two replicas of one
// partition in one rack of the target (racks as DescribeCluster reports them).
func (b *builder) rackCheck(topic string, assign [][]int32, first int) {
	if len(b.racks) == 0 {
		return
	}
	var bad []string
	for i, rs := range assign {
		seen := map[string]int32{}
		for _, r := range rs {
			rack := b.racks[r]
			if rack == "" {
				continue
			}
			if other, dup := seen[rack]; dup {
				bad = append(bad, fmt.Sprintf("partition %d: brokers %d and %d in rack %s", first+i, other, r, rack))
				break
			}
			seen[rack] = r
		}
	}
	if len(bad) == 0 {
		return
	}
	msg := strings.Join(bad[:min(len(bad), 5)], "; ")
	if len(bad) > 5 {
		msg += "; and " + english.N(len(bad)-5, "more partition")
	}
	b.finding(catalogue.IDPlacementRackShared, snapshot.SeverityWarning, topic,
		"the explicit assignment puts two replicas of a partition in one rack of the target ("+msg+"); losing that rack loses both",
		"map the brokers so that each partition's replicas land in different racks (--broker-id-map), or reassign after the migration")
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// brokers names a list of broker ids, counted: "broker 3", "brokers 3, 4".
func brokers(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return english.Agree(len(ids), "broker ", "brokers ") + strings.Join(s, ", ")
}

func (b *builder) missingBrokers(assign [][]int32) []int32 {
	var missing []int32
	for _, rs := range assign {
		for _, r := range rs {
			if !b.targetBrokers[r] && !slices.Contains(missing, r) {
				missing = append(missing, r)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

func assignmentOf(t *snapshot.Topic) [][]int32 {
	out := make([][]int32, len(t.Partitions))
	for i := range t.Partitions {
		out[i] = slices.Clone(t.Partitions[i].TargetReplicas())
	}
	return out
}

func equalAssignment(a, b [][]int32) bool {
	return slices.EqualFunc(a, b, func(x, y []int32) bool { return slices.Equal(x, y) })
}

// FormatAssignment renders replica lists as "0:[1,2] 1:[2,3]", numbering
// partitions from first. Long assignments are shortened.
func FormatAssignment(a [][]int32, first int) string {
	var b strings.Builder
	for i, rs := range a {
		if i == 8 && len(a) > 10 {
			fmt.Fprintf(&b, "... (%d more)", len(a)-i)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:[", first+i)
		for j, r := range rs {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(r)))
		}
		b.WriteByte(']')
	}
	return b.String()
}
