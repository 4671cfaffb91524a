package plan_test

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// bigCluster builds a source of the spec's full scale: topics × 4
// partitions, acls ACL entries, quotas entities and users SCRAM users.
func bigCluster(topics, acls, quotas, users int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, Brokers: []snapshot.Broker{{ID: 1}, {ID: 2}, {ID: 3}}}
	s.Topics = make([]snapshot.Topic, topics)
	for i := range s.Topics {
		t := &s.Topics[i]
		t.Name = fmt.Sprintf("team%03d.domain.event-%06d", i%500, i)
		t.ID = "AAAAAAAAAAAAAAAAAAAAAA"
		t.Partitions = make([]snapshot.Partition, 4)
		for p := range t.Partitions {
			t.Partitions[p] = snapshot.Partition{ID: int32(p), Replicas: []int32{int32(1 + p%3), int32(1 + (p+1)%3), int32(1 + (p+2)%3)}}
		}
		if i%5 == 0 {
			t.Configs = []snapshot.Config{{Key: "retention.ms", Value: "604800000"}, {Key: "cleanup.policy", Value: "compact"}}
		}
	}
	s.ACLs = make([]snapshot.ACL, acls)
	for i := range s.ACLs {
		s.ACLs[i] = snapshot.ACL{ResourceType: "Topic", ResourceName: s.Topics[i%topics].Name, PatternType: "LITERAL",
			Principal: fmt.Sprintf("User:app-%05d", i%20000), Host: "*", Operation: []string{"Read", "Write"}[i%2], Permission: "Allow"}
	}
	s.Quotas = make([]snapshot.Quota, quotas)
	for i := range s.Quotas {
		s.Quotas[i] = snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: fmt.Sprintf("app-%05d", i)}}, Values: map[string]float64{"producer_byte_rate": 1 << 20}}
	}
	s.ScramUsers = make([]snapshot.ScramUser, users)
	for i := range s.ScramUsers {
		s.ScramUsers[i] = snapshot.ScramUser{Name: fmt.Sprintf("app-%05d", i), Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}}
	}
	s.Sort()
	return s
}

// BenchmarkBuildFullScale plans 50,000 topics / 200,000 partitions /
// 100,000 ACLs / 10,000 quota entities / 5,000 SCRAM users against an empty
// target, and against a target already holding half of it.
func BenchmarkBuildFullScale(b *testing.B) {
	src := bigCluster(50000, 100000, 10000, 5000)
	empty := &snapshot.Snapshot{Format: 1, Brokers: src.Brokers}
	first, err := plan.Build(plan.Input{Source: src, Target: empty})
	if err != nil {
		b.Fatal(err)
	}
	half := plantest.Simulate(b, empty, first.Changes[:len(first.Changes)/2])
	for _, tc := range []struct {
		name   string
		target *snapshot.Snapshot
	}{{"empty-target", empty}, {"half-applied-target", half}} {
		b.Run(tc.name, func(b *testing.B) {
			var after runtime.MemStats
			runtime.GC()
			b.ReportAllocs()
			var p *plan.Plan
			cpu0 := cpuTime()
			for b.Loop() {
				p, err = plan.Build(plan.Input{Source: src, Target: tc.target})
				if err != nil {
					b.Fatal(err)
				}
			}
			// CPU time per plan: wall time depends on what else the machine runs.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(len(p.Changes)), "changes")
			b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-inuse-MiB")
		})
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
