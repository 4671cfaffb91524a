package render_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

// The full outputs are golden-tested through the commands
// (cmd/migrate TestAuditGolden); these cover the states a fixture run does
// not reach.
func TestAuditRunsStates(t *testing.T) {
	zero, failed := 0, 3
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	runs := []audit.RunSummary{
		{ID: 3, Command: "apply", User: "u", Host: "h", Started: at, ExitCode: &zero, Outcome: "ok", Head: strings.Repeat("ab", 32), KeyID: "k1", Resumes: []int64{1, 2}},
		{ID: 2, Command: "apply", User: "u", Host: "h", Started: at, ExitCode: &failed, Outcome: "abandoned", ClosedBy: 3},
		{ID: 1, Command: "plan", User: "u", Host: "h", Started: at, Target: audit.Endpoint{Kind: "kafka", Address: "k:9092", ClusterID: "c1", Principal: "User:admin"}},
	}
	var b bytes.Buffer
	if err := render.AuditRuns(&b, "db", runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 runs:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"RUN", "STARTED", "RECEIPT"},
		{"3 ", "2026-01-02 03:04:05Z", " ok ", " 0 ", "1,2", "abababababababab signed"},
		{"2 ", "abandoned (closed by run 3)", "0/0/0"},
		{"1 ", "kafka k:9092 (cluster c1) as User:admin", "unfinished"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d lacks %q: %q", i, w, lines[i])
			}
		}
	}
	b.Reset()
	if err := render.AuditRuns(&b, "/x/audit.db", nil); err != nil || b.String() != "No runs recorded in /x/audit.db.\n" {
		t.Errorf("no runs: %q, %v", b.String(), err)
	}
}

func TestAuditRunDetail(t *testing.T) {
	run := audit.RunSummary{ID: 7, Command: "apply", User: "u", Host: "h", PID: 42, Args: []string{"apply", "--plan", "p.json"}}
	changes := []audit.ChangeRecord{
		{Status: "failed", Kind: "topic", Action: "create", Resource: "orders", Batch: 2, ErrorCode: 36, ErrorName: "TOPIC_ALREADY_EXISTS", Message: "exists"},
		{Status: "skipped", Reason: "policy-denied", Verdict: &audit.VerdictRecord{Allowed: false, Rule: "r1", Message: "no"}},
	}
	rpcs := []audit.RPCRecord{
		{Batch: 2, API: "CreateTopics", Version: 7, Broker: -1, ValidateOnly: true, Result: "error", Error: "boom", Duration: 1500 * time.Microsecond},
		{Batch: 3, API: "CreateAcls", Version: -1, Broker: 1},
	}
	proofs := []audit.AccessProof{
		{What: "planned", Verdict: "differences", Classes: 1200, Differing: 40, Causes: 2, Accepted: 1, Digest: "sha256:aa"},
		{What: "target", Verdict: "equivalent", Classes: 1200, Digest: "sha256:bb"},
	}
	var b bytes.Buffer
	if err := render.AuditRun(&b, run, changes, rpcs, proofs, render.AuditFilter{Status: "failed"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Run 7: apply by u@h (pid 42), migrate -\n",
		"Arguments: apply --plan p.json\n",
		"Finished:  never (running, or the process was killed)\n",
		"\nChanges matching kind=any status=failed (2):\n",
		"36 TOPIC_ALREADY_EXISTS: exists",
		"policy-denied: policy r1: no",
		"\nRPCs (2):\n",
		"CreateTopics v7 (validate)  any",
		"1.5ms",
		"error: boom",
		"no outcome recorded (in flight when the run stopped)",
		"\nAccess proofs (2):\n",
		"the target as planned  differences  1200     40         2       0           1         sha256:aa",
		"the target as read     equivalent   1200     0          0       0           0         sha256:bb",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit show lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := render.AuditRun(&b, run, nil, nil, nil, render.AuditFilter{}); err != nil || strings.Contains(b.String(), "Access proofs") {
		t.Errorf("a run without proofs lists them: %v\n%s", err, b.String())
	}
}

func TestAuditVerifyText(t *testing.T) {
	tests := []struct {
		name string
		res  audit.VerifyResult
		in   render.AuditVerifyInput
		want []string
		not  []string
	}{
		{"broken", audit.VerifyResult{Rows: 5, Broken: &audit.Break{}}, render.AuditVerifyInput{DB: "a.db"},
			[]string{"TAMPERED: a.db: ", "5 rows verified before the break.\n"}, []string{"Intact"}},
		{"intact unsigned", audit.VerifyResult{OK: true, Rows: 9, Runs: 2, Head: "h", HeadSeq: 9}, render.AuditVerifyInput{},
			[]string{"Intact: 9 rows in 2 runs; head h (position 9).\n"}, []string{"Signatures", "Receipts", "Anchor"}},
		{"signed not checked", audit.VerifyResult{OK: true, Signed: 2, SignedBy: []string{"k1", "k2"}, RowsAfterSigned: 3}, render.AuditVerifyInput{},
			[]string{"2 receipts signed by key k1, k2, not checked", "3 rows after the last signed receipt"}, nil},
		{"receipts and anchor missing", audit.VerifyResult{Receipts: 4, Anchor: "abc"}, render.AuditVerifyInput{ReceiptFile: "r.jsonl", Receipts: 4},
			[]string{"Receipts: all 4 in r.jsonl found in the chain.\n", "TAMPERED: anchor abc is not in the chain"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render.AuditVerify(&b, tt.res, tt.in); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("has %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestAuditRunNamesMechanismAndExcluded: audit show names a SCRAM
// credential's mechanism and shows a change left out in review as
// excluded.
func TestAuditRunNamesMechanismAndExcluded(t *testing.T) {
	var b strings.Builder
	changes := []audit.ChangeRecord{
		{ChangeID: "scram-user:alice/SCRAM-SHA-256", Kind: "scram-user", Action: "create", Resource: "alice", Mechanism: "SCRAM-SHA-256", Status: "succeeded"},
		{ChangeID: "scram-user:alice/SCRAM-SHA-512", Kind: "scram-user", Action: "create", Resource: "alice", Mechanism: "SCRAM-SHA-512", Status: "excluded"},
	}
	if err := render.AuditRun(&b, audit.RunSummary{ID: 1, Command: "demo"}, changes, nil, nil, render.AuditFilter{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"alice SCRAM-SHA-256", "alice SCRAM-SHA-512", "excluded"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit show lacks %q:\n%s", want, out)
		}
	}
}

// TestAuditLogFits120: audit log's text stays within 120 columns however
// long the targets and commands, eliding the target's middle; -o wide
// keeps every column whole.
func TestAuditLogFits120(t *testing.T) {
	code := 3
	long := "kafka-broker-01.eu-west-1.prod.example.internal:9092,kafka-broker-02.eu-west-1.prod.example.internal:9092"
	runs := []audit.RunSummary{
		{ID: 12345, Command: "apply", Reverts: 12000, Outcome: "not validated", ExitCode: &code, Succeeded: 100000, Failed: 2000, Skipped: 300,
			Target: audit.Endpoint{Kind: "kafka", Address: long, ClusterID: "q1Sh-9_ISia_zwGINzRvyQ"}, User: "operator", Host: "bastion-host-01", Head: strings.Repeat("ab", 32)},
		{ID: 2, Command: "plan", Target: audit.Endpoint{Kind: "zookeeper", Address: "zk1:2181/kafka"}},
	}
	var narrow, wide strings.Builder
	if err := render.AuditRunsNarrow(&narrow, "db", runs); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(narrow.String(), "\n"), "\n") {
		if n := len([]rune(l)); n > render.AuditLogWidth {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if !strings.Contains(narrow.String(), "…") || !strings.Contains(narrow.String(), "zk1:2181/kafka") {
		t.Errorf("the long target is not elided or the short one is cut:\n%s", narrow.String())
	}
	if err := render.AuditRuns(&wide, "db", runs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{long, "operator@bastion-host-01", "q1Sh-9_ISia_zwGINzRvyQ", "abababababababab"} {
		if !strings.Contains(wide.String(), want) {
			t.Errorf("-o wide lacks %q", want)
		}
	}
}
