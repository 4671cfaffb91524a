package audit

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// cpuTime returns the process's user+system CPU time: on a shared, loaded
// machine it says more about the cost than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRecord100kChanges10kRPCs records one apply run of 100,000
// changes (the plan) sent in 10,000 RPCs of 10 changes, each with its
// intent, outcome and ten results, then finishes the run and verifies the
// chain. Run with -benchtime=1x; it reports the phases as metrics.
func BenchmarkRecord100kChanges10kRPCs(b *testing.B) {
	ctx := context.Background()
	p := testPlan(benchChanges)
	for b.Loop() {
		s, err := Open(ctx, filepath.Join(b.TempDir(), "audit.db"))
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{ClusterID: "bench"}})
		if err != nil {
			b.Fatal(err)
		}
		t0, c0 := time.Now(), cpuTime()
		if err := r.RecordPlan(ctx, p); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuTime()
		applyBatches(r.Observer(), p, 10, nil)
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
		t2, c2 := time.Now(), cpuTime()
		head, err := r.Finish(ctx, "succeeded", 0)
		if err != nil {
			b.Fatal(err)
		}
		t3, c3 := time.Now(), cpuTime()
		res, err := s.Verify(ctx, head)
		if err != nil || !res.OK {
			b.Fatalf("Verify = %+v, %v", res, err)
		}
		t4, c4 := time.Now(), cpuTime()
		b.ReportMetric(t1.Sub(t0).Seconds(), "plan-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "apply-s")
		b.ReportMetric(t4.Sub(t3).Seconds(), "verify-s")
		b.ReportMetric((c1 - c0).Seconds(), "plan-cpu-s")
		b.ReportMetric((c2 - c1).Seconds(), "apply-cpu-s")
		b.ReportMetric((c4 - c3).Seconds(), "verify-cpu-s")
		b.ReportMetric(float64(res.Rows), "rows")
		s.Close()
	}
}

// benchChanges is the plan size of the benchmark.
const benchChanges = 100000

// BenchmarkRecordPlanGenerated records the plan of a generated cluster
// (internal/testkit/zkgen, read in memory by zkread, planned by plan.Build against
// an empty target) as `migrate plan` does: the source's secrets added,
// then RecordPlan. The size is zkgen.Full's scaled to
// ZKM_BENCH_AUDIT_TOPICS topics (default 2,000; 50000 is the issue's
// size). It reports the plan's changes, RecordPlan's CPU time, the bytes
// it allocated, its wall time and how far the RSS rose; then the CPU time
// of recording the plan and saving it as a plan file as plan --out does,
// encoding it for each (record-and-file-cpu-s) and once for both
// (record-and-file-shared-cpu-s). Run with -benchtime=1x.
func BenchmarkRecordPlanGenerated(b *testing.B) {
	topics := 2000
	if v := os.Getenv("ZKM_BENCH_AUDIT_TOPICS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			b.Fatalf("ZKM_BENCH_AUDIT_TOPICS=%q: want a number of topics (at least 10)", v)
		}
		topics = n
	}
	ctx := context.Background()
	cfg := zkgen.Full(1)
	cfg.ACLs = cfg.ACLs / cfg.Topics * topics
	cfg.QuotaEntities = cfg.QuotaEntities * topics / cfg.Topics
	cfg.ScramUsers = cfg.ScramUsers * topics / cfg.Topics
	cfg.Topics = topics
	w := zkgen.NewTreeWriter()
	if _, err := zkgen.Generate(ctx, cfg, w, zkgen.Options{}); err != nil {
		b.Fatal(err)
	}
	src, err := zkread.Read(ctx, w.Tree(), zkread.Options{EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Build(plan.Input{Source: src, Target: &snapshot.Snapshot{Format: 1, Brokers: src.Brokers}})
	if err != nil {
		b.Fatal(err)
	}
	var secrets []string
	for _, t := range src.Topics {
		for _, c := range t.Configs {
			if c.Secret != nil {
				if v, ok := c.Secret.Reveal(); ok && v != "" {
					secrets = append(secrets, v)
				}
			}
		}
	}
	for _, bc := range src.BrokerConfigs {
		for _, c := range bc.Configs {
			if c.Secret != nil {
				if v, ok := c.Secret.Reveal(); ok && v != "" {
					secrets = append(secrets, v)
				}
			}
		}
	}
	w, src = nil, nil
	for b.Loop() {
		s, r := benchPlanRun(b, ctx, secrets)
		var m0, m1 runtime.MemStats
		debug.FreeOSMemory()
		runtime.ReadMemStats(&m0)
		rss0 := rss()
		stop, peak := sampleRSS()
		t0, c0 := time.Now(), cpuTime()
		if err := r.RecordPlan(ctx, p); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuTime()
		stop()
		runtime.ReadMemStats(&m1)
		head, err := r.Finish(ctx, "succeeded", 2)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Verify(ctx, head)
		if err != nil || !res.OK {
			b.Fatalf("Verify = %+v, %v", res, err)
		}
		b.ReportMetric(float64(len(p.Changes)), "changes")
		b.ReportMetric(float64(len(secrets)), "secrets")
		b.ReportMetric(float64(len(r.sc.secrets)), "scrubbed-values")
		b.ReportMetric(float64(res.Rows), "rows")
		b.ReportMetric((c1 - c0).Seconds(), "record-cpu-s")
		b.ReportMetric(t1.Sub(t0).Seconds(), "record-s")
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/(1<<20), "record-alloc-MiB")
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs), "record-allocs")
		b.ReportMetric(float64(rss0)/(1<<20), "rss-before-MiB")
		b.ReportMetric(float64(*peak-rss0)/(1<<20), "record-rss-growth-MiB")
		s.Close()
		// plan --out: the plan recorded and saved as a plan file, each
		// encoding it (RecordPlan, planfile.Write), and once for both
		// (RecordPlanEncoded, planfile.Encode and Save).
		for _, shared := range []bool{false, true} {
			s, r := benchPlanRun(b, ctx, secrets)
			file := filepath.Join(b.TempDir(), "plan.zst")
			cp := *p
			c0 := cpuTime()
			if shared {
				var enc *planfile.Encoded
				err = r.RecordPlanEncoded(ctx, &cp, func(tap io.Writer) ([]byte, error) {
					var err error
					if enc, err = planfile.Encode(&cp, tap); err != nil {
						return nil, err
					}
					return enc.Data, nil
				})
				if err == nil {
					err = enc.Save(file, &cp)
				}
			} else if err = r.RecordPlan(ctx, &cp); err == nil {
				err = planfile.Write(file, &cp)
			}
			if err != nil {
				b.Fatal(err)
			}
			name := "record-and-file-cpu-s"
			if shared {
				name = "record-and-file-shared-cpu-s"
			}
			b.ReportMetric((cpuTime() - c0).Seconds(), name)
			s.Close()
		}
	}
}

// rss is the process's resident set size now (Linux; 0 elsewhere).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	if _, err := fmt.Sscan(string(b), &size, &res); err != nil {
		return 0
	}
	return res * int64(os.Getpagesize())
}

// sampleRSS samples rss every 5 ms until stop is called; *peak is the
// largest seen (read it after stop).
func sampleRSS() (stop func(), peak *int64) {
	peak = new(int64)
	*peak = rss()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v := rss(); v > *peak {
				*peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }, peak
}

// benchPlanRun opens a new audit database and begins a plan run on it that
// knows secrets.
func benchPlanRun(b *testing.B, ctx context.Context, secrets []string) (*Store, *Run) {
	b.Helper()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan", Target: Endpoint{ClusterID: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	r.AddSecrets(secrets...)
	return s, r
}
