package check

import (
	"fmt"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/secret"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// scaleSnapshot builds the SPEC's scale in memory: 50,000 topics with 4
// partitions each (200,000 partitions), 100,000 ACLs (literal and prefixed,
// allows and denies, some odd hosts and operations), 5,000 SCRAM users and a
// few removed configs, so every check has work to do.
func scaleSnapshot() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper,
		StaticConfigs: []snapshot.StaticConfig{{File: "server.properties", Configs: []snapshot.Config{
			{Key: "authorizer.class.name", Value: aclAuthorizer}, {Key: "inter.broker.protocol.version", Value: "3.5"},
			{Key: "min.insync.replicas", Value: "2"}, {Key: "zookeeper.connect", Value: "zk:2181"}}}}}
	for i := 0; i < 50000; i++ {
		t := snapshot.Topic{Name: fmt.Sprintf("team%03d.topic-%05d", i%500, i), ID: fmt.Sprintf("id%020d", i)}
		for p := int32(0); p < 4; p++ {
			t.Partitions = append(t.Partitions, snapshot.Partition{ID: p, Replicas: []int32{p % 6, (p + 1) % 6, (p + 2) % 6}})
		}
		t.Configs = []snapshot.Config{{Key: "retention.ms", Value: "86400000"}}
		switch i % 100 {
		case 0:
			t.Configs = append(t.Configs, snapshot.Config{Key: "message.format.version", Value: "2.8"})
		case 1:
			t.Configs = append(t.Configs, snapshot.Config{Key: "segment.bytes", Value: "65536"})
		case 2:
			t.Configs = append(t.Configs, snapshot.Config{Key: "min.insync.replicas", Value: "4"})
		}
		s.Topics = append(s.Topics, t)
	}
	for i := 0; len(s.ACLs) < 100000; i++ {
		principal := fmt.Sprintf("User:app-%04d", i%5000)
		topic := fmt.Sprintf("team%03d.topic-%05d", i%500, i%50000)
		host := "*"
		if i%97 == 0 {
			host = "app.example.com"
		}
		s.ACLs = append(s.ACLs,
			snapshot.ACL{ResourceType: "Topic", ResourceName: topic, PatternType: "LITERAL", Principal: principal, Host: host, Operation: "Read", Permission: "Allow"},
			snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("team%03d.", i%500), PatternType: "PREFIXED", Principal: principal, Host: "*", Operation: "Write", Permission: "Allow"},
			snapshot.ACL{ResourceType: "Group", ResourceName: principal[5:], PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Read", Permission: "Allow"})
		if i%50 == 0 {
			s.ACLs = append(s.ACLs,
				snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("team%03d.topic-", i%500), PatternType: "PREFIXED", Principal: principal, Host: "*", Operation: "Read", Permission: "Deny"},
				snapshot.ACL{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Create", Permission: "Allow"},
				snapshot.ACL{ResourceType: "Group", ResourceName: principal[5:], PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Write", Permission: "Allow"})
		}
	}
	for i := 0; i < 5000; i++ {
		sec := secret.Ref(fmt.Sprintf("zookeeper:/config/users/u%d#SCRAM-SHA-512", i))
		s.ScramUsers = append(s.ScramUsers, snapshot.ScramUser{Name: fmt.Sprintf("u%d", i),
			Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096, Secret: &sec}}})
	}
	s.Sort()
	return s
}

func BenchmarkRun50kTopics100kACLs(b *testing.B) {
	s := scaleSnapshot()
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for b.Loop() {
		fs, err := Run(s, Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(fs)
	}
	b.ReportMetric(float64(n), "findings")
}

// The scale snapshot triggers the checks the benchmark means to exercise.
func TestScaleSnapshotFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50,000 topics")
	}
	fs, err := Run(scaleSnapshot(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range fs {
		got[f.ID]++
	}
	for id, want := range map[string]int{
		"K4-TOPIC-CONFIG-REMOVED": 500, "K4-TOPIC-SEGMENT-BYTES": 500, "TOPIC-RF-BELOW-MIN-ISR": 500,
		"CARRY-SCRAM": 5000, catalogue.IDTopicIDChanges: 1, "KRAFT-AUTHORIZER": 1,
	} {
		if got[id] != want {
			t.Errorf("%s: %d findings, want %d", id, got[id], want)
		}
	}
	for _, id := range []string{"ACL-HOST-NEVER-MATCHES", "ACL-CLUSTER-CREATE", "ACL-UNCHECKED-OPERATION", "ACL-DENY-SHADOWS-ALLOW"} {
		if got[id] == 0 {
			t.Errorf("%s: no findings at scale", id)
		}
	}
}
