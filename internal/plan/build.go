package plan

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TopicState is what a topic policy sees of a topic before or after a
// change.
type TopicState struct {
	Partitions        int32
	ReplicationFactor int
	Assignment        [][]int32 // nil when the target places replicas
	Configs           map[string]string
}

// Policy decides whether a topic action is allowed. Action is CREATE,
// MODIFY or DELETE; pre is nil for CREATE, post nil for DELETE.
type Policy interface {
	Evaluate(action, topic, principal string, pre, post *TopicState) Verdict
}

// Credential is a SCRAM password the operator supplied for one user and
// mechanism (from --scram-credentials).
type Credential struct {
	User       string
	Mechanism  string
	Iterations int32
	Password   secret.Secret
}

// Input is everything Build needs.
type Input struct {
	Source, Target *snapshot.Snapshot
	SourceEndpoint Endpoint
	TargetEndpoint Endpoint
	Policy         Policy // nil: no policy
	PolicyNotes    []string
	Credentials    []Credential
	Options        Options
}

// Error is a problem with the input that stops planning (for example a
// broker-id map that leaves out a broker an assignment needs).
type Error struct{ Msg string }

func (e *Error) Error() string { return "plan: " + e.Msg }

// DefaultScramIterations is used for a supplied password without iterations.
const DefaultScramIterations = 8192

// Build computes the plan that brings in.Target in line with in.Source. It is
// a pure function: no I/O, no clock.
func Build(in Input) (*Plan, error) {
	if in.Source == nil || in.Target == nil {
		return nil, &Error{"source and target snapshots are required"}
	}
	b := &builder{in: in, p: &Plan{Format: FormatVersion, Source: in.SourceEndpoint, Target: in.TargetEndpoint, Options: in.Options, PolicyNotes: in.PolicyNotes}}
	if in.Options.TopicRegex != "" {
		re, err := regexp.Compile(in.Options.TopicRegex)
		if err != nil {
			return nil, &Error{fmt.Sprintf("--topics %q: %v", in.Options.TopicRegex, err)}
		}
		b.topicRe = re
	}
	if in.Options.PrincipalRegex != "" {
		re, err := regexp.Compile(in.Options.PrincipalRegex)
		if err != nil {
			return nil, &Error{fmt.Sprintf("--principals %q: %v", in.Options.PrincipalRegex, err)}
		}
		b.principalRe = re
	}
	switch in.Options.Placement {
	case "", PlacementAuto, PlacementSource, PlacementTarget:
	default:
		return nil, &Error{fmt.Sprintf("--placement %q: want auto, source or target", in.Options.Placement)}
	}
	// One change per resource at most, a few per topic: room for them all
	// up front, so 160,000 changes are not copied again on every growth.
	src, tgt := in.Source, in.Target
	b.p.Changes = make([]Change, 0, len(src.Topics)+len(src.BrokerConfigs)+len(src.Quotas)+len(src.ACLs)+2*len(src.ScramUsers)+
		len(tgt.Topics)/8+len(tgt.ACLs)/8+len(tgt.Quotas)/8)
	b.targetBrokers = map[int32]bool{}
	for _, br := range in.Target.Brokers {
		b.targetBrokers[br.ID] = true
		if br.Rack != "" {
			if b.racks == nil {
				b.racks = map[int32]string{}
			}
			b.racks[br.ID] = br.Rack
		}
	}
	if err := b.topics(); err != nil {
		return nil, err
	}
	if err := b.placementFindings(); err != nil {
		return nil, err
	}
	b.brokerConfigs()
	b.quotas()
	b.acls()
	b.scram()
	b.sourceFindings()
	b.finish()
	return b.p, nil
}

type builder struct {
	in            Input
	p             *Plan
	topicRe       *regexp.Regexp
	principalRe   *regexp.Regexp
	targetBrokers map[int32]bool
	racks         map[int32]string // target broker id → rack, when racks are set
	newTopicIDs   []string
	unplaced      []unplaced
	raised        []string // notes of the current topic's values raised to the target's minimums
	missing       []int32  // brokers the current topic's source lists name and the target lacks
}

func (b *builder) wantKind(k Kind) bool {
	o := b.in.Options
	if len(o.Include) > 0 && !slices.Contains(o.Include, k) {
		return false
	}
	return !slices.Contains(o.Exclude, k)
}

func (b *builder) wantTopic(name string) bool {
	if snapshot.IsInternalTopic(name) {
		return false
	}
	return b.topicRe == nil || b.topicRe.MatchString(name)
}

func (b *builder) wantPrincipal(p string) bool {
	return b.principalRe == nil || b.principalRe.MatchString(p)
}

func (b *builder) finding(id, sev, resource, msg, fix string) {
	b.p.Findings = append(b.p.Findings, snapshot.Finding{ID: id, Severity: sev, Resource: resource, Message: msg, Fix: fix})
}

func (b *builder) block(id string, k Kind, resource, reason, fix string, c *Change) {
	if !b.wantKind(k) {
		return
	}
	b.p.Blockers = append(b.p.Blockers, Blocker{ID: id, Kind: k, Resource: resource, Reason: reason, Fix: fix, Change: c})
}

func (b *builder) add(c Change) {
	if !b.wantKind(c.Kind) {
		return
	}
	key := c.Resource.key()
	c.ID = string(c.Kind) + ":" + key // ChangeID, with the key computed once
	if key == c.Resource.Name {
		c.Resource.Name = c.ID[len(c.ID)-len(key):] // the same bytes, held once
	}
	b.p.Changes = append(b.p.Changes, c)
}

// ChangeID is the stable id of a change of kind k to r: the kind and the
// resource's key ("topic:orders", "scram-user:alice/SCRAM-SHA-256",
// "broker-config:<default>").
func ChangeID(k Kind, r Resource) string { return string(k) + ":" + r.key() }

func (r Resource) key() string {
	switch r.Type {
	case "user":
		return r.Name + "/" + r.Mechanism
	case "broker":
		if r.Name == "" {
			return "<default>"
		}
	}
	return r.Name
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
			b.finding("topic-pending-delete", snapshot.SeverityWarning, st.Name,
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
			c := Change{Kind: KindTopic, Action: ActionDelete, Resource: Resource{Type: "topic", Name: tt.Name}, RPC: RPCDeleteTopics,
				Before: &State{Partitions: pre.Partitions, ReplicationFactor: pre.ReplicationFactor}}
			b.addTopicChanges(tt.Name, "DELETE", &pre, nil, []Change{c})
		}
	}
	if len(b.newTopicIDs) > 0 {
		n := len(b.newTopicIDs)
		ex := strings.Join(b.newTopicIDs[:min(n, 3)], ", ")
		b.finding("topic-id-changes", snapshot.SeverityInfo, "topics",
			fmt.Sprintf("%d topic(s) will get new topic ids on the target (e.g. %s); the admin protocol cannot carry topic ids", n, ex),
			"clients that cache topic ids reconnect and refresh metadata; nothing to do unless tooling stores ids")
	}
	return nil
}

func configsWithout(cs []snapshot.Config, drop func(string) bool, onDrop func(snapshot.Config)) []snapshot.Config {
	out := make([]snapshot.Config, 0, len(cs))
	for _, c := range cs {
		if drop(c.Key) {
			onDrop(c)
			continue
		}
		out = append(out, c)
	}
	return out
}

func (b *builder) topic(st *snapshot.Topic, tt *snapshot.Topic) error {
	configs := configsWithout(st.Configs, isRemovedTopicConfig, func(c snapshot.Config) {
		b.finding("config-removed-kafka4", snapshot.SeverityWarning, "topic "+st.Name,
			fmt.Sprintf("config %s=%s is removed in Kafka 4 and is dropped", c.Key, c.Value),
			"nothing: the key has no effect on Kafka 4; remove it from the source if it is re-applied elsewhere")
	})
	configs, raised, ok := b.targetMinimums(st.Name, configs)
	if !ok {
		return nil
	}
	b.raised = raised // named on the change that carries them
	if v, ok := lookup(configs, "remote.storage.enable"); ok && catalogue.EqualValues(catalogue.ScopeTopic, "remote.storage.enable", v, "true") {
		b.block("tiered-storage-topic", KindTopic, st.Name,
			"topic has remote.storage.enable=true; recreating it gives a new topic id, which orphans its remote log segments",
			"migrate this topic with Kafka's own ZooKeeper-to-KRaft migration, which keeps topic ids", nil)
		return nil
	}
	if len(st.Partitions) == 0 {
		b.finding("topic-no-partitions", snapshot.SeverityWarning, st.Name, "topic has no partitions in the source and is skipped", "")
		return nil
	}
	for _, p := range st.Partitions {
		if len(p.Removing) > 0 || len(p.Adding) > 0 {
			b.finding("topic-mid-reassignment", snapshot.SeverityWarning, st.Name,
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
// it accepts.
type floor struct {
	key     string
	min     int64
	minText string // as the plan writes it
	why     string
}

// topicFloors are the topic config floors of a target version. Kafka 4.1
// raised the floor of topic-level segment.bytes to 1 MiB (KAFKA-19080); an
// empty TargetVersion means 4.1.
func (b *builder) topicFloors() []floor {
	v := b.in.Options.TargetVersion
	if v == "" || v >= "4.1" {
		return []floor{{key: "segment.bytes", min: 1 << 20, minText: "1048576", why: "Kafka 4.1's minimum of 1048576 (1 MiB)"}}
	}
	return nil
}

// targetMinimums checks a topic's configs against the target's floors. A
// value below one is a blocker (the target would refuse the topic), or with
// RaiseToTargetMinimums is raised to the floor: it returns the adjusted
// configs and one note per adjustment. ok is false when the topic is blocked.
func (b *builder) targetMinimums(topic string, configs []snapshot.Config) (out []snapshot.Config, notes []string, ok bool) {
	out = configs
	for _, f := range b.topicFloors() {
		i := slices.IndexFunc(out, func(c snapshot.Config) bool { return c.Key == f.key })
		if i < 0 {
			continue
		}
		val := out[i].Value
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n >= f.min {
			continue
		}
		if !b.in.Options.RaiseToTargetMinimums {
			b.block("config-invalid-on-target", KindTopic, topic,
				fmt.Sprintf("%s=%s is below %s; the target would refuse the topic", f.key, val, f.why),
				"give --raise-to-target-minimums to create it with "+f.key+"="+f.minText+" (the nearest value the target accepts), or fix the value in the source and plan again", nil)
			return nil, nil, false
		}
		if len(notes) == 0 {
			out = slices.Clone(out)
		}
		out[i].Value = f.minText
		note := fmt.Sprintf("%s raised from %s to %s, %s (--raise-to-target-minimums)", f.key, val, f.minText, f.why)
		notes = append(notes, note)
		b.finding("config-raised-to-target-minimum", snapshot.SeverityWarning, "topic "+topic,
			note+"; the topic behaves differently on the target than on the source",
			"nothing, if the larger value is acceptable; else change the source value before the cutover")
	}
	return out, notes, true
}

// desiredAssignment returns the replica lists the topic should have on the
// target, or nil when the target places replicas. With --broker-id-map they
// are the source's mapped through it; else (placement auto or source) the
// source's own lists when every broker they name exists on the target. For
// those it also returns the brokers the target lacks (then want is nil).
func (b *builder) desiredAssignment(st *snapshot.Topic) (want [][]int32, missing []int32, err error) {
	o := b.in.Options
	if o.Placement == PlacementTarget {
		return nil, nil, nil
	}
	out := make([][]int32, len(st.Partitions))
	for i, p := range st.Partitions {
		if int(p.ID) != i {
			return nil, nil, &Error{fmt.Sprintf("topic %s: partitions are not numbered 0..%d", st.Name, len(st.Partitions)-1)}
		}
		for _, r := range p.TargetReplicas() {
			to := r
			if len(o.BrokerIDMap) > 0 {
				var ok bool
				if to, ok = o.BrokerIDMap[r]; !ok {
					return nil, nil, &Error{fmt.Sprintf("--broker-id-map has no entry for source broker %d, which topic %s partition %d needs", r, st.Name, p.ID)}
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
		return &Error{fmt.Sprintf("--placement source: the target has no broker(s) %s, which %d topic(s) need: %s", joinIDs(all), len(names), list)}
	}
	b.finding("placement-by-target", snapshot.SeverityWarning, "topics",
		fmt.Sprintf("%d topic(s) name broker(s) %s, which the target does not have, so the target places their replicas (preferred leaders may move): %s", len(names), joinIDs(all), list),
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
		msg += fmt.Sprintf("; and %d more partition(s)", len(bad)-5)
	}
	b.finding("placement-rack-shared", snapshot.SeverityWarning, topic,
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

func (b *builder) createTopic(st *snapshot.Topic, configs []snapshot.Config, want [][]int32, rf int) error {
	res := Resource{Type: "topic", Name: st.Name}
	if want != nil {
		if miss := b.missingBrokers(want); len(miss) > 0 {
			b.block("broker-missing", KindTopic, st.Name, fmt.Sprintf("the mapped assignment needs target broker(s) %v, which the target does not have", miss),
				"fix --broker-id-map or add the brokers to the target", nil)
			return nil
		}
	} else if len(b.targetBrokers) > 0 && rf > len(b.targetBrokers) {
		b.block("replication-factor-too-high", KindTopic, st.Name,
			fmt.Sprintf("replication factor %d is above the target's %d broker(s)", rf, len(b.targetBrokers)),
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
	c := Change{Kind: KindTopic, Action: ActionCreate, Resource: res, RPC: RPCCreateTopics, After: after, Notes: b.raised}
	b.addTopicChanges(st.Name, "CREATE", nil, &post, []Change{c})
	return nil
}

func (b *builder) modifyTopic(st, tt *snapshot.Topic, configs []snapshot.Config, want [][]int32, rf int) error {
	var changes []Change
	res := Resource{Type: "topic", Name: st.Name}
	pre := topicState(tt, true)
	post := topicState(tt, true)
	srcN, tgtN := int32(len(st.Partitions)), int32(len(tt.Partitions))
	tgtRF := tt.ReplicationFactor()

	switch {
	case srcN < tgtN:
		b.block("partitions-decrease", KindPartitions, st.Name,
			fmt.Sprintf("the target has %d partitions and the source %d; Kafka cannot remove partitions", tgtN, srcN),
			"leave the target as it is, or delete and recreate the topic by hand (losing its data)", nil)
	case srcN > tgtN:
		after := &State{Partitions: srcN}
		if want != nil {
			after.Assignment = want[tgtN:]
			if miss := b.missingBrokers(after.Assignment); len(miss) > 0 {
				b.block("broker-missing", KindPartitions, st.Name, fmt.Sprintf("the mapped assignment needs target broker(s) %v, which the target does not have", miss),
					"fix --broker-id-map or add the brokers to the target", nil)
				break
			}
			b.rackCheck(st.Name, after.Assignment, int(tgtN))
		}
		b.noteUnplaced(st.Name, KindPartitions)
		changes = append(changes, Change{Kind: KindPartitions, Action: ActionUpdate, Resource: res, RPC: RPCCreatePartitions,
			Before: &State{Partitions: tgtN}, After: after})
		post.Partitions = srcN
		if want != nil {
			post.Assignment = append(slices.Clone(post.Assignment), after.Assignment...)
		}
	}

	// Replica layout of the partitions both sides have.
	if want != nil {
		cur := assignmentOf(tt)
		n := min(len(want), len(cur))
		if !equalAssignment(want[:n], cur[:n]) {
			if b.in.Options.Reassign {
				if miss := b.missingBrokers(want[:n]); len(miss) > 0 {
					b.block("broker-missing", KindReassignment, st.Name, fmt.Sprintf("the mapped assignment needs target broker(s) %v, which the target does not have", miss), "fix --broker-id-map", nil)
				} else {
					b.rackCheck(st.Name, want[:n], 0)
					changes = append(changes, Change{Kind: KindReassignment, Action: ActionUpdate, Resource: res, RPC: RPCAlterReassignments,
						Before: &State{Assignment: cur[:n]}, After: &State{Assignment: want[:n]}})
					copy(post.Assignment, want[:n])
					post.ReplicationFactor = rf
				}
			} else {
				b.finding("assignment-differs", snapshot.SeverityInfo, st.Name,
					"the target's replica assignment differs from the source's (mapped) assignment", "re-run with --reassign to move replicas")
			}
		}
	} else if rf != tgtRF {
		b.block("replication-factor-differs", KindReassignment, st.Name,
			fmt.Sprintf("replication factor is %d in the source and %d in the target", rf, tgtRF),
			"give --broker-id-map and --reassign to change it through a reassignment", nil)
	}

	// Dynamic config overrides.
	if cc := b.configChange(configs, tt.Configs, "topic "+st.Name); cc != nil {
		cc.Kind, cc.Resource, cc.RPC = KindTopicConfig, res, RPCIncrementalAlter
		for _, n := range b.raised {
			key, _, _ := strings.Cut(n, " ")
			if _, ok := lookup(cc.After.Configs, key); ok {
				cc.Notes = append(cc.Notes, n)
			}
		}
		changes = append(changes, *cc)
		post.Configs = applyConfigs(post.Configs, cc.After.Configs, cc.Before.Configs)
	}
	if len(changes) == 0 {
		return nil
	}
	b.addTopicChanges(st.Name, "MODIFY", &pre, &post, changes)
	return nil
}

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
		b.block("policy-denied", c.Kind, topic, fmt.Sprintf("policy rule %q denies %s: %s", v.Rule, strings.ToLower(action), v.Message),
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

func applyConfigs(cur map[string]string, set, before []snapshot.Config) map[string]string {
	out := make(map[string]string, len(cur))
	for k, v := range cur {
		out[k] = v
	}
	for _, c := range before {
		delete(out, c.Key)
	}
	for _, c := range set {
		if !c.Sensitive {
			out[c.Key] = c.Value
		}
	}
	return out
}

func lookup(cs []snapshot.Config, key string) (string, bool) {
	for _, c := range cs {
		if c.Key == key {
			return c.Value, true
		}
	}
	return "", false
}

// configChange compares wanted configs with the target's and returns a
// change (Before/After holding only the touched keys), or nil when in sync.
// Sensitive keys present on the target count as in sync unless
// ResendSecrets; sensitive keys whose value is unknown become blockers.
// Keys only on the target are deleted only with Prune.
func (b *builder) configChange(want, have []snapshot.Config, resource string) *Change {
	return b.configChangePrune(want, have, resource, func(string) bool { return b.in.Options.Prune })
}

// configChangePrune is configChange with the keys to prune chosen by the
// caller.
func (b *builder) configChangePrune(want, have []snapshot.Config, resource string, prune func(key string) bool) *Change {
	haveByKey := make(map[string]snapshot.Config, len(have))
	for _, c := range have {
		haveByKey[c.Key] = c
	}
	var before, after []snapshot.Config
	wantKeys := map[string]bool{}
	for _, w := range want {
		wantKeys[w.Key] = true
		h, present := haveByKey[w.Key]
		if w.Sensitive {
			if present && !b.in.Options.ResendSecrets {
				continue
			}
			if w.Secret == nil || !w.Secret.Known() {
				b.block("secret-unknown", kindOfResource(resource), resource,
					fmt.Sprintf("sensitive config %s is encrypted in ZooKeeper and its value is not known", w.Key),
					"give --password-encoder-secret-file (the brokers' password.encoder.secret) so the value can be decrypted", nil)
				continue
			}
			if present {
				before = append(before, h)
			}
			after = append(after, snapshot.Config{Key: w.Key, Sensitive: true, Secret: w.Secret})
			continue
		}
		if present && !h.Sensitive && catalogue.EqualValues(scopeOf(resource), w.Key, h.Value, w.Value) {
			continue
		}
		if present {
			before = append(before, h)
		}
		after = append(after, snapshot.Config{Key: w.Key, Value: w.Value})
	}
	for _, h := range have {
		if !wantKeys[h.Key] && prune(h.Key) {
			before = append(before, h)
		}
	}
	if len(before) == 0 && len(after) == 0 {
		return nil
	}
	snapshot.SortConfigs(before)
	snapshot.SortConfigs(after)
	action := ActionUpdate
	return &Change{Action: action, Before: &State{Configs: stripSource(before)}, After: &State{Configs: after}}
}

func stripSource(cs []snapshot.Config) []snapshot.Config {
	out := make([]snapshot.Config, len(cs))
	for i, c := range cs {
		c.Source = ""
		if c.Sensitive {
			c.Value = ""
		}
		out[i] = c
	}
	return out
}

// scopeOf is the catalogue scope of a config resource label ("topic x",
// "broker 1").
func scopeOf(resource string) catalogue.Scope {
	if strings.HasPrefix(resource, "topic ") {
		return catalogue.ScopeTopic
	}
	return catalogue.ScopeBroker
}

func kindOfResource(resource string) Kind {
	if strings.HasPrefix(resource, "topic ") {
		return KindTopicConfig
	}
	return KindBrokerConfig
}

// ---- broker configs --------------------------------------------------------

func (b *builder) brokerConfigs() {
	have := map[string][]snapshot.Config{}
	for _, bc := range b.in.Target.BrokerConfigs {
		have[bc.Broker] = bc.Configs
	}
	seen := map[string]bool{}
	for _, bc := range b.in.Source.BrokerConfigs {
		name := bc.Broker
		label := brokerLabel(name)
		if name != "" {
			id, err := strconv.Atoi(name)
			if err != nil {
				b.finding("broker-config-bad-id", snapshot.SeverityWarning, label, "dynamic broker config for a non-numeric broker id is skipped", "")
				continue
			}
			to := int32(id)
			if m := b.in.Options.BrokerIDMap; len(m) > 0 {
				mapped, ok := m[to]
				if !ok {
					b.block("broker-not-mapped", KindBrokerConfig, label, "--broker-id-map has no entry for this broker, so its configs have no destination", "add the broker to --broker-id-map", nil)
					continue
				}
				to = mapped
			}
			if !b.targetBrokers[to] {
				b.block("broker-missing", KindBrokerConfig, label,
					fmt.Sprintf("per-broker configs go to broker %d, which the target does not have", to),
					"map the broker with --broker-id-map, or set the configs by hand on the right broker", nil)
				continue
			}
			name = strconv.Itoa(int(to))
		}
		seen[name] = true
		configs := configsWithout(bc.Configs, isRemovedBrokerConfig, func(c snapshot.Config) {
			b.finding("config-removed-kafka4", snapshot.SeverityWarning, label, fmt.Sprintf("broker config %s is removed in Kafka 4 (or ZooKeeper-only) and is dropped", c.Key), "")
		})
		if name == "" {
			b.keptClusterConfigs(configs, have[""])
		}
		if cc := b.configChangePrune(configs, have[name], brokerLabel(name), b.pruneBroker(name)); cc != nil {
			cc.Kind, cc.Resource, cc.RPC = KindBrokerConfig, Resource{Type: "broker", Name: name}, RPCIncrementalAlter
			b.add(*cc)
		}
	}
	if b.in.Options.Prune {
		for _, bc := range b.in.Target.BrokerConfigs {
			if seen[bc.Broker] {
				continue
			}
			if bc.Broker == "" {
				b.keptClusterConfigs(nil, bc.Configs)
			}
			if cc := b.configChangePrune(nil, bc.Configs, brokerLabel(bc.Broker), b.pruneBroker(bc.Broker)); cc != nil {
				cc.Kind, cc.Resource, cc.RPC = KindBrokerConfig, Resource{Type: "broker", Name: bc.Broker}, RPCIncrementalAlter
				b.add(*cc)
			}
		}
	}
}

// pruneBroker returns which of a broker's configs (for "", the cluster-level
// ones) Prune deletes when the source does not have them. Cluster-level
// configs need PruneClusterConfigs too: a new Kafka 4 cluster holds defaults
// of its own that nobody migrated. Even then the cluster-level
// min.insync.replicas stays on a 4.1+ target: with eligible leader replicas
// (KIP-966, on by default from 4.1) the controller sets it itself and refuses
// its removal ("Cluster-level min.insync.replicas cannot be removed while ELR
// is enabled").
func (b *builder) pruneBroker(name string) func(key string) bool {
	o := b.in.Options
	return func(key string) bool {
		if !o.Prune || name != "" {
			return o.Prune
		}
		return o.PruneClusterConfigs && !(key == "min.insync.replicas" && b.targetAtLeast41())
	}
}

// targetAtLeast41 reports a Kafka 4.1+ target (an empty TargetVersion is 4.1).
func (b *builder) targetAtLeast41() bool {
	v := b.in.Options.TargetVersion
	return v == "" || v >= "4.1"
}

// keptClusterConfigs notes, under Prune, the target's cluster-level broker
// configs the source does not have and Prune keeps.
func (b *builder) keptClusterConfigs(want, have []snapshot.Config) {
	o := b.in.Options
	if !o.Prune || !b.wantKind(KindBrokerConfig) {
		return
	}
	prunes := b.pruneBroker("")
	var keys []string
	for _, h := range have {
		if !slices.ContainsFunc(want, func(w snapshot.Config) bool { return w.Key == h.Key }) && !prunes(h.Key) {
			keys = append(keys, h.Key)
		}
	}
	if len(keys) == 0 {
		return
	}
	if o.PruneClusterConfigs {
		b.finding("prune-keeps-cluster-configs", snapshot.SeverityInfo, "broker <default>",
			"--prune-cluster-configs keeps the target's cluster-level min.insync.replicas: with eligible leader replicas (KIP-966, on by default from Kafka 4.1) the controller sets it and refuses its removal",
			"nothing; set the value you want instead of deleting it (kafka-configs --entity-type brokers --entity-default --alter)")
		return
	}
	b.finding("prune-keeps-cluster-configs", snapshot.SeverityInfo, "broker <default>",
		fmt.Sprintf("--prune keeps the target's cluster-level broker config(s) %s, which the source does not have: a new cluster sets defaults of its own (Kafka 4.1 sets min.insync.replicas for eligible leader replicas) that nobody migrated", strings.Join(keys, ", ")),
		"give --prune-cluster-configs as well to delete them")
}

func brokerLabel(name string) string {
	if name == "" {
		return "broker <default>"
	}
	return "broker " + name
}

// ---- quotas ----------------------------------------------------------------

func (b *builder) quotaWanted(e snapshot.QuotaEntity) bool {
	if b.principalRe == nil {
		return true
	}
	for _, c := range e {
		if c.Type == snapshot.EntityUser && !c.Default {
			return b.wantPrincipal("User:" + c.Name)
		}
	}
	return true
}

func (b *builder) quotas() {
	have := map[string]snapshot.Quota{}
	for _, q := range b.in.Target.Quotas {
		have[q.Entity.String()] = q
	}
	seen := map[string]bool{}
	for _, q := range b.in.Source.Quotas {
		key := q.Entity.String()
		seen[key] = true
		if !b.quotaWanted(q.Entity) || len(q.Values) == 0 {
			continue
		}
		h := have[key]
		before, after := map[string]float64{}, map[string]float64{}
		for k, v := range q.Values {
			if hv, ok := h.Values[k]; ok && hv == v {
				continue
			} else if ok {
				before[k] = hv
			}
			after[k] = v
		}
		if b.in.Options.Prune {
			for k, hv := range h.Values {
				if _, ok := q.Values[k]; !ok {
					before[k] = hv
				}
			}
		}
		if len(after) == 0 && len(before) == 0 {
			continue
		}
		action := ActionUpdate
		if len(h.Values) == 0 {
			action = ActionCreate
		}
		b.add(Change{Kind: KindQuota, Action: action, Resource: Resource{Type: "quota", Name: key, Entity: q.Entity}, RPC: RPCAlterClientQuotas,
			Before: &State{Quota: before}, After: &State{Quota: after}})
	}
	if b.in.Options.Prune {
		for _, q := range b.in.Target.Quotas {
			key := q.Entity.String()
			if seen[key] || len(q.Values) == 0 || !b.quotaWanted(q.Entity) {
				continue
			}
			b.add(Change{Kind: KindQuota, Action: ActionDelete, Resource: Resource{Type: "quota", Name: key, Entity: q.Entity}, RPC: RPCAlterClientQuotas,
				Before: &State{Quota: q.Values}, After: &State{Quota: map[string]float64{}}})
		}
	}
}

// ---- ACLs ------------------------------------------------------------------

func (b *builder) acls() {
	have := make(map[string]bool, len(b.in.Target.ACLs))
	for _, a := range b.in.Target.ACLs {
		have[a.Key()] = true
	}
	var want map[string]bool // only --prune asks what the source has
	if b.in.Options.Prune {
		want = make(map[string]bool, len(b.in.Source.ACLs))
	}
	for _, a := range b.in.Source.ACLs {
		var key string
		if want != nil || len(have) > 0 {
			key = a.Key()
		}
		if want != nil {
			want[key] = true
		}
		if !b.wantPrincipal(a.Principal) || have[key] {
			continue
		}
		acl := a
		b.add(Change{Kind: KindACL, Action: ActionCreate, Resource: Resource{Type: "acl", Name: a.String(), ACL: &acl}, RPC: RPCCreateACLs,
			After: &State{Present: true}})
	}
	if b.in.Options.Prune {
		for _, a := range b.in.Target.ACLs {
			if want[a.Key()] || !b.wantPrincipal(a.Principal) {
				continue
			}
			acl := a
			b.add(Change{Kind: KindACL, Action: ActionDelete, Resource: Resource{Type: "acl", Name: a.String(), ACL: &acl}, RPC: RPCDeleteACLs,
				Before: &State{Present: true}})
		}
	}
}

// ---- SCRAM -----------------------------------------------------------------

func (b *builder) scram() {
	type um struct{ user, mech string }
	have := map[um]int32{}
	for _, u := range b.in.Target.ScramUsers {
		for _, c := range u.Credentials {
			have[um{u.Name, c.Mechanism}] = c.Iterations
		}
	}
	creds := map[um]Credential{}
	for _, c := range b.in.Credentials {
		creds[um{c.User, c.Mechanism}] = c
	}
	for _, u := range b.in.Source.ScramUsers {
		if !b.wantPrincipal("User:" + u.Name) {
			continue
		}
		for _, sc := range u.Credentials {
			k := um{u.Name, sc.Mechanism}
			it, present := have[k]
			if present && !b.in.Options.ResendSecrets {
				continue
			}
			res := Resource{Type: "user", Name: u.Name, Mechanism: sc.Mechanism}
			cred, ok := creds[k]
			if !ok {
				b.block("scram-no-password", KindScramUser, "User:"+u.Name+" "+sc.Mechanism,
					"SCRAM credentials cannot be carried through the admin protocol without the password (ZooKeeper holds only salted keys)",
					"give the password in --scram-credentials, or have the user reset it (--scram-resets FILE lists them)", nil)
				continue
			}
			iters := cred.Iterations
			if iters == 0 {
				iters = max(sc.Iterations, 4096)
			}
			pw := cred.Password
			c := Change{Kind: KindScramUser, Action: ActionCreate, Resource: res, RPC: RPCAlterUserScramCredRPC,
				After: &State{Iterations: iters, Password: &pw}}
			if present {
				c.Action = ActionUpdate
				c.Before = &State{Iterations: it}
			}
			b.add(c)
		}
	}
}

// ---- findings about the source that the protocol cannot carry --------------

func (b *builder) sourceFindings() {
	s := b.in.Source
	for _, t := range s.DelegationTokens {
		b.finding("delegation-token", snapshot.SeverityWarning, "token "+t.TokenID,
			fmt.Sprintf("delegation token owned by %s cannot be carried through the admin protocol", t.Owner),
			"re-issue the token on the target (kafka-delegation-tokens --create) and hand it to its users")
	}
	for _, r := range s.LegacyReassignments {
		b.finding("legacy-reassignment", snapshot.SeverityWarning, fmt.Sprintf("%s-%d", r.Topic, r.Partition),
			"a legacy reassignment request is pending in /admin/reassign_partitions and is not migrated", "let it finish before the cutover")
	}
	if len(s.ConsumerGroups) > 0 {
		b.finding("out-of-scope-offsets", snapshot.SeverityInfo, "/consumers",
			fmt.Sprintf("%d old-consumer group(s) keep offsets in ZooKeeper; message data and consumer offsets are out of scope", len(s.ConsumerGroups)),
			"move data and offsets with MirrorMaker 2")
	}
	for _, f := range s.Findings {
		b.p.Findings = append(b.p.Findings, f)
	}
}

// ---- ordering and fingerprint ----------------------------------------------

var actionOrder = map[Action]int{ActionCreate: 0, ActionUpdate: 1, ActionDelete: 2, ActionNoOp: 3}

// sortChanges orders changes by kind, action and id. Changes are large
// structs: it sorts their indexes and moves each change once.
func sortChanges(cs []Change) []Change {
	order := func(x, y *Change) int {
		return cmp.Or(cmp.Compare(kindIndex(x.Kind), kindIndex(y.Kind)), cmp.Compare(actionOrder[x.Action], actionOrder[y.Action]), strings.Compare(x.ID, y.ID))
	}
	if slices.IsSortedFunc(cs, func(x, y Change) int { return order(&x, &y) }) {
		return cs
	}
	idx := make([]int32, len(cs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int { return order(&cs[i], &cs[j]) })
	// Permute in place, cycle by cycle: cs[i] becomes cs[idx[i]].
	for i := range idx {
		if idx[i] < 0 || int(idx[i]) == i {
			continue
		}
		tmp := cs[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				cs[j] = tmp
				break
			}
			cs[j] = cs[k]
			j = k
		}
	}
	return cs
}

func kindIndex(k Kind) int { return slices.Index(Kinds, k) }

func (b *builder) finish() {
	b.p.Changes = sortChanges(b.p.Changes)
	if len(b.p.Changes) == 0 {
		b.p.Changes = nil // as before the room was made up front: "changes": null
	}
	slices.SortStableFunc(b.p.Blockers, func(x, y Blocker) int {
		return cmp.Or(cmp.Compare(kindIndex(x.Kind), kindIndex(y.Kind)), strings.Compare(x.Resource, y.Resource), strings.Compare(x.ID, y.ID))
	})
	b.p.Fingerprint = Fingerprint(b.p)
}
