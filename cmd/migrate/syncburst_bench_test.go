package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// BenchmarkSyncBurst measures how long migrate sync takes to drain a
// burst of changes, against migrate apply's own time for the same
// changes, in one run on the real test bed: ZKM_BENCH_SYNC_BURST ACL
// grants (default 200, a CI-size run), each on a topic resource of its
// own, written through the Kafka 3.9 source's admin API as fast as it
// takes them (burstBatch a request, 4 requests at a time) while sync
// follows the source. The drain is from
// the first grant's request to a describe of the target showing every
// grant (polled every 100 ms); then sync stops, the grants are deleted
// from the target alone, and migrate apply copies them again (read both
// sides, plan, apply, verify): its wall time is the reference. The 3.9
// source takes the grants slowly (each is a conditional ZooKeeper write
// and a notification), and sync follows them as they come: what counts
// is the backlog it has when the burst ends. Goal: the time from the
// burst's end to every grant on the target ≤ 1.5 × apply's; also
// reported, the drain from the burst's start against writing it and then
// applying it.
//
//	ZKM_BENCH_SYNC_BURST=10000 go test ./cmd/migrate -run '^$' -bench SyncBurst -benchtime 1x
func BenchmarkSyncBurst(b *testing.B) {
	n := 200
	if v := os.Getenv("ZKM_BENCH_SYNC_BURST"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("ZKM_BENCH_SYNC_BURST=%q: want a positive count", v)
		}
	}
	for b.Loop() {
		runSyncBurst(b, n)
	}
}

// burstBatch is how many grants one request to the source carries.
const burstBatch = 100

func runSyncBurst(b *testing.B, n int) {
	ctx := context.Background()
	zkAddr, tb, tprops := testbed.ZK(b), testbed.TargetBootstrap(b), testbed.TargetClientProps(b)
	sb, sprops := testbed.SourceBootstrap(b), testbed.SourceClientProps(b)
	source, target := dialAdmin(b, sb, sprops), dialAdmin(b, tb, tprops)
	prefix := fmt.Sprintf("burst%d", time.Now().UnixNano()/1e6%1e7)
	principal := "User:" + prefix + "-app"
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("%s-%05d", prefix, i))
	}
	acls := func(names ...string) *kadm.ACLBuilder {
		return kadm.NewACLs().Topics(names...).ResourcePatternType(kadm.ACLPatternLiteral).Allow(principal).AllowHosts().Operations(kadm.OpRead)
	}
	// By names, burstBatch a request: one request naming 10,000 outlasted
	// the client's timeout on the 4.1 target (the ACLs went all the same).
	revoke := func(c *kafkaconn.Conn) {
		for lo := 0; lo < n; lo += burstBatch {
			testbed.DeleteACLs(b, c.Admin, acls(names[lo:min(lo+burstBatch, n)]...))
		}
	}
	b.Cleanup(func() {
		revoke(source)
		revoke(target)
	})
	dir := b.TempDir()
	scope := []string{"--zookeeper", zkAddr, "--topics", "^" + prefix + "-", "--principals", "^" + principal + "$", "--include", "acl",
		"--yes", "--bootstrap-server", tb, "--command-config", tprops}
	load0 := loadAvg()

	p := startSync(b, append(append([]string{"sync"}, scope...), "-o", "json", "--status-every", "0", "--reconcile-every", "0",
		"--audit-db", filepath.Join(dir, "sync.db")))
	rounds := collectRounds(p)
	if err := rounds.waitInitial(2 * syncBound); err != nil {
		b.Fatalf("%v\n%s", err, p.output())
	}
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for lo := 0; lo < n; lo += burstBatch {
		wg.Add(1)
		sem <- struct{}{}
		go func(part []string) {
			defer func() { <-sem; wg.Done() }()
			// A 3.9 broker writes each grant to ZooKeeper with a
			// conditional update: a request of many can outlast the
			// client's timeout. Granting again what was granted is
			// harmless, so a failed request is sent again.
			var err error
			for range 3 {
				var res kadm.CreateACLsResults
				if res, err = source.Admin.CreateACLs(ctx, acls(part...)); err == nil {
					for _, r := range res {
						if r.Err != nil {
							err = r.Err
							break
						}
					}
				}
				if err == nil {
					return
				}
			}
			testbed.Check(b, "granting the burst's ACLs on the source", err)
		}(names[lo:min(lo+burstBatch, n)])
	}
	wg.Wait()
	written := time.Since(start)
	drained, ok := waitACLs(ctx, target, acls(), n, 10*time.Minute)
	drain := time.Since(start)
	if !ok {
		b.Fatalf("the target shows %d of the burst's %d ACLs %s after it began", drained, n, drain.Round(time.Second))
	}
	rounds.stop(b)
	changeRounds, _ := rounds.changeRounds()

	// The same changes by apply: gone from the target, copied again.
	revoke(target)
	if left, ok := waitACLs(ctx, target, acls(), 0, time.Minute); !ok {
		b.Fatalf("%d of the burst's ACLs still on the target after deleting them", left)
	}
	var stderr bytes.Buffer
	at := time.Now()
	code := run(ctx, append(append([]string{"apply"}, scope...), "--audit-db", filepath.Join(dir, "apply.db")), nil, &bytes.Buffer{}, &stderr, false)
	applyTime := time.Since(at)
	if code != 0 {
		b.Fatalf("migrate apply exited %d: %s", code, stderr.String())
	}
	if got, ok := waitACLs(ctx, target, acls(), n, time.Minute); !ok {
		b.Fatalf("after migrate apply the target shows %d of %d ACLs", got, n)
	}
	backlog := drain - written // what was left when the burst ended
	ratio := float64(backlog) / float64(applyTime)
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.ReportMetric(backlog.Seconds(), "after-burst-s")
	b.ReportMetric(applyTime.Seconds(), "apply-s")
	b.ReportMetric(ratio, "after-burst/apply")
	b.ReportMetric(float64(drain)/float64(written+applyTime), "drain/(write+apply)")
	fmt.Printf("\nBenchmarkSyncBurst %d ACL grants: written to the source in %s; the target showed them all %s after the burst's start, %s after its end, in %d change rounds; migrate apply of the same %d grants (read, plan, apply, verify): %s; after the burst / apply = %.2f (goal ≤ 1.5); from its start / (writing it + apply) = %.2f; load average %s → %s\n",
		n, written.Round(time.Millisecond), drain.Round(time.Millisecond), backlog.Round(time.Millisecond), len(changeRounds), n, applyTime.Round(time.Millisecond),
		ratio, float64(drain)/float64(written+applyTime), load0, loadAvg())
}

// waitACLs polls the target every 100 ms until the ACLs matching f number
// want, at most bound; it returns the last count and whether it did.
func waitACLs(ctx context.Context, c *kafkaconn.Conn, f *kadm.ACLBuilder, want int, bound time.Duration) (int, bool) {
	deadline := time.Now().Add(bound)
	got := -1
	for time.Now().Before(deadline) {
		res, err := c.Admin.DescribeACLs(ctx, f)
		if err == nil {
			got = 0
			for _, r := range res {
				got += len(r.Described)
			}
			if got == want {
				return got, true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return got, false
}
