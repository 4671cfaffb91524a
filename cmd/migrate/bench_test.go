package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/benchkit"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// benchSizes: ZKM_BENCH_APPLY="topics,acls,quotas" (default a CI-size run).
func benchSizes(b *testing.B) (topics, acls, quotas int) {
	topics, acls, quotas = 200, 400, 50
	if v := os.Getenv("ZKM_BENCH_APPLY"); v != "" {
		if _, err := fmt.Sscanf(v, "%d,%d,%d", &topics, &acls, &quotas); err != nil {
			b.Fatalf("ZKM_BENCH_APPLY=%q: want topics,acls,quotas", v)
		}
	}
	return
}

func benchSnapshot(prefix string, topics, acls, quotas int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, Brokers: []snapshot.Broker{{ID: 0}}}
	for i := 0; i < topics; i++ {
		s.Topics = append(s.Topics, snapshot.Topic{Name: fmt.Sprintf("%s-t%05d", prefix, i),
			Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}, {ID: 1, Replicas: []int32{0}}},
			Configs:    []snapshot.Config{{Key: "retention.ms", Value: "3600000"}}})
	}
	for i := 0; i < acls; i++ {
		s.ACLs = append(s.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: fmt.Sprintf("%s-t%05d", prefix, i%max(topics, 1)), PatternType: "LITERAL",
			Principal: fmt.Sprintf("User:%s-app-%d", prefix, i), Host: "*", Operation: "Read", Permission: "Allow"})
	}
	for i := 0; i < quotas; i++ {
		s.Quotas = append(s.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: fmt.Sprintf("%s-app-%d", prefix, i)}}, Values: map[string]float64{"producer_byte_rate": 1048576}})
	}
	s.Sort()
	return s
}

// BenchmarkApplyRealKafka applies topics, ACLs and quota entities to the
// real Kafka 4.1 test broker three ways, each on fresh names:
//   - apply: `migrate apply` (read target, plan, validate-only preflight,
//     batches, events, audit, verify);
//   - raw: the same RPCs sent directly, one request per kind (of at most
//     benchkit.RawMax resources);
//   - cli: Kafka's own kafka-acls / kafka-configs (3.9 classes, one JVM per
//     resource, as an operator's script would), on a sample of 5 ACLs and
//     5 quota entities (a full run would take hours).
//
// It reports µs per resource for each; the ratios are the figures in
// docs/benchmarks.md.
func BenchmarkApplyRealKafka(b *testing.B) {
	tb := testbed.TargetBootstrap(b)
	props := testbed.TargetClientProps(b)
	dir := b.TempDir()
	topics, acls, quotas := benchSizes(b)
	resources := float64(topics + acls + quotas)
	run := 0
	next := func() string { run++; return fmt.Sprintf("bench%d-%d", time.Now().Unix()%100000, run) }

	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			prefix := next()
			path := filepath.Join(dir, prefix+".json")
			if err := snapshot.Save(path, benchSnapshot(prefix, topics, acls, quotas)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			args := []string{"apply", "--snapshot", path, "--yes", "--topics", "^" + prefix, "--principals", prefix,
				"--bootstrap-server", tb, "--command-config", props, "--audit-db", filepath.Join(dir, "audit.db"), "--batch-size", "1000",
				"--verify-timeout", "0", // raw does not wait for the broker to publish either
				"--no-access-proof"} // nor prove access (BenchmarkCompareFullScale measures the proof)
			// ZKM_BENCH_APPLY_ARGS adds flags, e.g. "--no-preflight --no-audit", to measure what each part costs
			args = append(args, strings.Fields(os.Getenv("ZKM_BENCH_APPLY_ARGS"))...)
			code, out, errs := runMigrate(b, args...)
			if code != exitOK {
				b.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/resources, "µs/resource")
	})

	b.Run("raw", func(b *testing.B) {
		conn := dialAdmin(b, tb, props)
		for b.Loop() {
			b.StopTimer()
			s := benchSnapshot(next(), topics, acls, quotas)
			reqs := benchkit.RawRequests(s)
			b.StartTimer()
			for _, req := range reqs {
				resp, err := conn.Client.Request(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if n, first := benchkit.Failed(resp); n > 0 {
					b.Fatalf("%d resources refused, first %s", n, first)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/resources, "µs/resource")
	})

	b.Run("cli-sample", func(b *testing.B) {
		lib := filepath.Join(testbed.Lib39(b), "*")
		const sample = 5
		for b.Loop() {
			prefix := next()
			for i := 0; i < sample; i++ {
				java(b, lib, "kafka.admin.AclCommand", "--bootstrap-server", tb, "--command-config", props, "--add",
					"--allow-principal", fmt.Sprintf("User:%s-app-%d", prefix, i), "--operation", "Read", "--topic", fmt.Sprintf("%s-t%05d", prefix, i))
				java(b, lib, "kafka.admin.ConfigCommand", "--bootstrap-server", tb, "--command-config", props, "--alter",
					"--entity-type", "users", "--entity-name", fmt.Sprintf("%s-app-%d", prefix, i), "--add-config", "producer_byte_rate=1048576")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(2*sample), "µs/resource")
	})
}

func java(b *testing.B, classpath, class string, args ...string) {
	b.Helper()
	cmd := exec.Command("java", append([]string{"-Xmx256m", "-cp", classpath, class}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", class, err, out)
	}
}
