package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// lagSpec is one measured run: changes per second for a duration.
type lagSpec struct {
	Rate int
	For  time.Duration
}

// lagSpecs reads ZKM_BENCH_SYNC_LAG="rate:duration,..." (e.g.
// "10:60s,100:60s"); the default is a CI-size run.
func lagSpecs(b *testing.B) []lagSpec {
	v := os.Getenv("ZKM_BENCH_SYNC_LAG")
	if v == "" {
		v = "5:3s"
	}
	var out []lagSpec
	for _, part := range strings.Split(v, ",") {
		r, d, ok := strings.Cut(strings.TrimSpace(part), ":")
		rate, err1 := strconv.Atoi(r)
		dur, err2 := time.ParseDuration(d)
		if !ok || err1 != nil || err2 != nil || rate <= 0 || rate > 1000 || dur <= 0 {
			b.Fatalf("ZKM_BENCH_SYNC_LAG=%q: %q is not rate:duration (changes per second 1-1000, a Go duration), e.g. 10:60s,100:60s", v, part)
		}
		out = append(out, lagSpec{Rate: rate, For: dur})
	}
	return out
}

// lagEnvDuration reads a duration from name, or def.
func lagEnvDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive Go duration", name, v)
	}
	return d
}

// BenchmarkSyncLag measures migrate sync's lag on the real test bed: the
// time from a change's ZooKeeper write to the change being visible on the
// Kafka 4.1 target.
//
// A writer makes changes through the Kafka 3.9 source's own admin API (so
// Kafka itself writes ZooKeeper and its change notifications) at a steady
// rate, round-robin over seven kinds: topic create, topic config change,
// ACL grant, ACL revoke, client quota change, partition increase, SCRAM
// upsert. Each change's ZooKeeper time is read from ZooKeeper itself (on
// loopback, so its clock is ours): the ctime of /brokers/topics/<t> for a
// create, of /kafka-acl/Topic/<r> for a grant; the mtime of the entity
// znode for the rest (/brokers/topics/<t> for a partition increase,
// /config/topics/<t>, /config/users/<u>, /kafka-acl/Topic/<r> for a
// revoke, which keeps a second ACL on the resource so the znode stays).
// When the znode no longer shows the change it is timed from the admin
// call's return, and the table says how many were.
//
// An observer polls the target through its SASL/SCRAM listener every
// ZKM_BENCH_SYNC_LAG_POLL (default 25ms), describing only the resources
// still awaited, and stamps each change when a describe first shows it:
// independent of what sync says. It reports p50/p99/max per kind and
// overall, and the changes that never arrived (within
// ZKM_BENCH_SYNC_LAG_DRAIN, default 60s, after the writer stops: the
// benchmark then fails); sync's own per-round lag from its -o json output;
// and, per change matched to the round that carried it, where the time
// went (ZooKeeper write → feed, feed → round start, the round, round end →
// seen).
//
// ZKM_BENCH_SYNC_LAG="rate:duration,..." sets the runs (default 5:3s, a
// CI-size run). The figures in docs/benchmarks.md:
//
//	ZKM_BENCH_SYNC_LAG=10:60s,100:60s go test ./cmd/migrate -run '^$' -bench SyncLag -benchtime 1x
func BenchmarkSyncLag(b *testing.B) {
	specs := lagSpecs(b)
	every := lagEnvDuration(b, "ZKM_BENCH_SYNC_LAG_POLL", 25*time.Millisecond)
	drain := lagEnvDuration(b, "ZKM_BENCH_SYNC_LAG_DRAIN", 60*time.Second)
	for _, spec := range specs {
		b.Run(fmt.Sprintf("rate=%d/s,for=%s", spec.Rate, spec.For), func(b *testing.B) {
			var res *lagResult
			for b.Loop() {
				res = runSyncLag(b, spec, every, drain)
			}
			res.report(b)
		})
	}
}

// lagResult is one run's outcome.
type lagResult struct {
	spec             lagSpec
	every            time.Duration
	rows             []lagRow
	rounds           []lagRound
	roundErrors      int
	scheduled, skipd int
	observerErrors   int
	observerRequests int64
	elapsed          time.Duration // from the first change to the observer's stop
	firstObsErr      string
	// direct is the floor measured in the same run: the same kinds of
	// change written straight to the target, issue to seen ("all" row).
	direct     lagRow
	directRows []lagRow
	load       [2]string // the load averages as the run began and ended
}

func (r *lagResult) report(b *testing.B) {
	var all lagRow
	for _, row := range r.rows {
		if row.Kind == "all" {
			all = row
			continue
		}
		b.ReportMetric(float64(row.Lag.P99.Microseconds())/1000, row.Kind+"-p99-ms")
	}
	b.ReportMetric(float64(all.Lag.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all.Lag.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(all.Lag.Max.Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(all.Lost), "lost")
	var lags []time.Duration
	for _, rd := range r.rounds {
		lags = append(lags, rd.Lag)
	}
	own := distOf(lags)
	b.ReportMetric(float64(own.P99.Microseconds())/1000, "sync-round-p99-ms")
	floor := all.Feed.P99 + r.direct.Lag.P99
	if floor > 0 {
		b.ReportMetric(float64(r.direct.Lag.P99.Microseconds())/1000, "direct-p99-ms")
		b.ReportMetric(float64(all.Feed.P99.Microseconds())/1000, "feed-p99-ms")
		b.ReportMetric(float64(all.Lag.P99)/float64(floor), "p99/floor")
	}

	var out strings.Builder
	fmt.Fprintf(&out, "\nBenchmarkSyncLag %d changes/s for %s: %d scheduled, %d written, %d admin calls failed, %d skipped (writer behind); observer every %s, %d describe requests (%.0f/s), %d errors%s\n",
		r.spec.Rate, r.spec.For, r.scheduled, all.Written, all.Failed, r.skipd, r.every, r.observerRequests, float64(r.observerRequests)/r.elapsed.Seconds(), r.observerErrors, r.firstObsErr)
	fmt.Fprintf(&out, "lag from the ZooKeeper write to visible on the target:\n")
	printLagTables(&out, r.rows)
	fmt.Fprintf(&out, "\nsync's own lag (-o json lag_ms: feed notification → round applied and verified), %d change rounds (%d with an error): p50 %s ms, p99 %s ms, max %s ms\n",
		own.N, r.roundErrors, ms(own.P50), ms(own.P99), ms(own.Max))
	if floor > 0 {
		fmt.Fprintf(&out, "floor, in the same run: the same kinds written straight to the target (admin call issued → seen), %d changes, %d lost: p50 %s ms, p99 %s ms; ZooKeeper write → feed p99 %s ms (n %d)\n",
			r.direct.Arrived, r.direct.Lost, ms(r.direct.Lag.P50), ms(r.direct.Lag.P99), ms(all.Feed.P99), all.Feed.N)
		tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "direct: kind\twritten\tarrived\tlost\tp50 ms\tp99 ms\tmax ms\t")
		for _, row := range r.directRows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", row.Kind, row.Written, row.Arrived, row.Lost, ms(row.Lag.P50), ms(row.Lag.P99), ms(row.Lag.Max))
		}
		_ = tw.Flush()
		fmt.Fprintf(&out, "sync p99 / (feed p99 + direct p99) = %s / (%s + %s) = %.2f (goal ≤ 2); load average %s → %s\n",
			ms(all.Lag.P99), ms(all.Feed.P99), ms(r.direct.Lag.P99), float64(all.Lag.P99)/float64(floor), r.load[0], r.load[1])
	}
	fmt.Print(out.String())
	if all.Lost > 0 {
		b.Errorf("%d change(s) never arrived on the target", all.Lost)
	}
	if r.direct.Lost > 0 {
		b.Errorf("%d change(s) written straight to the target never showed", r.direct.Lost)
	}
}

// runDirect measures the floor: the writer's kinds of change at spec's
// rate, written by admin calls straight to the target, each timed from
// its call's issue to the observer seeing it (nothing syncs them: their
// names are outside the sync's scope).
func runDirect(b *testing.B, spec lagSpec, every, drain time.Duration) []lagRow {
	ctx := context.Background()
	tb, tprops := testbed.TargetBootstrap(b), testbed.TargetClientProps(b)
	prefix := fmt.Sprintf("dir%d", time.Now().UnixNano()/1e6%1e7)
	bed := &lagBed{direct: true, prefix: prefix, source: dialAdmin(b, tb, tprops), target: dialAdmin(b, tb, tprops), principal: "User:" + prefix + "-app"}
	for range lagConns {
		// The KRaft controller answers a create with a timeout of 0 as
		// timed out and creates nothing: the default timeout here.
		bed.writers = append(bed.writers, kadm.NewClient(dialAdmin(b, tb, tprops).Client))
	}
	total := int(float64(spec.Rate)*spec.For.Seconds()) + len(lagKinds)
	w := newLagWriter(bed, total/len(lagKinds)+1)
	b.Cleanup(func() { w.cleanup(b) })
	if err := w.prepare(ctx); err != nil {
		b.Fatalf("preparing the target for the direct writes: %v", err)
	}
	// The pools must show before the clock starts, as sync's initial
	// round makes them show before its run.
	deadline := time.Now().Add(drain)
	for n, err := w.targetACLs(ctx); err != nil || n != 2*len(w.revokes); n, err = w.targetACLs(ctx) {
		if time.Now().After(deadline) {
			b.Fatalf("the target holds %d of the %d ACLs made for the direct writes (%v)", n, 2*len(w.revokes), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	obsCtx, stopObs := context.WithCancel(ctx)
	obs := &lagObserver{bed: bed, book: w.book}
	obsDone := make(chan struct{})
	go func() { obs.run(obsCtx, every); close(obsDone) }()
	w.run(ctx, spec)
	deadline = time.Now().Add(drain)
	for w.book.left() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	stopObs()
	<-obsDone
	return lagRows(w.book.ops())
}

// lagConns is how many connections the writer has, each carrying one call
// at a time (a Kafka broker reads the next request on a connection only
// after answering the one before): the most calls in flight.
const lagConns = 64

// lagBed is what one run talks to.
type lagBed struct {
	// direct: the writer writes straight to the target (the floor): each
	// change is timed from its admin call's issue, not from ZooKeeper.
	direct    bool
	prefix    string
	source    *kafkaconn.Conn // setup and cleanup
	writers   []*kadm.Client  // the writer's connections
	target    *kafkaconn.Conn
	zk        *zk.Conn
	principal string
}

// setUpLag connects to the test bed, makes the writer's connections and
// pools for spec on names starting with name, and returns them with the
// arguments of a sync scoped to those names (--reconcile-every reconcile).
func setUpLag(b *testing.B, spec lagSpec, name, reconcile string) (*lagBed, *lagWriter, []string) {
	zkAddr, tb, tprops := testbed.ZK(b), testbed.TargetBootstrap(b), testbed.TargetClientProps(b)
	sb, sprops := testbed.SourceBootstrap(b), testbed.SourceClientProps(b)
	dir := b.TempDir()
	zc, _, err := zk.Connect([]string{zkAddr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatalf("connect to ZooKeeper %s: %v", zkAddr, err)
	}
	b.Cleanup(zc.Close)
	prefix := fmt.Sprintf("%s%d", name, time.Now().UnixNano()/1e6%1e7)
	bed := &lagBed{prefix: prefix, source: dialAdmin(b, sb, sprops), target: dialAdmin(b, tb, tprops), zk: zc, principal: "User:" + prefix + "-app"}
	for range lagConns {
		// Topic creates and partition increases return once ZooKeeper
		// holds them, not once the 3.9 controller has spread them (a
		// timeout of 0): a slow 3.9 controller must not hold the writer back.
		adm := kadm.NewClient(dialAdmin(b, sb, sprops).Client)
		adm.SetTimeoutMillis(0)
		bed.writers = append(bed.writers, adm)
	}

	// Per-kind counts bound the pools: every kind gets total/7 changes, plus one.
	total := int(float64(spec.Rate)*spec.For.Seconds()) + len(lagKinds)
	w := newLagWriter(bed, total/len(lagKinds)+1)
	b.Cleanup(func() { w.cleanup(b) })
	if err := w.prepare(context.Background()); err != nil {
		b.Fatalf("preparing the source: %v", err)
	}
	creds := filepath.Join(dir, "scram.json")
	if err := w.writeCredentials(creds); err != nil {
		b.Fatal(err)
	}
	args := []string{"sync", "--zookeeper", zkAddr, "--topics", "^" + prefix + "-", "--principals", "^User:" + prefix + "-",
		"--include", "topic,partitions,topic-config,acl,quota,scram-user", "--prune", "--scram-credentials", creds,
		"--yes", "-o", "json", "--status-every", "0", "--reconcile-every", reconcile,
		"--bootstrap-server", tb, "--command-config", tprops, "--audit-db", filepath.Join(dir, "audit.db")}
	return bed, w, args
}

func runSyncLag(b *testing.B, spec lagSpec, every, drain time.Duration) *lagResult {
	ctx := context.Background()
	load0 := loadAvg()
	bed, w, args := setUpLag(b, spec, "lag", "0")
	// ZKM_BENCH_SYNC_LAG_ARGS adds flags, e.g. "--no-audit", to measure what a part costs.
	args = append(args, strings.Fields(os.Getenv("ZKM_BENCH_SYNC_LAG_ARGS"))...)
	p := startSync(b, args)
	rounds := collectRounds(p)
	if err := rounds.waitInitial(2 * syncBound); err != nil {
		b.Fatalf("%v\n%s", err, p.output())
	}
	// The initial round copied the revoke pool: every one must be on the
	// target, or a revoke would look arrived at once.
	if n, err := w.targetACLs(ctx); err != nil || n != 2*len(w.revokes) {
		b.Fatalf("after the initial round the target holds %d ACLs of %s (%v), want %d", n, bed.principal, err, 2*len(w.revokes))
	}

	obsCtx, stopObs := context.WithCancel(ctx)
	obs := &lagObserver{bed: bed, book: w.book}
	obsDone := make(chan struct{})
	go func() { obs.run(obsCtx, every); close(obsDone) }()

	started := time.Now()
	w.run(ctx, spec)
	deadline := time.Now().Add(drain)
	for w.book.left() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	stopObs()
	<-obsDone
	rounds.stop(b)

	if path := os.Getenv("ZKM_BENCH_SYNC_LAG_OUT"); path != "" { // sync's output and every change, for a closer look
		dumpLag(b, path, spec, p.output(), w.book.ops())
	}
	res := &lagResult{spec: spec, every: every, observerRequests: obs.requests.Load(), elapsed: time.Since(started), scheduled: w.scheduled, skipd: w.skipped, observerErrors: obs.errors, load: [2]string{load0}}
	if obs.firstErr != nil {
		res.firstObsErr = fmt.Sprintf(" (first: %v)", obs.firstErr)
	}
	res.rounds, res.roundErrors = rounds.changeRounds()
	ops := w.book.ops()
	matchRounds(ops, res.rounds, 2*time.Millisecond)
	res.rows = lagRows(ops)
	// The floor, in the same run, right after: sync has stopped.
	if os.Getenv("ZKM_BENCH_SYNC_LAG_FLOOR") != "0" {
		res.directRows = runDirect(b, spec, every, drain)
		res.direct = res.directRows[len(res.directRows)-1]
	}
	res.load[1] = loadAvg()
	return res
}

// roundLog collects a running sync's change rounds as they come (its
// line channel must be drained or sync's output blocks).
type roundLog struct {
	mu      sync.Mutex
	rounds  []roundLine
	initial chan roundLine
	done    chan struct{}
	p       *syncProc
}

func collectRounds(p *syncProc) *roundLog {
	l := &roundLog{initial: make(chan roundLine, 1), done: make(chan struct{}), p: p}
	go func() {
		defer close(l.done)
		for {
			select {
			case r := <-p.lines:
				l.mu.Lock()
				l.rounds = append(l.rounds, r)
				l.mu.Unlock()
				if r.Reason == "initial" {
					l.initial <- r
				}
			case <-p.exited:
				for len(p.lines) > 0 {
					r := <-p.lines
					l.mu.Lock()
					l.rounds = append(l.rounds, r)
					l.mu.Unlock()
				}
				return
			}
		}
	}()
	return l
}

// stop sends sync SIGTERM and waits for it to exit (at most syncBound).
func (l *roundLog) stop(b testing.TB) {
	b.Helper()
	if err := l.p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case <-l.done:
	case <-time.After(syncBound):
		b.Errorf("sync did not stop within %s of SIGTERM", syncBound)
	}
}

func (l *roundLog) waitInitial(bound time.Duration) error {
	select {
	case r := <-l.initial:
		if r.Error != "" || r.Failed > 0 {
			return fmt.Errorf("sync's initial round failed (%d failed): %s", r.Failed, r.Error)
		}
		return nil
	case <-l.done:
		return errors.New("sync exited before its initial round")
	case <-time.After(bound):
		return fmt.Errorf("no initial sync round within %s", bound)
	}
}

// changeRounds returns the change rounds and how many rounds of any kind
// after the first had an error.
func (l *roundLog) changeRounds() ([]lagRound, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []lagRound
	errs := 0
	for _, r := range l.rounds {
		if r.Reason != "initial" && r.Error != "" {
			errs++
		}
		if r.Reason != "change" || r.LagMS <= 0 {
			continue
		}
		lag := time.Duration(r.LagMS * float64(time.Millisecond))
		// Seen: the round's first notification. A round is reported only
		// after the rounds before it, so its end is Seen + lag, not
		// Finished, when it finished before one of them.
		seen := r.Seen
		if seen.IsZero() {
			seen = r.Finished.Add(-lag)
		}
		out = append(out, lagRound{Seen: seen, Started: r.Started, Finished: seen.Add(lag), Entities: r.Entities, Lag: lag})
	}
	return out, errs
}

// dumpLag writes sync's output and the changes as JSON lines to
// path-<rate>-<duration>.jsonl.
func dumpLag(b *testing.B, path string, spec lagSpec, syncOut string, ops []*lagOp) {
	var out strings.Builder
	out.WriteString(syncOut)
	for _, op := range ops {
		var errText string
		if op.Err != nil {
			errText = op.Err.Error()
		}
		line, _ := json.Marshal(struct {
			Event string `json:"event"`
			*lagOp
			Err string `json:"err,omitempty"`
		}{"change", op, errText})
		out.Write(line)
		out.WriteByte('\n')
	}
	name := fmt.Sprintf("%s-%d-%s.jsonl", path, spec.Rate, spec.For)
	if err := os.WriteFile(name, []byte(out.String()), 0o644); err != nil {
		b.Errorf("writing %s: %v", name, err)
	}
}
