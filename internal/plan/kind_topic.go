package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// topic: a topic created (with its partitions, replicas and configs) or,
// with Prune, deleted. The kinds that change an existing topic (those with
// a modify) are built here too, per topic, so that the policy sees the
// topic's combined change once.
// KindTopic is a change to a topic: its creation (with its partitions, replica lists and configs) or, with --prune, deletion.
const KindTopic Kind = "topic"

var topicSpec = &spec{
	kind:     KindTopic,
	actions:  []Action{ActionCreate, ActionDelete},
	resource: "topic",
	build: func(b *builder) error {
		if err := b.topics(); err != nil {
			return err
		}
		return b.placementFindings()
	},
	observe: func(ix *Target, c *Change) *State {
		tt := ix.s.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		ref := refState(c)
		s := &State{Partitions: int32(len(tt.Partitions)), ReplicationFactor: tt.ReplicationFactor()}
		if ref != nil && ref.Assignment != nil {
			s.Assignment = assignmentOf(tt)
		}
		if ref != nil && len(ref.Configs) > 0 {
			s.Configs = pick(tt.Configs, keysOf(ref.Configs))
		}
		return s
	},
	equal: func(obs, ref *State) bool {
		if eq, ok := bothOrNeither(obs, ref); ok {
			return eq
		}
		if obs.Partitions != ref.Partitions || obs.ReplicationFactor != ref.ReplicationFactor {
			return false
		}
		if ref.Assignment != nil && !equalAssignment(obs.Assignment, ref.Assignment) {
			return false
		}
		return equalConfigs(catalogue.ScopeTopic, obs.Configs, ref.Configs)
	},
	fields: func(c *Change) []Field {
		// A create shows what it creates; a delete what it removes.
		st, set := c.After, func(v string) Field { return Field{After: strp(v)} }
		if c.Action == ActionDelete {
			st, set = c.Before, func(v string) Field { return Field{Before: strp(v)} }
		}
		st = orEmpty(st)
		with := func(key, v string) Field { f := set(v); f.Key = key; return f }
		out := []Field{with("partitions", strconv.Itoa(int(st.Partitions))), with("replication factor", strconv.Itoa(st.ReplicationFactor))}
		if c.Action != ActionDelete {
			if st.Assignment != nil {
				out = append(out, with("assignment", FormatAssignment(st.Assignment, 0)))
			} else {
				out = append(out, with("assignment", "placed by the target"))
			}
		}
		for _, cf := range st.Configs {
			f := with(cf.Key, cf.Value)
			if cf.Sensitive {
				f = with(cf.Key, secretRef(cf.Secret))
				f.Sensitive = true
			}
			out = append(out, f)
		}
		return out
	},
	label:  nameLabel,
	invert: invertTopic,
	whole: func(ix *Target, c *Change) *State {
		tt := ix.s.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		return &State{Partitions: int32(len(tt.Partitions)), ReplicationFactor: tt.ReplicationFactor(), Assignment: assignmentOf(tt),
			Configs: pick(tt.Configs, keysOf(tt.Configs))}
	},
}

// ---- topics ----------------------------------------------------------------

func (b *builder) topics() error {
	pending := map[string]bool{}
	for _, t := range b.in.Source.PendingDeletes {
		pending[t] = true
	}
	for i := range b.in.Source.Topics {
		st := &b.in.Source.Topics[i]
		if !b.wantTopic(st.Name) {
			continue
		}
		if pending[st.Name] {
			b.finding(catalogue.IDTopicPendingDelete, snapshot.SeverityWarning, st.Name,
				"topic is marked for deletion in the source (/admin/delete_topics) and is not migrated", "let the deletion finish, or cancel it, before the cutover")
			continue
		}
		if err := b.topic(st, b.in.Target.Topic(st.Name)); err != nil {
			return err
		}
	}
	if b.in.Options.Prune {
		for i := range b.in.Target.Topics {
			tt := &b.in.Target.Topics[i]
			if !b.wantTopic(tt.Name) || tt.Internal || b.in.Source.Topic(tt.Name) != nil {
				continue
			}
			pre := topicState(tt, true)
			c := Change{Kind: KindTopic, Action: ActionDelete, Resource: Resource{Type: "topic", Name: tt.Name},
				Before: &State{Partitions: pre.Partitions, ReplicationFactor: pre.ReplicationFactor}}
			b.addTopicChanges(tt.Name, "DELETE", &pre, nil, []Change{c})
		}
	}
	if len(b.newTopicIDs) > 0 {
		n := len(b.newTopicIDs)
		ex := strings.Join(b.newTopicIDs[:min(n, 3)], ", ")
		b.finding(catalogue.IDTopicIDChanges, snapshot.SeverityInfo, "topics",
			fmt.Sprintf("%s will get new topic ids on the target (e.g. %s); the admin protocol cannot carry topic ids", english.N(n, "topic"), ex),
			"clients that cache topic ids reconnect and refresh metadata; nothing to do unless tooling stores ids")
	}
	return nil
}

func (b *builder) topic(st *snapshot.Topic, tt *snapshot.Topic) error {
	configs := configsWithout(st.Configs, b.isRemovedTopicConfig, func(c snapshot.Config) {
		b.finding(catalogue.IDConfigRemovedKafka4, snapshot.SeverityWarning, "topic "+st.Name,
			fmt.Sprintf("config %s=%s is removed in Kafka 4 and is dropped", c.Key, c.Value),
			"nothing: the key has no effect on Kafka 4; remove it from the source if it is re-applied elsewhere")
	})
	configs, raised, ok := b.targetMinimums(st.Name, configs)
	if !ok {
		return nil
	}
	b.raised = raised // named on the change that carries them
	if v, ok := lookup(configs, "remote.storage.enable"); ok && catalogue.EqualValues(catalogue.ScopeTopic, "remote.storage.enable", v, "true") {
		b.block(catalogue.IDBlockTieredStorageTopic, KindTopic, st.Name,
			"topic has remote.storage.enable=true; recreating it gives a new topic id, which orphans its remote log segments",
			"migrate this topic with Kafka's own ZooKeeper-to-KRaft migration, which keeps topic ids", nil)
		return nil
	}
	if len(st.Partitions) == 0 {
		b.finding(catalogue.IDTopicNoPartitions, snapshot.SeverityWarning, st.Name, "topic has no partitions in the source and is skipped", "")
		return nil
	}
	for _, p := range st.Partitions {
		if len(p.Removing) > 0 || len(p.Adding) > 0 {
			b.finding(catalogue.IDTopicMidReassignment, snapshot.SeverityWarning, st.Name,
				fmt.Sprintf("partition %d is being reassigned in the source; the target uses the reassignment's target replicas %v", p.ID, p.TargetReplicas()),
				"let the reassignment finish before the cutover if the final layout matters")
			break
		}
	}
	want, missing, err := b.desiredAssignment(st)
	if err != nil {
		return err
	}
	rf := st.ReplicationFactor()
	b.missing = missing // noted by createTopic / modifyTopic when they place replicas
	if tt == nil {
		return b.createTopic(st, configs, want, rf)
	}
	return b.modifyTopic(st, tt, configs, want, rf)
}

// Floor is a topic config value the target refuses, and the nearest value

func (b *builder) createTopic(st *snapshot.Topic, configs []snapshot.Config, want [][]int32, rf int) error {
	res := Resource{Type: "topic", Name: st.Name}
	if want != nil {
		if miss := b.missingBrokers(want); len(miss) > 0 {
			b.block(catalogue.IDBlockBrokerMissing, KindTopic, st.Name, fmt.Sprintf("the mapped assignment needs target %s, which the target does not have", brokers(miss)),
				"fix --broker-id-map or add the brokers to the target", nil)
			return nil
		}
	} else if len(b.targetBrokers) > 0 && rf > len(b.targetBrokers) {
		b.block(catalogue.IDBlockReplicationTooHigh, KindTopic, st.Name,
			fmt.Sprintf("replication factor %d is above the target's %s", rf, english.N(len(b.targetBrokers), "broker")),
			"add brokers to the target, or create the topic by hand with a lower replication factor", nil)
		return nil
	}
	if want != nil {
		b.rackCheck(st.Name, want, 0)
	}
	b.noteUnplaced(st.Name, KindTopic)
	after := &State{Partitions: int32(len(st.Partitions)), ReplicationFactor: rf, Assignment: want, Configs: configs}
	if st.ID != "" {
		b.newTopicIDs = append(b.newTopicIDs, st.Name)
	}
	post := TopicState{Partitions: after.Partitions, ReplicationFactor: rf, Assignment: want, Configs: snapshot.ConfigMap(configs)}
	c := Change{Kind: KindTopic, Action: ActionCreate, Resource: res, After: after, Notes: b.raised}
	b.addTopicChanges(st.Name, "CREATE", nil, &post, []Change{c})
	return nil
}

func (b *builder) modifyTopic(st, tt *snapshot.Topic, configs []snapshot.Config, want [][]int32, rf int) error {
	pre := topicState(tt, true)
	post := topicState(tt, true)
	t := &topicPass{src: st, tgt: tt, configs: configs, want: want, rf: rf, post: &post}
	var changes []Change
	for _, k := range Kinds {
		if m := specs[k].modify; m != nil {
			if c := m(b, t); c != nil {
				changes = append(changes, *c)
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	b.addTopicChanges(st.Name, "MODIFY", &pre, &post, changes)
	return nil
}

// topicPass is one source topic that exists on the target, as the kinds
// that change an existing topic see it: in Kinds order, each may add one
// change and update post, the state the policy sees after them all.
type topicPass struct {
	src, tgt *snapshot.Topic
	configs  []snapshot.Config // the source's configs to carry (removed keys dropped, floors applied)
	want     [][]int32         // the replica lists wanted, nil when the target places replicas
	rf       int               // the source's replication factor
	post     *TopicState
}

func topicResource(name string) Resource { return Resource{Type: "topic", Name: name} }

// addTopicChanges runs the policy once for a topic's combined change and
// adds the changes, or blocks them all when the policy denies.
func (b *builder) addTopicChanges(topic, action string, pre, post *TopicState, cs []Change) {
	if b.in.Policy == nil {
		for _, c := range cs {
			b.add(c)
		}
		return
	}
	v := b.in.Policy.Evaluate(action, topic, b.in.Options.Principal, pre, post)
	for _, c := range cs {
		c.Verdict = &v
		if v.Allowed {
			b.add(c)
			continue
		}
		c.ID = ChangeID(c.Kind, c.Resource)
		cc := c
		b.block(catalogue.IDBlockPolicyDenied, c.Kind, topic, fmt.Sprintf("policy rule %q denies %s: %s", v.Rule, strings.ToLower(action), v.Message),
			"change the source topic or the policy; other resources are not affected", &cc)
	}
}

func topicState(t *snapshot.Topic, withAssignment bool) TopicState {
	s := TopicState{Partitions: int32(len(t.Partitions)), ReplicationFactor: t.ReplicationFactor(), Configs: map[string]string{}}
	for _, c := range t.Configs {
		if !c.Sensitive {
			s.Configs[c.Key] = c.Value
		}
	}
	if withAssignment {
		s.Assignment = assignmentOf(t)
	}
	return s
}
