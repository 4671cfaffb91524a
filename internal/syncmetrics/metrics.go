// Package syncmetrics is a running sync as a service: its rounds and
// state as Prometheus metrics (series prefixed zkmigrate_), served on
// /metrics with /healthz (the process is alive and its loop turns) and
// /readyz (200 only while the sync is IN STEP: the gate an orchestrator
// or a cutover script waits on). It reads what the syncer reports and
// decides nothing.
package syncmetrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// Metrics are one sync's series; Observe each round it reports.
type Metrics struct {
	reg     *prometheus.Registry
	tracker *syncer.Tracker
	now     func() time.Time

	lag        prometheus.Histogram
	rounds     *prometheus.CounterVec
	changes    *prometheus.CounterVec
	missed     prometheus.Counter
	drift      prometheus.Counter
	afterCut   prometheus.Counter
	lastZxid   prometheus.Gauge
	feed       *prometheus.CounterVec
	resyncs    *prometheus.CounterVec
	healthWait time.Duration
	maxZxid    int64
}

// HealthWindow is how long the loop may go without turning, with no
// round running, before /healthz answers 503.
const HealthWindow = 6 * syncer.HeartbeatEvery

// New returns the metrics of a sync whose state tracker is t.
func New(t *syncer.Tracker) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), tracker: t, now: time.Now, healthWait: HealthWindow}
	m.lag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "zkmigrate_sync_lag_seconds",
		Help:    "From ZooKeeper writing a change's notification (when the feed read its write time; else when the feed saw it) to every target broker showing the change, per change round that applied and verified.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	})
	m.rounds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zkmigrate_sync_rounds_total",
		Help: "Rounds by kind (initial, change, reconcile, resync, retry, poll) and result (in_step: nothing to change; applied; failed; unverified; not_sent: a freeze came while it ran; frozen).",
	}, []string{"kind", "result"})
	m.changes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zkmigrate_sync_changes_total",
		Help: "Changes by outcome: applied, failed (refused, or the round failed), unverified, not_sent (a freeze came first), blocked (by policy or the target; reported by change rounds).",
	}, []string{"outcome"})
	m.missed = prometheus.NewCounter(prometheus.CounterOpts{Name: "zkmigrate_sync_missed_total", Help: "Source changes a reconciliation found that no notification announced."})
	m.drift = prometheus.NewCounter(prometheus.CounterOpts{Name: "zkmigrate_sync_drift_total", Help: "Differences a reconciliation found on the target while the source did not change."})
	m.afterCut = prometheus.NewCounter(prometheus.CounterOpts{Name: "zkmigrate_sync_frozen_source_changes_total", Help: "Changes the source made after the freeze (not applied)."})
	m.lastZxid = prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkmigrate_sync_last_applied_zxid", Help: "The newest ZooKeeper transaction a round that finished without failing reflected."})
	m.feed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zkmigrate_sync_feed_events_total",
		Help: "What the change feed told: entity (a changed entity a change round took), skipped (a notification it could not make sense of), resync.",
	}, []string{"type"})
	m.resyncs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zkmigrate_sync_resyncs_total",
		Help: "Resyncs the feed asked for, by cause (session-expired, reconnected, unreadable-notification, feed-overflow).",
	}, []string{"cause"})
	state := func(f func(syncer.State) float64) func() float64 {
		return func() float64 { return f(m.tracker.State()) }
	}
	m.reg.MustRegister(m.lag, m.rounds, m.changes, m.missed, m.drift, m.afterCut, m.lastZxid, m.feed, m.resyncs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_pending_changes", Help: "Resources taken from the source that the target does not show yet (on their way, failed, unverified, not sent)."},
			state(func(s syncer.State) float64 { return float64(s.Pending) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_failed_changes", Help: "Of the pending: those whose last attempt failed."},
			state(func(s syncer.State) float64 { return float64(s.Failed) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_oldest_pending_seconds", Help: "How long the oldest pending resource has waited (0: none pending)."},
			state(func(s syncer.State) float64 { return s.OldestAge(m.now()).Seconds() })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_in_step", Help: "1 while the sync is IN STEP (what /readyz answers 200 for), else 0."},
			state(func(s syncer.State) float64 { return b2f(s.Phase == syncer.InStep) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_frozen", Help: "1 once the sync is frozen (FREEZING or FROZEN), else 0."},
			state(func(s syncer.State) float64 { return b2f(s.Phase == syncer.Freezing || s.Phase == syncer.Frozen) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_loop_last_turn_timestamp_seconds", Help: "When the sync's loop last turned (Unix time)."},
			state(func(s syncer.State) float64 { return unix(s.LastTurn) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zkmigrate_sync_rounds_in_flight", Help: "Rounds running now."},
			state(func(s syncer.State) float64 { return float64(s.InFlight) })),
	)
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func unix(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// Observe counts one reported round; rounds are observed from one
// goroutine, in the order sync reports them.
func (m *Metrics) Observe(r syncer.Round) {
	if r.Reason == syncer.ReasonSkipped {
		m.feed.WithLabelValues("skipped").Add(float64(len(r.Skipped)))
		return
	}
	m.rounds.WithLabelValues(r.Reason, result(r)).Inc()
	if r.Reason == syncer.ReasonChange {
		m.feed.WithLabelValues("entity").Add(float64(len(r.Entities)))
		m.changes.WithLabelValues("blocked").Add(float64(len(r.Blockers)))
	}
	for _, ev := range r.Resyncs {
		m.feed.WithLabelValues("resync").Inc()
		m.resyncs.WithLabelValues(string(ev.Cause)).Inc()
	}
	if !r.Frozen {
		failed := r.Outcome.Failed
		if r.Err != nil && r.Outcome.Applied+r.Outcome.Failed+len(r.Unsent) == 0 {
			failed = len(r.Changes)
		}
		m.changes.WithLabelValues("applied").Add(float64(r.Outcome.Applied))
		m.changes.WithLabelValues("failed").Add(float64(failed))
		m.changes.WithLabelValues("unverified").Add(float64(r.Outcome.Unverified))
		m.changes.WithLabelValues("not_sent").Add(float64(len(r.Unsent)))
	}
	m.missed.Add(float64(len(r.Missed)))
	m.drift.Add(float64(len(r.Drift)))
	m.afterCut.Add(float64(len(r.AfterCut)))
	if r.Err == nil && r.Outcome.Failed == 0 && !r.Frozen && r.Zxid > m.maxZxid {
		m.maxZxid = r.Zxid
		m.lastZxid.Set(float64(r.Zxid))
	}
	if r.Reason == syncer.ReasonChange && r.Err == nil && r.Outcome.Applied > 0 && r.Outcome.Failed+r.Outcome.Unverified == 0 {
		lag := r.WriteLag
		if lag <= 0 {
			lag = r.Lag
		}
		if lag > 0 {
			m.lag.Observe(lag.Seconds())
		}
	}
}

// result is how a round ended, as the rounds counter labels it.
func result(r syncer.Round) string {
	switch {
	case r.Frozen:
		return "frozen"
	case r.Err != nil || r.Outcome.Failed > 0:
		return "failed"
	case len(r.Unsent) > 0:
		return "not_sent"
	case r.Outcome.Unverified > 0:
		return "unverified"
	case len(r.Changes) == 0:
		return "in_step"
	}
	return "applied"
}

// Handler serves /metrics, /healthz and /readyz.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		s := m.tracker.State()
		now := m.now()
		if s.InFlight == 0 && !s.LastTurn.IsZero() && now.Sub(s.LastTurn) > m.healthWait {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "stuck: the sync loop last turned %s ago, with no round running\n", now.Sub(s.LastTurn).Round(time.Second))
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		s := m.tracker.State()
		if s.Phase != syncer.InStep {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, s.Describe(m.now()))
	})
	return mux
}

// Serve listens on addr and serves Handler until ctx ends; it returns
// the address it listens on once it does.
func (m *Metrics) Serve(ctx context.Context, addr string) (string, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() { _ = srv.Serve(ln) }() // ends with ErrServerClosed
	return ln.Addr().String(), nil
}
