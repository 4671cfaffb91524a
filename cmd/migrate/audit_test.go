package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// auditFixture records one apply run with a success, a failure and a skip.
func auditFixture(t *testing.T) (path, receipt string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "audit.db")
	s, err := audit.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.BeginRun(ctx, audit.RunInfo{Command: "apply", Args: []string{"--plan", "p.json", "--password", "hunter22"}, User: "ops", Host: "bastion",
		ToolVersion: "test", Target: audit.Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst", Principal: "User:admin"}})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Fingerprint: "fp"}
	for _, n := range []string{"a", "b", "c"} {
		p.Changes = append(p.Changes, plan.Change{ID: "topic:" + n, Kind: plan.KindTopic, Action: plan.ActionCreate,
			Resource: plan.Resource{Type: "topic", Name: n}, After: &plan.State{Partitions: 1, ReplicationFactor: 1}})
	}
	p.Changes = append(p.Changes, plan.Change{ID: "acl:x", Kind: plan.KindACL, Action: plan.ActionCreate,
		Resource: plan.Resource{Type: "acl", Name: "x"}, After: &plan.State{Present: true}})
	o := r.Observer()
	o.Observe(apply.RunStarted{Plan: p, Total: 3})
	o.Observe(apply.ChangeSkipped{Change: &p.Changes[2], Reason: "already-applied"})
	o.Observe(apply.BatchSent{Batch: 1, RPC: apply.RPCCreateTopics, Version: -1, Broker: -1, Changes: []*plan.Change{&p.Changes[0], &p.Changes[1]}})
	o.Observe(apply.BatchDone{Batch: 1, RPC: apply.RPCCreateTopics, Version: 7, Broker: 1, Duration: 3 * time.Millisecond})
	o.Observe(apply.ResourceResult{Change: &p.Changes[0]})
	o.Observe(apply.ResourceResult{Change: &p.Changes[1], ErrorCode: 44, ErrorName: "POLICY_VIOLATION", Message: "denied", Err: errors.New("denied")})
	o.Observe(apply.BatchSent{Batch: 2, RPC: apply.RPCCreateACLs, Version: -1, Broker: -1, Changes: []*plan.Change{&p.Changes[3]}})
	o.Observe(apply.BatchDone{Batch: 2, RPC: apply.RPCCreateACLs, Version: 3, Broker: 2, Duration: time.Millisecond})
	o.Observe(apply.ResourceResult{Change: &p.Changes[3]})
	o.Observe(apply.RunFinished{Succeeded: 2, Failed: 1, Skipped: 1})
	receipt, err = r.Finish(ctx, "partial", exitPartial)
	if err != nil {
		t.Fatal(err)
	}
	return path, receipt
}

func TestAuditCommands(t *testing.T) {
	path, receipt := auditFixture(t)

	code, out, errs := runMigrate(t, "audit", "log", "--audit-db", path, "-o", "json")
	if code != exitOK {
		t.Fatalf("audit log: exit %d, %s", code, errs)
	}
	var runs []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("audit log -o json: %v\n%s", err, out)
	}
	if len(runs) != 1 || runs[0].Head != receipt || runs[0].Failed != 1 || strings.Contains(out, "hunter22") {
		t.Errorf("audit log runs = %+v; want one run with the receipt and redacted args", runs)
	}

	code, out, _ = runMigrate(t, "audit", "log", "--audit-db", path, "-o", "wide")
	for _, want := range []string{"RUN", "apply", "ops@bastion", "partial", receipt[:16]} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("audit log text (exit %d) lacks %q:\n%s", code, want, out)
		}
	}

	code, out, errs = runMigrate(t, "audit", "show", "1", "--status", "failed", "--audit-db", path, "-o", "json")
	if code != exitOK {
		t.Fatalf("audit show: exit %d, %s", code, errs)
	}
	var shown struct {
		Changes []audit.ChangeRecord `json:"changes"`
		RPCs    []audit.RPCRecord    `json:"rpcs"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Changes) != 1 || shown.Changes[0].ChangeID != "topic:b" || shown.Changes[0].ErrorCode != 44 || len(shown.RPCs) != 2 {
		t.Errorf("audit show --status failed = %+v", shown)
	}

	code, out, _ = runMigrate(t, "audit", "show", "--kind", "acl", "--audit-db", path, "1")
	for _, want := range []string{"Run 1: apply by ops@bastion", "Receipt:   " + receipt, "Changes matching kind=acl status=any (1):", "succeeded  acl", "CreateAcls v3", "CreateTopics v7"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("audit show text (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "topic:a") {
		t.Errorf("audit show --kind acl lists a topic change:\n%s", out)
	}

	code, out, errs = runMigrate(t, "audit", "export", "1", "-o", "csv", "--audit-db", path)
	if code != exitOK {
		t.Fatalf("audit export csv: exit %d, %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs[1:] {
		count[r[1]]++
	}
	// 4 planned, 3 sent + 3 results + 1 skip, 2 RPCs.
	if want := map[string]int{"planned": 4, "change": 7, "rpc": 2}; recs[0][0] != "seq" || count["planned"] != want["planned"] || count["change"] != want["change"] || count["rpc"] != want["rpc"] {
		t.Errorf("audit export csv records = %v (header %v); want %v", count, recs[0], want)
	}

	code, out, _ = runMigrate(t, "audit", "export", "1", "-o", "json", "--audit-db", path)
	var x audit.RunExport
	if err := json.Unmarshal([]byte(out), &x); code != exitOK || err != nil || x.Plan == nil || x.Plan.Fingerprint != "fp" || len(x.Changes) != 4 {
		t.Errorf("audit export json: exit %d, %v, %+v", code, err, x.Plan)
	}

	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", path, "--anchor", receipt)
	if code != exitOK || !strings.Contains(out, "Intact:") || !strings.Contains(out, "found at position") {
		t.Errorf("audit verify: exit %d\n%s", code, out)
	}
	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", path, "--anchor", strings.Repeat("ab", 32))
	if code != exitPartial || !strings.Contains(out, "anchor") {
		t.Errorf("audit verify with a foreign anchor: exit %d, want %d\n%s", code, exitPartial, out)
	}

	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE change_events SET status = 'succeeded', error_code = NULL WHERE error_code = 44`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", path)
	if code != exitPartial || !strings.Contains(out, "TAMPERED") || !strings.Contains(out, "change_events, run 1") {
		t.Errorf("audit verify after an edit: exit %d, want %d\n%s", code, exitPartial, out)
	}
	code, out, _ = runMigrate(t, "audit", "verify", "--audit-db", path, "-o", "json")
	var res audit.VerifyResult
	if err := json.Unmarshal([]byte(out), &res); code != exitPartial || err != nil || res.OK || res.Broken == nil {
		t.Errorf("audit verify -o json after an edit: exit %d, %v, %+v", code, err, res)
	}
}

func TestAuditCommandErrors(t *testing.T) {
	path, _ := auditFixture(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no subcommand", []string{"audit"}, "Usage: migrate audit"},
		{"unknown subcommand", []string{"audit", "frobnicate"}, `unknown subcommand "frobnicate"`},
		{"missing database", []string{"audit", "log", "--audit-db", missing}, "no audit database at " + missing},
		{"bad run id", []string{"audit", "show", "abc", "--audit-db", path}, `RUN "abc" is not a run id`},
		{"no run id", []string{"audit", "export", "-o", "csv", "--audit-db", path}, "want exactly one RUN id"},
		{"unknown run", []string{"audit", "show", "42", "--audit-db", path}, "run 42 is not in"},
		{"bad output", []string{"audit", "export", "1", "-o", "xml", "--audit-db", path}, `-o "xml": want json or csv`},
		{"bad status", []string{"audit", "show", "1", "--status", "done", "--audit-db", path}, `--status "done"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runMigrate(t, tt.args...)
			if code != exitError || !strings.Contains(errs, tt.want) {
				t.Errorf("migrate %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(tt.args, " "), code, errs, tt.want)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 0 && tt.name != "no subcommand" {
				t.Errorf("stderr is more than one line: %q", errs)
			}
		})
	}
}
