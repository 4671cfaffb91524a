package audit

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
