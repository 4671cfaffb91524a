package apply_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/benchkit"
)

// benchSource is topics topics (2 partitions, one config), acls ACLs and
// quotas quota entities.
func benchSource(topics, acls, quotas int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1}
	for i := 0; i < topics; i++ {
		s.Topics = append(s.Topics, snapshot.Topic{Name: fmt.Sprintf("bench-%05d", i),
			Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}, {ID: 1, Replicas: []int32{1}}},
			Configs:    []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}})
	}
	for i := 0; i < acls; i++ {
		s.ACLs = append(s.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("bench-%05d", i%topics), PatternType: "LITERAL",
			Principal: fmt.Sprintf("User:app-%d", i), Host: "*", Operation: "Read", Permission: "Allow"})
	}
	for i := 0; i < quotas; i++ {
		s.Quotas = append(s.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: fmt.Sprintf("app-%d", i)}}, Values: map[string]float64{"producer_byte_rate": 1024}})
	}
	s.Sort()
	return s
}

func benchCluster(b *testing.B) *kgo.Client {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// BenchmarkApplyKfake applies 2,000 topics, 5,000 ACLs and 500 quota
// entities (ZKM_BENCH_KFAKE="topics,acls,quotas" sets other sizes) to a
// fresh kfake cluster, through apply (preflight on and off), and through
// the raw limit: the same RPCs sent directly, one request per kind.
func BenchmarkApplyKfake(b *testing.B) {
	topics, acls, quotas := 2000, 5000, 500
	if v := os.Getenv("ZKM_BENCH_KFAKE"); v != "" {
		if _, err := fmt.Sscanf(v, "%d,%d,%d", &topics, &acls, &quotas); err != nil || topics < 1 {
			b.Fatalf("ZKM_BENCH_KFAKE=%q: want topics,acls,quotas", v)
		}
	}
	src := benchSource(topics, acls, quotas)
	target := &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 0}, {ID: 1}, {ID: 2}}}
	p, err := plan.Build(plan.Input{Source: src, Target: target})
	if err != nil {
		b.Fatal(err)
	}
	resources := float64(len(p.Changes))
	run := func(b *testing.B, o apply.Options) {
		for b.Loop() {
			b.StopTimer()
			cl := benchCluster(b)
			b.StartTimer()
			res, err := apply.Run(context.Background(), cl, p, target, o, nil)
			if err != nil || res.Failed > 0 {
				b.Fatalf("apply: %v %v", err, res.Failures)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/resources, "µs/resource")
	}
	b.Run("apply", func(b *testing.B) { run(b, apply.Options{BatchSize: 1000}) })
	b.Run("apply-no-preflight", func(b *testing.B) { run(b, apply.Options{BatchSize: 1000, NoPreflight: true}) })
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			cl := benchCluster(b)
			b.StartTimer()
			rawApply(b, cl, src)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/resources, "µs/resource")
	})
}

// rawApply sends the same changes as one request per kind, without checks
// (a kind of more than benchkit.RawMax resources in requests of RawMax).
func rawApply(b *testing.B, cl *kgo.Client, s *snapshot.Snapshot) {
	for _, req := range benchkit.RawRequests(s) {
		resp, err := cl.Request(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if n, first := benchkit.Failed(resp); n > 0 {
			b.Fatalf("%d resources refused, first %s", n, first)
		}
	}
}
