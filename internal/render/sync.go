package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
	"github.com/zkmigrate/zkmigrate/internal/termsafe"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// SyncText writes one line per sync round, and, for a round that saw
// changes while frozen or found drift, a line per change with its fields.
// Values of sensitive fields never appear (plan.Fields holds references).
func SyncText(w io.Writer, r syncer.Round) error {
	ew := &errWriter{w: w}
	if r.Reason == syncer.ReasonSkipped {
		for _, sk := range r.Skipped {
			ew.printf("%s skipped notification %s: %s\n", r.Finished.Format("15:04:05.000"), termsafe.Name(sk.Path), termsafe.Line(sk.Err.Error()))
		}
		return ew.flush()
	}
	ew.printf("%s %s\n", r.Finished.Format("15:04:05.000"), syncHeadline(r))
	for _, ev := range r.Resyncs {
		ew.printf("  resync: %s\n", resyncWhy(ev))
	}
	if r.Err != nil {
		ew.printf("  error: %v\n", r.Err)
	}
	detail := func(prefix string, cs []plan.Change) {
		for i := range cs {
			c := &cs[i]
			ew.printf("  %s %s %s %s\n", prefix, c.Action, c.Kind, plan.Label(c))
			fs, err := plan.Fields(c)
			if err != nil {
				ew.printf("    %v\n", err)
				continue
			}
			for _, f := range fs {
				if f.Mark() == "=" {
					continue
				}
				ew.printf("    %s %s: %s → %s\n", f.Mark(), f.Key, fieldValue(f, f.Before), fieldValue(f, f.After))
			}
		}
	}
	switch {
	case r.Frozen && len(r.Changes) > 0:
		detail("changed after the cut:", r.AfterCut)
		detail("differs, not applied (frozen):", notIn(r.Changes, r.AfterCut))
	default:
		detail("missed (no notification):", r.Missed)
		detail("drift (target edited or unfinished):", r.Drift)
		detail("not sent (frozen while the round ran):", r.Unsent)
	}
	for _, b := range r.Blockers {
		if r.Reason == syncer.ReasonChange {
			ew.printf("  blocked %s %s: %s\n", b.Kind, b.Resource, b.Reason)
		}
	}
	return ew.flush()
}

// resyncWhy is one cause of a resync: its kind, the notification it
// names, and the feed's detail.
func resyncWhy(ev zkfeed.Event) string {
	why := string(ev.Cause)
	if why == "" {
		why = "unknown"
	}
	if ev.Path != "" {
		why += " " + termsafe.Name(ev.Path)
	}
	if ev.Err != nil {
		why += ": " + termsafe.Line(ev.Err.Error())
	}
	return why
}

// notIn returns the changes of cs that are not in of (by id).
func notIn(cs, of []plan.Change) []plan.Change {
	var out []plan.Change
	for _, c := range cs {
		if !slices.ContainsFunc(of, func(o plan.Change) bool { return o.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out
}

func fieldValue(f plan.Field, v *string) string {
	switch {
	case v == nil:
		return "(unset)"
	case f.Sensitive && *v == "":
		return "(secret)"
	case f.Sensitive:
		return "(secret " + *v + ")"
	}
	return *v
}

func syncHeadline(r syncer.Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d %s", r.N, r.Reason)
	if len(r.Resyncs) > 0 {
		causes := make([]string, 0, len(r.Resyncs))
		for _, ev := range r.Resyncs {
			if c := string(ev.Cause); c != "" && !slices.Contains(causes, c) {
				causes = append(causes, c)
			}
		}
		if len(causes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(causes, ", "))
		}
	}
	if len(r.Entities) > 0 {
		names := make([]string, 0, min(len(r.Entities), 3))
		for _, e := range r.Entities[:min(len(r.Entities), 3)] {
			names = append(names, e.String())
		}
		fmt.Fprintf(&b, " [%s", strings.Join(names, ", "))
		if len(r.Entities) > 3 {
			fmt.Fprintf(&b, " and %d more", len(r.Entities)-3)
		}
		b.WriteString("]")
	}
	switch {
	case r.Err != nil:
		b.WriteString(": failed")
	case r.Frozen && len(r.AfterCut) > 0:
		fmt.Fprintf(&b, ": FROZEN, the source changed after the cut (%s, not applied)", english.N(len(r.AfterCut), "change"))
		if n := len(r.Changes) - len(r.AfterCut); n > 0 {
			fmt.Fprintf(&b, "; %s the target lacked already", english.N(n, "other change"))
		}
	case r.Frozen && len(r.Changes) > 0:
		fmt.Fprintf(&b, ": frozen, %s the target lacks (not applied)", english.N(len(r.Changes), "change"))
	case r.Frozen:
		b.WriteString(": frozen, nothing to report")
	case len(r.Changes) == 0:
		b.WriteString(": in step")
	default:
		fmt.Fprintf(&b, ": %d applied", r.Outcome.Applied)
		if r.Outcome.Failed > 0 {
			fmt.Fprintf(&b, ", %d failed", r.Outcome.Failed)
		}
		if r.Outcome.Unverified > 0 {
			fmt.Fprintf(&b, ", %d unverified", r.Outcome.Unverified)
		}
		if len(r.Unsent) > 0 {
			fmt.Fprintf(&b, ", %d not sent: FROZEN while the round ran", len(r.Unsent))
		}
	}
	if len(r.Missed) > 0 {
		fmt.Fprintf(&b, "; %s the source made without a notification (missed)", english.N(len(r.Missed), "change"))
	}
	if len(r.Drift) > 0 {
		fmt.Fprintf(&b, "; %s on the target (drift)", english.N(len(r.Drift), "difference"))
	}
	if a := r.Access; a != nil {
		switch {
		case a.Err != "":
			fmt.Fprintf(&b, "; access not proved: %s", termsafe.Line(a.Err))
		case a.Verdict == access.Equivalent:
			b.WriteString("; access equivalent")
		case a.Verdict == access.NotProved:
			b.WriteString("; access not proved (settings not known)")
		default:
			fmt.Fprintf(&b, "; ACCESS DRIFT: %s, %s decided differently", english.N(a.Causes, "cause"), classes(a.Differing))
		}
	}
	if r.Lag > 0 {
		fmt.Fprintf(&b, "; lag %s", r.Lag.Round(time.Millisecond))
	}
	if r.Zxid > 0 {
		fmt.Fprintf(&b, "; zxid 0x%x", r.Zxid)
	}
	return b.String()
}

// SyncStatus is the periodic status line of a sync without a terminal.
type SyncStatus struct {
	// State is the sync's state (syncer.Tracker) when the caller has it:
	// the line leads with it. Without it the line says only in step or
	// frozen.
	State                   syncer.State
	Since                   time.Time
	Rounds, Applied, Failed int
	Missed, Drift           int
	Frozen                  bool
	LastZxid                int64
	LastLag, MaxLag         time.Duration
}

// Add counts one round.
func (s *SyncStatus) Add(r syncer.Round) {
	if r.Reason == syncer.ReasonSkipped {
		return
	}
	s.Rounds++
	s.Applied += r.Outcome.Applied
	s.Failed += r.Outcome.Failed
	s.Missed += len(r.Missed)
	s.Drift += len(r.Drift)
	s.Frozen = r.Frozen
	s.LastZxid = max(s.LastZxid, r.Zxid)
	if r.Lag > 0 {
		s.LastLag, s.MaxLag = r.Lag, max(s.MaxLag, r.Lag)
	}
}

// SyncStatusText writes the status line.
func SyncStatusText(w io.Writer, now time.Time, s SyncStatus) error {
	state := "in step for"
	if s.Frozen {
		state = "frozen for"
	}
	if s.State.Phase != "" {
		state = s.State.Describe(now)
		if len(s.State.Names) > 0 {
			state += " (" + termsafe.Line(nameList(s.State.Names, 5)) + ")"
		}
		state += "; up"
	}
	_, err := fmt.Fprintf(w, "%s status: %s %s; %d rounds, %d applied, %d failed, %d missed, %d drift; lag last %s max %s; zxid 0x%x\n",
		now.Format("15:04:05.000"), state, now.Sub(s.Since).Round(time.Second), s.Rounds, s.Applied, s.Failed, s.Missed, s.Drift,
		s.LastLag.Round(time.Millisecond), s.MaxLag.Round(time.Millisecond), s.LastZxid)
	return err
}

// nameList is the first most names and how many more there are.
func nameList(names []string, most int) string {
	out := strings.Join(names[:min(len(names), most)], ", ")
	if len(names) > most {
		out += fmt.Sprintf(" and %d more", len(names)-most)
	}
	return out
}

// syncRoundJSON is one round as a JSON line.
type syncRoundJSON struct {
	Event    string       `json:"event"` // "round"
	N        int          `json:"round"`
	Reason   string       `json:"reason"`
	Entities []string     `json:"entities,omitempty"`
	Zxid     int64        `json:"zxid,omitempty"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Seen     *time.Time   `json:"seen,omitempty"` // the first notification
	LagMS    float64      `json:"lag_ms,omitempty"`
	Phases   *syncPhases  `json:"phases_ms,omitempty"`
	Frozen   bool         `json:"frozen,omitempty"`
	Changes  []syncChange `json:"changes,omitempty"`
	Resync   []syncResync `json:"resync,omitempty"`
	AfterCut []string     `json:"after_cut,omitempty"` // ids of the changes the source made after the cut
	Unsent   []string     `json:"unsent,omitempty"`    // ids of the changes a freeze kept from being sent
	Missed   []syncChange `json:"missed,omitempty"`
	Drift    []syncChange `json:"drift,omitempty"`
	// Access is a reconciliation's access proof (sync --access-check).
	Access     *syncer.AccessCheck `json:"access,omitempty"`
	Blocked    []plan.Blocker      `json:"blocked,omitempty"`
	Applied    int                 `json:"applied"`
	Failed     int                 `json:"failed"`
	Unverified int                 `json:"unverified,omitempty"`
	Error      string              `json:"error,omitempty"`
}

// syncPhases is where a round's time went, in milliseconds (a phase that
// did not run is left out).
type syncPhases struct {
	ReadSource float64 `json:"read_source,omitempty"`
	ReadTarget float64 `json:"read_target,omitempty"`
	Plan       float64 `json:"plan,omitempty"`
	Wait       float64 `json:"wait,omitempty"`
	Apply      float64 `json:"apply,omitempty"`
	Verify     float64 `json:"verify,omitempty"`
}

func phasesJSON(p syncer.Phases) *syncPhases {
	if p == (syncer.Phases{}) {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return &syncPhases{ReadSource: ms(p.ReadSource), ReadTarget: ms(p.ReadTarget), Plan: ms(p.Plan), Wait: ms(p.Wait), Apply: ms(p.Apply), Verify: ms(p.Verify)}
}

// syncResync is one cause of a resync round.
type syncResync struct {
	Cause string `json:"cause"`
	Path  string `json:"path,omitempty"`
	Error string `json:"error,omitempty"`
}

// syncSkippedJSON is a notification the feed skipped, as a JSON line.
type syncSkippedJSON struct {
	Event string    `json:"event"` // "skipped"
	At    time.Time `json:"at"`
	Path  string    `json:"path"`
	Error string    `json:"error"`
}

type syncChange struct {
	ID     string       `json:"id"`
	Kind   plan.Kind    `json:"kind"`
	Action plan.Action  `json:"action"`
	Fields []plan.Field `json:"fields,omitempty"`
}

func syncChanges(cs []plan.Change) []syncChange {
	out := make([]syncChange, 0, len(cs))
	for i := range cs {
		fs, _ := plan.Fields(&cs[i])
		out = append(out, syncChange{ID: cs[i].ID, Kind: cs[i].Kind, Action: cs[i].Action, Fields: fs})
	}
	return out
}

// SyncJSON writes one round as one line of JSON ({"event":"round"}), or
// a line per notification a ReasonSkipped report names
// ({"event":"skipped"}).
func SyncJSON(w io.Writer, r syncer.Round) error {
	if r.Reason == syncer.ReasonSkipped {
		for _, sk := range r.Skipped {
			b, err := json.Marshal(syncSkippedJSON{Event: "skipped", At: r.Finished.UTC(), Path: sk.Path, Error: sk.Err.Error()})
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	}
	j := syncRoundJSON{Event: "round", N: r.N, Reason: r.Reason, Zxid: r.Zxid, Started: r.Started.UTC(), Finished: r.Finished.UTC(),
		Frozen: r.Frozen, Applied: r.Outcome.Applied, Failed: r.Outcome.Failed, Unverified: r.Outcome.Unverified}
	for _, e := range r.Entities {
		j.Entities = append(j.Entities, e.String())
	}
	if r.Lag > 0 {
		j.LagMS = float64(r.Lag.Microseconds()) / 1000
	}
	if !r.Seen.IsZero() {
		seen := r.Seen.UTC()
		j.Seen = &seen
	}
	j.Phases = phasesJSON(r.Phases)
	if len(r.Changes) > 0 {
		j.Changes = syncChanges(r.Changes)
	}
	for _, ev := range r.Resyncs {
		rs := syncResync{Cause: string(ev.Cause), Path: ev.Path}
		if ev.Err != nil {
			rs.Error = ev.Err.Error()
		}
		j.Resync = append(j.Resync, rs)
	}
	for _, c := range r.AfterCut {
		j.AfterCut = append(j.AfterCut, c.ID)
	}
	for _, c := range r.Unsent {
		j.Unsent = append(j.Unsent, c.ID)
	}
	if len(r.Missed) > 0 {
		j.Missed = syncChanges(r.Missed)
	}
	if len(r.Drift) > 0 {
		j.Drift = syncChanges(r.Drift)
	}
	j.Access = r.Access
	if r.Reason == syncer.ReasonChange {
		j.Blocked = r.Blockers
	}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SyncStatusJSON writes the status as one line of JSON.
func SyncStatusJSON(w io.Writer, now time.Time, s SyncStatus) error {
	var oldest float64
	if s.State.Pending > 0 {
		oldest = s.State.OldestAge(now).Seconds()
	}
	b, err := json.Marshal(struct {
		Event     string    `json:"event"` // "status"
		At        time.Time `json:"at"`
		State     string    `json:"state,omitempty"` // IN STEP, BEHIND, FREEZING, FROZEN
		Pending   int       `json:"pending,omitempty"`
		Failing   int       `json:"pending_failed,omitempty"`
		OldestS   float64   `json:"oldest_pending_s,omitempty"`
		Names     []string  `json:"pending_names,omitempty"`
		Frozen    bool      `json:"frozen,omitempty"`
		Rounds    int       `json:"rounds"`
		Applied   int       `json:"applied"`
		Failed    int       `json:"failed"`
		Missed    int       `json:"missed"`
		Drift     int       `json:"drift"`
		LastLagMS float64   `json:"last_lag_ms"`
		MaxLagMS  float64   `json:"max_lag_ms"`
		LastZxid  int64     `json:"zxid,omitempty"`
		UpSeconds float64   `json:"up_seconds"`
	}{"status", now.UTC(), string(s.State.Phase), s.State.Pending, s.State.Failed, oldest, s.State.Names, s.Frozen, s.Rounds, s.Applied, s.Failed, s.Missed, s.Drift,
		float64(s.LastLag.Microseconds()) / 1000, float64(s.MaxLag.Microseconds()) / 1000, s.LastZxid, now.Sub(s.Since).Seconds()})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
