package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/english"
)

// AuditLogWidth is the width `migrate audit log` fits its lines in; -o
// wide shows every column, whatever the width.
const AuditLogWidth = 120

// AuditRunsNarrow writes `migrate audit log`: one line per run, newest
// first as given, within AuditLogWidth columns: the run, when, the
// command, its outcome and exit code, its changes' counts, its receipt
// and the target's address (elided in the middle when it would not fit;
// at least 16 columns of it). db names
// the database when there are no runs.
func AuditRunsNarrow(w io.Writer, db string, runs []audit.RunSummary) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "No runs recorded in %s.\n", db)
		return err
	}
	rows := [][]string{{"RUN", "STARTED", "COMMAND", "OUTCOME", "EXIT", "OK/FAIL/SKIP", "RECEIPT", "TARGET"}}
	for _, r := range runs {
		command, outcome, exit, receipt := runColumns(r)
		target := r.Target.Address
		if target == "" {
			target = orDash(r.Target.Kind)
		}
		rows = append(rows, []string{strconv.FormatInt(r.ID, 10), fmtTime(r.Started), command, outcome, exit,
			fmt.Sprintf("%d/%d/%d", r.Succeeded, r.Failed, r.Skipped), receipt, target})
	}
	// The target takes what the other columns leave of the width.
	used := 0
	for col := 0; col < len(rows[0])-1; col++ {
		wmax := 0
		for _, row := range rows {
			wmax = max(wmax, len([]rune(row[col])))
		}
		used += wmax + 2
	}
	room := max(AuditLogWidth-used, 16)
	ew := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	for _, row := range rows {
		row[len(row)-1] = elide(row[len(row)-1], room)
		ew.printf("%s\n", strings.Join(row, "\t"))
	}
	return ew.flush()
}

// elide shortens s to at most n runes, cutting its middle ("kafka1.examp…:9092").
func elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// AuditRuns writes `migrate audit log -o wide`: one line per run, newest
// first as given, every column (who ran it, the target with its cluster
// id, runs it resumed, its receipt). db names the database when there are
// no runs.
func AuditRuns(w io.Writer, db string, runs []audit.RunSummary) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "No runs recorded in %s.\n", db)
		return err
	}
	ew := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	ew.printf("RUN\tSTARTED\tCOMMAND\tUSER@HOST\tTARGET\tOUTCOME\tEXIT\tOK/FAILED/SKIPPED\tRESUMES\tRECEIPT\n")
	for _, r := range runs {
		command, outcome, exit, receipt := runColumns(r)
		ew.printf("%d\t%s\t%s\t%s@%s\t%s\t%s\t%s\t%d/%d/%d\t%s\t%s\n", r.ID, fmtTime(r.Started), command, r.User, r.Host,
			endpointText(r.Target), outcome, exit, r.Succeeded, r.Failed, r.Skipped, idsText(r.Resumes), receipt)
	}
	return ew.flush()
}

// AuditFilter is what `migrate audit show` selected changes by (empty:
// any).
type AuditFilter struct{ Kind, Status string }

// AuditRun writes `migrate audit show`: the run's header, its changes (as
// selected by f) with their latest status, and every RPC.
func AuditRun(w io.Writer, run audit.RunSummary, changes []audit.ChangeRecord, rpcs []audit.RPCRecord, proofs []audit.AccessProof, f AuditFilter) error {
	ew := &errWriter{w: w}
	auditRunHeader(ew, run)
	filter := ""
	if f.Kind != "" || f.Status != "" {
		filter = " matching" + strings.TrimRight(fmt.Sprintf(" kind=%s status=%s", orAny(f.Kind), orAny(f.Status)), " ")
	}
	ew.printf("\nChanges%s (%d):\n", filter, len(changes))
	if len(changes) > 0 {
		tw := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
		tw.printf("  STATUS\tKIND\tACTION\tRESOURCE\tBATCH\tDETAIL\n")
		for _, c := range changes {
			tw.printf("  %s\t%s\t%s\t%s\t%s\t%s\n", c.Status, orDash(c.Kind), orDash(c.Action), changeRecordResource(c), intOrDash(c.Batch), changeRecordDetail(c))
		}
		ew.keep(tw.flush())
	}
	ew.printf("\nRPCs (%d):\n", len(rpcs))
	if len(rpcs) > 0 {
		tw := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
		tw.printf("  BATCH\tAPI\tBROKER\tPRINCIPAL\tSTARTED\tDURATION\tRESOURCES\tRESULT\n")
		for _, r := range rpcs {
			api := r.API
			if r.Version >= 0 {
				api += fmt.Sprintf(" v%d", r.Version)
			}
			if r.ValidateOnly {
				api += " (validate)"
			}
			result := r.Result
			switch result {
			case "":
				result = "no outcome recorded (in flight when the run stopped)"
			case "error":
				result = "error: " + r.Error
			}
			broker := "any"
			if r.Broker >= 0 {
				broker = strconv.Itoa(r.Broker)
			}
			dur := "-"
			if r.Result != "" {
				dur = r.Duration.Round(time.Microsecond).String()
			}
			tw.printf("  %d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Batch, api, broker, orDash(r.Principal), fmtTime(r.Started), dur, r.Resources, result)
		}
		ew.keep(tw.flush())
	}
	auditAccessProofs(ew, w, proofs)
	return ew.err
}

// changeRecordResource names a recorded change's resource: a SCRAM
// credential by its user and mechanism ("alice SCRAM-SHA-256"), so that a
// user's two credentials never read alike.
func changeRecordResource(c audit.ChangeRecord) string {
	if c.Mechanism != "" {
		return orDash(c.Resource) + " " + c.Mechanism
	}
	return orDash(c.Resource)
}

// auditAccessProofs lists a run's access proofs (docs/access.md), if it
// made any: what was proved, the verdict and its counts, and the digest
// that names the proof.
func auditAccessProofs(ew *errWriter, w io.Writer, proofs []audit.AccessProof) {
	if len(proofs) == 0 {
		return
	}
	ew.printf("\nAccess proofs (%d):\n", len(proofs))
	tw := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	tw.printf("  AT\tOF\tVERDICT\tCLASSES\tDIFFERING\tCAUSES\tNOT PROVED\tACCEPTED\tDIGEST\n")
	for _, p := range proofs {
		tw.printf("  %s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", fmtTime(p.At), proofOf(p.What), p.Verdict, p.Classes, p.Differing, p.Causes, p.NotProved, p.Accepted, p.Digest)
	}
	ew.keep(tw.flush())
}

// proofOf says what a proof was made of.
func proofOf(what string) string {
	switch what {
	case "target":
		return "the target as read"
	case "planned":
		return "the target as planned"
	}
	return what
}

func auditRunHeader(ew *errWriter, r audit.RunSummary) {
	ew.printf("Run %d: %s by %s@%s (pid %d), migrate %s\n", r.ID, r.Command, r.User, r.Host, r.PID, orDash(r.ToolVersion))
	ew.printf("Arguments: %s\n", strings.Join(r.Args, " "))
	ew.printf("Started:   %s\n", fmtTime(r.Started))
	switch {
	case r.ExitCode != nil && r.ClosedBy != 0:
		ew.printf("Finished:  never; abandoned: closed at %s by run %d, which took over the target (%d succeeded, %d failed, %d skipped before it stopped)\n",
			fmtTime(r.Finished), r.ClosedBy, r.Succeeded, r.Failed, r.Skipped)
	case r.ExitCode != nil:
		ew.printf("Finished:  %s, %s (exit %d): %d succeeded, %d failed, %d skipped\n", fmtTime(r.Finished), r.Outcome, *r.ExitCode, r.Succeeded, r.Failed, r.Skipped)
	}
	if r.ExitCode != nil {
		signed := ""
		if r.KeyID != "" {
			signed = " (signed by key " + r.KeyID + ")"
		}
		ew.printf("Receipt:   %s%s\n", r.Head, signed)
	} else {
		ew.printf("Finished:  never (running, or the process was killed)\n")
	}
	ew.printf("Source:    %s\n", endpointText(r.Source))
	ew.printf("Target:    %s\n", endpointText(r.Target))
	if len(r.Resumes) > 0 {
		ew.printf("Resumes:   run %s\n", idsText(r.Resumes))
	}
	if r.Reverts != 0 {
		ew.printf("Reverts:   run %d\n", r.Reverts)
	}
	if len(r.RevertedBy) > 0 {
		ew.printf("Reverted by: run %s\n", idsText(r.RevertedBy))
	}
	if len(r.ResumedBy) > 0 {
		ew.printf("Resumed by: run %s\n", idsText(r.ResumedBy))
	}
}

// changeRecordDetail joins a recorded change's reason, error and policy
// verdict.
func changeRecordDetail(c audit.ChangeRecord) string {
	var parts []string
	if c.Reason != "" {
		parts = append(parts, c.Reason)
	}
	if c.ErrorCode != 0 || c.ErrorName != "" {
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%d %s", c.ErrorCode, c.ErrorName)))
	}
	if c.Message != "" {
		parts = append(parts, c.Message)
	}
	if c.Verdict != nil && !c.Verdict.Allowed {
		parts = append(parts, "policy "+c.Verdict.Rule+": "+c.Verdict.Message)
	}
	return strings.Join(parts, ": ")
}

// AuditVerifyInput is what `migrate audit verify` checked besides the
// chain: the database path and the receipt file, if one was given.
type AuditVerifyInput struct {
	DB          string // the database's path
	ReceiptFile string // --receipt-file, when given
	Receipts    int    // receipts read from it
}

// AuditVerify writes `migrate audit verify`'s text: the first break, or
// what was verified (signatures, receipts, anchor).
func AuditVerify(w io.Writer, res audit.VerifyResult, in AuditVerifyInput) error {
	ew := &errWriter{w: w}
	if res.Broken != nil {
		ew.printf("TAMPERED: %s: %s\n", in.DB, res.Broken)
		ew.printf("%d rows verified before the break.\n", res.Rows)
		return ew.err
	}
	ew.printf("Intact: %s in %s; head %s (position %d).\n", english.N(int(res.Rows), "row"), english.N(int(res.Runs), "run"), orDash(res.Head), res.HeadSeq)
	switch {
	case res.KeyID != "":
		ew.printf("Signatures: %d receipts signed by key %s, all verified.\n", res.Signed, res.KeyID)
	case res.Signed > 0:
		ew.printf("Signatures: %d receipts signed by key %s, not checked (give --audit-key to check them; without it a recomputed chain passes).\n",
			res.Signed, strings.Join(res.SignedBy, ", "))
	}
	if res.Signed > 0 && res.RowsAfterSigned > 0 {
		ew.printf("%d rows after the last signed receipt (a run in progress or killed) are not covered by a signature yet.\n", res.RowsAfterSigned)
	}
	if in.Receipts > 0 {
		ew.printf("Receipts: all %d in %s found in the chain.\n", res.Receipts, in.ReceiptFile)
	}
	for _, l := range res.Reverts {
		if l.Problem != "" {
			ew.printf("BROKEN REVERT LINK: run %d reverts run %d: %s.\n", l.Run, l.Reverts, l.Problem)
		} else {
			ew.printf("Linked: run %d reverts run %d (its record up to position %d, hash %s).\n", l.Run, l.Reverts, l.RecordSeq, shortHash(l.RecordHash))
		}
	}
	if res.Anchor != "" {
		if res.AnchorFound {
			ew.printf("Anchor %s found at position %d; %d rows appended since.\n", shortHash(res.Anchor), res.AnchorSeq, res.RowsAfterAnchor)
		} else {
			ew.printf("TAMPERED: anchor %s is not in the chain: rows up to it were deleted or rewritten (or it is from another database).\n", res.Anchor)
		}
	}
	return ew.err
}

// auditJournalHeader is the CSV export's header.
var auditJournalHeader = []string{"seq", "record", "at", "change_id", "kind", "action", "resource", "status", "reason", "batch",
	"api", "api_version", "broker", "principal", "duration_us", "resources", "error_code", "error_name", "message"}

// AuditJournalCSV writes `migrate audit export -o csv`: the run's journal
// in chain order, one line per planned change, change transition and RPC.
func AuditJournalCSV(w io.Writer, x *audit.RunExport) error {
	type line struct {
		seq  int64
		cols []string
	}
	var lines []line
	planAt := ""
	if x.Plan != nil {
		planAt = x.Plan.At.UTC().Format(time.RFC3339Nano)
	}
	for _, c := range x.Changes {
		if c.Seq != 0 {
			lines = append(lines, line{c.Seq, []string{"", "planned", planAt, c.ChangeID, c.Kind, c.Action, c.Resource, "planned", "", "", c.RPC, "", "", "", "", "", "", "", ""}})
		}
		for _, ev := range c.Events {
			code := ""
			if ev.ErrorCode != 0 {
				code = strconv.Itoa(ev.ErrorCode)
			}
			lines = append(lines, line{ev.Seq, []string{"", "change", ev.At.UTC().Format(time.RFC3339Nano), c.ChangeID, c.Kind, c.Action, c.Resource,
				ev.Status, ev.Reason, intOrEmpty(ev.Batch), "", "", "", "", "", "", code, ev.ErrorName, ev.Message}})
		}
	}
	for _, r := range x.RPCs {
		lines = append(lines, line{r.Seq, []string{"", "rpc", r.Started.UTC().Format(time.RFC3339Nano), "", "", "", "", r.Result, "", strconv.Itoa(r.Batch),
			r.API, strconv.Itoa(r.Version), strconv.Itoa(r.Broker), r.Principal, strconv.FormatInt(r.Duration.Microseconds(), 10),
			strconv.Itoa(r.Resources), "", "", r.Error}})
	}
	// Chain order.
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].seq < lines[j-1].seq; j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(auditJournalHeader); err != nil {
		return err
	}
	for _, l := range lines {
		l.cols[0] = strconv.FormatInt(l.seq, 10)
		if err := cw.Write(l.cols); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// keep records err unless an earlier error is already kept.
func (e *errWriter) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}

// flush flushes a tabwriter underneath and returns the first error.
func (e *errWriter) flush() error {
	if tw, ok := e.w.(*tabwriter.Writer); ok {
		e.keep(tw.Flush())
	}
	return e.err
}

func endpointText(ep audit.Endpoint) string {
	if ep == (audit.Endpoint{}) {
		return "-"
	}
	s := ep.Address
	if s == "" {
		s = ep.Kind
	} else if ep.Kind != "" {
		s = ep.Kind + " " + s
	}
	if ep.ClusterID != "" {
		s += " (cluster " + ep.ClusterID + ")"
	}
	if ep.Principal != "" {
		s += " as " + ep.Principal
	}
	return s
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	if h == "" {
		return "-"
	}
	return h
}

func idsText(ids []int64) string {
	if len(ids) == 0 {
		return "-"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

func intOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func intOrEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// runColumns are the columns both run lists show: the command (and the run
// it reverts), the outcome, the exit code and the receipt.
func runColumns(r audit.RunSummary) (command, outcome, exit, receipt string) {
	outcome, exit, receipt = "unfinished", "-", "-"
	if r.ExitCode != nil {
		outcome, exit, receipt = r.Outcome, strconv.Itoa(*r.ExitCode), shortHash(r.Head)
		if r.ClosedBy != 0 {
			outcome, exit = fmt.Sprintf("abandoned (closed by run %d)", r.ClosedBy), "-"
		}
		if r.KeyID != "" {
			receipt += " signed"
		}
	}
	command = r.Command
	if r.Reverts != 0 {
		command += fmt.Sprintf(" (reverts %d)", r.Reverts)
	}
	return command, outcome, exit, receipt
}
