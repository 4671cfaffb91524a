package check

import (
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// crossBase is a small cluster as both sides see it when they agree.
func crossBase() *snapshot.Snapshot {
	sec := secret.Ref("r")
	return &snapshot.Snapshot{
		ClusterID: "c1",
		Brokers:   []snapshot.Broker{{ID: 1, Rack: "a"}, {ID: 2, Rack: "b"}},
		Topics: []snapshot.Topic{
			{Name: "orders", ID: "id-orders", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1, 2}}, {ID: 1, Replicas: []int32{2, 1}}},
				Configs: []snapshot.Config{{Key: "retention.ms", Value: "86400000"}, {Key: "cleanup.policy", Value: "delete"}}},
			{Name: "pay", ID: "id-pay", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}},
		},
		BrokerConfigs: []snapshot.BrokerConfig{
			{Broker: "", Configs: []snapshot.Config{{Key: "log.cleaner.io.max.bytes.per.second", Value: "10485760"}}},
			{Broker: "1", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "2"}, {Key: "listener.name.x.ssl.key.password", Sensitive: true, Secret: &sec}}},
		},
		ACLs:             []snapshot.ACL{{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}},
		Quotas:           []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}}},
		ScramUsers:       []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192}}}},
		DelegationTokens: []snapshot.DelegationToken{{TokenID: "tok1", Owner: "User:admin"}},
	}
}

// TestCrossCheck changes one side of an agreeing pair, kind by kind, and
// expects exactly the findings named.
func TestCrossCheck(t *testing.T) {
	for _, tt := range crossCases {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range tt.run() {
				r, ok := Lookup(f.ID)
				if !ok || r.Category != CatCross || f.Severity != r.Severity || f.Message == "" || f.Why == "" || f.Fix == "" {
					t.Errorf("finding %+v: not a complete cross-check rule", f)
				}
				got = append(got, f.ID+" "+f.Resource)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

type crossCase struct {
	name   string
	zk     func(s *snapshot.Snapshot) // edits the ZooKeeper side
	served func(s *snapshot.Snapshot) // edits the brokers' side
	want   []string                   // id + " " + resource
}

func (tt crossCase) run() []Finding {
	zk, served := crossBase(), crossBase()
	if tt.zk != nil {
		tt.zk(zk)
	}
	if tt.served != nil {
		tt.served(served)
	}
	zk.Sort()
	served.Sort()
	return CrossCheck(zk, served)
}

// crossCases trigger every CROSS-* id; the first triggers none (for
// TestCatalogueCovered).
var crossCases = []crossCase{
	{name: "agreeing sides give nothing"},
	{name: "values equal by Kafka type, sensitive by presence", served: func(s *snapshot.Snapshot) {
		s.BrokerConfigs[0].Configs[0].Value = "1.048576E7" // Kafka 4.1 prints the DOUBLE this way
		s.BrokerConfigs[1].Configs[1].Secret = nil
	}},
	{name: "other cluster stops the comparison", served: func(s *snapshot.Snapshot) { s.ClusterID = "c2"; s.Topics = nil },
		want: []string{"CROSS-CLUSTER-ID cluster"}},
	{name: "broker missing, extra and rack", served: func(s *snapshot.Snapshot) {
		s.Brokers = []snapshot.Broker{{ID: 1, Rack: "z"}, {ID: 2, Rack: "b"}, {ID: 4}}
	}, want: []string{"CROSS-BROKER broker:1", "CROSS-BROKER broker:4"}},
	{name: "pending delete is not served", zk: func(s *snapshot.Snapshot) {
		s.Topics = append(s.Topics, snapshot.Topic{Name: "doomed", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{3}}}})
		s.PendingDeletes = []string{"doomed"}
	}, want: []string{"CROSS-TOPIC-DELETING topic:doomed"}},
	{name: "topic a broker does not know, and one ZooKeeper does not", zk: func(s *snapshot.Snapshot) {
		s.Topics = append(s.Topics, snapshot.Topic{Name: "zz-ghost", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}})
	}, served: func(s *snapshot.Snapshot) {
		s.Topics = append(s.Topics, snapshot.Topic{Name: "stale", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}})
	}, want: []string{"CROSS-TOPIC-NOT-IN-ZK topic:stale", "CROSS-TOPIC-NOT-SERVED topic:zz-ghost"}},
	{name: "topic id", served: func(s *snapshot.Snapshot) { s.Topics[1].ID = "id-old" },
		want: []string{"CROSS-TOPIC-ID topic:pay"}},
	{name: "partition count", zk: func(s *snapshot.Snapshot) {
		s.Topics[1].Partitions = append(s.Topics[1].Partitions, snapshot.Partition{ID: 1, Replicas: []int32{2}})
	}, want: []string{"CROSS-PARTITIONS topic:pay"}},
	{name: "replica order is the preferred leader", served: func(s *snapshot.Snapshot) { s.Topics[0].Partitions[1].Replicas = []int32{1, 2} },
		want: []string{"CROSS-REPLICAS topic:orders"}},
	{name: "reassignment on one side only", served: func(s *snapshot.Snapshot) {
		s.Topics[0].Partitions[0].Replicas = []int32{1, 2}
		s.Topics[0].Partitions[0].Adding = []int32{2}
	}, want: []string{"CROSS-REASSIGNMENT topic:orders"}},
	{name: "topic config never picked up, extra, and different", served: func(s *snapshot.Snapshot) {
		s.Topics[0].Configs = []snapshot.Config{{Key: "retention.ms", Value: "1000"}, {Key: "segment.ms", Value: "1"}}
	}, want: []string{"CROSS-CONFIG-NOT-IN-ZK topic:orders", "CROSS-CONFIG-NOT-SERVED topic:orders", "CROSS-CONFIG-VALUE topic:orders"}},
	{name: "broker config of a running broker not served", served: func(s *snapshot.Snapshot) {
		s.BrokerConfigs[1].Configs = s.BrokerConfigs[1].Configs[1:]
	}, want: []string{"CROSS-CONFIG-NOT-SERVED broker:1"}},
	{name: "cluster default served only", served: func(s *snapshot.Snapshot) {
		s.BrokerConfigs[0].Configs = append(s.BrokerConfigs[0].Configs, snapshot.Config{Key: "max.connections.per.ip", Value: "10"})
	}, want: []string{"CROSS-CONFIG-NOT-IN-ZK broker:<default>"}},
	{name: "configs of a broker that is not running: one finding", zk: func(s *snapshot.Snapshot) {
		s.BrokerConfigs = append(s.BrokerConfigs, snapshot.BrokerConfig{Broker: "3", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "1"}, {Key: "log.cleaner.backoff.ms", Value: "1"}}})
	}, want: []string{"CROSS-BROKER-CONFIG-OFFLINE broker:3"}},
	{name: "served broker with configs ZooKeeper lacks", served: func(s *snapshot.Snapshot) {
		s.BrokerConfigs = append(s.BrokerConfigs, snapshot.BrokerConfig{Broker: "2", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "1"}}})
	}, want: []string{"CROSS-CONFIG-NOT-IN-ZK broker:2"}},
	{name: "ACL on each side", zk: func(s *snapshot.Snapshot) {
		s.ACLs = append(s.ACLs, snapshot.ACL{ResourceType: "Group", ResourceName: "g", PatternType: "PREFIXED", Principal: "User:bob", Host: "*", Operation: "Read", Permission: "Allow"})
	}, served: func(s *snapshot.Snapshot) { s.ACLs[0].Host = "10.0.0.1" },
		want: []string{"CROSS-ACL acl:Group:PREFIXED:g", "CROSS-ACL acl:Topic:LITERAL:orders", "CROSS-ACL acl:Topic:LITERAL:orders"}},
	{name: "quota value, key and entity", served: func(s *snapshot.Snapshot) {
		s.Quotas = []snapshot.Quota{
			{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 2048}},
			{Entity: snapshot.QuotaEntity{{Type: "client-id", Default: true}}, Values: map[string]float64{"producer_byte_rate": 1}},
		}
	}, want: []string{"CROSS-QUOTA quota:client-id=<default>", "CROSS-QUOTA quota:user=alice"}},
	{name: "SCRAM iterations and mechanism", served: func(s *snapshot.Snapshot) {
		s.ScramUsers[0].Credentials = []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}, {Mechanism: "SCRAM-SHA-512", Iterations: 4096}}
	}, want: []string{"CROSS-SCRAM scram-user:User:alice", "CROSS-SCRAM scram-user:User:alice"}},
	{name: "token expired on the brokers", served: func(s *snapshot.Snapshot) { s.DelegationTokens = nil },
		want: []string{"CROSS-DELEGATION-TOKEN delegation-token:tok1"}},
	{name: "tokens not compared when the brokers could not list them", served: func(s *snapshot.Snapshot) {
		s.DelegationTokens = nil
		s.Findings = []snapshot.Finding{{ID: "kread/delegation-tokens-not-read"}}
	}},
}
