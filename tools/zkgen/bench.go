package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// Bench modes. raw* walk the tree with go-zookeeper alone (the raw limit);
// *-seq read one znode at a time; migration and full are zkread.Read.
var benchModes = []string{"gen", "raw", "raw-migration", "migration", "full", "migration-no-multi", "full-no-multi", "raw-seq-migration", "raw-seq"}

const benchUsage = `usage: zkgen bench --zookeeper HOST:PORT [--size small|full] [--runs N] [--modes LIST]

Measures the snapshot reader against a generated tree in a test ZooKeeper.
The tree lives in --chroot (default /zkgen-bench-<size>-s<seed>) and is
generated once if missing. Each read measurement runs in a child process, so
its peak RSS is its own. Modes:
  gen                write a fresh copy of the tree (then delete it): generator rate;
                     at full scale run it alone, on a ZooKeeper without another full tree
  raw                go-zookeeper alone reading the znodes full mode reads (every znode;
                     partition states straight from the topic znode's ids), --inflight pipelined
  raw-migration      the same without partition states (what migration mode reads)
  migration, full    zkread.Read in that mode (zkconn's defaults: multiRead when the server has it)
  migration-no-multi, full-no-multi   the same, one znode per request
  raw-seq[-migration] the raw walks one request at a time
`

type benchResult struct {
	Mode     string  `json:"mode"`
	Seconds  float64 `json:"seconds"`
	Znodes   int64   `json:"znodes"`
	Requests int64   `json:"requests,omitempty"`
	CPU      float64 `json:"cpu_seconds,omitempty"` // user+system time of the measuring process (connect included)
	MaxRSSKB int64   `json:"max_rss_kb"`
	PeakHeap uint64  `json:"peak_heap_bytes"`
	Check    string  `json:"check,omitempty"` // what a zkread snapshot held, compared with the generator's summary
}

type benchRow struct {
	Mode    string        `json:"mode"`
	Runs    []benchResult `json:"runs"`
	Median  float64       `json:"median_seconds"`
	Rate    float64       `json:"znodes_per_second"`
	CPU     float64       `json:"median_cpu_seconds,omitempty"`
	RSSMiB  float64       `json:"max_rss_mib"`
	HeapMiB float64       `json:"peak_heap_mib"`
	Ratio   string        `json:"ratio,omitempty"`
}

func sizeConfig(size string, seed int64) (zkgen.Config, error) {
	switch size {
	case "small":
		return zkgen.Config{Topics: 2000, PartitionsPerTopic: 4, ACLs: 4000, QuotaEntities: 400, ScramUsers: 200, Brokers: 3, Seed: seed}, nil
	case "full":
		return zkgen.Full(seed), nil
	}
	return zkgen.Config{}, fmt.Errorf("zkgen bench: --size %q: want small or full", size)
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "one" {
		return runBenchOne(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("zkgen bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, benchUsage); fs.PrintDefaults() }
	addr := fs.String("zookeeper", "", "test ZooKeeper, host:port (no chroot)")
	size := fs.String("size", "small", "small (2,000 topics) or full (50,000 topics)")
	seed := fs.Int64("seed", 1, "generator seed")
	chroot := fs.String("chroot", "", "where the benchmark tree lives (default /zkgen-bench-<size>-s<seed>)")
	runs := fs.Int("runs", 3, "runs per mode; the median is reported")
	modes := fs.String("modes", strings.Join(benchModes, ","), "comma-separated modes")
	inflight := fs.Int("inflight", 128, "requests in flight for the raw walks")
	conns := fs.Int("conns", 8, "connections for the raw walks (go-zookeeper pipelines one session; several go faster)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	cleanup := fs.Bool("cleanup", false, "delete the benchmark tree at the end (it is kept by default for the next run)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	cfg, err := sizeConfig(*size, *seed)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *addr == "" || strings.Contains(*addr, "/") {
		fmt.Fprintln(stderr, "zkgen bench: --zookeeper host:port is required (give the chroot with --chroot)")
		return 1
	}
	if *chroot == "" {
		*chroot = fmt.Sprintf("/zkgen-bench-%s-s%d", *size, *seed)
	}
	selected := strings.Split(*modes, ",")
	for _, m := range selected {
		if !slices.Contains(benchModes, m) {
			fmt.Fprintf(stderr, "zkgen bench: unknown mode %q (have %s)\n", m, strings.Join(benchModes, ","))
			return 1
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "zkgen bench:", err)
		return 1
	}

	// what the tree holds, from the generator alone (nothing is written)
	want, err := zkgen.Generate(ctx, cfg, discard{}, zkgen.Options{Writers: 1})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// gen alone needs no standing tree: at full scale a 1 GiB ZooKeeper
	// holds one 50,000-topic tree, not two
	if slices.ContainsFunc(selected, func(m string) bool { return m != "gen" }) {
		if err := ensureTree(ctx, *addr+*chroot, cfg, stderr); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}

	host, _ := os.Hostname()
	fmt.Fprintf(stdout, "zkgen bench: %s tree (%d znodes: %d topics, %d partitions, %d ACL entries, %d quota entities, %d SCRAM users) at %s%s\n",
		*size, want.Znodes, want.Topics, want.Partitions, want.ACLEntries, want.Quotas.Total(), want.ScramUsers, *addr, *chroot)
	load := loadAvg()
	fmt.Fprintf(stdout, "machine: %s, %d CPUs, %s, load average %s; %d runs per mode, median; raw walks: %d in flight on %d connection(s)\n",
		host, runtime.NumCPU(), runtime.Version(), load, *runs, *inflight, *conns)

	var rows []benchRow
	for _, m := range selected {
		row := benchRow{Mode: m}
		for i := range *runs {
			var r benchResult
			if m == "gen" {
				r, err = benchGenerate(ctx, *addr, fmt.Sprintf("%s-gen%d", *chroot, i), cfg)
			} else {
				r, err = benchChild(ctx, self, m, *addr+*chroot, *inflight, *conns, cfg)
			}
			if err != nil {
				fmt.Fprintf(stderr, "zkgen bench: %s: %v\n", m, err)
				return 1
			}
			fmt.Fprintf(stderr, "  %s run %d: %.2fs %d znodes\n", m, i+1, r.Seconds, r.Znodes)
			row.Runs = append(row.Runs, r)
		}
		rows = append(rows, summarize(row))
	}
	ratios(rows)

	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tznodes\trequests\tmedian s\tznodes/s\tCPU s\tmax RSS MiB\tpeak heap MiB\tratio\t")
	for _, r := range rows {
		reqs, rss, heap, cpu := "-", "-", "-", "-"
		if r.CPU > 0 {
			cpu = fmt.Sprintf("%.1f", r.CPU)
		}
		if r.Runs[0].Requests > 0 {
			reqs = fmt.Sprint(r.Runs[0].Requests)
		}
		if r.RSSMiB > 0 {
			rss, heap = fmt.Sprintf("%.0f", r.RSSMiB), fmt.Sprintf("%.0f", r.HeapMiB)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%.0f\t%s\t%s\t%s\t%s\t\n", r.Mode, r.Runs[0].Znodes, reqs, r.Median, r.Rate, cpu, rss, heap, r.Ratio)
	}
	tw.Flush()
	bad := false
	for _, r := range rows {
		if c := r.Runs[0].Check; c != "" {
			fmt.Fprintf(stdout, "%s: %s\n", r.Mode, c)
			bad = bad || strings.Contains(c, "MISMATCH")
		}
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(map[string]any{"size": *size, "seed": *seed, "summary": want, "inflight": *inflight, "conns": *conns,
			"machine": host, "cpus": runtime.NumCPU(), "go": runtime.Version(), "load_before": load, "load_after": loadAvg(), "rows": rows}, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "zkgen bench:", err)
			return 1
		}
	}
	if *cleanup {
		if err := deleteTree(ctx, *addr+*chroot); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if bad {
		fmt.Fprintln(stderr, "zkgen bench: a snapshot did not match the generated tree")
		return 1
	}
	return 0
}

func deleteTree(ctx context.Context, addr string) error {
	w, err := zkgen.DialZK(addr, 4, 15*time.Second)
	if err != nil {
		return err
	}
	defer w.Close()
	return zkgen.Delete(ctx, w.Conns(), w.Chroot(), 500)
}

// loadAvg is the 1/5/15-minute load average, to judge how quiet the
// machine was.
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

type discard struct{}

func (discard) Write(context.Context, int, []zkgen.Node) error { return nil }

// ensureTree generates the benchmark tree unless a complete one (with
// /cluster/id, which the generator writes last) is already there; a partial
// one is deleted first.
func ensureTree(ctx context.Context, addr string, cfg zkgen.Config, stderr io.Writer) error {
	w, err := zkgen.DialZK(addr, 4, 15*time.Second)
	if err != nil {
		return err
	}
	defer w.Close()
	c := w.Conns()[0]
	if ok, _, err := c.Exists(w.Chroot() + "/cluster/id"); err != nil {
		return err
	} else if ok {
		return nil
	}
	if ok, _, err := c.Exists(w.Chroot()); err == nil && ok {
		fmt.Fprintf(stderr, "zkgen bench: %s is incomplete; deleting it\n", addr)
		if err := zkgen.Delete(ctx, w.Conns(), w.Chroot(), 500); err != nil {
			return err
		}
	}
	if err := w.Prepare(); err != nil {
		return err
	}
	start := time.Now()
	sum, err := zkgen.Generate(ctx, cfg, w, zkgen.Options{Writers: 4, Batch: 500})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "zkgen bench: generated %d znodes into %s in %s\n", sum.Znodes, addr, time.Since(start).Round(time.Millisecond))
	return nil
}

// benchGenerate times one generation into a fresh chroot, then deletes it.
func benchGenerate(ctx context.Context, addr, chroot string, cfg zkgen.Config) (benchResult, error) {
	w, err := zkgen.DialZK(addr+chroot, 4, 15*time.Second)
	if err != nil {
		return benchResult{}, err
	}
	defer w.Close()
	if ok, _, _ := w.Conns()[0].Exists(chroot); ok {
		if err := zkgen.Delete(ctx, w.Conns(), chroot, 500); err != nil {
			return benchResult{}, err
		}
	}
	if err := w.Prepare(); err != nil {
		return benchResult{}, err
	}
	start := time.Now()
	sum, err := zkgen.Generate(ctx, cfg, w, zkgen.Options{Writers: 4, Batch: 500})
	secs := time.Since(start).Seconds()
	if err != nil {
		return benchResult{}, err
	}
	if err := zkgen.Delete(ctx, w.Conns(), chroot, 500); err != nil {
		return benchResult{}, err
	}
	return benchResult{Mode: "gen", Seconds: secs, Znodes: int64(sum.Znodes)}, nil
}

// benchChild runs one read measurement in a child process.
func benchChild(ctx context.Context, self, mode, addr string, inflight, conns int, cfg zkgen.Config) (benchResult, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, self, "bench", "one", "--mode", mode, "--zookeeper", addr,
		"--inflight", fmt.Sprint(inflight), "--conns", fmt.Sprint(conns),
		"--want", string(mustJSON(cfg)))
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return benchResult{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var r benchResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return benchResult{}, fmt.Errorf("child output %q: %v", out.String(), err)
	}
	return r, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func summarize(row benchRow) benchRow {
	secs := make([]float64, len(row.Runs))
	cpus := make([]float64, len(row.Runs))
	for i, r := range row.Runs {
		secs[i], cpus[i] = r.Seconds, r.CPU
		row.RSSMiB = max(row.RSSMiB, float64(r.MaxRSSKB)/1024)
		row.HeapMiB = max(row.HeapMiB, float64(r.PeakHeap)/(1<<20))
	}
	row.Median, row.CPU = median(secs), median(cpus)
	row.Rate = float64(row.Runs[0].Znodes) / row.Median
	return row
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[n/2]
}

// ratios relates each reader mode to the raw walk of the same znodes.
func ratios(rows []benchRow) {
	base := map[string]string{"migration": "raw-migration", "full": "raw", "migration-no-multi": "raw-migration", "full-no-multi": "raw",
		"raw-seq": "raw", "raw-seq-migration": "raw-migration"}
	by := map[string]float64{}
	for _, r := range rows {
		by[r.Mode] = r.Median
	}
	for i, r := range rows {
		if b, ok := base[r.Mode]; ok && by[b] > 0 {
			rows[i].Ratio = fmt.Sprintf("%.2f× %s", r.Median/by[b], b)
		}
	}
}

// runBenchOne is the child: one measurement, JSON on stdout.
func runBenchOne(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zkgen bench one", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "", "")
	addr := fs.String("zookeeper", "", "")
	inflight := fs.Int("inflight", 64, "")
	nconns := fs.Int("conns", 1, "")
	wantJSON := fs.String("want", "", "")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	var cfg zkgen.Config
	if err := json.Unmarshal([]byte(*wantJSON), &cfg); err != nil {
		fmt.Fprintln(stderr, "bench one: --want:", err)
		return 1
	}
	stopProfile := func() {}
	if dir := os.Getenv("ZKM_BENCH_CPUPROFILE"); dir != "" {
		// a CPU profile of the timed part, for finding where the time goes
		f, err := os.CreateTemp(dir, *mode+"-*.pprof")
		if err == nil && pprof.StartCPUProfile(f) == nil {
			stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	peak := heapSampler()
	res := benchResult{Mode: *mode}
	// measured records memory and CPU right after the timed part, before
	// any checking
	measured := func() {
		stopProfile()
		res.PeakHeap = peak()
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			res.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
		res.MaxRSSKB = peakRSS()
	}
	var err error
	switch *mode {
	case "raw", "raw-migration", "raw-seq", "raw-seq-migration":
		err = rawWalk(ctx, *addr, *mode, *inflight, *nconns, &res)
		measured()
	case "migration", "full", "migration-no-multi", "full-no-multi":
		readMode, noMulti := strings.CutSuffix(*mode, "-no-multi")
		err = readSnapshot(ctx, *addr, readMode == "full", noMulti, cfg, &res, measured)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench one:", err)
		return 1
	}
	stdout.Write(mustJSON(res))
	return 0
}

// peakRSS is VmHWM from /proc/self/status, in KiB: the peak resident set
// of this process image. (getrusage's ru_maxrss is not used: on Linux it
// carries the parent's high-water mark across fork and exec.)
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}

// heapSampler samples live heap bytes every few milliseconds; the returned
// function stops it and reports the peak.
func heapSampler() func() uint64 {
	var peakv atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peakv.Load() {
				peakv.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peakv.Load() }
}

func rawWalk(ctx context.Context, addr, mode string, inflight, nconns int, res *benchResult) error {
	servers, chroot, err := zkgen.SplitAddress(addr)
	if err != nil {
		return err
	}
	var conns []*zk.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range max(1, nconns) {
		c, err := zkgen.Connect(servers, 15*time.Second)
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	opt := zkgen.WalkOptions{InFlight: inflight}
	if strings.HasPrefix(mode, "raw-seq") {
		opt.InFlight = 1
	}
	// read what zkread reads: every znode, except that a topic's
	// partitions are not listed; full mode reads each partition's state
	// straight from the ids in the topic znode, migration mode not at all.
	topics := chroot + "/brokers/topics/"
	full := !strings.HasSuffix(mode, "-migration")
	opt.Expand = func(p string, data []byte, st *zk.Stat) ([]string, bool) {
		rest, ok := strings.CutPrefix(p, topics)
		if !ok || strings.Contains(rest, "/") {
			return nil, st.NumChildren > 0
		}
		if !full {
			return nil, false
		}
		var z struct {
			Partitions map[string]json.RawMessage `json:"partitions"`
		}
		if json.Unmarshal(data, &z) != nil {
			return nil, false
		}
		states := make([]string, 0, len(z.Partitions))
		for id := range z.Partitions {
			states = append(states, p+"/partitions/"+id+"/state")
		}
		return states, false
	}
	start := time.Now()
	st, err := zkgen.Walk(ctx, conns, chroot, opt)
	res.Seconds = time.Since(start).Seconds()
	res.Znodes, res.Requests = st.Znodes, st.Requests
	return err
}

func readSnapshot(ctx context.Context, addr string, full, noMulti bool, cfg zkgen.Config, res *benchResult, measured func()) error {
	conn, err := zkconn.Dial(ctx, zkconn.Options{Connect: addr, NoMultiRead: noMulti})
	if err != nil {
		return err
	}
	defer conn.Close()
	start := time.Now()
	s, err := zkread.Read(ctx, conn, zkread.Options{Full: full, Address: conn.Address(), EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
	res.Seconds = time.Since(start).Seconds()
	measured()
	if err != nil {
		return err
	}
	res.Znodes = int64(s.Read.Znodes)

	want, err := zkgen.Generate(ctx, cfg, discard{}, zkgen.Options{Writers: 1})
	if err != nil {
		return err
	}
	parts, states := 0, 0
	for _, t := range s.Topics {
		parts += len(t.Partitions)
		for _, p := range t.Partitions {
			if p.State != nil {
				states++
			}
		}
	}
	wantStates := 0
	if full {
		wantStates = want.Partitions
	}
	// pending deletes may or may not be listed as topics by the reader
	topicsOK := len(s.Topics) == want.Topics || len(s.Topics) == want.Topics-want.PendingDeletes
	got := fmt.Sprintf("topics %d, partitions %d, states %d, acls %d, quotas %d, scram users %d, pending deletes %d, findings %d",
		len(s.Topics), parts, states, len(s.ACLs), len(s.Quotas), len(s.ScramUsers), len(s.PendingDeletes), len(s.Findings))
	ok := topicsOK && states == wantStates && len(s.ACLs) == want.ACLEntries && len(s.Quotas) == want.Quotas.Total() &&
		len(s.ScramUsers) == want.ScramUsers && len(s.PendingDeletes) == want.PendingDeletes
	res.Check = got
	if !ok {
		res.Check = "MISMATCH " + got + fmt.Sprintf(" (generated: topics %d, partitions %d, acls %d, quota entities %d, scram users %d, pending deletes %d)",
			want.Topics, want.Partitions, want.ACLEntries, want.Quotas.Total(), want.ScramUsers, want.PendingDeletes)
	}
	return nil
}
