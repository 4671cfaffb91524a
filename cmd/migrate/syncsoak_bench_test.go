package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// soakSpecFrom reads ZKM_BENCH_SYNC_SOAK="rate:duration" (default 5:5s,
// a CI-size run).
// soakBalanced reads ZKM_BENCH_SYNC_SOAK_MODE: "balanced" (the default)
// undoes every add (lagBalancedKinds), so the synced set stays the same
// size; "grow" writes BenchmarkSyncLag's kinds, which add topics,
// partitions and SCRAM users.
func soakBalanced(b *testing.B) bool {
	switch v := os.Getenv("ZKM_BENCH_SYNC_SOAK_MODE"); v {
	case "", "balanced":
		return true
	case "grow":
		return false
	default:
		b.Fatalf("ZKM_BENCH_SYNC_SOAK_MODE=%q: want balanced or grow", v)
		return false
	}
}

func soakSpecFrom(b *testing.B) lagSpec {
	v := os.Getenv("ZKM_BENCH_SYNC_SOAK")
	if v == "" {
		v = "5:5s"
	}
	r, d, ok := strings.Cut(strings.TrimSpace(v), ":")
	rate, err1 := strconv.Atoi(r)
	dur, err2 := time.ParseDuration(d)
	if !ok || err1 != nil || err2 != nil || rate <= 0 || rate > 1000 || dur <= 0 {
		b.Fatalf("ZKM_BENCH_SYNC_SOAK=%q: not rate:duration (changes per second 1-1000, a Go duration), e.g. 20:10m", v)
	}
	return lagSpec{Rate: rate, For: dur}
}

// BenchmarkSyncSoak is a long migrate sync compressed in time, on the real
// test bed: sync runs as a child process from the 3.9 source's ZooKeeper to
// the 4.1 target with a short --reconcile-every (ZKM_BENCH_SYNC_SOAK_RECONCILE,
// default 30s, or a third of the run when that is shorter) while
// BenchmarkSyncLag's writer changes every kind through the 3.9 brokers'
// admin API at a steady rate and its observer waits for each change on the
// target. Every second (ZKM_BENCH_SYNC_SOAK_SAMPLE) it reads the child's
// VmRSS and VmHWM from /proc/<pid>/status. With ZKM_BENCH_SYNC_SOAK_MODE unset or
// "balanced" the writer undoes what it adds (lagBalancedKinds: topic
// creates and deletes, ACL grants and revokes, quota sets and clears,
// SCRAM upserts and deletes, config changes), so the synced set stays the
// same size and the memory line should be flat; "grow" writes the lag
// benchmark's kinds, which grow the set. ZKM_MEMPROFILE=DIR, passed on to
// the child, has sync write a heap profile after its first round and
// after every reconciliation (memprofile.go).
//
// It reports the RSS at the start and at the end of the writer's run (the
// median of the samples in its first and last minute, or third when the
// run is shorter), the growth extrapolated to an hour, the peak (VmHWM),
// how much the synced scope grew meanwhile (the writer's creates, partition
// increases and SCRAM users add to it; its grants and revokes balance),
// the rounds by reason, and the changes lost (never seen on the target,
// which fails the benchmark) and missed (found by a reconciliation, not
// announced by the feed). It waits for one reconciliation that starts
// after the writer stopped, so the last changes are checked by one too.
// A flat memory line is a result to report, not asserted.
//
//	ZKM_BENCH_SYNC_SOAK=20:10m go test ./cmd/migrate -run '^$' -bench SyncSoak -benchtime 1x -timeout 30m
func BenchmarkSyncSoak(b *testing.B) {
	spec := soakSpecFrom(b)
	reconcile := lagEnvDuration(b, "ZKM_BENCH_SYNC_SOAK_RECONCILE", min(30*time.Second, max(time.Second, (spec.For/3).Truncate(time.Second))))
	sample := lagEnvDuration(b, "ZKM_BENCH_SYNC_SOAK_SAMPLE", time.Second)
	balanced := soakBalanced(b)
	mode := "grow"
	if balanced {
		mode = "balanced"
	}
	b.Run(fmt.Sprintf("%s,rate=%d/s,for=%s,reconcile=%s", mode, spec.Rate, spec.For, reconcile), func(b *testing.B) {
		var res *soakResult
		for b.Loop() {
			res = runSyncSoak(b, spec, reconcile, sample, balanced)
		}
		res.report(b)
	})
}

// rssSample is one reading of the sync child's memory.
type rssSample struct {
	At       time.Duration // since the writer started (negative: before)
	RSS, HWM int64         // kB
}

// readRSS reads VmRSS and VmHWM (kB) from a /proc/<pid>/status text.
func readRSS(status []byte) (rss, hwm int64, ok bool) {
	var got int
	for _, line := range bytes.Split(status, []byte("\n")) {
		for _, f := range []struct {
			key string
			to  *int64
		}{{"VmRSS:", &rss}, {"VmHWM:", &hwm}} {
			if v, found := bytes.CutPrefix(line, []byte(f.key)); found {
				n, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
				if err == nil {
					*f.to = n
					got++
				}
			}
		}
	}
	return rss, hwm, got == 2
}

// soakMemory is the summary of the samples over a writer run of length run.
type soakMemory struct {
	Window        time.Duration // the length of the first and last windows
	FirstN, LastN int           // samples in each
	First, Last   int64         // median RSS in each, kB
	GrowthPerHour float64       // kB an hour, from the two medians and the windows' midpoints
	Peak          int64         // the highest VmHWM, kB
	Min, Max      int64         // RSS over the run, kB
	Samples       int           // all of them, before and after the run too
}

// summarizeRSS takes the median RSS of the samples in the run's first and
// last minute (a third of the run when it is under three minutes) and
// extrapolates their difference to an hour.
func summarizeRSS(samples []rssSample, run time.Duration) soakMemory {
	m := soakMemory{Window: min(time.Minute, run/3), Samples: len(samples)}
	var first, last []int64
	for _, s := range samples {
		m.Peak = max(m.Peak, s.HWM)
		if s.At < 0 || s.At > run {
			continue
		}
		if m.Min == 0 || s.RSS < m.Min {
			m.Min = s.RSS
		}
		m.Max = max(m.Max, s.RSS)
		if s.At <= m.Window {
			first = append(first, s.RSS)
		}
		if s.At >= run-m.Window {
			last = append(last, s.RSS)
		}
	}
	m.FirstN, m.LastN = len(first), len(last)
	m.First, m.Last = median(first), median(last)
	if span := run - m.Window; span > 0 && len(first) > 0 && len(last) > 0 {
		m.GrowthPerHour = float64(m.Last-m.First) / span.Hours()
	}
	return m
}

// median of xs (the lower middle one of an even count), 0 for none.
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// soakRounds counts a sync run's rounds by reason, and what they found.
type soakRounds struct {
	ByReason map[string]int
	Errors   int // rounds after the initial one with an error
	// Missed are the changes a reconciliation found that no notification
	// had announced; Announced of them were then listed by a change round
	// before the next reconciliation (the notification was on its way
	// while the reconciliation read the source, not lost).
	Missed, Announced int
	Drift             int // target-side differences set back
	Failed            int // changes whose apply failed
	LastReconcile     time.Time
}

func countRounds(rounds []roundLine) soakRounds {
	c := soakRounds{ByReason: map[string]int{}}
	for i, r := range rounds {
		c.ByReason[r.Reason]++
		if r.Reason != "initial" && r.Error != "" {
			c.Errors++
		}
		c.Drift += len(r.Drift)
		c.Failed += r.Failed
		if r.Reason == "reconcile" && r.Started.After(c.LastReconcile) {
			c.LastReconcile = r.Started
		}
		for _, m := range r.Missed {
			c.Missed++
		next:
			for _, later := range rounds[i+1:] {
				if later.Reason == "reconcile" {
					break
				}
				if later.Reason != "change" {
					continue
				}
				for _, e := range later.Entities {
					if mentions(m.ID, entityName(e)) {
						c.Announced++
						break next
					}
				}
			}
		}
	}
	return c
}

// entityName is the resource a change feed entity names: "topic T",
// "config topics/T" and "config users/U" name T and U, "acl
// Topic:LITERAL:R" names Topic:LITERAL:R.
func entityName(e string) string {
	_, name, _ := strings.Cut(e, " ")
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.HasPrefix(e, "config ") {
		name = name[i+1:]
	}
	return name
}

// mentions reports whether a plan change ID names the resource name: it
// follows "=", ":" or " " and is followed by the end, " " or "/" (IDs
// such as "topic-config:T", "quota:user=U", "scram-user:U/MECH",
// "acl:Allow P Read on Topic:LITERAL:R from *").
func mentions(id, name string) bool {
	if name == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(id[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		before := i > 0 && strings.ContainsRune("=: ", rune(id[i-1]))
		after := end == len(id) || id[end] == ' ' || id[end] == '/'
		if before && after {
			return true
		}
		from = i + 1
	}
}

// soakResult is one run's outcome.
type soakResult struct {
	spec             lagSpec
	reconcile        time.Duration
	mem              soakMemory
	rounds           soakRounds
	all              lagRow
	scheduled        int
	skipped          int
	balanced         bool
	topics, scram    int // topics created, SCRAM users added
	deleted, unscram int // topics deleted, SCRAM users deleted (balanced)
	partitions       int // partitions added by the partition increases (one each)
	loadStart        string
	loadEnd          string
	observerErrors   int
	firstObserveErr  string
	lostOps          []string // the first lost changes, kind and resource
}

func (r *soakResult) report(b *testing.B) {
	mib := func(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }
	m := r.mem
	b.ReportMetric(float64(m.First)/1024, "rss-first-MiB")
	b.ReportMetric(float64(m.Last)/1024, "rss-last-MiB")
	b.ReportMetric(m.GrowthPerHour/1024, "growth-MiB/h")
	b.ReportMetric(float64(m.Peak)/1024, "peak-MiB")
	b.ReportMetric(float64(r.all.Lost), "lost")
	b.ReportMetric(float64(r.rounds.Missed), "missed")
	b.ReportMetric(float64(r.rounds.Missed-r.rounds.Announced), "missed-unannounced")

	var reasons []string
	for _, k := range []string{"initial", "change", "reconcile", "resync", "retry", "poll"} {
		if n := r.rounds.ByReason[k]; n > 0 {
			reasons = append(reasons, fmt.Sprintf("%s %d", k, n))
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\nBenchmarkSyncSoak %d changes/s for %s, --reconcile-every %s: %d scheduled, %d written, %d admin calls failed, %d skipped (writer behind); load average %s at the start, %s at the end\n",
		r.spec.Rate, r.spec.For, r.reconcile, r.scheduled, r.all.Written, r.all.Failed, r.skipped, r.loadStart, r.loadEnd)
	fmt.Fprintf(&out, "sync's RSS: %s (median of %d samples in the first %s) -> %s (median of %d in the last %s), %+.1f MiB an hour extrapolated; over the run %s-%s; peak (VmHWM) %s; %d samples\n",
		mib(m.First), m.FirstN, m.Window.Round(100*time.Millisecond), mib(m.Last), m.LastN, m.Window.Round(100*time.Millisecond), m.GrowthPerHour/1024, mib(m.Min), mib(m.Max), mib(m.Peak), m.Samples)
	mode := "grow"
	if r.balanced {
		mode = "balanced"
	}
	fmt.Fprintf(&out, "writer %s: the scope grew by %d topics (%d created, %d deleted), %d partitions, %d SCRAM users (%d upserted, %d deleted on the source; a plan never deletes one, so the target keeps them)\n",
		mode, r.topics-r.deleted, r.topics, r.deleted, r.topics-r.deleted+r.partitions, r.scram-r.unscram, r.scram, r.unscram)
	fmt.Fprintf(&out, "rounds: %s; %d with an error after the initial one, %d changes failed to apply; changes lost %d (never seen on the target), missed %d (found by a reconciliation before their notification's change round; %d of them a change round listed before the next reconciliation), drift %d; observer errors %d%s\n",
		strings.Join(reasons, ", "), r.rounds.Errors, r.rounds.Failed, r.all.Lost, r.rounds.Missed, r.rounds.Announced, r.rounds.Drift, r.observerErrors, r.firstObserveErr)
	fmt.Print(out.String())
	if r.all.Lost > 0 {
		b.Errorf("%d change(s) never arrived on the target: %s", r.all.Lost, strings.Join(r.lostOps, ", "))
	}
	if r.all.Written == 0 {
		b.Errorf("the writer made no change (%d scheduled, %d skipped): nothing was soaked", r.scheduled, r.skipped)
	}
	if m.FirstN == 0 || m.LastN == 0 {
		b.Errorf("no RSS samples in the first or last window of the run (%d samples in all)", m.Samples)
	}
}

// sampleRSS reads pid's memory every period until stop closes.
func sampleRSS(pid int, every time.Duration, zero *time.Time, zeroMu *sync.Mutex, stop <-chan struct{}) <-chan []rssSample {
	out := make(chan []rssSample, 1)
	go func() {
		var samples []rssSample
		tick := time.NewTicker(every)
		defer tick.Stop()
		path := fmt.Sprintf("/proc/%d/status", pid)
		for {
			select {
			case <-stop:
				out <- samples
				return
			case <-tick.C:
			}
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			if rss, hwm, ok := readRSS(data); ok {
				zeroMu.Lock()
				at := time.Since(*zero)
				zeroMu.Unlock()
				samples = append(samples, rssSample{At: at, RSS: rss, HWM: hwm})
			}
		}
	}()
	return out
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func runSyncSoak(b *testing.B, spec lagSpec, reconcile, sample time.Duration, balanced bool) *soakResult {
	ctx := context.Background()
	bed, w, args := setUpLag(b, spec, "soak", reconcile.String())
	if balanced {
		w.balance()
	}
	res := &soakResult{spec: spec, reconcile: reconcile, loadStart: loadAvg(), balanced: balanced}
	var zeroMu sync.Mutex
	zero := time.Now().Add(time.Hour) // moved to the writer's start below
	p := startSync(b, args)
	stopSampling := make(chan struct{})
	samples := sampleRSS(p.cmd.Process.Pid, sample, &zero, &zeroMu, stopSampling)
	rounds := collectRounds(p)
	if err := rounds.waitInitial(2 * syncBound); err != nil {
		b.Fatalf("%v\n%s", err, p.output())
	}

	obsCtx, stopObs := context.WithCancel(ctx)
	obs := &lagObserver{bed: bed, book: w.book}
	obsDone := make(chan struct{})
	go func() { obs.run(obsCtx, 100*time.Millisecond); close(obsDone) }()

	zeroMu.Lock()
	zero = time.Now()
	zeroMu.Unlock()
	w.run(ctx, spec)
	run := time.Since(zero)
	stopped := time.Now()
	res.loadEnd = loadAvg()
	for deadline := time.Now().Add(syncBound); w.book.left() > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	stopObs()
	<-obsDone
	// One reconciliation that started after the last change, so every
	// change was checked by a full one too.
	for deadline := time.Now().Add(reconcile + 2*syncBound); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		rounds.mu.Lock()
		c := countRounds(rounds.rounds)
		rounds.mu.Unlock()
		if c.LastReconcile.After(stopped) && c.ByReason["reconcile"] > 0 {
			break
		}
	}
	close(stopSampling)
	rounds.stop(b)

	rounds.mu.Lock()
	res.rounds = countRounds(rounds.rounds)
	rounds.mu.Unlock()
	if path := os.Getenv("ZKM_BENCH_SYNC_SOAK_OUT"); path != "" { // sync's JSON lines, for a closer look
		if err := os.WriteFile(path, []byte(p.output()), 0o644); err != nil {
			b.Errorf("writing %s: %v", path, err)
		}
	}
	if !res.rounds.LastReconcile.After(stopped) {
		b.Errorf("no reconciliation started within %s after the writer stopped", reconcile+2*syncBound)
	}
	res.mem = summarizeRSS(<-samples, run)
	rows := lagRows(w.book.ops())
	res.all = rows[len(rows)-1]
	for _, op := range w.book.ops() {
		if op.Err == nil && op.Visible.IsZero() && len(res.lostOps) < 10 {
			res.lostOps = append(res.lostOps, op.Kind+" "+op.Resource)
		}
	}
	for _, row := range rows {
		switch row.Kind {
		case lagCreate:
			res.topics = row.Written
		case lagPartitions:
			res.partitions = row.Written
		case lagSCRAM:
			res.scram = row.Written
		case lagDelete:
			res.deleted = row.Written
		}
	}
	res.scheduled, res.skipped = w.scheduled, w.skipped
	w.mu.Lock()
	res.unscram = w.unscrammed
	w.mu.Unlock()
	obs.mu.Lock()
	res.observerErrors = obs.errors
	if obs.firstErr != nil {
		res.firstObserveErr = fmt.Sprintf(" (first: %v)", obs.firstErr)
	}
	obs.mu.Unlock()
	return res
}
