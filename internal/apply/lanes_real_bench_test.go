package apply_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// BenchmarkRoundKinds applies what a sync round carries — 15 topic creates
// with a config, 15 user quotas and 15 ACLs — to the test bed's 4.1
// target, one kind after another ("sequential") or in lanes
// ("concurrent", as sync does), fresh names each time.
func BenchmarkRoundKinds(b *testing.B) {
	cfg, err := kafkaconn.Load(testbed.TargetClientProps(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	conn, err := kafkaconn.Dial(ctx, []string{testbed.TargetBootstrap(b)}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(conn.Close)
	for _, concurrent := range []bool{false, true} {
		name := "sequential"
		if concurrent {
			name = "concurrent"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				id := fmt.Sprintf("rk%d", time.Now().UnixNano())
				src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper}
				for j := 0; j < 15; j++ {
					src.Topics = append(src.Topics, snapshot.Topic{Name: fmt.Sprintf("%s-t%d", id, j), Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}},
						Configs: []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}})
					src.Quotas = append(src.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: fmt.Sprintf("%s-u%d", id, j)}}, Values: map[string]float64{"producer_byte_rate": 1024}})
					src.ACLs = append(src.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("%s-a%d", id, j), PatternType: "LITERAL", Principal: "User:" + id, Host: "*", Operation: "Read", Permission: "Allow"})
				}
				src.Sort()
				tgt, err := kread.Read(ctx, conn, kread.Options{Scope: &kread.Scope{}})
				if err != nil {
					b.Fatal(err)
				}
				p, err := plan.Build(plan.Input{Source: src, Target: tgt, Options: plan.Options{Placement: plan.PlacementTarget}})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := apply.Run(ctx, conn.Client, p, tgt, apply.Options{ConcurrentKinds: concurrent}, nil)
				b.StopTimer()
				if err != nil || res.Failed > 0 {
					b.Fatalf("apply: %v, %d failed", err, res.Failed)
				}
			}
		})
	}
}
