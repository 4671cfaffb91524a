package kread

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
)

// BenchmarkReadKfake5000Topics reads a 3-broker kfake cluster holding 5,000
// topics (3 partitions each), every one with a dynamic config, plus 2,000
// ACLs, 500 quota entities and 200 SCRAM users.
func BenchmarkReadKfake5000Topics(b *testing.B) {
	const topics = 5000
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%05d", i)
	}
	c := newCluster(b, kfake.SeedTopics(3, names...))
	conn := dial(b, c, "admin", "admin-secret")
	ctx := context.Background()
	if rs, err := conn.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: ptr("86400000")}}, names...); err != nil {
		b.Fatal(err)
	} else {
		for _, r := range rs {
			if r.Err != nil {
				b.Fatal(r.Name, r.Err)
			}
		}
	}
	for i := 0; i < 2000; i += 2 {
		acl := kadm.NewACLs().Topics(names[i]).Allow(fmt.Sprintf("User:u%d", i)).Operations(kadm.OpRead, kadm.OpWrite).ResourcePatternType(kadm.ACLPatternLiteral)
		if _, err := conn.Admin.CreateACLs(ctx, acl); err != nil {
			b.Fatal(err)
		}
	}
	var qs []kadm.AlterClientQuotaEntry
	for i := 0; i < 500; i++ {
		qs = append(qs, kadm.AlterClientQuotaEntry{
			Entity: kadm.ClientQuotaEntity{{Type: "user", Name: ptr(fmt.Sprintf("u%d", i))}},
			Ops:    []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: float64(1000 + i)}},
		})
	}
	if _, err := conn.Admin.AlterClientQuotas(ctx, qs); err != nil {
		b.Fatal(err)
	}
	var up []kadm.UpsertSCRAM
	for i := 0; i < 200; i++ {
		up = append(up, kadm.UpsertSCRAM{User: fmt.Sprintf("u%d", i), Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "p"})
	}
	if _, err := conn.Admin.AlterUserSCRAMs(ctx, nil, up); err != nil {
		b.Fatal(err)
	}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Read(ctx, conn, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Topics) != topics || len(s.Topics[0].Configs) != 1 || len(s.ACLs) != 2000 || len(s.Quotas) != 500 || len(s.ScramUsers) != 201 {
			b.Fatalf("read %d topics (%d configs on the first), %d ACLs, %d quotas, %d SCRAM users",
				len(s.Topics), len(s.Topics[0].Configs), len(s.ACLs), len(s.Quotas), len(s.ScramUsers))
		}
	}
	b.ReportMetric(float64(topics*b.N)/b.Elapsed().Seconds(), "topics/s")
}
