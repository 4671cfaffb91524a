package kread

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestScopedReadRealKafka: on the real Kafka 4.1 target, a scoped read
// holds what Scope.Restrict keeps of a whole read, for each entity the
// target holds alone (what it has, plus what the test adds: a topic with
// configs, user, user+client and client quotas, literal and prefixed ACLs,
// a SCRAM user), for all of the test's at once and for names it lacks.
// Kafka's own filters (DescribeClientQuotas, DescribeACLs) are what kfake
// only imitates.
func TestScopedReadRealKafka(t *testing.T) {
	bootstrap := testbed.TargetBootstrap(t)
	cfg, err := kafkaconn.Load(testbed.TargetClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	adm := conn.Admin
	id := fmt.Sprintf("kread-it-scope-%d", time.Now().UnixNano()%1_000_000_000)
	if r, err := adm.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": ptr("3600000")}, id); err != nil || r.Err != nil {
		t.Fatalf("create topic: %v %v", err, r.Err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), id) })
	comp := func(typ, name string) kadm.ClientQuotaEntityComponent {
		return kadm.ClientQuotaEntityComponent{Type: typ, Name: ptr(name)}
	}
	entities := []kadm.ClientQuotaEntity{{comp("user", id)}, {comp("user", id), comp("client-id", id)}, {comp("client-id", id)}}
	var set, unset []kadm.AlterClientQuotaEntry
	for _, e := range entities {
		set = append(set, kadm.AlterClientQuotaEntry{Entity: e, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1024}}})
		unset = append(unset, kadm.AlterClientQuotaEntry{Entity: e, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Remove: true}}})
	}
	if rs, err := adm.AlterClientQuotas(ctx, set); err != nil || rs[0].Err != nil {
		t.Fatalf("quotas: %v %v", err, rs)
	}
	t.Cleanup(func() { _, _ = adm.AlterClientQuotas(context.Background(), unset) })
	acls := []*kadm.ACLBuilder{
		kadm.NewACLs().Topics(id).Allow("User:" + id).Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral),
		kadm.NewACLs().Topics(id).Allow("User:" + id).Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed),
	}
	for _, b := range acls {
		if rs, err := adm.CreateACLs(ctx, b); err != nil || rs[0].Err != nil {
			t.Fatalf("acl: %v %v", err, rs)
		}
		t.Cleanup(func() { _, _ = adm.DeleteACLs(context.Background(), b) })
	}
	if rs, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: id, Mechanism: kadm.ScramSha512, Iterations: 8192, Password: "pw"}}); err != nil || rs.Error() != nil {
		t.Fatalf("scram: %v %v", err, rs.Error())
	}
	t.Cleanup(func() {
		_, _ = adm.AlterUserSCRAMs(context.Background(), []kadm.DeleteSCRAM{{User: id, Mechanism: kadm.ScramSha512}}, nil)
	})

	// Kafka applies a change on each broker on its own: wait until a whole
	// read shows all of it.
	var whole *snapshot.Snapshot
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if whole, err = Read(ctx, conn, Options{}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, q := range whole.Quotas {
			if strings.Contains(q.Entity.String(), id) {
				n++
			}
		}
		if whole.Topic(id) != nil && n == 3 || time.Now().After(deadline) {
			break
		}
	}
	mine := Scope{Topics: []string{id}, Quotas: []snapshot.EntityComponent{{Type: "user", Name: id}, {Type: "client-id", Name: id}},
		ScramUsers: []string{id}, ACLs: []ACLResource{{"Topic", "LITERAL", id}, {"Topic", "PREFIXED", id}}, Brokers: []string{"", "1"}}
	scopes := []Scope{mine, {Topics: []string{id + "-ghost"}, ScramUsers: []string{id + "-ghost"}, Quotas: []snapshot.EntityComponent{{Type: "ip", Name: "192.0.2.1"}},
		ACLs: []ACLResource{{"Group", "LITERAL", id}}, Brokers: []string{"99"}}}
	for _, tp := range whole.Topics {
		scopes = append(scopes, Scope{Topics: []string{tp.Name}})
	}
	for _, q := range whole.Quotas {
		scopes = append(scopes, Scope{Quotas: []snapshot.EntityComponent{q.Entity[0]}})
	}
	for _, u := range whole.ScramUsers {
		scopes = append(scopes, Scope{ScramUsers: []string{u.Name}})
	}
	for _, a := range whole.ACLs {
		scopes = append(scopes, Scope{ACLs: []ACLResource{{a.ResourceType, a.PatternType, a.ResourceName}}})
	}
	for _, b := range whole.BrokerConfigs {
		scopes = append(scopes, Scope{Brokers: []string{b.Broker}})
	}
	scopes = scopes[:min(len(scopes), 300)]
	for i, sc := range scopes {
		got, err := Read(ctx, conn, Options{Scope: &sc})
		if err != nil {
			t.Fatalf("scope %d %+v: %v", i, sc, err)
		}
		// KRaft names a broker of its choice as the controller, per read.
		if d := cmp.Diff(sc.Restrict(whole), got, append(cmpScoped, cmpopts.IgnoreFields(snapshot.Snapshot{}, "Controller"))...); d != "" {
			t.Errorf("scope %d %+v: scoped read differs from the restricted whole read (-restricted +scoped):\n%s", i, sc, d)
		}
		if i == 0 && (len(got.Topics) != 1 || len(got.Quotas) != 3 || len(got.ScramUsers) != 1 || len(got.ACLs) != 2) {
			t.Errorf("the test's own entities: topics %d, quotas %d, SCRAM users %d, ACLs %d; want 1, 3, 1, 2", len(got.Topics), len(got.Quotas), len(got.ScramUsers), len(got.ACLs))
		}
	}
	t.Logf("%d scopes compared (target: %d topics, %d quotas, %d SCRAM users, %d ACLs, %d broker configs)",
		len(scopes), len(whole.Topics), len(whole.Quotas), len(whole.ScramUsers), len(whole.ACLs), len(whole.BrokerConfigs))
}
