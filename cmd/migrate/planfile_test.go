package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestPlanOutIsTheJSONOutput: the file --out saves holds the plan -o json
// prints, and snapshot --out copies a snapshot file exactly.
func TestPlanOutIsTheJSONOutput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "source.json")
	code, _, stderr := runMigrate(t, "snapshot", "--snapshot", "../../internal/check/testdata/legacy.snapshot.json", "--out", src)
	if code != exitOK {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	orig, _ := snapshot.Load("../../internal/check/testdata/legacy.snapshot.json")
	copied, err := snapshot.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if snapshot.Digest(orig) != snapshot.Digest(copied) {
		t.Error("snapshot --out changed the snapshot")
	}
	out := filepath.Join(dir, "plan.json")
	code, stdout, stderr := runMigrate(t, "plan", "--snapshot", src, "--target-snapshot", empty, "--no-audit", "--out", out, "-o", "json")
	if code != exitPending {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	var printed plan.Plan
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatal(err)
	}
	if len(printed.Changes) == 0 {
		t.Fatal("the plan has no changes: the comparison would prove nothing")
	}
	saved, err := planfile.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	// -o json adds each change's fields (derived for display); the rest is
	// the saved plan.
	var shown struct {
		Changes []struct {
			Fields []plan.Field `json:"fields"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil || len(shown.Changes) != len(printed.Changes) {
		t.Fatalf("-o json changes: %v", err)
	}
	for i := range printed.Changes {
		c := &printed.Changes[i]
		if want, _ := plan.Fields(c); !cmp.Equal(shown.Changes[i].Fields, want) {
			t.Errorf("-o json: change %s has fields %v, want %v", c.ID, shown.Changes[i].Fields, want)
		}
	}
	if diff := cmp.Diff(&printed, saved, cmp.AllowUnexported(secret.Secret{})); diff != "" {
		t.Errorf("saved plan differs from -o json (-printed +saved):\n%s", diff)
	}
}

// TestPlanRecordsSnapshotDigests: a default plan records each snapshot it
// read with snapshot.Digest of it (taken from the plan's endpoints, which
// were computed from the same snapshots), and the plan.
func TestPlanRecordsSnapshotDigests(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "../../internal/check/testdata/legacy.snapshot.json"
	db := filepath.Join(dir, "audit.db")
	if code, _, stderr := runMigrate(t, "plan", "--snapshot", src, "--target-snapshot", empty, "--audit-db", db); code != exitPending {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	want := map[string]string{}
	for role, path := range map[string]string{"source": src, "target": empty} {
		s, err := snapshot.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want[role] = snapshot.Digest(s)
	}
	ex := exportFirstRun(t, db)
	got := map[string]string{}
	for _, s := range ex.Snapshots {
		got[s.Role] = s.Digest
	}
	if !cmp.Equal(got, want) {
		t.Errorf("recorded snapshot digests %v; want %v", got, want)
	}
	if ex.Plan == nil || ex.Plan.Changes == 0 {
		t.Errorf("the plan was not recorded: %+v", ex.Plan)
	}
}

// TestPlanOutSharesItsEncodingWithTheAuditTrail: a default plan --out
// encodes the plan once for both: the recorded plan is byte for byte the
// plan file (its digest included), the file is accepted as the plan
// written by --no-audit is (same digest), and audit show/export give every
// change's states from it.
func TestPlanOutSharesItsEncodingWithTheAuditTrail(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "../../internal/check/testdata/legacy.snapshot.json"
	db := filepath.Join(dir, "audit.db")
	withAudit, noAudit := filepath.Join(dir, "a.plan"), filepath.Join(dir, "b.plan")
	if code, _, stderr := runMigrate(t, "plan", "--snapshot", src, "--target-snapshot", empty, "--audit-db", db, "--out", withAudit); code != exitPending {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runMigrate(t, "plan", "--snapshot", src, "--target-snapshot", empty, "--no-audit", "--out", noAudit); code != exitPending {
		t.Fatalf("plan --no-audit: exit %d: %s", code, stderr)
	}
	a, err := planfile.Read(withAudit)
	if err != nil {
		t.Fatalf("the plan file written with the audit trail: %v", err)
	}
	b, err := planfile.Read(noAudit)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || len(a.Changes) == 0 {
		t.Errorf("digest %s with the audit trail, %s without (%d changes); want the same plan", a.Digest, b.Digest, len(a.Changes))
	}
	file, err := os.ReadFile(withAudit)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stored []byte
	if err := raw.QueryRow(`SELECT plan_json FROM plans WHERE run_id = 1`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, file) {
		t.Errorf("the recorded plan (%d bytes) is not the plan file (%d bytes)", len(stored), len(file))
	}
	ex := exportFirstRun(t, db)
	var recorded plan.Plan
	if err := json.Unmarshal(ex.Plan.JSON, &recorded); err != nil || recorded.Digest != a.Digest {
		t.Errorf("exported plan: digest %q, %v; want the file's %s", recorded.Digest, err, a.Digest)
	}
	if len(ex.Changes) != len(a.Changes) {
		t.Fatalf("exported %d changes, want %d", len(ex.Changes), len(a.Changes))
	}
	for i, c := range ex.Changes {
		want, _ := json.Marshal(a.Changes[i].After)
		if c.ChangeID != a.Changes[i].ID || (a.Changes[i].After != nil && string(c.After) != string(want)) {
			t.Errorf("exported change %d: %s after %s; want %s after %s", i, c.ChangeID, c.After, a.Changes[i].ID, want)
		}
	}
}

// exportFirstRun exports run 1 of the audit database at db.
func exportFirstRun(t *testing.T, db string) *audit.RunExport {
	t.Helper()
	ctx := context.Background()
	store, err := audit.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ex, err := store.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestOutNameDecidesEncoding: plan --out and snapshot --out write plain
// JSON to a .json name and zstd to a .zst or .json.zst name; plan reads
// back either as a source.
func TestOutNameDecidesEncoding(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(target, []byte(`{"format": 1, "source": "kafka", "cluster_id": "target-id"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, want string }{{"x.json", jsonfile.Plain}, {"x.zst", jsonfile.Zstd}, {"x.json.zst", jsonfile.Zstd}} {
		snap := filepath.Join(dir, "snapshot-"+tt.name)
		if code, _, errs := runMigrate(t, "snapshot", "--snapshot", "../../internal/check/testdata/legacy.snapshot.json", "--out", snap); code != exitOK {
			t.Fatalf("snapshot --out %s: exit %d: %s", tt.name, code, errs)
		}
		out := filepath.Join(dir, "plan-"+tt.name)
		if code, _, errs := runMigrate(t, "plan", "--snapshot", snap, "--target-snapshot", target, "--no-audit", "--out", out); code != exitPending {
			t.Fatalf("plan --out %s: exit %d: %s", tt.name, code, errs)
		}
		for _, f := range []string{snap, out} {
			raw, _ := os.ReadFile(f)
			if got := jsonfile.Detect(raw); got != tt.want || tt.want == jsonfile.Plain && !json.Valid(raw) {
				t.Errorf("%s: %s, want %s JSON", filepath.Base(f), got, tt.want)
			}
		}
	}
}
