package kread

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestReadRealKafka creates a topic with configs, ACLs (literal, prefixed
// deny, a User resource), quotas and a SCRAM user on the real Kafka 4.1
// target, reads them back and deletes them. Everything it creates carries a
// unique name, so it runs alongside other tests on the same broker.
func TestReadRealKafka(t *testing.T) {
	bootstrap := testbed.TargetBootstrap(t)
	props := testbed.TargetClientProps(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cfg, err := kafkaconn.Load(props)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close) // registered first, so it runs after the deletions
	adm := conn.Admin
	sweep(ctx, t, conn)

	id := fmt.Sprintf("kread-it-%d", time.Now().UnixNano()%1_000_000_000)
	topic, user, principal := id, id, "User:"+id

	// Topic with two dynamic configs.
	if r, err := adm.CreateTopic(ctx, 2, 1, map[string]*string{"retention.ms": ptr("3600000"), "cleanup.policy": ptr("compact")}, topic); err != nil || r.Err != nil {
		t.Fatalf("create topic: %v %v %s", err, r.Err, r.ErrMessage)
	}
	t.Cleanup(func() {
		rs, err := adm.DeleteTopics(context.Background(), topic)
		if err == nil {
			err = rs.Error()
		}
		if err != nil {
			t.Errorf("cleanup: delete topic %s: %v", topic, err)
		}
	})

	// ACLs through a raw request: one creation per tuple, and the User
	// resource type kadm's builder lacks.
	want := []snapshot.ACL{
		{ResourceType: "Topic", ResourceName: topic, PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Read", Permission: "Allow"},
		{ResourceType: "Topic", ResourceName: id + "-", PatternType: "PREFIXED", Principal: principal, Host: "10.0.0.7", Operation: "Write", Permission: "Deny"},
		{ResourceType: "Group", ResourceName: id, PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Read", Permission: "Allow"},
		{ResourceType: "User", ResourceName: "User:" + id + "-owner", PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "CreateTokens", Permission: "Allow"},
	}
	creq := kmsg.NewPtrCreateACLsRequest()
	for _, a := range want {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType = enumOf(resourceTypeNames, a.ResourceType)
		c.ResourceName = a.ResourceName
		c.ResourcePatternType = enumOf(patternNames, a.PatternType)
		c.Principal, c.Host = a.Principal, a.Host
		c.Operation = enumOf(operationNames, a.Operation)
		c.PermissionType = enumOf(permissionNames, a.Permission)
		creq.Creations = append(creq.Creations, c)
	}
	cresp, err := creq.RequestWith(ctx, conn.Client)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range cresp.Results {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			t.Fatalf("create ACL %v: %v %s", want[i], err, deref(r.ErrorMessage))
		}
	}
	t.Cleanup(func() {
		d := kmsg.NewPtrDeleteACLsRequest()
		f := kmsg.NewDeleteACLsRequestFilter()
		f.ResourceType, f.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
		f.Operation, f.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
		f.Principal = ptr(principal)
		d.Filters = append(d.Filters, f)
		resp, err := d.RequestWith(context.Background(), conn.Client)
		if err != nil {
			t.Errorf("cleanup: delete ACLs: %v", err)
			return
		}
		if n := len(resp.Results[0].MatchingACLs); n != len(want) {
			t.Errorf("cleanup: deleted %d ACLs of %s, want %d", n, principal, len(want))
		}
	})

	// Quotas: the user, and the user with a client id.
	qUser := kadm.ClientQuotaEntity{{Type: "user", Name: ptr(user)}}
	qUserClient := kadm.ClientQuotaEntity{{Type: "user", Name: ptr(user)}, {Type: "client-id", Name: ptr("app")}}
	quotaOps := func(remove bool) []kadm.AlterClientQuotaEntry {
		return []kadm.AlterClientQuotaEntry{
			{Entity: qUser, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1048576, Remove: remove}}},
			{Entity: qUserClient, Ops: []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Value: 2048, Remove: remove}, {Key: "request_percentage", Value: 25, Remove: remove}}},
		}
	}
	if rs, err := adm.AlterClientQuotas(ctx, quotaOps(false)); err != nil {
		t.Fatal(err)
	} else {
		for _, r := range rs {
			if r.Err != nil {
				t.Fatalf("quota %v: %v %s", r.Entity, r.Err, r.ErrMessage)
			}
		}
	}
	t.Cleanup(func() {
		if _, err := adm.AlterClientQuotas(context.Background(), quotaOps(true)); err != nil {
			t.Errorf("cleanup: remove quotas: %v", err)
		}
	})

	// A SCRAM user.
	if rs, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: kadm.ScramSha512, Iterations: 8192, Password: "it-" + id}}); err != nil {
		t.Fatal(err)
	} else if err := rs.Error(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rs, err := adm.AlterUserSCRAMs(context.Background(), []kadm.DeleteSCRAM{{User: user, Mechanism: kadm.ScramSha512}}, nil)
		if err == nil {
			err = rs.Error()
		}
		if err != nil {
			t.Errorf("cleanup: delete SCRAM user %s: %v", user, err)
		}
	})

	wantTopic := snapshot.Topic{
		Name: topic,
		Partitions: []snapshot.Partition{
			{ID: 0, Replicas: []int32{1}}, {ID: 1, Replicas: []int32{1}}, // replica counts, see below
		},
		Configs: []snapshot.Config{
			{Key: "cleanup.policy", Value: "compact", Source: "DYNAMIC_TOPIC_CONFIG"},
			{Key: "retention.ms", Value: "3600000", Source: "DYNAMIC_TOPIC_CONFIG"},
		},
	}
	wantQuotas := []snapshot.Quota{
		{Entity: snapshot.QuotaEntity{{Type: "user", Name: user}}, Values: map[string]float64{"producer_byte_rate": 1048576}},
		{Entity: snapshot.QuotaEntity{{Type: "user", Name: user}, {Type: "client-id", Name: "app"}}, Values: map[string]float64{"consumer_byte_rate": 2048, "request_percentage": 25}},
	}
	wantScram := snapshot.ScramUser{Name: user, Credentials: []snapshot.ScramCredential{
		{Mechanism: "SCRAM-SHA-512", Iterations: 8192, Secret: secretRef("kafka:user/" + user + "#SCRAM-SHA-512")},
	}}
	snapshot.SortConfigs(wantTopic.Configs)
	(&snapshot.Snapshot{ACLs: want}).Sort()

	// KRaft brokers learn of new metadata asynchronously; read until all of
	// it shows up (or the deadline), then compare exactly.
	var got *snapshot.Snapshot
	var mine mineParts
	for {
		got, err = Read(ctx, conn, Options{Topics: regexp.MustCompile("^" + regexp.QuoteMeta(topic) + "$")})
		if err != nil {
			t.Fatal(err)
		}
		mine = pick(got, id)
		if mine.complete(len(want), len(wantQuotas)) || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}

	if len(got.Topics) != 1 {
		t.Fatalf("topics = %+v, want just %s", got.Topics, topic)
	}
	gt := got.Topics[0]
	if len(gt.ID) != 22 {
		t.Errorf("topic id %q", gt.ID)
	}
	gt.ID = ""
	for i := range gt.Partitions {
		gt.Partitions[i].Replicas = []int32{int32(len(gt.Partitions[i].Replicas))}
	}
	t.Logf("read %d topics, %d ACLs, %d quotas, %d SCRAM users, %d broker config sets from %s",
		len(got.Topics), len(got.ACLs), len(got.Quotas), len(got.ScramUsers), len(got.BrokerConfigs), got.Address)
	if d := cmp.Diff(wantTopic, gt, secretCmp); d != "" {
		t.Errorf("topic (-want +got); broker defaults must not appear as topic configs:\n%s", d)
	}
	if d := cmp.Diff(want, sortedACLs(mine.acls)); d != "" {
		t.Errorf("ACLs (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantQuotas, mine.quotas); d != "" {
		t.Errorf("quotas (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]snapshot.ScramUser{wantScram}, mine.scram, secretCmp); d != "" {
		t.Errorf("SCRAM users (-want +got):\n%s", d)
	}

	// Cluster facts.
	if b, err := os.ReadFile(filepath.Join(testbed.Dir(t), "target.cluster-id")); err == nil {
		if w := strings.TrimSpace(string(b)); got.ClusterID != w {
			t.Errorf("ClusterID = %q, want %q", got.ClusterID, w)
		}
	}
	if len(got.Brokers) == 0 || got.Controller == nil {
		t.Errorf("brokers %+v controller %+v", got.Brokers, got.Controller)
	}
	hasMV := false
	for _, f := range got.Features {
		hasMV = hasMV || f.Name == "metadata.version"
	}
	if !hasMV {
		t.Errorf("features %+v lack metadata.version", got.Features)
	}
	for _, bc := range got.BrokerConfigs {
		for _, c := range bc.Configs {
			if want := map[bool]string{true: "DYNAMIC_DEFAULT_BROKER_CONFIG", false: "DYNAMIC_BROKER_CONFIG"}[bc.Broker == ""]; c.Source != want {
				t.Errorf("broker %q config %s has source %s", bc.Broker, c.Key, c.Source)
			}
		}
	}
	var js strings.Builder
	if err := snapshot.Encode(&js, got); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "it-"+id) || strings.Contains(js.String(), testbed.AdminPassword) {
		t.Error("a password appears in the snapshot JSON")
	}
}

// sweep deletes what an earlier, interrupted run left behind: every topic,
// ACL, quota and SCRAM user named kread-it-*.
func sweep(ctx context.Context, t *testing.T, conn *kafkaconn.Conn) {
	t.Helper()
	old, err := Read(ctx, conn, Options{Topics: regexp.MustCompile(`^kread-it-`), SkipConfigs: true})
	if err != nil {
		t.Fatal(err)
	}
	m := pick(old, "kread-it-")
	var topics []string
	for _, tp := range old.Topics {
		topics = append(topics, tp.Name)
	}
	if len(topics) > 0 {
		_, _ = conn.Admin.DeleteTopics(ctx, topics...)
	}
	d := kmsg.NewPtrDeleteACLsRequest()
	seen := map[string]bool{}
	for _, a := range m.acls {
		if seen[a.Principal] {
			continue
		}
		seen[a.Principal] = true
		f := kmsg.NewDeleteACLsRequestFilter()
		f.ResourceType, f.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
		f.Operation, f.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
		f.Principal = ptr(a.Principal)
		d.Filters = append(d.Filters, f)
	}
	if len(d.Filters) > 0 {
		_, _ = d.RequestWith(ctx, conn.Client)
	}
	var qs []kadm.AlterClientQuotaEntry
	for _, q := range m.quotas {
		e := kadm.AlterClientQuotaEntry{}
		for _, c := range q.Entity {
			c := c
			e.Entity = append(e.Entity, kadm.ClientQuotaEntityComponent{Type: c.Type, Name: &c.Name})
		}
		for k := range q.Values {
			e.Ops = append(e.Ops, kadm.AlterClientQuotaOp{Key: k, Remove: true})
		}
		qs = append(qs, e)
	}
	if len(qs) > 0 {
		_, _ = conn.Admin.AlterClientQuotas(ctx, qs)
	}
	for _, u := range old.ScramUsers {
		if !strings.HasPrefix(u.Name, "kread-it-") {
			continue
		}
		var del []kadm.DeleteSCRAM
		for _, c := range u.Credentials {
			mech := kadm.ScramSha256
			if c.Mechanism == "SCRAM-SHA-512" {
				mech = kadm.ScramSha512
			}
			del = append(del, kadm.DeleteSCRAM{User: u.Name, Mechanism: mech})
		}
		_, _ = conn.Admin.AlterUserSCRAMs(ctx, del, nil)
	}
	if n := len(topics) + len(m.acls) + len(qs); n > 0 {
		t.Logf("swept %d leftovers of earlier runs", n)
	}
}

// mineParts are the parts of a snapshot that carry the test's id.
type mineParts struct {
	topic  bool
	acls   []snapshot.ACL
	quotas []snapshot.Quota
	scram  []snapshot.ScramUser
}

func (m mineParts) complete(acls, quotas int) bool {
	return m.topic && len(m.acls) >= acls && len(m.quotas) >= quotas && len(m.scram) > 0
}

func pick(s *snapshot.Snapshot, id string) mineParts {
	var m mineParts
	for _, t := range s.Topics {
		m.topic = m.topic || (strings.HasPrefix(t.Name, id) && len(t.Configs) == 2)
	}
	for _, a := range s.ACLs {
		if strings.Contains(a.Principal, id) {
			m.acls = append(m.acls, a)
		}
	}
	for _, q := range s.Quotas {
		if strings.Contains(q.Entity.String(), id) {
			m.quotas = append(m.quotas, q)
		}
	}
	for _, u := range s.ScramUsers {
		if strings.HasPrefix(u.Name, id) {
			m.scram = append(m.scram, u)
		}
	}
	return m
}

func sortedACLs(as []snapshot.ACL) []snapshot.ACL {
	s := &snapshot.Snapshot{ACLs: append([]snapshot.ACL(nil), as...)}
	s.Sort()
	return s.ACLs
}

// enumOf finds the protocol value of a PascalCase name.
func enumOf[K comparable](m map[K]string, name string) K {
	for k, v := range m {
		if v == name {
			return k
		}
	}
	var zero K
	return zero
}
