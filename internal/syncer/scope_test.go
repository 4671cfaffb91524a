package syncer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// fixture is the tree Kafka 3.9 wrote for the test bed's legacy state.
const fixture = "../zkread/testdata/kafka39-legacy.json"

func readTree(t *testing.T, tr *zktree.Tree, scope *Scope) *snapshot.Snapshot {
	t.Helper()
	var src zkread.Source = tr
	if scope != nil {
		src = scopedSource{Source: tr, scope: *scope}
	}
	s, err := zkread.Read(context.Background(), src, zkread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// edit returns a copy of tr with p's data set (created when missing), or
// p removed when data is nil.
func edit(tr *zktree.Tree, p string, data *string) *zktree.Tree {
	out := &zktree.Tree{Nodes: slices.DeleteFunc(slices.Clone(tr.Nodes), func(n zktree.Node) bool { return n.Path == p })}
	if data != nil {
		out.Nodes = append(out.Nodes, zktree.Node{Path: p, Data: []byte(*data)})
	}
	out.Sort()
	return out
}

func str(s string) *string { return &s }

var cmpSnap = []cmp.Option{
	cmp.Comparer(func(a, b secret.Secret) bool { return a.Ref() == b.Ref() }),
	cmp.FilterPath(func(p cmp.Path) bool {
		s := p.String()
		return s == "Read" || s == "Findings"
	}, cmp.Ignore()),
}

// TestPatchEqualsFullRead: after Kafka-shaped edits to the tree, patching
// the old full read with a scoped read of the notified entities gives the
// same snapshot as reading the new tree whole.
func TestPatchEqualsFullRead(t *testing.T) {
	base, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		edits    map[string]*string
		entities []zkfeed.Entity
	}{
		{"topic config changed", map[string]*string{"/config/topics/orders": str(`{"version":1,"config":{"cleanup.policy":"compact"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}}},
		{"topic created", map[string]*string{"/brokers/topics/fresh": str(`{"version":3,"partitions":{"0":[1,2]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Topic, Name: "fresh"}}},
		{"topic deleted", map[string]*string{"/brokers/topics/orders": nil, "/brokers/topics/orders/partitions": nil, "/config/topics/orders": nil},
			[]zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}},
		{"partitions added", map[string]*string{"/brokers/topics/orders": str(`{"partitions":{"0":[1,2],"1":[2,1],"2":[1,2],"3":[2,1],"4":[1,2],"5":[2,1]},"topic_id":"2cLHY6KYRh6-1wBH_J4URw","adding_replicas":{},"removing_replicas":{},"version":3}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}}},
		{"user quota and SCRAM dropped", map[string]*string{"/config/users/alice": str(`{"version":1,"config":{"producer_byte_rate":"1"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/alice"}}},
		{"sanitized user", map[string]*string{"/config/users/User%20With%20Space": str(`{"version":1,"config":{"consumer_byte_rate":"5"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/User%20With%20Space"}}},
		{"default client quota", map[string]*string{"/config/clients/<default>": str(`{"version":1,"config":{"request_percentage":"50"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "clients/<default>"}}},
		{"cluster broker config", map[string]*string{"/config/brokers/<default>": str(`{"version":1,"config":{"log.retention.ms":"1000"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "brokers/<default>"}}},
		{"literal ACLs removed", map[string]*string{"/kafka-acl/Topic/payments": nil},
			[]zkfeed.Entity{{Kind: zkfeed.ACL, Name: "Topic:LITERAL:payments"}}},
		{"prefixed ACL changed", map[string]*string{"/kafka-acl-extended/prefixed/Topic/etl-": str(`{"version":1,"acls":[{"principal":"User:etl","permissionType":"Allow","host":"*","operation":"Write"}]}`)},
			[]zkfeed.Entity{{Kind: zkfeed.ACL, Name: "Topic:PREFIXED:etl-"}}},
		{"pending deletion", map[string]*string{"/admin/delete_topics/payments": str("")},
			[]zkfeed.Entity{{Kind: zkfeed.Deletion, Name: "payments"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := readTree(t, base, nil)
			tr := base
			for p, d := range tc.edits {
				tr = edit(tr, p, d)
			}
			want := readTree(t, tr, nil)
			if cmp.Equal(before, want, cmpSnap...) {
				t.Fatal("the edit changed nothing the snapshot holds: a hollow case")
			}
			scope := NewScope(tc.entities)
			got := Patch(before, scope, readTree(t, tr, &scope))
			if d := cmp.Diff(want, got, cmpSnap...); d != "" {
				t.Fatalf("patched snapshot differs from a full read (-full +patched):\n%s", d)
			}
		})
	}
}

// TestScopedReadHoldsOnlyTheScope: a scoped read carries the scope's
// entities and none of the others.
func TestScopedReadHoldsOnlyTheScope(t *testing.T) {
	tr, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	scope := NewScope([]zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}, {Kind: zkfeed.Config, Name: "users/alice/clients/app"}, {Kind: zkfeed.ACL, Name: "Group:PREFIXED:team-"}})
	s := readTree(t, tr, &scope)
	var names []string
	for _, tp := range s.Topics {
		names = append(names, tp.Name)
	}
	if !slices.Equal(names, []string{"orders"}) {
		t.Errorf("topics %v, want [orders]", names)
	}
	for _, q := range s.Quotas {
		if q.Entity[0].Type != snapshot.EntityUser || q.Entity[0].Name != "alice" {
			t.Errorf("quota %v outside the scope", q.Entity)
		}
	}
	if len(s.ScramUsers) != 1 || s.ScramUsers[0].Name != "alice" {
		t.Errorf("SCRAM users %v, want alice only", s.ScramUsers)
	}
	if len(s.ACLs) == 0 {
		t.Error("no ACLs for Group:PREFIXED:team-")
	}
	for _, a := range s.ACLs {
		if a.ResourceType != "Group" || a.PatternType != "PREFIXED" || a.ResourceName != "team-" {
			t.Errorf("ACL %v outside the scope", a)
		}
	}
	if len(s.BrokerConfigs) != 0 || len(s.DelegationTokens) != 0 {
		t.Errorf("broker configs %d, tokens %d: outside the scope", len(s.BrokerConfigs), len(s.DelegationTokens))
	}
}

func TestCovers(t *testing.T) {
	d := NewScope([]zkfeed.Entity{{Kind: zkfeed.Topic, Name: "orders"}, {Kind: zkfeed.Config, Name: "users/alice%40corp"}, {Kind: zkfeed.Config, Name: "brokers/<default>"},
		{Kind: zkfeed.Config, Name: "clients/<default>"}, {Kind: zkfeed.ACL, Name: "Topic:LITERAL:payments"}}).decode()
	for _, tc := range []struct {
		r    plan.Resource
		want bool
	}{
		{plan.Resource{Type: "topic", Name: "orders"}, true},
		{plan.Resource{Type: "topic", Name: "payments"}, false},
		{plan.Resource{Type: "broker", Name: ""}, true},
		{plan.Resource{Type: "broker", Name: "1"}, false},
		{plan.Resource{Type: "user", Name: "alice@corp"}, true},
		{plan.Resource{Type: "user", Name: "bob"}, false},
		{plan.Resource{Type: "quota", Entity: snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: "alice@corp"}, {Type: snapshot.EntityClientID, Name: "app"}}}, true},
		{plan.Resource{Type: "quota", Entity: snapshot.QuotaEntity{{Type: snapshot.EntityClientID, Default: true}}}, true},
		{plan.Resource{Type: "quota", Entity: snapshot.QuotaEntity{{Type: snapshot.EntityClientID, Name: "app"}}}, false},
		{plan.Resource{Type: "acl", ACL: &snapshot.ACL{ResourceType: "Topic", PatternType: "LITERAL", ResourceName: "payments"}}, true},
		{plan.Resource{Type: "acl", ACL: &snapshot.ACL{ResourceType: "Topic", PatternType: "PREFIXED", ResourceName: "payments"}}, false},
	} {
		if got := d.covers(plan.Change{Resource: tc.r}); got != tc.want {
			t.Errorf("covers(%s %s %v) = %v, want %v", tc.r.Type, tc.r.Name, tc.r.Entity, got, tc.want)
		}
	}
}

// TestPatchMergesInOrder: over generated trees, patching a full read with
// a scoped read of a tree where some of the scope's entities were deleted
// and topics were added (first and last by name) gives exactly the full
// read of that tree, lists in their canonical order: Patch merges the
// scope's entities in instead of sorting everything again.
func TestPatchMergesInOrder(t *testing.T) {
	ctx := context.Background()
	ro := zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}}
	for seed := int64(1); seed <= 3; seed++ {
		w := zkgen.NewTreeWriter()
		if _, err := zkgen.Generate(ctx, zkgen.Small(seed), w, zkgen.Options{}); err != nil {
			t.Fatal(err)
		}
		base := w.Tree()
		full, err := zkread.Read(ctx, base, ro)
		if err != nil {
			t.Fatal(err)
		}
		pool := entityPool(full, &snapshot.Snapshot{})
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for i := range 15 {
			var entities []zkfeed.Entity
			var gone []string // path prefixes deleted
			for range 1 + rng.IntN(6) {
				e := pool[rng.IntN(len(pool))]
				entities = append(entities, e)
				if rng.IntN(2) == 0 {
					continue
				}
				switch e.Kind {
				case zkfeed.Topic:
					gone = append(gone, "/brokers/topics/"+e.Name, "/config/topics/"+e.Name)
				case zkfeed.Config:
					gone = append(gone, "/config/"+e.Name)
				case zkfeed.ACL:
					parts := strings.SplitN(e.Name, ":", 3)
					dir := "/kafka-acl/"
					if parts[1] == zkread.PatternPrefixed {
						dir = "/kafka-acl-extended/prefixed/"
					}
					gone = append(gone, dir+parts[0]+"/"+parts[2])
				}
			}
			tr := &zktree.Tree{Nodes: slices.DeleteFunc(slices.Clone(base.Nodes), func(n zktree.Node) bool {
				return slices.ContainsFunc(gone, func(g string) bool { return n.Path == g || strings.HasPrefix(n.Path, g+"/") })
			})}
			for _, name := range []string{"!first", "~last"} {
				name += fmt.Sprint(i)
				tr.Nodes = append(tr.Nodes, zktree.Node{Path: "/brokers/topics/" + name, Data: []byte(`{"version":3,"partitions":{"0":[1,2]},"adding_replicas":{},"removing_replicas":{}}`)})
				entities = append(entities, zkfeed.Entity{Kind: zkfeed.Topic, Name: name})
			}
			tr.Sort()
			want, err := zkread.Read(ctx, tr, ro)
			if err != nil {
				t.Fatal(err)
			}
			scope := NewScope(entities)
			part, err := zkread.Read(ctx, scopedSource{Source: tr, scope: scope}, ro)
			if err != nil {
				t.Fatal(err)
			}
			got := Patch(full, scope, part)
			// JSON first (cmp is slow on whole snapshots); cmp to show it.
			bare := func(s *snapshot.Snapshot) string {
				c := *s
				c.Read, c.Findings = snapshot.ReadInfo{}, nil
				return jsonOf(c)
			}
			if bare(want) == bare(got) {
				continue
			}
			if d := cmp.Diff(want, got, cmpSnap...); d != "" {
				t.Fatalf("seed %d round %d, scope %v, deleted %v: patched differs from a full read (-full +patched):\n%s", seed, i, scope.Entities(), gone, d)
			}
		}
	}
}
