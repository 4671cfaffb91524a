package plan_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

func cfg(kv ...string) []snapshot.Config {
	var out []snapshot.Config
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, snapshot.Config{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

func parts(assign ...[]int32) []snapshot.Partition {
	out := make([]snapshot.Partition, len(assign))
	for i, rs := range assign {
		out[i] = snapshot.Partition{ID: int32(i), Replicas: rs}
	}
	return out
}

const secretPassword = "s3cr3t-ssl-key-pass"
const scramPassword = "alice-scram-pass"

// legacy is a source cluster with something of every kind and every rule.
func legacy() *snapshot.Snapshot {
	s := &snapshot.Snapshot{
		Format: 1, Source: snapshot.SourceZooKeeper, ClusterID: "src-cluster",
		Brokers: []snapshot.Broker{{ID: 1}, {ID: 2}, {ID: 3}},
		Topics: []snapshot.Topic{
			{Name: "orders", ID: "AAAAAAAAAAAAAAAAAAAAAA", Partitions: parts([]int32{1, 2}, []int32{2, 3}, []int32{3, 1}), Configs: cfg("cleanup.policy", "compact", "retention.ms", "86400000", "message.format.version", "2.8")},
			{Name: "payments", Partitions: parts([]int32{1, 2}, []int32{2, 3})},
			{Name: "moving", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, 2, 3}, Adding: []int32{3}, Removing: []int32{1}}}},
			{Name: "tiered", Partitions: parts([]int32{1}), Configs: cfg("remote.storage.enable", "true")},
			{Name: "doomed", Partitions: parts([]int32{1})},
			{Name: "__consumer_offsets", Internal: true, Partitions: parts([]int32{1})},
			{Name: "wide", Partitions: parts([]int32{1, 2, 3})},
			{Name: "tiny-segments", Partitions: parts([]int32{1}), Configs: cfg("segment.bytes", "524288")},
		},
		PendingDeletes: []string{"doomed"},
		BrokerConfigs: []snapshot.BrokerConfig{
			{Broker: "", Configs: cfg("log.cleaner.threads", "2", "log.message.format.version", "2.8")},
			{Broker: "1", Configs: []snapshot.Config{{Key: "leader.replication.throttled.rate", Value: "1000"},
				{Key: "listener.name.sasl_ssl.ssl.key.password", Sensitive: true, Secret: ptr(secret.New("zookeeper:/config/brokers/1#listener.name.sasl_ssl.ssl.key.password", secretPassword))}}},
			{Broker: "2", Configs: []snapshot.Config{{Key: "listener.name.sasl_ssl.ssl.key.password", Sensitive: true, Secret: ptr(secret.Ref("zookeeper:/config/brokers/2#listener.name.sasl_ssl.ssl.key.password"))}}},
			{Broker: "9", Configs: cfg("log.cleaner.threads", "4")},
		},
		Quotas: []snapshot.Quota{
			{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}},
			{Entity: snapshot.QuotaEntity{{Type: "user", Default: true}, {Type: "client-id", Name: "app 1"}}, Values: map[string]float64{"consumer_byte_rate": 2048, "request_percentage": 12.5}},
			{Entity: snapshot.QuotaEntity{{Type: "ip", Name: "10.0.0.1"}}, Values: map[string]float64{"connection_creation_rate": 10}},
		},
		ScramUsers: []snapshot.ScramUser{
			{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192, Secret: ptr(secret.Ref("zookeeper:/config/users/alice#SCRAM-SHA-256"))}}},
			{Name: "CN=bob,OU=eng", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}},
		},
		ACLs: []snapshot.ACL{
			{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
			{ResourceType: "Topic", ResourceName: "pay-", PatternType: "PREFIXED", Principal: "User:CN=bob,OU=eng", Host: "10.0.0.7", Operation: "Write", Permission: "Deny"},
			{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Create", Permission: "Allow"},
		},
		DelegationTokens: []snapshot.DelegationToken{{TokenID: "tok1", Owner: "User:alice"}},
	}
	s.Sort()
	return s
}

func ptr[T any](v T) *T { return &v }

func emptyTarget() *snapshot.Snapshot {
	return &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "tgt-cluster",
		Brokers: []snapshot.Broker{{ID: 1}, {ID: 2}, {ID: 3}},
		Topics:  []snapshot.Topic{{Name: "__consumer_offsets", Internal: true, Partitions: parts([]int32{1})}},
	}
}

// partialTarget is partly in sync with legacy and partly different.
func partialTarget() *snapshot.Snapshot {
	t := emptyTarget()
	t.Topics = append(t.Topics,
		snapshot.Topic{Name: "orders", Partitions: parts([]int32{1, 2}, []int32{2, 3}), Configs: cfg("cleanup.policy", "delete", "segment.ms", "1000")},
		snapshot.Topic{Name: "payments", Partitions: parts([]int32{1, 2}, []int32{2, 3}, []int32{3, 1})},
		snapshot.Topic{Name: "extra", Partitions: parts([]int32{1})},
	)
	t.BrokerConfigs = []snapshot.BrokerConfig{
		{Broker: "", Configs: cfg("log.cleaner.threads", "1", "num.io.threads", "16")},
		{Broker: "1", Configs: []snapshot.Config{{Key: "listener.name.sasl_ssl.ssl.key.password", Sensitive: true}}},
	}
	t.Quotas = []snapshot.Quota{
		{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 512, "consumer_byte_rate": 1}},
		{Entity: snapshot.QuotaEntity{{Type: "user", Name: "carol"}}, Values: map[string]float64{"producer_byte_rate": 5}},
	}
	t.ScramUsers = []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}}
	t.ACLs = []snapshot.ACL{
		{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
		{ResourceType: "Group", ResourceName: "g1", PatternType: "LITERAL", Principal: "User:carol", Host: "*", Operation: "Read", Permission: "Allow"},
	}
	t.Sort()
	return t
}

// strayScramTarget holds SCRAM credentials the legacy source lacks: a
// second mechanism of alice, a user carol, and admin (whom the tool may
// authenticate as), beside alice's SCRAM-SHA-256 the source has.
func strayScramTarget() *snapshot.Snapshot {
	t := emptyTarget()
	t.ScramUsers = []snapshot.ScramUser{
		{Name: "admin", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 8192}}},
		{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192}, {Mechanism: "SCRAM-SHA-512", Iterations: 4096}}},
		{Name: "carol", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}},
	}
	t.Sort()
	return t
}

type denyPolicy struct{ topic string }

func (d denyPolicy) Evaluate(action, topic, principal string, pre, post *plan.TopicState) plan.Verdict {
	if topic == d.topic {
		return plan.Verdict{Allowed: false, Rule: "no-" + topic, Message: "topic " + topic + " is frozen (" + action + " by " + principal + ")"}
	}
	return plan.Verdict{Allowed: true}
}

func creds() []plan.Credential {
	return []plan.Credential{{User: "alice", Mechanism: "SCRAM-SHA-256", Password: secret.New("scram-credentials:alice/SCRAM-SHA-256", scramPassword)}}
}

func cases(t testing.TB) map[string]plan.Input {
	return map[string]plan.Input{
		"empty-target":             {Source: legacy(), Target: emptyTarget(), Credentials: creds()},
		"partial-target":           {Source: legacy(), Target: partialTarget(), Credentials: creds()},
		"prune":                    {Source: legacy(), Target: partialTarget(), Options: plan.Options{Prune: true}},
		"resend-secrets":           {Source: legacy(), Target: partialTarget(), Credentials: creds(), Options: plan.Options{ResendSecrets: true, Include: []plan.Kind{plan.KindBrokerConfig, plan.KindScramUser}}},
		"broker-map-reassign":      {Source: legacy(), Target: partialTargetMapped(), Options: plan.Options{BrokerIDMap: map[int32]int32{1: 101, 2: 102, 3: 103}, Reassign: true, Include: []plan.Kind{plan.KindTopic, plan.KindPartitions, plan.KindReassignment, plan.KindBrokerConfig}}},
		"policy-denies-one":        {Source: legacy(), Target: partialTarget(), Policy: denyPolicy{"orders"}, Options: plan.Options{Principal: "User:admin"}},
		"filters":                  {Source: legacy(), Target: emptyTarget(), Options: plan.Options{TopicRegex: "^pay", PrincipalRegex: "^User:alice$", Exclude: []plan.Kind{plan.KindQuota}}},
		"target-4.0":               {Source: legacy(), Target: emptyTarget(), Credentials: creds(), Options: plan.Options{TargetVersion: "4.0", Include: []plan.Kind{plan.KindTopic}}},
		"placement-auto-missing":   {Source: legacy(), Target: targetWith(broker(1, ""), broker(2, "")), Credentials: creds(), Options: plan.Options{Include: []plan.Kind{plan.KindTopic, plan.KindPartitions}}},
		"placement-target":         {Source: legacy(), Target: emptyTarget(), Options: plan.Options{Placement: plan.PlacementTarget, Include: []plan.Kind{plan.KindTopic}}},
		"placement-racks":          {Source: legacy(), Target: targetWith(broker(1, "rack-a"), broker(2, "rack-a"), broker(3, "rack-b")), Options: plan.Options{Placement: plan.PlacementSource, Include: []plan.Kind{plan.KindTopic}}},
		"placement-map-racks":      {Source: legacy(), Target: targetWith(broker(11, "rack-a"), broker(12, "rack-b"), broker(13, "rack-b")), Options: plan.Options{BrokerIDMap: map[int32]int32{1: 11, 2: 12, 3: 13}, Include: []plan.Kind{plan.KindTopic}}},
		"prune-cluster-configs":    {Source: legacy(), Target: targetWithELR(), Options: plan.Options{Prune: true, PruneClusterConfigs: true, Include: []plan.Kind{plan.KindBrokerConfig}}},
		"raise-to-target-minimums": {Source: legacy(), Target: partialTarget(), Options: plan.Options{RaiseToTargetMinimums: true, Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig}}},
		"raise-existing-topic":     {Source: legacy(), Target: tinyOnTarget(), Options: plan.Options{RaiseToTargetMinimums: true, Include: []plan.Kind{plan.KindTopicConfig}}},
		"kraft-kinds":              {Source: kraftSource(), Target: kraftTarget()},
		"kraft-kinds-prune":        {Source: kraftSource(), Target: kraftTarget(), Options: plan.Options{Prune: true}},
		"kraft-kinds-zk-prune":     {Source: legacy(), Target: kraftTarget(), Options: plan.Options{Prune: true, Include: []plan.Kind{plan.KindClientMetrics, plan.KindGroupConfig}}},
		"prune-scram":              {Source: legacy(), Target: strayScramTarget(), Credentials: creds(), Options: plan.Options{Prune: true, Include: []plan.Kind{plan.KindScramUser}}},
		"prune-scram-own-user":     {Source: legacy(), Target: strayScramTarget(), Credentials: creds(), Options: plan.Options{Prune: true, OwnUser: "admin", Include: []plan.Kind{plan.KindScramUser}}},
		"in-sync":                  {Source: legacy(), Target: plantest.Simulate(t, partialTarget(), mustBuild(plan.Input{Source: legacy(), Target: partialTarget(), Credentials: creds()}).Changes), Credentials: creds()},
	}
}

func named(name string, kv ...string) snapshot.NamedConfigs {
	return snapshot.NamedConfigs{Name: name, Configs: cfg(kv...)}
}

// kraftSource is a Kafka 4.1 KRaft cluster read through the admin protocol,
// with client-metrics subscriptions and group configs.
func kraftSource() *snapshot.Snapshot {
	s := &snapshot.Snapshot{
		Format: 1, Source: snapshot.SourceKafka, ClusterID: "kraft-src",
		Brokers: []snapshot.Broker{{ID: 1}},
		ClientMetrics: []snapshot.NamedConfigs{
			named("new-sub", "interval.ms", "60000", "match", "client_id=app-.*", "metrics", "org.apache.kafka.producer."),
			named("changed-sub", "interval.ms", "30000", "metrics", "*"),
			named("same-sub", "interval.ms", "10000", "metrics", "org.apache.kafka.consumer.fetch.manager., org.apache.kafka.consumer.coordinator."),
		},
		GroupConfigs: []snapshot.NamedConfigs{
			named("orders-app", "consumer.heartbeat.interval.ms", "6000", "consumer.session.timeout.ms", "50000"),
			named("billing", "share.record.lock.duration.ms", "45000"),
			named("same-group", "consumer.session.timeout.ms", "45000"),
		},
	}
	s.Sort()
	return s
}

// kraftTarget holds some of kraftSource's subscriptions and groups, one
// differing, one the same (a list spelled with other spaces, a number with
// the same value) and some only it has.
func kraftTarget() *snapshot.Snapshot {
	t := emptyTarget()
	t.ClientMetrics = []snapshot.NamedConfigs{
		named("changed-sub", "interval.ms", "60000", "match", "client_software_name=kafka-python", "metrics", "*"),
		named("same-sub", "interval.ms", "10000", "metrics", "org.apache.kafka.consumer.fetch.manager.,org.apache.kafka.consumer.coordinator."),
		named("target-only-sub", "interval.ms", "5000", "metrics", "org.apache.kafka.producer."),
	}
	t.GroupConfigs = []snapshot.NamedConfigs{
		named("billing", "share.record.lock.duration.ms", "30000", "share.auto.offset.reset", "earliest"),
		named("same-group", "consumer.session.timeout.ms", "45000"),
		named("target-only-group", "consumer.session.timeout.ms", "60000"),
	}
	t.Sort()
	return t
}

// targetWithELR is partialTarget with the cluster-level min.insync.replicas
// a Kafka 4.1 controller sets for eligible leader replicas.
func targetWithELR() *snapshot.Snapshot {
	t := partialTarget()
	t.BrokerConfigs[0].Configs = append(t.BrokerConfigs[0].Configs, snapshot.Config{Key: "min.insync.replicas", Value: "1"})
	snapshot.SortConfigs(t.BrokerConfigs[0].Configs)
	return t
}

// tinyOnTarget has tiny-segments on the target, without the source's configs.
func tinyOnTarget() *snapshot.Snapshot {
	t := emptyTarget()
	t.Topics = append(t.Topics, snapshot.Topic{Name: "tiny-segments", Partitions: parts([]int32{1})})
	t.Sort()
	return t
}

func broker(id int32, rack string) snapshot.Broker { return snapshot.Broker{ID: id, Rack: rack} }

// targetWith is an empty target with the given brokers.
func targetWith(brokers ...snapshot.Broker) *snapshot.Snapshot {
	t := emptyTarget()
	t.Brokers = brokers
	return t
}

func partialTargetMapped() *snapshot.Snapshot {
	t := partialTarget()
	t.Brokers = []snapshot.Broker{{ID: 101}, {ID: 102}, {ID: 103}}
	for i := range t.Topics {
		for j := range t.Topics[i].Partitions {
			p := &t.Topics[i].Partitions[j]
			for k := range p.Replicas {
				p.Replicas[k] += 100
			}
		}
	}
	t.Topic("orders").Partitions[0].Replicas = []int32{103, 101} // placed differently
	t.BrokerConfigs = t.BrokerConfigs[:1]
	return t
}

func mustBuild(in plan.Input) *plan.Plan {
	p, err := plan.Build(in)
	if err != nil {
		panic(err)
	}
	return p
}

func TestBuildGolden(t *testing.T) {
	for name, in := range cases(t) {
		t.Run(name, func(t *testing.T) {
			p, err := plan.Build(in)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			var txt, js bytes.Buffer
			if err := render.PlanText(&txt, p); err != nil {
				t.Fatal(err)
			}
			if err := render.PlanJSON(&js, p); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".txt"), txt.Bytes())
			golden(t, filepath.Join("testdata", name+".json"), js.Bytes())
			for _, out := range [][]byte{txt.Bytes(), js.Bytes()} {
				for _, secret := range []string{secretPassword, scramPassword} {
					if bytes.Contains(out, []byte(secret)) {
						t.Errorf("output contains secret %q", secret)
					}
				}
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Assert(t, path, got)
}

// TestReplanIsEmpty is the property that applying a plan's changes to the
// target and planning again yields no runnable changes.
func TestReplanIsEmpty(t *testing.T) {
	for name, in := range cases(t) {
		if in.Options.ResendSecrets {
			continue // resending secrets is never "in sync" by design
		}
		t.Run(name, func(t *testing.T) {
			p := mustBuild(in)
			in.Target = plantest.Simulate(t, in.Target, p.Changes)
			again := mustBuild(in)
			if len(again.Changes) != 0 {
				var b strings.Builder
				_ = render.PlanText(&b, again)
				t.Errorf("second plan has %d changes:\n%s", len(again.Changes), b.String())
			}
		})
	}
}

// TestCheckStatus covers the staleness rule: a resource in Before is
// pending, in After is done, anything else is stale.
func TestCheckStatus(t *testing.T) {
	in := plan.Input{Source: legacy(), Target: partialTarget(), Credentials: creds(), Options: plan.Options{Prune: true}}
	p := mustBuild(in)
	done := plantest.Simulate(t, in.Target, p.Changes)
	for i := range p.Changes {
		c := &p.Changes[i]
		if st, _ := plan.Check(in.Target, c); st != plan.Pending {
			t.Errorf("%s against the planning target: %v, want pending", c.ID, st)
		}
		if st, _ := plan.Check(done, c); st != plan.Done {
			t.Errorf("%s against the applied target: %v, want done", c.ID, st)
		}
	}
	// Someone else changes the orders topic config after planning.
	drift := plantest.Simulate(t, in.Target, nil)
	drift.Topic("orders").Configs = cfg("cleanup.policy", "compact,delete")
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.ID != "topic-config:orders" {
			continue
		}
		st, obs := plan.Check(drift, c)
		if st != plan.Stale || !strings.Contains(obs, "compact,delete") {
			t.Errorf("drifted orders config: %v %q, want stale naming the observed value", st, obs)
		}
		return
	}
	t.Fatal("no topic-config:orders change in the plan")
}

func TestBuildErrors(t *testing.T) {
	tests := map[string]plan.Input{
		"map misses a broker":                {Source: legacy(), Target: emptyTarget(), Options: plan.Options{BrokerIDMap: map[int32]int32{1: 1, 2: 2}}},
		"bad topic regex":                    {Source: legacy(), Target: emptyTarget(), Options: plan.Options{TopicRegex: "("}},
		"no target":                          {Source: legacy()},
		"placement source, broker 3 missing": {Source: legacy(), Target: targetWith(broker(1, ""), broker(2, "")), Options: plan.Options{Placement: plan.PlacementSource}},
		"unknown placement":                  {Source: legacy(), Target: emptyTarget(), Options: plan.Options{Placement: "rack"}},
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := plan.Build(in)
			var pe *plan.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Build error = %v, want *plan.Error", err)
			}
			t.Log(err)
		})
	}
}
