package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// Apply applies sel (p's plan, or a selection of it) to p's live target
// with o, resolving secrets only from p.Secrets and waiting server-side as
// long as the connection waits for any answer; every event goes to obs.
func (p *Planned) Apply(ctx context.Context, sel *plan.Plan, o apply.Options, obs apply.Observer) (apply.Result, error) {
	if p.Conn == nil {
		return apply.Result{}, errors.New("apply needs a live target, not a target snapshot")
	}
	o.Secrets = p.Secrets
	o.TimeoutMillis = int32(p.Conn.Config.Timeout().Milliseconds())
	return apply.Run(ctx, p.Conn.Client, sel, p.Target, o, obs)
}

// TargetKey names p's target for the apply lock and for finding killed
// runs to resume: its cluster id, as the audit trail records it, else its
// bootstrap addresses.
func (p *Planned) TargetKey() string {
	if p.Target.ClusterID != "" {
		return p.Target.ClusterID
	}
	if p.Conn == nil {
		return p.Target.Address
	}
	return strings.Join(p.Conn.Bootstrap, ",")
}

// Lock is a held apply lock on a target.
type Lock struct {
	// Release gives the lock back; call it once the apply is over.
	Release func()
	// Abandoned are the earlier runs on the target that were left
	// unfinished (killed) and are now closed as abandoned, once: this run
	// resumes after them (changes they completed are skipped).
	Abandoned []int64
	// AbandonErr is a failure to close them, which does not stop the apply.
	AbandonErr error
}

// AcquireLock takes store's apply lock on target for run: one apply per
// target per audit database at a time (a second is refused with an
// *audit.LockError while the first holds it). Then the runs an apply of the
// same target left unfinished are linked to run and closed as abandoned,
// so that no later run lists them again.
func AcquireLock(ctx context.Context, store *audit.Store, run *audit.Run, target string) (*Lock, error) {
	release, err := store.AcquireTargetLock(ctx, target, run.ID())
	if err != nil {
		return nil, err
	}
	l := &Lock{Release: release}
	prev, err := store.IncompleteRuns(ctx, target)
	if err != nil {
		return l, nil // they stay open for a later run to close; the lock is held
	}
	var ids []int64
	for _, r := range prev {
		if r.ID != run.ID() {
			ids = append(ids, r.ID)
		}
	}
	l.Abandoned, l.AbandonErr = run.AbandonRuns(ctx, ids)
	return l, nil
}

// ApplyRequest is how a command applies a plan: a dry run that changes
// nothing (ValidateOnly), without the validate-only request before each
// real one (NoPreflight), resources per request, requests in flight and
// resources per second (zero: apply's defaults, unlimited rate).
type ApplyRequest struct {
	// BatchSize is at most MaxBatchSize, MaxInFlight at most MaxInFlight
	// (a Kafka broker serves a handful of admin requests at a time; more
	// only wait in its queue).
	ValidateOnly bool
	NoPreflight  bool
	BatchSize    int
	MaxInFlight  int
	Rate         float64
}

// The largest batch and the most requests in flight an ApplyRequest may ask.
const (
	MaxBatchSize = 100000
	MaxInFlight  = 64
)

func (r ApplyRequest) options() apply.Options {
	return apply.Options{ValidateOnly: r.ValidateOnly, NoPreflight: r.NoPreflight, BatchSize: r.BatchSize, MaxInFlight: r.MaxInFlight, Rate: r.Rate}
}

// Run applies sel (p's plan, or a selection of it) as r asks, through
// Apply; every event goes to each of obs (nil ones are skipped).
func (p *Planned) Run(ctx context.Context, sel *plan.Plan, r ApplyRequest, obs ...apply.Observer) (apply.Result, error) {
	return p.Apply(ctx, sel, r.options(), observers(obs))
}

// ApplyFunc is the apply the terminal UI runs (tui.ApplyFunc): Run with
// the UI's observer and record (nil: none), the last result kept for last.
// Each change of p's plan left out of the selection it is given is
// reported to record first (apply.ReasonExcluded: "excluded" in the audit
// trail, not "planned").
func (p *Planned) ApplyFunc(r ApplyRequest, record apply.Observer) (run func(context.Context, *plan.Plan, apply.Observer) error, last func() apply.Result) {
	var res apply.Result
	run = func(ctx context.Context, sel *plan.Plan, obs apply.Observer) error {
		if record != nil && sel != nil && sel != p.Plan {
			in := make(map[string]bool, len(sel.Changes))
			for i := range sel.Changes {
				in[sel.Changes[i].ID] = true
			}
			for i := range p.Plan.Changes {
				if c := &p.Plan.Changes[i]; !in[c.ID] {
					record.Observe(apply.ChangeSkipped{Change: c, Reason: apply.ReasonExcluded, Detail: "not in the selection applied"})
				}
			}
		}
		var err error
		res, err = p.Run(ctx, sel, r, obs, record)
		return err
	}
	return run, func() apply.Result { return res }
}

func observers(obs []apply.Observer) apply.Observers {
	out := make(apply.Observers, 0, len(obs))
	for _, o := range obs {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// BeginApply readies pl to be applied in rec's run: it records the plan
// (and, unless validateOnly, the run a revert plan reverts) and takes the
// apply lock on pl's target (nil when nothing is recorded; Release it when
// the apply is over). A failure to close earlier abandoned runs is said
// through h.Warn, each run it closed (this one resumes after it) through
// h.Notice.
func BeginApply(ctx context.Context, rec *Recorder, pl *Planned, validateOnly bool, h Hooks) (*Lock, error) {
	rec.Planned(ctx, pl)
	if !validateOnly { // a dry run reverts nothing
		if err := rec.Reverts(ctx, pl.Plan); err != nil {
			return nil, err
		}
	}
	lock, err := rec.Lock(ctx, pl.TargetKey())
	if err != nil || lock == nil {
		return nil, err
	}
	if lock.AbandonErr != nil {
		h.warn(fmt.Errorf("audit: %w", lock.AbandonErr))
	}
	for _, id := range lock.Abandoned {
		h.notice("Resuming after interrupted run %d (closed as abandoned): changes it completed are skipped.", id)
	}
	return lock, nil
}

// VerifySent waits, after an apply that ran to its end, until every
// broker of pl's target shows every change sent holds as applied
// (VerifyApplied, each window at most timeout; 0: no wait), and returns
// the changes still not shown. A check that could not be made is noted in
// rec's run and said through h.Warn; one that passed, through h.Notice.
func VerifySent(ctx context.Context, rec *Recorder, pl *Planned, sent *Applied, timeout time.Duration, h Hooks) []string {
	applied := sent.Changes()
	if len(applied) == 0 || timeout <= 0 {
		return nil
	}
	unverified, err := VerifyApplied(ctx, pl.Reader(), applied, timeout, h)
	if err != nil {
		h.warn(err)
		rec.Note(ctx, "verify", err.Error())
		return unverified
	}
	h.notice("Verified: every broker of the target shows every applied change.")
	return unverified
}
