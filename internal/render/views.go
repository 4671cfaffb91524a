package render

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/buildinfo"
	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/syncer"
)

// One view per command (and result), each a text and a JSON format (check
// and access also Markdown, audit export CSV), chosen once from -o.

// VersionView is `migrate version`'s.
func VersionView(o Output, w io.Writer) (View[buildinfo.Info], error) {
	return pick(o, w, as(Text, VersionText), as(JSON, VersionJSON))
}

// SnapshotShown is what `migrate snapshot` shows: the snapshot read, and
// the file it was saved to ("" none).
type SnapshotShown struct {
	Snapshot *snapshot.Snapshot
	Saved    string
}

// SnapshotView is `migrate snapshot`'s: a summary, or the snapshot itself.
func SnapshotView(o Output, w io.Writer) (View[SnapshotShown], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, x SnapshotShown) error { return SnapshotSummary(w, x.Snapshot, x.Saved) }),
		as(JSON, func(w io.Writer, x SnapshotShown) error { return snapshot.Encode(w, x.Snapshot) }))
}

// PlanShown is what `migrate plan` shows: the plan, and the file it was
// saved to ("" none).
type PlanShown struct {
	Plan  *plan.Plan
	Saved string
	// Access is the proof of the target as the plan would leave it (nil:
	// not made); text shows a line, and the causes with Detail.
	Access *access.Result
	// ApplyWith is the command that applies the saved plan ("": migrate
	// apply --plan FILE); a revert plan names its target and database.
	ApplyWith string
}

// PlanView is `migrate plan`'s and `migrate audit revert`'s: the diff
// (with how to apply a saved plan), or the plan as JSON with the digest its file holds (a plan not
// saved is sealed to show it).
func PlanView(o Output, w io.Writer, text TextOptions) (View[PlanShown], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, x PlanShown) error {
			if err := PlanTextWith(w, x.Plan, text); err != nil {
				return err
			}
			if x.Access != nil {
				if err := AccessLine(w, x.Access, "the target as the plan would leave it", text.Detail); err != nil {
					return err
				}
			}
			if x.Saved == "" {
				return nil
			}
			apply := x.ApplyWith
			if apply == "" {
				apply = "migrate apply --plan " + x.Saved
			}
			_, err := fmt.Fprintf(w, "Saved to %s. Apply it with: %s\n", x.Saved, apply)
			return err
		}),
		as(JSON, func(w io.Writer, x PlanShown) error {
			if x.Plan.Digest == "" {
				if err := planfile.Seal(x.Plan); err != nil {
					return err
				}
			}
			return PlanJSON(w, x.Plan)
		}))
}

// CheckView is `migrate check`'s report; limit bounds the findings listed
// per check id in text and Markdown.
func CheckView(o Output, w io.Writer, limit int) (View[*check.Report], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, r *check.Report) error { return CheckText(w, r, limit) }),
		as(JSON, CheckJSON),
		as(Markdown, func(w io.Writer, r *check.Report) error { return CheckMarkdown(w, r, limit) }))
}

// CatalogueView is `migrate check --catalogue`'s.
func CatalogueView(o Output, w io.Writer) (View[struct{}], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, _ struct{}) error { return CatalogueText(w) }),
		as(JSON, func(w io.Writer, _ struct{}) error { return CatalogueJSON(w) }),
		as(Markdown, func(w io.Writer, _ struct{}) error { return CatalogueMarkdown(w) }))
}

// PolicyTestView is `migrate policy test`'s.
func PolicyTestView(o Output, w io.Writer) (View[*policy.TestReport], error) {
	return pick(o, w, as(Text, PolicyTestText), as(JSON, func(w io.Writer, r *policy.TestReport) error { return writeJSON(w, r) }))
}

// PolicyTestText is the text of a policy test: the violations as a table,
// the count, and the policy's notes.
func PolicyTestText(w io.Writer, r *policy.TestReport) error {
	ew := &errWriter{w: w}
	if len(r.Violations) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TOPIC\tRULE\tMESSAGE")
		for _, v := range r.Violations {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Topic, v.Rule, v.Message)
		}
		ew.keep(tw.Flush())
		ew.printf("%d of %d topics violate %s", len(r.Violations), r.Topics, r.Policy)
	} else {
		ew.printf("no violations: %d topics comply with %s", r.Topics, r.Policy)
	}
	if r.InternalSkipped > 0 {
		ew.printf(" (%d Kafka-internal topics not evaluated)", r.InternalSkipped)
	}
	ew.printf("\n")
	for _, n := range r.Notes {
		ew.printf("note: %s\n", n)
	}
	return ew.flush()
}

// BootstrapView is `migrate bootstrap`'s.
func BootstrapView(o Output, w io.Writer) (View[*kraftseed.Result], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, r *kraftseed.Result) error { BootstrapText(w, r); return nil }),
		as(JSON, func(w io.Writer, r *kraftseed.Result) error { _ = writeJSON(w, r); return nil }))
}

// CheckpointView is `migrate bootstrap --show`'s.
func CheckpointView(o Output, w io.Writer) (View[*kraftseed.Listing], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, l *kraftseed.Listing) error { CheckpointText(w, l); return nil }),
		as(JSON, func(w io.Writer, l *kraftseed.Listing) error { _ = writeJSON(w, l); return nil }))
}

// AuditRunsShown is what `migrate audit log` shows.
type AuditRunsShown struct {
	DB   string
	Runs []audit.RunSummary
}

// AuditRunsView is `migrate audit log`'s.
func AuditRunsView(o Output, w io.Writer) (View[AuditRunsShown], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, x AuditRunsShown) error { return AuditRunsNarrow(w, x.DB, x.Runs) }),
		as(Wide, func(w io.Writer, x AuditRunsShown) error { return AuditRuns(w, x.DB, x.Runs) }),
		as(JSON, func(w io.Writer, x AuditRunsShown) error { return writeJSON(w, nonNil(x.Runs)) }))
}

// AuditRunShown is what `migrate audit show` shows.
type AuditRunShown struct {
	Run     audit.RunSummary     `json:"run"`
	Changes []audit.ChangeRecord `json:"changes"`
	RPCs    []audit.RPCRecord    `json:"rpcs"`
	// AccessProofs are the access proofs the run made (plan, apply,
	// access diff, sync's reconciliations).
	AccessProofs []audit.AccessProof `json:"access_proofs,omitempty"`
	Filter       AuditFilter         `json:"-"`
}

// AuditRunStates reports whether the audit show view of o shows each
// change's states (JSON does; text lists no states, so they need not be
// read).
func AuditRunStates(o Output) bool { return o == JSON }

// AuditRunView is `migrate audit show`'s.
func AuditRunView(o Output, w io.Writer) (View[AuditRunShown], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, x AuditRunShown) error {
			return AuditRun(w, x.Run, x.Changes, x.RPCs, x.AccessProofs, x.Filter)
		}),
		as(JSON, func(w io.Writer, x AuditRunShown) error {
			x.Changes, x.RPCs = nonNil(x.Changes), nonNil(x.RPCs)
			return writeJSON(w, x)
		}))
}

// AuditExportView is `migrate audit export`'s: everything as JSON, or the
// journal as CSV.
func AuditExportView(o Output, w io.Writer) (View[*audit.RunExport], error) {
	return pick(o, w,
		as(JSON, func(w io.Writer, x *audit.RunExport) error { return writeJSON(w, x) }),
		as(CSV, AuditJournalCSV))
}

// AuditVerified is what `migrate audit verify` shows.
type AuditVerified struct {
	Result audit.VerifyResult
	Input  AuditVerifyInput
}

// AuditVerifyView is `migrate audit verify`'s.
func AuditVerifyView(o Output, w io.Writer) (View[AuditVerified], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, x AuditVerified) error { return AuditVerify(w, x.Result, x.Input) }),
		as(JSON, func(w io.Writer, x AuditVerified) error { return writeJSON(w, x.Result) }))
}

// AccessView is `migrate access diff`'s; limit bounds the causes text
// lists.
func AccessView(o Output, w io.Writer, limit int) (View[*access.Result], error) {
	return pick(o, w,
		as(Text, func(w io.Writer, r *access.Result) error { return AccessText(w, r, limit) }),
		as(JSON, func(w io.Writer, r *access.Result) error { return AccessJSON(w, r) }),
		as(Markdown, AccessMarkdown))
}

// ExplainView is `migrate access explain`'s.
func ExplainView(o Output, w io.Writer) (View[*access.Explanation], error) {
	return pick(o, w, as(Text, ExplainText), as(JSON, func(w io.Writer, x *access.Explanation) error { return AccessJSON(w, x) }))
}

// WhoView is `migrate access who`'s.
func WhoView(o Output, w io.Writer) (View[*access.WhoResult], error) {
	return pick(o, w, as(Text, WhoText), as(JSON, func(w io.Writer, x *access.WhoResult) error { return AccessJSON(w, x) }))
}

// nonNil is s, or an empty slice for nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ApplyView is `migrate apply`'s: the plan shown before it is confirmed,
// the apply's events as they come, and the summary at the end.
type ApplyView interface {
	// Plan shows the plan about to be applied (text: the diff; JSON:
	// nothing, the summary holds every result).
	Plan(p *plan.Plan) error
	// Observer takes the apply's events (text: a line per change; JSON:
	// kept for the summary).
	Observer() apply.Observer
	// Summary ends the output (JSON: the results, counts, the audit run
	// and the changes the target did not show; text: nothing more).
	Summary(auditRun int64, unverified []string) error
}

// NewApplyView is the apply view for o. Text draws a progress meter on
// meter (nil: none; sameTerminal: w is that terminal too, WithMeter).
func NewApplyView(o Output, w io.Writer, text TextOptions, verbose bool, meter io.Writer, sameTerminal bool) (ApplyView, error) {
	switch o {
	case Text:
		obs := WithMeter(meter, sameTerminal, &ApplyText{W: w, Verbose: verbose})
		return &applyTextView{w: w, text: text, obs: obs}, nil
	case JSON:
		return &applyJSONView{w: w}, nil
	}
	return nil, &OutputError{Output: o, Want: []Output{Text, JSON}}
}

type applyTextView struct {
	w    io.Writer
	text TextOptions
	obs  apply.Observer
}

func (v *applyTextView) Plan(p *plan.Plan) error           { return PlanTextWith(v.w, p, v.text) }
func (v *applyTextView) Observer() apply.Observer          { return v.obs }
func (v *applyTextView) Summary(_ int64, _ []string) error { return nil }
func (v *applyJSONView) Plan(*plan.Plan) error             { return nil }
func (v *applyJSONView) Observer() apply.Observer          { return &v.js }
func (v *applyJSONView) Summary(run int64, unverified []string) error {
	v.js.Summary.AuditRun, v.js.Summary.Unverified = run, unverified
	return v.js.Write(v.w)
}

type applyJSONView struct {
	w  io.Writer
	js ApplyJSON
}

// SyncView is `migrate sync`'s: a line (text) or JSON object per round,
// and a status line or object now and then.
type SyncView interface {
	Round(r syncer.Round) error
	Status(now time.Time, s SyncStatus) error
}

// NewSyncView is the sync view for o. A round that ended because the
// first plan was declined is not shown (the command says so).
func NewSyncView(o Output, w io.Writer) (SyncView, error) {
	switch o {
	case Text:
		return syncView{w: w, round: SyncText, status: SyncStatusText}, nil
	case JSON:
		return syncView{w: w, round: SyncJSON, status: SyncStatusJSON}, nil
	}
	return nil, &OutputError{Output: o, Want: []Output{Text, JSON}}
}

type syncView struct {
	w      io.Writer
	round  func(io.Writer, syncer.Round) error
	status func(io.Writer, time.Time, SyncStatus) error
}

func (v syncView) Round(r syncer.Round) error {
	if errors.Is(r.Err, syncer.ErrDeclined) {
		return nil
	}
	return v.round(v.w, r)
}

func (v syncView) Status(now time.Time, s SyncStatus) error { return v.status(v.w, now, s) }
