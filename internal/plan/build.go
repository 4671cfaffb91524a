package plan

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
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
	// Blockers are found before planning (the principal map's collisions:
	// principalmap.Result.Collisions); each is added for a wanted kind.
	Blockers []Blocker
}

// Error is a problem with the input that stops planning (for example a
// broker-id map that leaves out a broker an assignment needs). Option names
// the option at fault by its name in Options' JSON ("broker_id_map"), ""
// when none; Msg goes on from it. A command shows the option as its flag.
type Error struct{ Option, Msg string }

func (e *Error) Error() string {
	if e.Option == "" {
		return "plan: " + e.Msg
	}
	return "plan: option " + e.Option + " " + e.Msg
}

// DefaultScramIterations is used for a supplied password without iterations.
const DefaultScramIterations = 8192

// Build computes the plan that brings in.Target in line with in.Source. It is
// a pure function: no I/O, no clock.
func Build(in Input) (*Plan, error) {
	if in.Source == nil || in.Target == nil {
		return nil, &Error{Msg: "source and target snapshots are required"}
	}
	b := &builder{in: in, p: &Plan{Format: FormatVersion, Source: in.SourceEndpoint, Target: in.TargetEndpoint, Options: in.Options, PolicyNotes: in.PolicyNotes}}
	if in.Options.TopicRegex != "" {
		re, err := regexp.Compile(in.Options.TopicRegex)
		if err != nil {
			return nil, &Error{"topics", fmt.Sprintf("%q: %v", in.Options.TopicRegex, err)}
		}
		b.topicRe = re
	}
	if in.Options.PrincipalRegex != "" {
		re, err := regexp.Compile(in.Options.PrincipalRegex)
		if err != nil {
			return nil, &Error{"principals", fmt.Sprintf("%q: %v", in.Options.PrincipalRegex, err)}
		}
		b.principalRe = re
	}
	switch in.Options.Placement {
	case "", PlacementAuto, PlacementSource, PlacementTarget:
	default:
		return nil, &Error{"placement", fmt.Sprintf("%q: want auto, source or target", in.Options.Placement)}
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
	for _, k := range Kinds {
		if build := specs[k].build; build != nil {
			if err := build(b); err != nil {
				return nil, err
			}
		}
	}
	for _, bl := range in.Blockers {
		b.block(bl.ID, bl.Kind, bl.Resource, bl.Reason, bl.Fix, nil)
	}
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
	if catalogue.IsInternalTopic(name) {
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

func (b *builder) block(id string, k Kind, resource, reason, fix string, c *Change) *Blocker {
	if !b.wantKind(k) {
		return nil
	}
	b.p.Blockers = append(b.p.Blockers, Blocker{ID: id, Kind: k, Resource: resource, Reason: reason, Fix: fix, Change: c})
	return &b.p.Blockers[len(b.p.Blockers)-1]
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

// ---- findings about the source that the protocol cannot carry --------------

func (b *builder) sourceFindings() {
	s := b.in.Source
	for _, t := range s.DelegationTokens {
		b.finding(catalogue.IDDelegationToken, snapshot.SeverityWarning, "token "+t.TokenID,
			fmt.Sprintf("delegation token owned by %s cannot be carried through the admin protocol", t.Owner),
			"re-issue the token on the target (kafka-delegation-tokens --create) and hand it to its users")
	}
	for _, r := range s.LegacyReassignments {
		b.finding(catalogue.IDLegacyReassignment, snapshot.SeverityWarning, fmt.Sprintf("%s-%d", r.Topic, r.Partition),
			"a legacy reassignment request is pending in /admin/reassign_partitions and is not migrated", "let it finish before the cutover")
	}
	if len(s.ConsumerGroups) > 0 {
		b.finding(catalogue.IDOutOfScopeOffsets, snapshot.SeverityInfo, "/consumers",
			fmt.Sprintf("%s %s offsets in ZooKeeper; message data and consumer offsets are out of scope", english.N(len(s.ConsumerGroups), "old-consumer group"), english.Agree(len(s.ConsumerGroups), "keeps", "keep")),
			"move data and offsets with MirrorMaker 2")
	}
	for _, f := range s.Findings {
		b.p.Findings = append(b.p.Findings, f)
	}
}

// ---- ordering and fingerprint ----------------------------------------------

var actionOrder = map[Action]int{ActionCreate: 0, ActionUpdate: 1, ActionDelete: 2, ActionNoOp: 3}

// sortChanges orders changes by kind, action and id. Changes are large
// structs: it sorts their indexes and moves each change once. Each change's
// kind and action are ranked once, so a comparison is two integers and, for
// the same rank, the ids.
func sortChanges(cs []Change) []Change {
	rank := make([]int32, len(cs))
	sorted := true
	for i := range cs {
		// actionOrder is 0-3 (0 for an unknown action), kindIndex -1 or more.
		rank[i] = int32(kindIndex(cs[i].Kind))*8 + int32(actionOrder[cs[i].Action])
		if i > 0 && sorted {
			sorted = cmp.Or(cmp.Compare(rank[i-1], rank[i]), strings.Compare(cs[i-1].ID, cs[i].ID)) <= 0
		}
	}
	if sorted {
		return cs
	}
	idx := make([]int32, len(cs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		if c := cmp.Compare(rank[i], rank[j]); c != 0 {
			return c
		}
		return strings.Compare(cs[i].ID, cs[j].ID)
	})
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

func (b *builder) finish() { Finish(b.p) }

// Finish puts a plan's changes in apply order (kind, action, id) and its
// blockers in kind and resource order, and sets its fingerprint: the last
// step of Build, and of any other builder of plans (a revert).
func Finish(p *Plan) {
	p.Changes = sortChanges(p.Changes)
	if len(p.Changes) == 0 {
		p.Changes = nil // as before the room was made up front: "changes": null
	}
	slices.SortStableFunc(p.Blockers, func(x, y Blocker) int {
		return cmp.Or(cmp.Compare(kindIndex(x.Kind), kindIndex(y.Kind)), strings.Compare(x.Resource, y.Resource), strings.Compare(x.ID, y.ID))
	})
	p.Fingerprint = Fingerprint(p)
}
