package audit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/apply"
)

// skipFlushAt is how many buffered rows (skips, results) force a commit.
const skipFlushAt = 512

// Observer returns an apply.Observer that records the apply's events in
// this run. It writes synchronously, in the calling goroutine:
//
//   - RunStarted: the plan (if RecordPlan was not called), committed,
//     and an "apply-started" event with a found_states row for each
//     resource a change deletes (RunStarted.Found), buffered: they are
//     committed with the first BatchSent (before any RPC goes out) or the
//     run's end.
//   - BatchSent: the RPC row (API, version, broker, principal, start, the
//     changes carried) and a "sent" transition for each change, committed
//     before Observe returns: the intent is on disk before the RPC is sent.
//     The target lock's heartbeat is refreshed in the same transaction.
//   - BatchDone: the RPC's result and duration, committed.
//   - ResourceResult: a "succeeded", "validated" (a validate_only request
//     that passed) or "failed" transition with the Kafka
//     error code, name and message; committed as soon as every change of
//     its batch has a result and the batch is done, else at the next commit.
//   - ChangeSkipped: a "skipped" transition with the reason; buffered and
//     committed with the next commit (at most 512 rows wait).
//   - RunFinished: an "apply-finished" event with the counts, committed.
//
// Observe cannot return an error: a write that fails is kept in Err, passed
// to the SetOnError function, and reported by Finish.
func (r *Run) Observer() apply.Observer { return apply.ObserverFunc(r.observe) }

func (r *Run) observe(e apply.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx := context.Background()
	if err := r.observeLocked(ctx, e); err != nil {
		r.errCount++
		if r.err == nil {
			r.err = err
		}
		if r.onError != nil {
			r.onError(err)
		}
	}
}

func (r *Run) queue(table string, cols []string, vals ...any) {
	r.pending = append(r.pending, pendingRow{table: table, cols: cols, vals: vals})
}

var runEventCols = []string{"run_id", "at", "kind", "other_run_id", "detail"}

var changeEventCols = []string{"run_id", "change_id", "at", "status", "reason", "batch", "validate_only", "error_code", "error_name", "message"}

func (r *Run) observeLocked(ctx context.Context, e apply.Event) error {
	now := timestamp(r.s.now())
	switch ev := e.(type) {
	case apply.RunStarted:
		if !r.planned && ev.Plan != nil {
			if err := r.recordPlanLocked(ctx, ev.Plan, nil); err != nil {
				return err
			}
		}
		// Committed with the first RPC's intent (or the run's end): a
		// commit of its own would hold up that RPC and record nothing
		// sent.
		r.queue("run_events", runEventCols, r.id, now, "apply-started", nil, fmt.Sprintf("changes=%d validate_only=%t", ev.Total, ev.ValidateOnly))
		// What the changes to send delete, as found: with the same commit.
		return r.queueFound(ev.Found)

	case apply.ChangeSkipped:
		if ev.Change == nil {
			return nil
		}
		status := "skipped"
		if ev.Reason == apply.ReasonExcluded {
			status = "excluded" // left out in review: not counted as skipped
		} else {
			r.counts.skipped++
		}
		r.queue("change_events", changeEventCols,
			r.id, ev.Change.ID, now, status, nullIfEmpty(string(ev.Reason)), nil, false, nil, nil, nullIfEmpty(ev.Detail))
		if len(r.pending) >= skipFlushAt {
			_, err := r.writeLocked(ctx, nil)
			return err
		}
		return nil

	case apply.BatchSent:
		ids := make([]string, 0, len(ev.Changes))
		for _, c := range ev.Changes {
			if c != nil {
				ids = append(ids, c.ID)
			}
		}
		idsJSON, _ := json.Marshal(ids)
		at := now
		if !ev.Time.IsZero() {
			at = timestamp(ev.Time)
		}
		r.batches[ev.Batch] = &batchState{expected: len(ids)}
		for _, id := range ids {
			r.inflight[id] = ev.Batch
		}
		_, err := r.writeLocked(ctx, func(w *writer) error {
			if _, err := w.insert("rpcs", []string{"run_id", "batch", "attempt", "api", "api_version", "broker", "principal", "validate_only", "started_at", "resources", "change_ids"},
				r.id, ev.Batch, ev.Attempt, ev.RPC, ev.Version, ev.Broker, nullIfEmpty(r.ri.Target.Principal), ev.ValidateOnly, at, len(ids), string(idsJSON)); err != nil {
				return err
			}
			for _, id := range ids {
				if _, err := w.insert("change_events", changeEventCols,
					r.id, id, at, "sent", nil, ev.Batch, ev.ValidateOnly, nil, nil, nil); err != nil {
					return err
				}
			}
			if _, err := w.exec(`UPDATE target_locks SET heartbeat = ? WHERE run_id = ?`, now, r.id); err != nil {
				return fmt.Errorf("audit: lock heartbeat: %v", err)
			}
			return nil
		})
		return err

	case apply.BatchDone:
		result, errText := "ok", any(nil)
		if ev.Err != nil {
			result, errText = "error", ev.Err.Error()
		}
		r.queue("rpc_results", []string{"run_id", "batch", "attempt", "api", "api_version", "broker", "finished_at", "duration_us", "result", "error"},
			r.id, ev.Batch, ev.Attempt, ev.RPC, ev.Version, ev.Broker, now, ev.Duration.Microseconds(), result, errText)
		if b := r.batches[ev.Batch]; b != nil {
			b.done = true
			if b.results >= b.expected || ev.Err != nil {
				delete(r.batches, ev.Batch)
			}
		}
		_, err := r.writeLocked(ctx, nil)
		return err

	case apply.ResourceResult:
		if ev.Change == nil {
			return nil
		}
		status, msg := "succeeded", ev.Message
		if ev.ValidateOnly {
			status = "validated" // a validate_only request: nothing changed
		}
		if ev.Err != nil || ev.ErrorCode != 0 {
			status = "failed"
			if msg == "" && ev.Err != nil {
				msg = ev.Err.Error()
			}
		}
		if status != "failed" {
			r.counts.succeeded++
		} else {
			r.counts.failed++
		}
		var code any
		if ev.ErrorCode != 0 || ev.Err != nil {
			code = ev.ErrorCode
		}
		// apply may leave Batch unset: the change's latest BatchSent says
		// which RPC carried it.
		bn := ev.Batch
		if bn == 0 {
			bn = r.inflight[ev.Change.ID]
		}
		delete(r.inflight, ev.Change.ID)
		var batch any
		if bn != 0 {
			batch = bn
		}
		r.queue("change_events", changeEventCols,
			r.id, ev.Change.ID, now, status, nil, batch, ev.ValidateOnly, code, nullIfEmpty(ev.ErrorName), nullIfEmpty(msg))
		b := r.batches[bn]
		if b != nil {
			b.results++
		}
		if (b != nil && b.done && b.results >= b.expected) || len(r.pending) >= skipFlushAt {
			if b != nil && b.done && b.results >= b.expected {
				delete(r.batches, bn)
			}
			_, err := r.writeLocked(ctx, nil)
			return err
		}
		return nil

	case apply.RunFinished:
		r.counts.succeeded, r.counts.failed, r.counts.skipped = ev.Succeeded, ev.Failed, ev.Skipped
		detail := fmt.Sprintf("succeeded=%d failed=%d skipped=%d canceled=%t", ev.Succeeded, ev.Failed, ev.Skipped, ev.Canceled)
		if ev.Err != nil {
			detail += " error=" + ev.Err.Error()
		}
		_, err := r.writeLocked(ctx, func(w *writer) error { return r.event(w, "apply-finished", 0, detail) })
		return err
	}
	return nil
}

// Flush commits events the Observer has buffered.
func (r *Run) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		return nil
	}
	_, err := r.writeLocked(ctx, nil)
	return err
}
