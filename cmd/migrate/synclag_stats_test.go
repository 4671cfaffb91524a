package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// The measuring half of BenchmarkSyncLag: what a change is, how an
// observation of the target settles it, and the percentiles. No I/O here,
// so TestSyncLagStats can check it on made-up times.

// The kinds of change the lag benchmark's writer makes, in its round-robin
// order.
const (
	lagCreate     = "topic-create"
	lagConfig     = "topic-config"
	lagGrant      = "acl-grant"
	lagRevoke     = "acl-revoke"
	lagQuota      = "quota"
	lagPartitions = "partitions"
	lagSCRAM      = "scram-upsert"
	// The balanced soak's undoing kinds: each removes what an earlier
	// change of its counterpart added.
	lagDelete      = "topic-delete"
	lagQuotaClear  = "quota-clear"
	lagSCRAMDelete = "scram-delete"
)

var lagKinds = []string{lagCreate, lagConfig, lagGrant, lagRevoke, lagQuota, lagPartitions, lagSCRAM}

// lagBalancedKinds are the balanced soak writer's kinds: every create,
// grant, quota set and SCRAM upsert is followed by the delete, revoke,
// clear or SCRAM delete of one made before (once the target showed it),
// so the synced set stays the same size; partition increases, which
// cannot be undone, are left out.
var lagBalancedKinds = []string{lagCreate, lagDelete, lagConfig, lagGrant, lagRevoke, lagQuota, lagQuotaClear, lagSCRAM, lagSCRAMDelete}

// lagOp is one change the writer made through the source's admin API and
// what became of it.
type lagOp struct {
	N        int
	Kind     string
	Resource string   // what the observer describes: a topic, an ACL's topic resource, a user
	Entities []string // the change feed's entity for it, as sync's rounds may list it
	// Want is the value that shows the change on the target: a partition
	// count, or a config or quota value (each change of a resource sets a
	// higher one); unused for the kinds that show by presence or absence.
	Want int64

	Issued, Returned time.Time // the admin call
	Err              error     // the admin call failed: not a change
	// Written is the ZooKeeper write: the znode's ctime or mtime
	// (WrittenFrom says which), or, when the znode no longer showed this
	// change, the admin call's return (WrittenFrom "admin return").
	Written     time.Time
	WrittenFrom string
	Visible     time.Time // when the observer first saw it on the target

	// From the sync change round that carried it (matchRounds).
	Seen, RoundStart, RoundEnd time.Time
}

// lagState is what one describe of the target showed for a resource.
type lagState struct {
	Present bool
	Value   int64 // partition count, config or quota value
}

// settles says whether the target showing st means op has arrived.
func (op *lagOp) settles(st lagState) bool {
	switch op.Kind {
	case lagRevoke, lagDelete, lagQuotaClear, lagSCRAMDelete:
		return !st.Present
	case lagConfig, lagQuota, lagPartitions:
		return st.Present && st.Value >= op.Want
	default: // created or granted
		return st.Present
	}
}

// lagBook holds the changes not yet seen on the target, by kind and
// resource; the writer adds them as it issues them (before the admin call:
// sync may bring a change over before the call returns), the observer
// settles them.
type lagBook struct {
	mu      sync.Mutex
	pending map[string]map[string][]*lagOp // kind → resource → ops in issue order
	all     []*lagOp
}

func newLagBook() *lagBook { return &lagBook{pending: map[string]map[string][]*lagOp{}} }

func (b *lagBook) add(op *lagOp) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending[op.Kind] == nil {
		b.pending[op.Kind] = map[string][]*lagOp{}
	}
	b.pending[op.Kind][op.Resource] = append(b.pending[op.Kind][op.Resource], op)
	b.all = append(b.all, op)
}

// drop forgets a change whose admin call failed.
func (b *lagBook) drop(op *lagOp) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remove(op)
}

func (b *lagBook) remove(op *lagOp) {
	ops := slices.DeleteFunc(b.pending[op.Kind][op.Resource], func(o *lagOp) bool { return o == op })
	if len(ops) == 0 {
		delete(b.pending[op.Kind], op.Resource)
	} else {
		b.pending[op.Kind][op.Resource] = ops
	}
}

// awaited lists the resources of kind with changes not yet seen, sorted.
func (b *lagBook) awaited(kind string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.pending[kind]))
	for r := range b.pending[kind] {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// left counts the changes not yet seen.
func (b *lagBook) left() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, rs := range b.pending {
		for _, ops := range rs {
			n += len(ops)
		}
	}
	return n
}

// observe records that a describe answered at at showed st for resource:
// every pending change of it that st settles has arrived then.
func (b *lagBook) observe(kind, resource string, st lagState, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, op := range slices.Clone(b.pending[kind][resource]) {
		if op.settles(st) {
			op.Visible = at
			b.remove(op)
		}
	}
}

// visible reports whether the observer has seen op on the target.
func (b *lagBook) visible(op *lagOp) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !op.Visible.IsZero()
}

// ops returns every change added, in issue order.
func (b *lagBook) ops() []*lagOp {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.all)
}

// lagRound is the part of one sync change round the benchmark compares:
// Seen is when sync's feed saw the round's first notification (its end
// less its own lag figure).
type lagRound struct {
	Seen, Started, Finished time.Time
	Entities                []string
	Lag                     time.Duration
}

// matchRounds gives each written change the first change round, by
// start, that lists one of its entities and started after the ZooKeeper
// write (so it read the source after it; slack allows for the millisecond
// ZooKeeper stamps).
func matchRounds(ops []*lagOp, rounds []lagRound, slack time.Duration) {
	rs := slices.Clone(rounds)
	slices.SortFunc(rs, func(a, b lagRound) int { return a.Started.Compare(b.Started) })
	for _, op := range ops {
		if op.Err != nil || op.Written.IsZero() {
			continue
		}
		for _, r := range rs {
			if !r.Started.Before(op.Written.Add(-slack)) && slices.ContainsFunc(op.Entities, func(e string) bool { return slices.Contains(r.Entities, e) }) {
				op.Seen, op.RoundStart, op.RoundEnd = r.Seen, r.Started, r.Finished
				break
			}
		}
	}
}

// percentile is the nearest-rank p-quantile of sorted (0 when empty).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// lagDist is the distribution of one set of durations.
type lagDist struct {
	N             int
	P50, P99, Max time.Duration
}

func distOf(ds []time.Duration) lagDist {
	s := slices.Clone(ds)
	slices.Sort(s)
	d := lagDist{N: len(s), P50: percentile(s, 0.50), P99: percentile(s, 0.99)}
	if len(s) > 0 {
		d.Max = s[len(s)-1]
	}
	return d
}

// lagRow is one kind's line of the result (Kind "all" for every kind).
type lagRow struct {
	Kind    string
	Written int // admin calls that succeeded
	Failed  int // admin calls that failed (not changes)
	Arrived int
	Lost    int    // written, never seen on the target
	Admin   int    // written, timed from the admin call's return (the znode no longer showed it)
	From    string // where Written came from for most of them
	Lag     lagDist
	// The parts of the lag, over the changes matched to a change round:
	// the ZooKeeper write to the round starting (the feed, the 20 ms of
	// coalescing, the round before), the round (read, plan, apply,
	// verify), and the round's end to the observer seeing it (negative:
	// seen before the round's verify finished). Feed is the ZooKeeper
	// write to sync's feed seeing it, over the changes that opened their
	// round (its first notification came after their write).
	Matched                     int
	Feed, ToStart, Round, After lagDist
	Call                        lagDist // the writer's admin call, issue to return
}

// lagRows sums the changes per kind, in lagKinds order, then "all".
func lagRows(ops []*lagOp) []lagRow {
	by := map[string][]*lagOp{}
	for _, op := range ops {
		by[op.Kind] = append(by[op.Kind], op)
	}
	var rows []lagRow
	for _, k := range append(slices.Clone(lagKinds), lagDelete, lagQuotaClear, lagSCRAMDelete) {
		if len(by[k]) > 0 {
			rows = append(rows, rowOf(k, by[k]))
		}
	}
	return append(rows, rowOf("all", ops))
}

func rowOf(kind string, ops []*lagOp) lagRow {
	r := lagRow{Kind: kind}
	var lag, feed, toStart, round, after, call []time.Duration
	froms := map[string]int{}
	for _, op := range ops {
		if op.Err != nil {
			r.Failed++
			continue
		}
		r.Written++
		call = append(call, op.Returned.Sub(op.Issued))
		if op.WrittenFrom == "admin return" {
			r.Admin++
		} else {
			froms[op.WrittenFrom]++
		}
		if op.Visible.IsZero() {
			r.Lost++
			continue
		}
		r.Arrived++
		lag = append(lag, op.Visible.Sub(op.Written))
		if !op.Seen.IsZero() {
			r.Matched++
			if !op.Seen.Before(op.Written) {
				feed = append(feed, op.Seen.Sub(op.Written))
			}
			toStart = append(toStart, op.RoundStart.Sub(op.Written))
			round = append(round, op.RoundEnd.Sub(op.RoundStart))
			after = append(after, op.Visible.Sub(op.RoundEnd))
		}
	}
	var names []string
	for f := range froms {
		names = append(names, f)
	}
	slices.Sort(names)
	r.From = strings.Join(names, "+")
	r.Lag, r.Feed, r.ToStart, r.Round, r.After, r.Call = distOf(lag), distOf(feed), distOf(toStart), distOf(round), distOf(after), distOf(call)
	return r
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }

// printLagTables writes the lag per kind, then where the time went.
func printLagTables(w io.Writer, rows []lagRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\twritten\tarrived\tlost\tp50 ms\tp99 ms\tmax ms\tZooKeeper time\t")
	for _, r := range rows {
		from := r.From
		if r.Admin > 0 {
			from += fmt.Sprintf(" (%d: admin return)", r.Admin)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.Kind, r.Written, r.Arrived, r.Lost, ms(r.Lag.P50), ms(r.Lag.P99), ms(r.Lag.Max), from)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nwhere the time goes, p50 / p99 ms, over the changes matched to the change round that carried them:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tmatched\tZK write → round start\tround\tround end → seen\tZK write → feed (opening, n)\twriter's admin call\t")
	pq := func(d lagDist) string { return ms(d.P50) + " / " + ms(d.P99) }
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s (%d)\t%s\t\n", r.Kind, r.Matched, pq(r.ToStart), pq(r.Round), pq(r.After), pq(r.Feed), r.Feed.N, pq(r.Call))
	}
	_ = tw.Flush()
}
