package kread

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// cmpScoped compares snapshots by what they hold; when they were read and
// the findings of each read are not the comparison.
var cmpScoped = []cmp.Option{secretCmp, cmpopts.EquateEmpty(), cmp.FilterPath(func(p cmp.Path) bool {
	s := p.String()
	return s == "Read" || s == "Findings"
}, cmp.Ignore())}

// seedScoped adds to seed's state what the scopes below also need: a
// cluster-default broker config and a client-id quota of its own.
func seedScoped(t *testing.T, adm *kadm.Client) {
	t.Helper()
	ctx := context.Background()
	seed(t, adm)
	if rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.cleaner.threads", Value: ptr("2")}}); err != nil || rs[0].Err != nil {
		t.Fatalf("alter the cluster default: %v %v", err, rs)
	}
	qs := []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "client-id", Name: ptr("billing")}},
		Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 7}}}}
	if rs, err := adm.AlterClientQuotas(ctx, qs); err != nil || rs[0].Err != nil {
		t.Fatalf("quota: %v %v", err, rs)
	}
}

// TestScopedReadIsRestrictedRead: a scoped read of a cluster holds what
// Scope.Restrict keeps of a whole read, for hand-picked scopes (names the
// cluster has and does not have, every kind, the default entities) and for
// random ones; ReadEachBroker's reads through each broker agree.
func TestScopedReadIsRestrictedRead(t *testing.T) {
	c := newCluster(t)
	conn := dial(t, c, "admin", "admin-secret")
	seedScoped(t, conn.Admin)
	ctx := context.Background()
	whole, err := Read(ctx, conn, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	user := func(n string) snapshot.EntityComponent { return snapshot.EntityComponent{Type: "user", Name: n} }
	client := func(n string) snapshot.EntityComponent { return snapshot.EntityComponent{Type: "client-id", Name: n} }
	def := func(typ string) snapshot.EntityComponent { return snapshot.EntityComponent{Type: typ, Default: true} }
	cases := []struct {
		name   string
		scope  Scope
		topics *regexp.Regexp
		size   int // entities the scoped read must hold (no hollow case)
	}{
		{name: "empty", scope: Scope{}},
		{name: "topics, one missing", scope: Scope{Topics: []string{"orders", "ghost", "orders"}}, size: 1},
		{name: "topics under --topics", scope: Scope{Topics: []string{"orders", "payments"}}, topics: regexp.MustCompile("^pay"), size: 1},
		// kfake reports the cluster default's entries on each broker, so
		// the default entity itself holds none.
		{name: "a broker and the default", scope: Scope{Brokers: []string{"1", ""}}, size: 1},
		{name: "a broker the cluster lacks", scope: Scope{Brokers: []string{"9"}}},
		{name: "a user's quotas and pairs", scope: Scope{Quotas: []snapshot.EntityComponent{user("alice")}}, size: 2},
		{name: "default user", scope: Scope{Quotas: []snapshot.EntityComponent{def("user")}}, size: 2},
		{name: "client alone, not in a pair", scope: Scope{Quotas: []snapshot.EntityComponent{client("billing"), def("client-id")}}, size: 2},
		{name: "ip", scope: Scope{Quotas: []snapshot.EntityComponent{{Type: "ip", Name: "10.0.0.9"}}}, size: 1},
		{name: "SCRAM users", scope: Scope{ScramUsers: []string{"alice", "nobody", "alice"}}, size: 1},
		{name: "literal topic ACLs", scope: Scope{ACLs: []ACLResource{{"Topic", "LITERAL", "orders"}}}, size: 3},
		{name: "prefixed ACLs, one pattern absent", scope: Scope{ACLs: []ACLResource{{"Topic", "PREFIXED", "pay-"}, {"Topic", "PREFIXED", "orders"}, {"Group", "PREFIXED", "app-"}}}, size: 2},
		{name: "cluster ACLs and an unknown type", scope: Scope{ACLs: []ACLResource{{"Cluster", "LITERAL", "kafka-cluster"}, {"Planet", "LITERAL", "mars"}}}, size: 2},
		{name: "everything at once", scope: Scope{Topics: []string{"payments"}, Brokers: []string{"2"}, Quotas: []snapshot.EntityComponent{user("alice")},
			ScramUsers: []string{"carol"}, ACLs: []ACLResource{{"TransactionalId", "LITERAL", "tx-1"}}}, size: 6},
	}
	// Random scopes drawn from the names the cluster has, and some it has not.
	rng := rand.New(rand.NewPCG(18, 1))
	pick := func(n int) bool { return rng.IntN(n) == 0 }
	for i := range 40 {
		var sc Scope
		for _, tp := range whole.Topics {
			if pick(2) {
				sc.Topics = append(sc.Topics, tp.Name)
			}
		}
		for _, b := range []string{"", "0", "1", "2", "7"} {
			if pick(3) {
				sc.Brokers = append(sc.Brokers, b)
			}
		}
		for _, q := range whole.Quotas {
			if pick(3) {
				sc.Quotas = append(sc.Quotas, q.Entity[len(q.Entity)-1]) // a last component leads some entities, not others
			}
		}
		for _, u := range []string{"admin", "alice", "carol", "dave"} {
			if pick(2) {
				sc.ScramUsers = append(sc.ScramUsers, u)
			}
		}
		for _, a := range whole.ACLs {
			if pick(3) {
				sc.ACLs = append(sc.ACLs, ACLResource{a.ResourceType, a.PatternType, a.ResourceName})
			}
		}
		if pick(4) {
			sc.ACLs = append(sc.ACLs, ACLResource{"Topic", "LITERAL", "pay-"}) // a name, in the wrong pattern
		}
		cases = append(cases, struct {
			name   string
			scope  Scope
			topics *regexp.Regexp
			size   int
		}{name: fmt.Sprintf("random %d", i), scope: sc, size: -1})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Now: fixedNow, Topics: tc.topics}
			base := whole
			if tc.topics != nil {
				if base, err = Read(ctx, conn, opts); err != nil {
					t.Fatal(err)
				}
			}
			want := tc.scope.Restrict(base)
			opts.Scope = &tc.scope
			got, err := Read(ctx, conn, opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got, cmpScoped...); d != "" {
				t.Fatalf("scoped read differs from the restricted whole read (-restricted +scoped):\n%s", d)
			}
			size := len(got.Topics) + len(got.BrokerConfigs) + len(got.Quotas) + len(got.ScramUsers) + len(got.ACLs)
			if tc.size >= 0 && size != tc.size {
				t.Errorf("the scoped read holds %d entities, want %d", size, tc.size)
			}
			if len(got.Brokers) != 3 || got.ClusterID != "kread-test" || len(got.Features) == 0 {
				t.Errorf("cluster facts missing: brokers %v, cluster id %q, features %d", got.Brokers, got.ClusterID, len(got.Features))
			}
			each, err := ReadEachBroker(ctx, conn, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, br := range each {
				if br.Err != nil {
					t.Fatalf("broker %d: %v", br.Broker, br.Err)
				}
				if d := cmp.Diff(got, br.Snapshot, cmpScoped...); d != "" {
					t.Fatalf("the scoped read through broker %d differs (-read +through it):\n%s", br.Broker, d)
				}
			}
		})
	}
}

// TestScopedReadCreatesNoTopic: asking Metadata for a topic the target
// lacks never creates it, even on a cluster that creates topics on demand.
func TestScopedReadCreatesNoTopic(t *testing.T) {
	c := newCluster(t, kfake.AllowAutoTopicCreation())
	conn := dial(t, c, "admin", "admin-secret")
	ctx := context.Background()
	got, err := Read(ctx, conn, Options{Scope: &Scope{Topics: []string{"ghost"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Topics) != 0 {
		t.Fatalf("scoped read of a missing topic holds %v", got.Topics)
	}
	whole, err := Read(ctx, conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Topic("ghost") != nil {
		t.Fatal("the scoped read created topic ghost on the target")
	}
}

// TestScopedReadNamesDeniedTopic: a named topic the principal may not
// describe fails the read with the ACL it needs (a plan would otherwise
// try to create it).
func TestScopedReadNamesDeniedTopic(t *testing.T) {
	c := newCluster(t)
	admin := dial(t, c, "admin", "admin-secret")
	ctx := context.Background()
	if _, err := admin.Admin.CreateTopic(ctx, 1, 1, nil, "secret-topic"); err != nil {
		t.Fatal(err)
	}
	if rs, err := admin.Admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "bob", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "bob-pw"}}); err != nil || rs.Error() != nil {
		t.Fatal(err, rs.Error())
	}
	// bob may list reassignments (Cluster:Describe), not describe the topic.
	if _, err := admin.Admin.CreateACLs(ctx, kadm.NewACLs().Clusters().Allow("User:bob").Operations(kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral)); err != nil {
		t.Fatal(err)
	}
	bob := dial(t, c, "bob", "bob-pw")
	_, err := Read(ctx, bob, Options{Scope: &Scope{Topics: []string{"secret-topic"}}})
	if err == nil || err.Error() != "kread: reading topic secret-topic (Metadata) needs Topic:Describe for User:bob" {
		t.Fatalf("err = %v, want the ACL reading secret-topic needs", err)
	}
}

// gate holds each DescribeACLs and DescribeClientQuotas request of a
// read until all want of them are in flight and a topic's DescribeConfigs
// has been sent, or bound has passed, and counts the requests released
// by the bound.
type gate struct {
	via   kmsg.Requestor
	want  int
	bound time.Duration

	mu       sync.Mutex
	arrived  int
	configs  bool
	ready    chan struct{}
	timedOut int
}

func (g *gate) check() {
	if g.arrived >= g.want && g.configs {
		select {
		case <-g.ready:
		default:
			close(g.ready)
		}
	}
}

func (g *gate) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	switch r := req.(type) {
	case *kmsg.DescribeACLsRequest, *kmsg.DescribeClientQuotasRequest:
		g.mu.Lock()
		g.arrived++
		g.check()
		g.mu.Unlock()
		select {
		case <-g.ready:
		case <-time.After(g.bound):
			g.mu.Lock()
			g.timedOut++
			g.mu.Unlock()
		}
	case *kmsg.DescribeConfigsRequest:
		if len(r.Resources) > 0 && r.Resources[0].ResourceType == kmsg.ConfigResourceTypeTopic {
			g.mu.Lock()
			g.configs = true
			g.check()
			g.mu.Unlock()
		}
	}
	return g.via.Request(ctx, req)
}

// TestScopedReadSendsAtOnce: a scoped read sends its ACL and quota
// requests all at once, not a few at a time, and its topics' configs as
// soon as Metadata has answered, while those are still out; what it
// reads is the same.
func TestScopedReadSendsAtOnce(t *testing.T) {
	c := newCluster(t)
	adm := kadm.NewClient(dial(t, c, "admin", "admin-secret").Client)
	seedScoped(t, adm)
	conn := dial(t, c, "admin", "admin-secret")
	ctx := context.Background()
	scope := Scope{Topics: []string{"orders", "payments"}, Brokers: []string{""}}
	for i := range 6 {
		scope.ACLs = append(scope.ACLs, ACLResource{Type: "Topic", Pattern: "LITERAL", Name: fmt.Sprintf("t%d", i)})
		scope.Quotas = append(scope.Quotas, snapshot.EntityComponent{Type: "user", Name: fmt.Sprintf("u%d", i)})
	}
	want, err := read(ctx, conn, conn.Client, Options{Scope: &scope})
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{via: conn.Client, want: 12, bound: 5 * time.Second, ready: make(chan struct{})}
	got, err := read(ctx, conn, g, Options{Scope: &scope})
	if err != nil {
		t.Fatal(err)
	}
	if g.timedOut > 0 {
		t.Errorf("%d of the 12 ACL and quota requests waited %s: not all were in flight at once with the topics' DescribeConfigs (%d came, configs sent: %v)", g.timedOut, g.bound, g.arrived, g.configs)
	}
	if d := cmp.Diff(want, got, cmpScoped...); d != "" {
		t.Errorf("the gated read differs (-want +got):\n%s", d)
	}
}
