package migration

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// source is a small ZooKeeper-mode cluster: two topics, a SCRAM user with
// two mechanisms, one of which has a space and " SCRAM-" in its name.
func source() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, ClusterID: "src-id", Address: "zk:2181",
		Brokers: []snapshot.Broker{{ID: 1}},
		Topics: []snapshot.Topic{
			{Name: "orders", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}, Configs: []snapshot.Config{{Key: "retention.ms", Value: "86400000"}}},
			{Name: "payments", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}},
		},
		ScramUsers: []snapshot.ScramUser{
			{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}, {Mechanism: "SCRAM-SHA-512", Iterations: 8192}}},
			{Name: "ops SCRAM-team", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}},
		},
	}
	s.Sort()
	return s
}

// target is an empty KRaft cluster.
func target() *snapshot.Snapshot {
	return &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, ClusterID: "dst-id", Address: "kafka:9092",
		Brokers: []snapshot.Broker{{ID: 1}}}
}

// writeSnapshot saves s in dir and returns its path.
func writeSnapshot(t *testing.T, dir, name string, s *snapshot.Snapshot) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := snapshot.Save(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixed returns a SourceFunc that gives s and counts its calls.
func fixed(s *snapshot.Snapshot, calls *int) SourceFunc {
	return func(context.Context) (*snapshot.Snapshot, error) {
		*calls++
		return s, nil
	}
}

func build(t *testing.T, src, tgt *snapshot.Snapshot, opts plan.Options) *plan.Plan {
	t.Helper()
	p, err := BuildPlan(src, tgt, nil, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// policyYAML allows everything but topics named "payments".
const policyYAML = `version: 1
rules:
  - name: no-payments
    actions: [CREATE]
    expr: topic != "payments"
    message: payments is created by its team
`
