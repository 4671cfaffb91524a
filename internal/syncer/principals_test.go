package syncer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// TestPrincipalMapChangeRounds: with a principal map, sync follows the
// change feed (it used to poll, full rounds only): a change to a mapped
// user's quota on the source reaches the mapped target entity through a
// change round that read just that entity of the target, and a literal
// ACL on a mapped User resource reaches the renamed resource, its
// principal renamed too. The target is kfake; the plan is the command's
// (migration.BuildPlan with the map).
func TestPrincipalMapChangeRounds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mapFile := filepath.Join(t.TempDir(), "map.properties")
	if err := os.WriteFile(mapFile, []byte("ssl.principal.mapping.rules=RULE:^CN=([^,]*),OU=eng$/$1/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pm, err := principalmap.Load(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	carol := zkread.Sanitize("CN=carol,OU=eng")
	quota := func(rate string) *string {
		return str(`{"version":1,"config":{"producer_byte_rate":"` + rate + `"}}`)
	}
	base = edit(base, "/config/users/"+carol, quota("1024"))
	src := &swapTree{t: base}
	_, target := kfakeTarget(t, "target", 1)
	opts := plan.Options{Include: []plan.Kind{plan.KindQuota, plan.KindACL}, PrincipalRegex: "^User:(carol|dave)$"}
	stages := kafkaStages(target, opts, applyOn(target))
	stages.Plan = func(s, tg *snapshot.Snapshot) (*plan.Plan, error) {
		return migration.BuildPlan(s, tg, nil, opts, nil, pm)
	}
	feed := make(chan zkfeed.Event)
	rounds := make(chan Round, 4)
	go Run(ctx, Config{Source: src, Feed: feed, Stages: stages, Principals: pm, Coalesce: time.Millisecond}, rounds)
	take := taker(t, rounds, 10*time.Second)
	if r := take("initial"); !slices.ContainsFunc(r.Changes, func(c plan.Change) bool { return c.ID == "quota:user=carol" }) {
		t.Fatalf("the initial round's changes %v lack quota:user=carol", ids(r.Changes))
	}
	targetQuotas := func() map[string]float64 {
		t.Helper()
		s, err := kread.Read(ctx, target, kread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, q := range s.Quotas {
			out[q.Entity.String()] = q.Values["producer_byte_rate"]
		}
		return out
	}

	base = edit(base, "/config/users/"+carol, quota("2048"))
	src.set(base)
	feed <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/" + carol}}, Seen: time.Now()}
	r := take("the quota change")
	if r.Reason != ReasonChange || !slices.Equal(ids(r.Changes), []string{"quota:user=carol"}) || r.Outcome.Applied != 1 {
		t.Fatalf("round %d (%s): changes %v, applied %d; want a change round applying quota:user=carol", r.N, r.Reason, ids(r.Changes), r.Outcome.Applied)
	}
	carolQuota := snapshot.EntityComponent{Type: snapshot.EntityUser, Name: "carol"}
	if !slices.Contains(r.TargetScope.Quotas, carolQuota) || !slices.Contains(r.TargetScope.ScramUsers, "carol") ||
		slices.Contains(r.TargetScope.ScramUsers, "CN=carol,OU=eng") {
		t.Errorf("the round read the target's quotas %v and SCRAM users %v; want carol's, not CN=carol,OU=eng's", r.TargetScope.Quotas, r.TargetScope.ScramUsers)
	}
	if q := targetQuotas(); q["user=carol"] != 2048 {
		t.Errorf("target quotas %v; want user=carol at 2048", q)
	} else if _, ok := q["user=CN=carol,OU=eng"]; ok {
		t.Errorf("target quotas %v: the source's name was set too", q)
	}

	// A literal ACL on a User resource names a principal: renamed as a
	// resource, and its principal as a principal. (kfake refuses ACLs on
	// User resources: a target held in memory.)
	mem := &memTarget{s: &snapshot.Snapshot{ClusterID: "target"}}
	memStages := mem.stages(t, opts)
	memStages.Plan = stages.Plan
	feed2 := make(chan zkfeed.Event)
	rounds2 := make(chan Round, 4)
	go Run(ctx, Config{Source: src, Feed: feed2, Stages: memStages, Principals: pm, Coalesce: time.Millisecond}, rounds2)
	take = taker(t, rounds2, 10*time.Second)
	take("initial, in memory")
	acl := "User:LITERAL:User:CN=carol,OU=eng"
	base = edit(base, "/kafka-acl/User/User:CN=carol,OU=eng",
		str(`{"version":1,"acls":[{"principal":"User:CN=dave,OU=eng","permissionType":"Allow","operation":"CreateTokens","host":"*"}]}`))
	src.set(base)
	feed2 <- zkfeed.Event{Entities: []zkfeed.Entity{{Kind: zkfeed.ACL, Name: acl}}, Seen: time.Now()}
	r = take("the ACL grant")
	want := "acl:Allow User:dave CreateTokens on User:LITERAL:User:carol from *"
	if r.Reason != ReasonChange || !slices.Equal(ids(r.Changes), []string{want}) || r.Outcome.Applied != 1 {
		t.Fatalf("round %d (%s): changes %v, applied %d; want a change round applying %s", r.N, r.Reason, ids(r.Changes), r.Outcome.Applied, want)
	}
	if got := r.TargetScope.ACLs; len(got) != 1 || got[0] != (kread.ACLResource{Type: "User", Pattern: "LITERAL", Name: "User:carol"}) {
		t.Errorf("the round read the target's ACL resources %v; want User:LITERAL:User:carol", got)
	}
}
