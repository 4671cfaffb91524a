package audit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
	"github.com/zkmigrate/zkmigrate/migrations"
)

func TestOpenFreshAndReopen(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	v, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := SchemaVersion(); v != want || want < 2 {
		t.Fatalf("Version() = %d, want %d (and at least 2 migrations shipped)", v, want)
	}
	var mode string
	if err := s.w.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := s.w.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
	}
	s.Close()
	// A second open applies nothing.
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var rows int
	if err := s2.r.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != SchemaVersion() {
		t.Errorf("schema_version has %d rows after reopening, want %d", rows, SchemaVersion())
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("database file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

func TestOpenBadPath(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("this is not a database, just some text that is long enough to have a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"directory": dir, "not a database": notDB} {
		t.Run(name, func(t *testing.T) {
			s, err := Open(context.Background(), path)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded, want an error", path)
			}
		})
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/state")
	if got, want := DefaultPath(), "/var/state/zkmigrate/audit.db"; got != want {
		t.Errorf("DefaultPath() with XDG_STATE_HOME = %q, want %q", got, want)
	}
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/op")
	if got, want := DefaultPath(), "/home/op/.local/state/zkmigrate/audit.db"; got != want {
		t.Errorf("DefaultPath() without XDG_STATE_HOME = %q, want %q", got, want)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	_, path := openTest(t)
	db := rawDB(t, path)
	mustExec(t, db, `INSERT INTO schema_version (version, name, applied_at) VALUES (99, '0099_future.sql', '2030-01-01T00:00:00Z')`)
	db.Close()
	s, err := Open(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("Open of a version 99 database succeeded, want ErrSchemaTooNew")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open error = %v, want ErrSchemaTooNew", err)
	}
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("Open error %T is not a *SchemaError", err)
	}
	ms, err := loadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	want := &SchemaError{Path: path, Version: 99, Known: SchemaVersion(), Newest: ms[len(ms)-1].name}
	if !strings.HasPrefix(want.Newest, fmt.Sprintf("%04d_", SchemaVersion())) {
		t.Fatalf("newest migration %s is not version %d", want.Newest, SchemaVersion())
	}
	if diff := cmp.Diff(want, se); diff != "" {
		t.Errorf("SchemaError mismatch (-want +got):\n%s", diff)
	}
}

// fixturePath is the checked-in database of schema version v, written by
// the tool as it was at that version (regenerate missing ones with -update;
// never rewrite a released one).
func fixturePath(v int) string { return filepath.Join("testdata", fmt.Sprintf("schema-v%d.db", v)) }

// buildOldDB writes a database at schema version v with one finished run.
// Only what version v supports is used: begin, snapshot, plan, finish.
func buildOldDB(t *testing.T, path string, v int) {
	t.Helper()
	ctx := context.Background()
	s, err := open(ctx, path, v)
	if err != nil {
		t.Fatal(err)
	}
	s.now = fixedClock()
	got, err := s.Version(ctx)
	if err != nil || got != v {
		t.Fatalf("built database has version %d, %v; want %d", got, err, v)
	}
	r, err := s.BeginRun(ctx, RunInfo{Command: "plan", User: "ops", Host: "old-host", ToolVersion: fmt.Sprintf("schema-v%d", v),
		Args: []string{"--zookeeper", "zk1:2181"}, Target: Endpoint{Kind: "kafka", Address: "b1:9092", ClusterID: "dst-id"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RecordSnapshot(ctx, "source", "sha256:old", map[string]int{"topics": 3}); err != nil {
		t.Fatal(err)
	}
	if err := r.RecordPlan(ctx, testPlan(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Finish(ctx, "pending", 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatalf("%s-wal left after close; the fixture would be incomplete", path)
	}
}

func TestUpgradeFromEveryOlderVersion(t *testing.T) {
	ctx := context.Background()
	for v := 1; v < SchemaVersion(); v++ {
		if golden.Updating() {
			if _, err := os.Stat(fixturePath(v)); err != nil {
				tmp := filepath.Join(t.TempDir(), "fixture.db")
				buildOldDB(t, tmp, v)
				copyFile(t, tmp, fixturePath(v))
			}
		}
		for _, src := range []string{"built", "fixture"} {
			t.Run(fmt.Sprintf("v%d/%s", v, src), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "old.db")
				if src == "built" {
					buildOldDB(t, path, v)
				} else {
					copyFile(t, fixturePath(v), path)
				}
				s, err := Open(ctx, path)
				if err != nil {
					t.Fatalf("Open(v%d database): %v", v, err)
				}
				defer s.Close()
				got, err := s.Version(ctx)
				if err != nil || got != SchemaVersion() {
					t.Fatalf("after Open: version %d, %v; want %d", got, err, SchemaVersion())
				}
				runs, err := s.Runs(ctx, 0)
				if err != nil || len(runs) != 1 || runs[0].Host != "old-host" || runs[0].Outcome != "pending" {
					t.Fatalf("runs after upgrade = %+v, %v; want the one old run", runs, err)
				}
				res, err := s.Verify(ctx, runs[0].Head)
				if err != nil || !res.OK {
					t.Fatalf("Verify after upgrade = %+v, %v; want intact with the old receipt found", res, err)
				}
				// What the newer schema adds works on the upgraded file.
				id, head := recordRun(t, s, 4)
				release, err := s.AcquireTargetLock(ctx, "dst-id", id)
				if err != nil {
					t.Fatalf("AcquireTargetLock on upgraded database: %v", err)
				}
				release()
				res, err = s.Verify(ctx, head)
				if err != nil || !res.OK || res.Runs != 2 {
					t.Fatalf("Verify after a new run = %+v, %v; want intact, 2 runs", res, err)
				}
				// The fixture's run holds its plan as plain JSON text (written
				// before plans were compressed), the new run a zstd blob, side
				// by side; both export as the JSON recorded.
				oldForm := "text"
				if src == "built" || v >= 3 {
					oldForm = "blob" // built with today's insert, or by a migrate that compressed plans
				}
				for _, r := range []struct {
					id   int64
					form string
				}{{runs[0].ID, oldForm}, {id, "blob"}} {
					var form string
					if err := s.r.QueryRowContext(ctx, `SELECT typeof(plan_json) FROM plans WHERE run_id = ?`, r.id).Scan(&form); err != nil || form != r.form {
						t.Errorf("run %d: plan_json stored as %q, %v; want %s", r.id, form, err, r.form)
					}
					x, err := s.Export(ctx, r.id)
					if err != nil || x.Plan == nil || !json.Valid(x.Plan.JSON) || !bytes.Contains(x.Plan.JSON, []byte(`"changes"`)) {
						t.Errorf("Export(run %d) of a %s plan = %+v, %v; want its plan JSON", r.id, r.form, x, err)
					}
				}
				// Version 4: the new run's change states are in its plan
				// only; the old run's are in its changes rows. Both read
				// back as recorded.
				checkChangeStates(t, s, runs[0].ID, 3, v)
				checkChangeStates(t, s, id, 4, SchemaVersion())
				// Version 3: signed receipts and abandoned runs.
				key, err := GenerateKey(filepath.Join(t.TempDir(), "k"))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.SetSigner(key); err != nil {
					t.Fatal(err)
				}
				killed, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{ClusterID: "dst-id"}})
				if err != nil {
					t.Fatal(err)
				}
				closer, err := s.BeginRun(ctx, RunInfo{Command: "apply", Target: Endpoint{ClusterID: "dst-id"}})
				if err != nil {
					t.Fatal(err)
				}
				if got, err := closer.AbandonRuns(ctx, []int64{killed.ID()}); err != nil || len(got) != 1 {
					t.Fatalf("AbandonRuns on upgraded database = %v, %v", got, err)
				}
				if _, err := closer.Finish(ctx, "succeeded", 0); err != nil {
					t.Fatal(err)
				}
				res, err = s.VerifyWith(ctx, VerifyOptions{Anchor: runs[0].Head, Key: key})
				if err != nil || !res.OK || res.Signed != 2 {
					t.Fatalf("VerifyWith key after upgrade = %+v, %v; want intact, 2 signed receipts (the abandoned run's end and the closer's)", res, err)
				}
			})
		}
	}
}

// checkChangeStates checks that run id's n changes (testPlan's) read back
// with their planned after-states, and where those are stored, by the
// schema version v the plan was recorded at: before 4 in the changes rows,
// before 6 in the plan with a row per change, from 6 on in the plan only.
func checkChangeStates(t *testing.T, s *Store, id int64, n, v int) {
	t.Helper()
	ctx := context.Background()
	cs, err := s.Changes(ctx, id, ChangeFilter{})
	if err != nil {
		t.Fatalf("Changes(run %d): %v", id, err)
	}
	if len(cs) != n {
		t.Fatalf("Changes(run %d) = %d changes, want %d", id, len(cs), n)
	}
	want := `{"partitions":3,"replication_factor":3,"configs":[{"key":"retention.ms","value":"86400000"}]}`
	for _, c := range cs {
		if c.Before != nil || string(c.After) != want || c.RPC != "CreateTopics" || c.Kind != "topic" || c.Resource == "" {
			t.Errorf("run %d change %s: %+v; want a topic create with after %s", id, c.ChangeID, c, want)
		}
	}
	var rows, rowStates int
	var statesIn, changesIn sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), count(coalesce(before_state, after_state)) FROM changes WHERE run_id = ?`, id).Scan(&rows, &rowStates); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT states_in_plan, changes_in_plan FROM plans WHERE run_id = ?`, id).Scan(&statesIn, &changesIn); err != nil {
		t.Fatal(err)
	}
	type where struct {
		Rows, RowStates     int
		StatesIn, ChangesIn sql.NullInt64
	}
	got, exp := where{rows, rowStates, statesIn, changesIn}, where{}
	switch {
	case v < statesInPlanVersion:
		exp = where{Rows: n, RowStates: n}
	case v < changesInPlanVersion:
		exp = where{Rows: n, StatesIn: sql.NullInt64{Int64: 1, Valid: true}}
	default:
		exp = where{ChangesIn: sql.NullInt64{Int64: 1, Valid: true}}
	}
	if got != exp {
		t.Errorf("run %d recorded at version %d: stored %+v; want %+v", id, v, got, exp)
	}
}

// TestChangesQueryUsesRunIndex: Changes reads a run's changes through the
// index on changes (run_id) in chain order, without sorting them (schema
// 0005; the index by change id it replaces needed a sort by seq).
func TestChangesQueryUsesRunIndex(t *testing.T) {
	s, _ := openTest(t)
	rows, err := s.r.Query(`EXPLAIN QUERY PLAN SELECT seq, change_id FROM changes WHERE run_id = 1 ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	got := strings.Join(plan, "; ")
	if !strings.Contains(got, "changes_run_seq") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("query plan %q; want the changes_run_seq index and no sort", got)
	}
}
