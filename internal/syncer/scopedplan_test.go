package syncer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// cmpPlan compares changes and blockers field by field, secrets by
// reference and knowledge.
var cmpPlan = []cmp.Option{cmp.Comparer(func(a, b secret.Secret) bool { return a.Ref() == b.Ref() && a.Known() == b.Known() })}

// testPolicy denies a few topic actions by shape, so verdicts and policy
// blockers appear in the plans compared.
type testPolicy struct{}

func (testPolicy) Evaluate(action, topic, _ string, pre, post *plan.TopicState) plan.Verdict {
	switch {
	case action == "CREATE" && post.Partitions > 5:
		return plan.Verdict{Rule: "max-partitions", Message: "more than 5 partitions"}
	case action == "MODIFY" && post.Configs["cleanup.policy"] == "compact" && pre.Configs["cleanup.policy"] != "compact":
		return plan.Verdict{Rule: "no-compaction", Message: "compaction turned on"}
	case action == "DELETE" && strings.Contains(topic, "1"):
		return plan.Verdict{Rule: "keep-ones", Message: "topics with a 1 stay"}
	}
	return plan.Verdict{Allowed: true, Rule: "default"}
}

// divergedTarget is a target that differs from the source in every way a
// plan looks at: topics missing, extra (some internal), with fewer or more
// partitions, other replicas or configs; broker configs, quotas, ACLs and
// SCRAM users changed, dropped and added; brokers (and racks) of its own.
func divergedTarget(src *snapshot.Snapshot, rng *rand.Rand) *snapshot.Snapshot {
	p := func(n int) bool { return rng.IntN(n) == 0 }
	t := &snapshot.Snapshot{Format: src.Format, Source: snapshot.SourceKafka, ClusterID: "target", Address: "target:9092"}
	brokerSets := [][]int32{{1, 2, 3, 4}, {1, 2}, {1, 2, 3, 4, 5, 6}, {101, 102, 103, 104}}
	racked := p(2)
	for _, id := range brokerSets[rng.IntN(len(brokerSets))] {
		b := snapshot.Broker{ID: id, Host: "kraft", Port: 9092}
		if racked {
			b.Rack = fmt.Sprintf("r%d", id%2)
		}
		t.Brokers = append(t.Brokers, b)
	}
	for _, st := range src.Topics {
		if p(5) {
			continue // missing on the target
		}
		tt := snapshot.Topic{Name: st.Name, ID: "tid", Internal: st.Internal}
		n := len(st.Partitions)
		switch {
		case p(8) && n > 1:
			n-- // fewer: the plan adds one
		case p(8):
			n++ // more: a blocker
		}
		for i := range n {
			reps := []int32{1, 2}
			if i < len(st.Partitions) && !p(6) {
				reps = slices.Clone(st.Partitions[i].TargetReplicas())
			}
			tt.Partitions = append(tt.Partitions, snapshot.Partition{ID: int32(i), Replicas: reps})
		}
		for _, c := range st.Configs {
			switch {
			case p(6):
			case p(6):
				c.Value += "0"
				tt.Configs = append(tt.Configs, c)
			default:
				tt.Configs = append(tt.Configs, c)
			}
		}
		if p(6) {
			tt.Configs = append(tt.Configs, snapshot.Config{Key: "min.insync.replicas", Value: "2"})
		}
		t.Topics = append(t.Topics, tt)
	}
	for i := range 6 {
		t.Topics = append(t.Topics, snapshot.Topic{Name: fmt.Sprintf("target-only-%d", i), Internal: i == 0,
			Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}})
	}
	for _, bc := range src.BrokerConfigs {
		if p(4) {
			continue
		}
		bc.Configs = slices.Clone(bc.Configs)
		if p(2) && len(bc.Configs) > 0 {
			bc.Configs[0].Value += "1"
		}
		t.BrokerConfigs = append(t.BrokerConfigs, bc)
	}
	t.BrokerConfigs = append(t.BrokerConfigs, snapshot.BrokerConfig{Broker: "4", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "3"}}},
		snapshot.BrokerConfig{Broker: "102", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "2"}}})
	for _, q := range src.Quotas {
		if p(4) {
			continue
		}
		vals := map[string]float64{}
		for k, v := range q.Values {
			if p(4) {
				v++
			}
			vals[k] = v
		}
		if p(4) {
			vals["request_percentage"] = 12
		}
		t.Quotas = append(t.Quotas, snapshot.Quota{Entity: q.Entity, Values: vals})
	}
	t.Quotas = append(t.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: "target-user"}}, Values: map[string]float64{"producer_byte_rate": 1}},
		snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: snapshot.EntityClientID, Name: "target-client"}}, Values: map[string]float64{"producer_byte_rate": 2}})
	for _, a := range src.ACLs {
		if !p(4) {
			t.ACLs = append(t.ACLs, a)
		}
		if p(10) { // another binding on the same resource, the target's own
			a.Principal = "User:target-" + a.Principal[5:]
			t.ACLs = append(t.ACLs, a)
		}
	}
	t.ACLs = append(t.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: "target-only-1", PatternType: "LITERAL", Principal: "User:x", Host: "*", Operation: "Read", Permission: "Allow"})
	for _, u := range src.ScramUsers {
		if p(3) {
			continue
		}
		u.Credentials = slices.Clone(u.Credentials)
		if p(3) {
			u.Credentials[0].Iterations++
		}
		if len(u.Credentials) == 1 && p(3) { // the other mechanism too: --prune deletes it
			other := "SCRAM-SHA-512"
			if u.Credentials[0].Mechanism == other {
				other = "SCRAM-SHA-256"
			}
			u.Credentials = append(u.Credentials, snapshot.ScramCredential{Mechanism: other, Iterations: 4096})
		}
		t.ScramUsers = append(t.ScramUsers, u)
	}
	t.ScramUsers = append(t.ScramUsers, snapshot.ScramUser{Name: "target-user", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}},
		snapshot.ScramUser{Name: "target-admin", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 8192}}})
	t.Sort()
	return t
}

// optionSets are plan options that exercise every way a plan depends on
// more than the resource at hand.
func optionSets(src *snapshot.Snapshot, rng *rand.Rand) []plan.Options {
	identity, shifted, partial := map[int32]int32{}, map[int32]int32{}, map[int32]int32{}
	for _, b := range src.Brokers {
		identity[b.ID], shifted[b.ID] = b.ID, b.ID+100
		if b.ID != 1 {
			partial[b.ID] = b.ID + 100
		}
	}
	sets := []plan.Options{
		{},
		{Prune: true, OwnUser: "target-admin"}, // the tool's own credential: a blocker, never a delete
		{Prune: true, PruneClusterConfigs: true, Placement: plan.PlacementTarget, ResendSecrets: true},
		{Placement: plan.PlacementSource, RaiseToTargetMinimums: true, Reassign: true},
		{BrokerIDMap: shifted, Prune: true, Reassign: true},
		{BrokerIDMap: identity, TopicRegex: "^[a-m]", PrincipalRegex: "^User:[a-k]"},
		{BrokerIDMap: partial, Prune: true},
		{Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig, plan.KindACL, plan.KindScramUser}, Prune: true, TargetVersion: "4.0"},
		{Exclude: []plan.Kind{plan.KindTopic, plan.KindQuota}, Prune: true, Reassign: true},
	}
	rng.Shuffle(len(sets), func(i, j int) { sets[i], sets[j] = sets[j], sets[i] })
	return sets
}

// entityPool lists feed entities as the feed names them, for every entity
// of the source and the target and some that neither has.
func entityPool(src, tgt *snapshot.Snapshot) []zkfeed.Entity {
	var out []zkfeed.Entity
	add := func(k zkfeed.Kind, name string) { out = append(out, zkfeed.Entity{Kind: k, Name: name}) }
	for _, s := range []*snapshot.Snapshot{src, tgt} {
		for _, t := range s.Topics {
			add(zkfeed.Topic, t.Name)
			add(zkfeed.Config, "topics/"+t.Name)
		}
		for _, b := range s.BrokerConfigs {
			name := b.Broker
			if name == "" {
				name = zkread.DefaultEntity
			}
			add(zkfeed.Config, "brokers/"+name)
		}
		comp := func(c snapshot.EntityComponent) string {
			if c.Default {
				return zkread.DefaultEntity
			}
			return zkread.Sanitize(c.Name)
		}
		for _, q := range s.Quotas {
			typ := map[string]string{snapshot.EntityUser: "users", snapshot.EntityClientID: "clients", snapshot.EntityIP: "ips"}[q.Entity[0].Type]
			name := typ + "/" + comp(q.Entity[0])
			if len(q.Entity) > 1 {
				name += "/clients/" + comp(q.Entity[1])
			}
			add(zkfeed.Config, name)
		}
		for _, u := range s.ScramUsers {
			add(zkfeed.Config, "users/"+zkread.Sanitize(u.Name))
		}
		for _, a := range s.ACLs {
			add(zkfeed.ACL, a.ResourceType+":"+a.PatternType+":"+a.ResourceName)
		}
	}
	for _, t := range src.PendingDeletes {
		add(zkfeed.Deletion, t)
	}
	add(zkfeed.Topic, "ghost")
	add(zkfeed.Config, "brokers/9")
	add(zkfeed.Config, "users/nobody")
	add(zkfeed.ACL, "Group:LITERAL:nobody")
	return out
}

// blockerIn reports whether a whole plan's blocker is about the scope d.
func blockerIn(d decoded, b plan.Blocker) bool {
	if b.Change != nil {
		return d.covers(*b.Change)
	}
	switch b.Kind {
	case plan.KindTopic, plan.KindPartitions, plan.KindReassignment, plan.KindTopicConfig:
		return d.topics[strings.TrimPrefix(b.Resource, "topic ")]
	case plan.KindBrokerConfig:
		name := strings.TrimPrefix(b.Resource, "broker ")
		if name == "<default>" {
			name = ""
		}
		return d.brokers[name] || d.targetBrokers()[name] // source names, or where they go
	case plan.KindScramUser:
		if b.User == "" { // a principal map's collision: two users onto this one
			return d.targetUsers()[strings.TrimPrefix(b.Resource, "User:")]
		}
		return d.targetUsers()[b.User]
	case plan.KindQuota: // a principal map's collision: entities onto this one
		for u := range d.targetUsers() {
			if b.Resource == "user="+u || strings.HasPrefix(b.Resource, "user="+u+",client-id=") {
				return true
			}
		}
	}
	return false
}

// testPrincipalMap maps the generated sources' principals as an operator
// moving to SCRAM might: certificate users to their team (lowercased: the
// users of one team merge, and their quotas collide when they differ),
// Kerberos-like users to their short name, and one SCRAM user onto a user
// the target has of its own.
func testPrincipalMap(t *testing.T, src *snapshot.Snapshot) *principalmap.Map {
	t.Helper()
	rules := `ssl.principal.mapping.rules=RULE:^CN=[^,]*,OU=([^,]*),.*$/$1/L,DEFAULT
sasl.kerberos.principal.to.local.rules=RULE:[1:$1@$0](.*@corp.example.com)s/@.*//,DEFAULT
zkmigrate.kerberos.default.realm=EXAMPLE.COM
`
	for _, u := range src.ScramUsers {
		if strings.HasPrefix(u.Name, "svc-") {
			rules += "zkmigrate.map=User:" + u.Name + " -> User:target-user\n"
			break
		}
	}
	f := filepath.Join(t.TempDir(), "map.properties")
	if err := os.WriteFile(f, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := principalmap.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestScopedPlanEqualsFullPlan: a change round plans the scope's part of
// the source against the scope's part of the target, not the whole of
// both; for generated ZooKeeper sources (every kind, sanitized names,
// defaults, pending deletes, reassignments), targets that differ in every
// way, option sets that bring in pruning, placement, broker-id maps,
// filters, kinds, target versions, credentials, a policy and a principal
// map (users renamed, merged and colliding; User ACL resources renamed),
// and random scopes, its changes and blockers are exactly those of the
// whole plan that the scope covers; and where the whole plan stops on an
// error, a round that errs does so for the same reason.
func TestScopedPlanEqualsFullPlan(t *testing.T) {
	ctx := context.Background()
	rounds, compared, withChanges, failedToo := 0, 0, 0, 0
	scramDeletes, ownBlocked := 0, 0           // rounds holding a pruned SCRAM credential, the own user's blocker
	mappedRounds, renamed, collided := 0, 0, 0 // with a principal map: rounds, with a renamed user's change, with a collision
	for seed := int64(1); seed <= 4; seed++ {
		w := zkgen.NewTreeWriter()
		if _, err := zkgen.Generate(ctx, zkgen.Small(seed), w, zkgen.Options{}); err != nil {
			t.Fatal(err)
		}
		tree := w.Tree()
		ro := zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}}
		src, err := zkread.Read(ctx, tree, ro)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 18))
		tgt := divergedTarget(src, rng)
		pm := testPrincipalMap(t, src)
		pool := entityPool(src, tgt)
		for oi, opts := range optionSets(src, rng) {
			var pol plan.Policy
			if oi%2 == 1 {
				pol = testPolicy{}
			}
			// A principal map for half the option sets of each seed, by turns.
			var principals Principals
			var creds []plan.Credential
			for i, u := range src.ScramUsers {
				if i%2 == 0 {
					name := u.Name
					if (int(seed)+oi)%2 == 0 {
						name = pm.TargetUser(name) // --scram-credentials names target users
					}
					creds = append(creds, plan.Credential{User: name, Mechanism: u.Credentials[0].Mechanism, Password: secret.New("file:"+u.Name, "pw")})
				}
			}
			build := func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
				return plan.Build(plan.Input{Source: s, Target: tg, Options: opts, Policy: pol, Credentials: creds})
			}
			if (int(seed)+oi)%2 == 0 {
				principals = pm
				build = func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
					mapped, blockers := migration.MapSource(pm, s)
					return plan.Build(plan.Input{Source: mapped, Target: tg, Options: opts, Policy: pol, Credentials: creds, Blockers: blockers})
				}
			}
			n := naming{brokers: opts.BrokerIDMap, principals: principals}
			whole, wholeErr := build(src, tgt)
			freeze := make(chan struct{})
			close(freeze) // frozen: a round plans and reports, it sends nothing
			out := make(chan Round, 1)
			st := &state{cfg: Config{Source: tree, ReadOptions: ro, Freeze: freeze, BrokerIDMap: opts.BrokerIDMap, Principals: principals, Now: time.Now,
				Stages: Stages{ReadTarget: func(context.Context) (*snapshot.Snapshot, error) { return tgt, nil }, Plan: build}}, rounds: out, source: src}
			for i := range 30 {
				var entities []zkfeed.Entity
				if i == 0 { // the target's own users, which the random picks from ~960 entities seldom meet
					entities = append(entities, zkfeed.Entity{Kind: zkfeed.Config, Name: "users/target-admin"}, zkfeed.Entity{Kind: zkfeed.Config, Name: "users/target-user"})
				}
				for range 1 + rng.IntN(5) {
					entities = append(entities, pool[rng.IntN(len(pool))])
				}
				scope := NewScope(entities)
				st.scoped(ctx, &batch{scope: scope})
				st.settle()
				r := <-out
				rounds++
				d := scope.decode().target(n)
				if wholeErr != nil {
					// The round meets the error only through its own
					// topics: the same option at fault, or none.
					var we, re *plan.Error
					if r.Err != nil && (!errors.As(wholeErr, &we) || !errors.As(r.Err, &re) || we.Option != re.Option) {
						t.Errorf("seed %d options %d scope %v: the round fails with %v, the whole plan with %v", seed, oi, scope.Entities(), r.Err, wholeErr)
					}
					if r.Err != nil {
						failedToo++
					}
					continue
				}
				if r.Err != nil {
					t.Fatalf("seed %d options %d scope %v: the round fails (%v), the whole plan does not", seed, oi, scope.Entities(), r.Err)
				}
				var want []plan.Change
				for _, c := range whole.Changes {
					if d.covers(c) {
						want = append(want, c)
					}
				}
				var wantBlockers []plan.Blocker
				for _, b := range whole.Blockers {
					if blockerIn(d, b) {
						wantBlockers = append(wantBlockers, b)
					}
				}
				compared++
				if slices.ContainsFunc(want, func(c plan.Change) bool { return c.Kind == plan.KindScramUser && c.Action == plan.ActionDelete }) {
					scramDeletes++
				}
				if slices.ContainsFunc(wantBlockers, func(b plan.Blocker) bool { return b.ID == catalogue.IDBlockPruneOwnCredential }) {
					ownBlocked++
				}
				if len(want) > 0 {
					withChanges++
				}
				if principals != nil {
					mappedRounds++
					if slices.ContainsFunc(want, func(c plan.Change) bool { return renamedUser(c, src, pm) }) {
						renamed++
					}
					if slices.ContainsFunc(wantBlockers, func(b plan.Blocker) bool { return b.ID == catalogue.IDBlockPrincipalMapClash }) {
						collided++
					}
				}
				if diff := cmp.Diff(want, r.Changes, cmpPlan...); diff != "" {
					t.Fatalf("seed %d options %+v scope %v: the round's changes differ from the whole plan's in the scope (-whole +round):\n%s", seed, opts, scope.Entities(), diff)
				}
				if diff := cmp.Diff(wantBlockers, r.Blockers, cmpPlan...); diff != "" {
					t.Fatalf("seed %d options %+v scope %v: the round's blockers differ from the whole plan's in the scope (-whole +round):\n%s", seed, opts, scope.Entities(), diff)
				}
			}
		}
	}
	t.Logf("%d rounds, %d compared, %d with changes (%d pruning a SCRAM credential, %d blocking the own user's); %d of the %d rounds whose whole plan fails fail too; with a principal map %d, %d changing a renamed user, %d with a collision",
		rounds, compared, withChanges, scramDeletes, ownBlocked, failedToo, rounds-compared, mappedRounds, renamed, collided)
	if renamed == 0 || collided == 0 {
		t.Errorf("%d rounds changed a renamed user, %d met a collision: the cases miss the principal map", renamed, collided)
	}
	if scramDeletes == 0 || ownBlocked == 0 {
		t.Errorf("%d rounds pruned a SCRAM credential, %d blocked the own user's: the cases miss --prune of SCRAM users", scramDeletes, ownBlocked)
	}
	if withChanges < compared/3 {
		t.Errorf("only %d of %d compared rounds had changes: the cases are too tame to prove anything", withChanges, compared)
	}
}

// renamedUser reports whether c is a change to a user (its quota or SCRAM
// credential) or a User ACL resource that no source user or resource of
// that name has: one the map renamed onto it.
func renamedUser(c plan.Change, src *snapshot.Snapshot, pm *principalmap.Map) bool {
	var name string
	r := c.Resource
	switch {
	case r.Type == "user":
		name = r.Name
	case r.Type == "quota" && len(r.Entity) > 0 && r.Entity[0].Type == snapshot.EntityUser && !r.Entity[0].Default:
		name = r.Entity[0].Name
	default:
		return false
	}
	for _, u := range src.ScramUsers {
		if u.Name != name && pm.TargetUser(u.Name) == name {
			return true
		}
	}
	for _, q := range src.Quotas {
		if e := q.Entity[0]; e.Type == snapshot.EntityUser && !e.Default && e.Name != name && pm.TargetUser(e.Name) == name {
			return true
		}
	}
	return false
}
