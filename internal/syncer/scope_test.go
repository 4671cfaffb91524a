package syncer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
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
		{"pending deletion done", map[string]*string{"/admin/delete_topics/doomed": nil, "/brokers/topics/doomed": nil},
			[]zkfeed.Entity{{Kind: zkfeed.Deletion, Name: "doomed"}, {Kind: zkfeed.Topic, Name: "doomed"}}},
		{"entities never present beside a change", map[string]*string{"/config/topics/orders": str(`{"version":1,"config":{"retention.ms":"1"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "topics/orders"}, {Kind: zkfeed.Topic, Name: "ghost"}, {Kind: zkfeed.Config, Name: "topics/ghost"},
				{Kind: zkfeed.Config, Name: "users/nobody"}, {Kind: zkfeed.Config, Name: "users/nobody/clients/app"}, {Kind: zkfeed.Config, Name: "clients/nobody"},
				{Kind: zkfeed.Config, Name: "ips/10.9.9.9"}, {Kind: zkfeed.Config, Name: "brokers/9"}, {Kind: zkfeed.ACL, Name: "Topic:LITERAL:ghost"},
				{Kind: zkfeed.ACL, Name: "Group:PREFIXED:ghost-"}, {Kind: zkfeed.Deletion, Name: "ghost"},
				{Kind: zkfeed.Topic, Name: "a/b"}, {Kind: zkfeed.Topic, Name: ".."}, {Kind: zkfeed.Config, Name: "users/x\x00y"}, {Kind: zkfeed.ACL, Name: "Topic:LITERAL:orders/partitions"}}},
		{"user with client quotas deleted", map[string]*string{"/config/users/alice": nil, "/config/users/alice/clients": nil, "/config/users/alice/clients/<default>": nil, "/config/users/alice/clients/alice-cli": nil},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/alice/clients/alice-cli"}}},
		{"default user's client quota changed", map[string]*string{"/config/users/<default>/clients/batch-loader": str(`{"version":1,"config":{"producer_byte_rate":"77"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/<default>/clients/batch-loader"}}},
		{"user created with a client quota", map[string]*string{"/config/users/dora": str(`{"version":1,"config":{"consumer_byte_rate":"9"}}`),
			"/config/users/dora/clients": str(""), "/config/users/dora/clients/dora-cli": str(`{"version":1,"config":{"producer_byte_rate":"8"}}`)},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "users/dora"}}},
		{"broker default removed", map[string]*string{"/config/brokers/<default>": nil},
			[]zkfeed.Entity{{Kind: zkfeed.Config, Name: "brokers/<default>"}}},
		{"ACLs of every resource type and pattern changed", map[string]*string{
			"/kafka-acl/Topic/payments": nil, "/kafka-acl/Group/billing": nil, "/kafka-acl/Cluster/kafka-cluster": nil,
			"/kafka-acl/TransactionalId/tx-orders": nil, "/kafka-acl/DelegationToken/reporting-token": nil, "/kafka-acl/User/User:alice": nil,
			"/kafka-acl/Topic/fresh":                             str(`{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","host":"*","operation":"Read"}]}`),
			"/kafka-acl-extended/prefixed/Topic/etl-":            nil,
			"/kafka-acl-extended/prefixed/Group/team-":           str(`{"version":1,"acls":[{"principal":"User:b","permissionType":"Deny","host":"*","operation":"Read"}]}`),
			"/kafka-acl-extended/prefixed/TransactionalId/tx-":   nil,
			"/kafka-acl-extended/prefixed/User/svc-":             str(`{"version":1,"acls":[{"principal":"User:c","permissionType":"Allow","host":"*","operation":"CreateTokens"}]}`),
			"/kafka-acl-extended/prefixed/Cluster/kafka-cluster": str(`{"version":1,"acls":[{"principal":"User:d","permissionType":"Allow","host":"*","operation":"Alter"}]}`),
			"/kafka-acl-extended/prefixed/DelegationToken/tok-":  str(`{"version":1,"acls":[{"principal":"User:e","permissionType":"Allow","host":"*","operation":"Describe"}]}`)},
			[]zkfeed.Entity{{Kind: zkfeed.ACL, Name: "Topic:LITERAL:payments"}, {Kind: zkfeed.ACL, Name: "Group:LITERAL:billing"}, {Kind: zkfeed.ACL, Name: "Cluster:LITERAL:kafka-cluster"},
				{Kind: zkfeed.ACL, Name: "TransactionalId:LITERAL:tx-orders"}, {Kind: zkfeed.ACL, Name: "DelegationToken:LITERAL:reporting-token"}, {Kind: zkfeed.ACL, Name: "User:LITERAL:User:alice"},
				{Kind: zkfeed.ACL, Name: "Topic:LITERAL:fresh"}, {Kind: zkfeed.ACL, Name: "Topic:PREFIXED:etl-"}, {Kind: zkfeed.ACL, Name: "Group:PREFIXED:team-"},
				{Kind: zkfeed.ACL, Name: "TransactionalId:PREFIXED:tx-"}, {Kind: zkfeed.ACL, Name: "User:PREFIXED:svc-"}, {Kind: zkfeed.ACL, Name: "Cluster:PREFIXED:kafka-cluster"},
				{Kind: zkfeed.ACL, Name: "DelegationToken:PREFIXED:tok-"}}},
		{"ACLs under an upper-case resource type", map[string]*string{"/kafka-acl/TOPIC": str(""),
			"/kafka-acl/TOPIC/orders": str(`{"version":1,"acls":[{"principal":"User:u","permissionType":"Allow","host":"*","operation":"Write"}]}`)},
			[]zkfeed.Entity{{Kind: zkfeed.ACL, Name: "Topic:LITERAL:orders"}}},
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
				gone = append(gone, entityPaths(e)...)
			}
			tr := without(base, gone)
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

// entityPaths are the znodes that hold a feed entity.
func entityPaths(e zkfeed.Entity) []string {
	switch e.Kind {
	case zkfeed.Topic:
		return []string{"/brokers/topics/" + e.Name, "/config/topics/" + e.Name}
	case zkfeed.Config:
		return []string{"/config/" + e.Name}
	case zkfeed.Deletion:
		return []string{"/admin/delete_topics/" + e.Name}
	case zkfeed.ACL:
		parts := strings.SplitN(e.Name, ":", 3)
		dir := "/kafka-acl/"
		if parts[1] == zkread.PatternPrefixed {
			dir = "/kafka-acl-extended/prefixed/"
		}
		return []string{dir + parts[0] + "/" + parts[2]}
	}
	return nil
}

// without returns a copy of tr without the znodes at paths and below.
func without(tr *zktree.Tree, paths []string) *zktree.Tree {
	return &zktree.Tree{Nodes: slices.DeleteFunc(slices.Clone(tr.Nodes), func(n zktree.Node) bool {
		return slices.ContainsFunc(paths, func(g string) bool { return n.Path == g || strings.HasPrefix(n.Path, g+"/") })
	})}
}

// listedScope is what a scoped read must equal: zkread over a source that
// lists every directory and keeps the scope's children of those that
// enumerate entities (how change rounds read before scopedSource named
// the scope's children instead).
type listedScope struct {
	zkread.Source
	scope Scope
}

func (s listedScope) Children(p string) ([]string, error) {
	names, err := s.Source.Children(p)
	if err != nil {
		return nil, err
	}
	in := func(m map[string]bool) []string {
		return slices.DeleteFunc(names, func(n string) bool { return !m[n] })
	}
	switch p {
	case "/brokers/topics", "/config/topics", "/admin/delete_topics":
		return in(s.scope.Topics), nil
	case "/config/brokers":
		return in(s.scope.Brokers), nil
	case "/config/users":
		return in(s.scope.Users), nil
	case "/config/clients":
		return in(s.scope.Clients), nil
	case "/config/ips":
		return in(s.scope.IPs), nil
	case "/delegation_token/tokens", "/consumers":
		return nil, nil
	}
	for _, root := range aclRoots {
		if typ, ok := strings.CutPrefix(p, root.dir+"/"); ok && !strings.Contains(typ, "/") {
			rt, _ := zkread.CanonicalResourceType(typ)
			return slices.DeleteFunc(names, func(n string) bool { return !s.scope.ACLs[aclResource{rt, root.pattern, n}] }), nil
		}
	}
	return names, nil
}

// notListing fails the test on a listing of a directory whose children
// are entities of the whole cluster.
type notListing struct {
	zkread.Source
	t *testing.T
}

func (n notListing) Children(p string) ([]string, error) {
	switch {
	case slices.Contains([]string{"/brokers/topics", "/config/topics", "/admin/delete_topics", "/config/brokers", "/config/users",
		"/config/clients", "/config/ips", "/delegation_token/tokens", "/consumers"}, p),
		strings.HasPrefix(p, "/kafka-acl/"), strings.HasPrefix(p, "/kafka-acl-extended/prefixed/"):
		n.t.Errorf("a scoped read listed %s", p)
	}
	return n.Source.Children(p)
}

// TestScopedReadEqualsListing: over the Kafka 3.9 capture and generated
// trees, for random scopes (entities present, deleted, never present,
// names no znode can have, ACL types spelled upper case), a scoped read
// lists no directory of entities and gives exactly the snapshot that
// listing those directories and keeping the scope's names gives,
// findings included.
func TestScopedReadEqualsListing(t *testing.T) {
	ctx := context.Background()
	ro := zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}, Now: func() time.Time { return time.Unix(1e9, 0) }}
	legacy, err := zktree.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	trees := []*zktree.Tree{legacy}
	for seed := int64(1); seed <= 3; seed++ {
		w := zkgen.NewTreeWriter()
		if _, err := zkgen.Generate(ctx, zkgen.Small(seed), w, zkgen.Options{}); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, w.Tree())
	}
	odd := []zkfeed.Entity{{Kind: zkfeed.Topic, Name: "a/b"}, {Kind: zkfeed.Topic, Name: ".."}, {Kind: zkfeed.Config, Name: "topics/"},
		{Kind: zkfeed.Config, Name: "users/x\x00y"}, {Kind: zkfeed.Config, Name: "clients/\U0001F600"}, {Kind: zkfeed.Deletion, Name: "gone"},
		{Kind: zkfeed.ACL, Name: "TOPIC:LITERAL:orders"}, {Kind: zkfeed.ACL, Name: "Topic:LITERAL:a/b"}, {Kind: zkfeed.ACL, Name: "Bogus:LITERAL:x"}}
	compared := 0
	for ti, tr := range trees {
		full, err := zkread.Read(ctx, tr, ro)
		if err != nil {
			t.Fatal(err)
		}
		pool := append(entityPool(full, &snapshot.Snapshot{}), odd...)
		rng := rand.New(rand.NewPCG(uint64(ti), 18))
		for range 40 {
			var entities []zkfeed.Entity
			for range 1 + rng.IntN(12) {
				entities = append(entities, pool[rng.IntN(len(pool))])
			}
			// half the time a tree where the scope's first entity is gone
			src := tr
			if rng.IntN(2) == 0 {
				src = without(tr, entityPaths(entities[0]))
			}
			scope := NewScope(entities)
			want, err := zkread.Read(ctx, listedScope{Source: src, scope: scope}, ro)
			if err != nil {
				t.Fatal(err)
			}
			got, err := zkread.Read(ctx, scopedSource{Source: notListing{Source: src, t: t}, scope: scope}, ro)
			if err != nil {
				t.Fatal(err)
			}
			want.Read.Znodes, got.Read.Znodes = 0, 0
			if d := cmp.Diff(want, got, cmpPlan...); d != "" {
				t.Fatalf("tree %d, scope %v: a scoped read differs from listing and keeping the scope's names (-listed +scoped):\n%s", ti, scope.Entities(), d)
			}
			compared++
		}
	}
	t.Logf("%d scoped reads compared", compared)
}

// TestScopedReadEqualsListingLive: on the test bed's ZooKeeper (the
// legacy state Kafka 3.9 wrote), a scoped read of every entity there, of
// entities never present and of names no znode can have gives exactly
// what listing and keeping the scope's names gives, through multiRead
// sessions and through one request per znode.
func TestScopedReadEqualsListingLive(t *testing.T) {
	ctx := context.Background()
	addr := testbed.ZK(t)
	ro := zkread.Options{Now: func() time.Time { return time.Unix(1e9, 0) }}
	for _, multi := range []bool{true, false} {
		conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: addr, NoMultiRead: !multi})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		full, err := zkread.Read(ctx, conn, ro)
		if err != nil {
			t.Fatal(err)
		}
		entities := append(entityPool(full, &snapshot.Snapshot{}), zkfeed.Entity{Kind: zkfeed.Topic, Name: "a/b"}, zkfeed.Entity{Kind: zkfeed.Topic, Name: ".."},
			zkfeed.Entity{Kind: zkfeed.Config, Name: "users/x\x00y"}, zkfeed.Entity{Kind: zkfeed.Config, Name: "clients/\U0001F600"},
			zkfeed.Entity{Kind: zkfeed.Config, Name: "ips/\x01"}, zkfeed.Entity{Kind: zkfeed.ACL, Name: "Topic:LITERAL:\uf8ff"},
			zkfeed.Entity{Kind: zkfeed.ACL, Name: "TransactionalId:PREFIXED:nobody-"}, zkfeed.Entity{Kind: zkfeed.Config, Name: "users/nobody/clients/app"})
		scope := NewScope(entities)
		want, err := zkread.Read(ctx, listedScope{Source: conn, scope: scope}, ro)
		if err != nil {
			t.Fatal(err)
		}
		got, err := zkread.Read(ctx, scopedSource{Source: notListing{Source: conn, t: t}, scope: scope}, ro)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Topics) == 0 || len(got.ACLs) == 0 || len(got.Quotas) == 0 || len(got.ScramUsers) == 0 || len(got.BrokerConfigs) == 0 {
			t.Fatalf("multiRead %v: the scoped read holds %d topics, %d ACLs, %d quotas, %d SCRAM users, %d broker configs: not the legacy state",
				multi, len(got.Topics), len(got.ACLs), len(got.Quotas), len(got.ScramUsers), len(got.BrokerConfigs))
		}
		// The two reads are moments apart on a live cluster: what the
		// brokers keep changing is not compared.
		for _, s := range []*snapshot.Snapshot{want, got} {
			s.Read = snapshot.ReadInfo{}
			s.Controller, s.ProducerIDBlock = nil, nil
		}
		if d := cmp.Diff(want, got, cmpPlan...); d != "" {
			t.Errorf("multiRead %v: a scoped read differs from listing and keeping the scope's names (-listed +scoped):\n%s", multi, d)
		}
	}
}

// TestPatchRuns: on lists of names keyed by their first letter, patching
// gives what filtering out the keys' elements and sorting in the added
// ones gives, and leaves an untouched list shared.
func TestPatchRuns(t *testing.T) {
	for _, tc := range []struct {
		kept, add []string
		keys      string
	}{
		{nil, nil, ""},
		{nil, []string{"b1"}, "b"},
		{[]string{"a1", "b1", "b2", "c1"}, nil, "b"},
		{[]string{"a1", "b1", "b2", "c1"}, []string{"b0", "b3"}, "b"},
		{[]string{"a1", "b1", "c1", "d1"}, []string{"a0", "d2"}, "ad"},
		{[]string{"a1", "b1", "c1", "d1"}, []string{"b1", "c0", "c9"}, "bc"},
		{[]string{"a1", "a2", "c1"}, []string{"b1", "b2", "e1"}, "be"},
		{[]string{"b1", "c1"}, []string{"a1", "z1"}, "az"},
		{[]string{"a1", "b1", "c1"}, nil, "xyz"},
		{[]string{"a1", "b1", "c1"}, nil, "abc"},
	} {
		keys := strings.Split(tc.keys, "")
		want := slices.DeleteFunc(slices.Clone(tc.kept), func(s string) bool { return strings.Contains(tc.keys, s[:1]) })
		want = append(want, tc.add...)
		slices.Sort(want)
		if len(want) == 0 {
			want = nil
		}
		got := patchRuns(tc.kept, tc.add, keys, func(s, k string) int { return strings.Compare(s[:1], k) }, strings.Compare)
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("patchRuns(%v, %v, keys %q) = %#v, want %#v", tc.kept, tc.add, tc.keys, got, want)
		}
		if len(tc.add) == 0 && len(tc.kept) > 0 && !slices.ContainsFunc(tc.kept, func(s string) bool { return strings.Contains(tc.keys, s[:1]) }) && &got[0] != &tc.kept[0] {
			t.Errorf("patchRuns(%v, keys %q) copied an untouched list", tc.kept, tc.keys)
		}
	}
}
