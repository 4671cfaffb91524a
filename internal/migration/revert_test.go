package migration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// revertSource builds a source for the revert tests: topics (name and
// retention.ms), an ACL, a quota and a SCRAM user of user, and broker 0's
// log.cleaner.threads.
func revertSource(user, threads string, topics ...[2]string) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceZooKeeper, ClusterID: "src-id", Brokers: []snapshot.Broker{{ID: 0}},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "0", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: threads}}}},
		Quotas:        []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: user}}, Values: map[string]float64{"producer_byte_rate": 1024}}},
		ACLs:          []snapshot.ACL{{ResourceType: "Topic", ResourceName: "shared", PatternType: "LITERAL", Principal: "User:" + user, Host: "*", Operation: "Read", Permission: "Allow"}},
		ScramUsers:    []snapshot.ScramUser{{Name: user, Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}},
	}
	for _, tp := range topics {
		var cs []snapshot.Config
		if tp[1] != "" {
			cs = []snapshot.Config{{Key: "retention.ms", Value: tp[1]}}
		}
		s.Topics = append(s.Topics, snapshot.Topic{Name: tp[0], Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0}}, {ID: 1, Replicas: []int32{0}}}, Configs: cs})
	}
	s.Sort()
	return s
}

// recordedApply applies pl's plan as migrate apply does, recorded in
// store (with the revert link when the plan is a revert), and returns the
// run's id.
func recordedApply(t *testing.T, store *audit.Store, pl *Planned) (int64, apply.Result) {
	t.Helper()
	ctx := context.Background()
	r, err := store.BeginRun(ctx, audit.RunInfo{Command: "apply", Target: audit.Endpoint{Kind: "kafka", ClusterID: pl.Target.ClusterID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RecordPlan(ctx, pl.Plan); err != nil {
		t.Fatal(err)
	}
	if rv := pl.Plan.Reverts; rv != nil {
		if err := r.RecordReverts(ctx, rv.Run, rv.Seq, rv.Digest); err != nil {
			t.Fatal(err)
		}
	}
	res, err := pl.Apply(ctx, pl.Plan, apply.Options{}, r.Observer())
	if err != nil || res.Failed != 0 {
		t.Fatalf("apply: %+v, %v", res, err)
	}
	if _, err := r.Finish(ctx, "applied", 0); err != nil {
		t.Fatal(err)
	}
	return r.ID(), res
}

// kindView is a target kind by kind as a revert must restore it (kfake
// places replicas itself: topics by partition count and configs).
func kindView(t *testing.T, dial DialFunc) map[string]string {
	t.Helper()
	conn, err := dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := kread.Read(context.Background(), conn, kread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	topics := map[string]any{}
	for _, tp := range s.Topics {
		topics[tp.Name] = []any{len(tp.Partitions), snapshot.ConfigMap(tp.Configs)}
	}
	brokers := map[string]map[string]string{}
	for _, b := range s.BrokerConfigs {
		brokers[b.Broker] = snapshot.ConfigMap(b.Configs)
	}
	quotas := map[string]map[string]float64{}
	for _, q := range s.Quotas {
		quotas[q.Entity.String()] = q.Values
	}
	var acls []string
	for _, a := range s.ACLs {
		acls = append(acls, a.Key())
	}
	slices.Sort(acls)
	scram := map[string]int32{}
	for _, u := range s.ScramUsers {
		for _, c := range u.Credentials {
			scram[u.Name+"/"+c.Mechanism] = c.Iterations
		}
	}
	return map[string]string{"topics": js(topics), "broker-configs": js(brokers), "quotas": js(quotas), "acls": js(acls), "scram": js(scram)}
}

func sameKinds(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for kind := range want {
		if d := cmp.Diff(want[kind], got[kind]); d != "" {
			t.Errorf("%s: %s differ (-want +got):\n%s", what, kind, d)
		}
	}
}

// TestRevertOnKfake: against an in-process Kafka, a run that creates,
// updates and (--prune) deletes resources of every kind kfake carries is
// reverted: computed (created topics kept and named without
// --delete-created-topics), saved, justified by the audit trail and
// applied, and the target equals its state before the run, kind by kind.
// Applied twice, the revert changes nothing the second time; an edited
// revert plan (re-sealed) is refused; the chain verifies with the runs
// linked; reverting the revert restores the run's after-state; a resource
// edited since is refused by name while the rest is reverted.
func TestRevertOnKfake(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dial := fakeTarget(t)
	creds := writeFile(t, dir, "creds.json", `[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw"},{"user":"carol","mechanism":"SCRAM-SHA-256","password":"carol-pw"}]`)
	store, err := audit.Open(ctx, filepath.Join(dir, "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := plan.Options{Placement: plan.PlacementTarget}
	compute := func(src *snapshot.Snapshot, o plan.Options) *Planned {
		t.Helper()
		var n int
		pl, err := Compute(ctx, PlanRequest{Source: fixed(src, &n), Target: Target{Dial: dial}, Options: o, CredentialsFile: creds})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pl.Close)
		return pl
	}
	// The state before the run: what it will prune, update and keep.
	recordedApply(t, store, compute(revertSource("carol", "1", [2]string{"old", "1000"}, [2]string{"shared", "5"}), opts))
	before := kindView(t, dial)

	// The run: creates fresh and alice's ACL, quota and credential,
	// updates shared and broker 0, and prunes old and carol's.
	prune := opts
	prune.Prune = true
	run, _ := recordedApply(t, store, compute(revertSource("alice", "2", [2]string{"fresh", "60000"}, [2]string{"shared", "10"}), prune))
	after := kindView(t, dial)

	kept, err := ComputeRevert(ctx, RevertRequest{Audit: store, Run: run, Dial: dial, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	kept.Close()
	if i := slices.IndexFunc(kept.Plan.Blockers, func(b plan.Blocker) bool { return b.ID == catalogue.IDBlockRevertTopicKept }); i < 0 || kept.Plan.Blockers[i].Resource != "fresh" {
		t.Errorf("without --delete-created-topics: blockers %+v, want topic fresh kept", kept.Plan.Blockers)
	}
	if slices.ContainsFunc(kept.Plan.Changes, func(c plan.Change) bool { return c.Action == plan.ActionDelete && c.Kind == plan.KindTopic }) {
		t.Error("without --delete-created-topics the revert deletes a topic")
	}

	rp, err := ComputeRevert(ctx, RevertRequest{Audit: store, Run: run, Dial: dial, DeleteCreatedTopics: true, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	rp.Close()
	if len(rp.Plan.Blockers) != 0 || len(rp.Plan.Changes) < 8 {
		t.Fatalf("revert plan: %d changes, blockers %+v", len(rp.Plan.Changes), rp.Plan.Blockers)
	}
	file := filepath.Join(dir, "revert.json")
	if err := planfile.Write(file, rp.Plan); err != nil {
		t.Fatal(err)
	}
	load := func(path string) (*Planned, error) {
		return LoadSaved(ctx, SavedRequest{PlanFile: path, Dial: dial, CredentialsFile: creds, Audit: store})
	}
	// Edited and re-sealed: refused, naming the change (the target is
	// still in the run's after-state, so only the audit trail can tell).
	edited := *rp.Plan
	edited.Changes = slices.Clone(rp.Plan.Changes)
	q := slices.IndexFunc(edited.Changes, func(c plan.Change) bool { return c.Kind == plan.KindQuota && c.Action == plan.ActionCreate })
	edited.Changes[q].After = &plan.State{Quota: map[string]float64{"producer_byte_rate": 999999}}
	editedFile := filepath.Join(dir, "edited.json")
	if err := planfile.Write(editedFile, &edited); err != nil {
		t.Fatal(err)
	}
	_, err = load(editedFile)
	var ue *plan.UnjustifiedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), edited.Changes[q].ID) || !strings.Contains(err.Error(), "audit record") {
		t.Errorf("an edited revert plan: %v, want it refused naming %s", err, edited.Changes[q].ID)
	}

	loaded, err := load(file)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	reverting, res := recordedApply(t, store, loaded)
	if res.Succeeded != len(rp.Plan.Changes) {
		t.Errorf("the revert applied %d of %d changes", res.Succeeded, len(rp.Plan.Changes))
	}
	sameKinds(t, "after the revert, against before the run", before, kindView(t, dial))
	// The password the revert set carol's credential with is in neither the
	// audit trail nor the revert plan (decompressed).
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := jsonfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	planText, _ := io.ReadAll(zr)
	zr.Close()
	f.Close()
	for name, b := range map[string][]byte{"revert.json": planText, "audit.db": readOrNil(filepath.Join(dir, "audit.db")), "audit.db-wal": readOrNil(filepath.Join(dir, "audit.db-wal"))} {
		if bytes.Contains(b, []byte("carol-pw")) {
			t.Errorf("%s holds carol's password", name)
		}
	}
	if !bytes.Contains(planText, []byte("scram-credentials:carol/SCRAM-SHA-256")) {
		t.Error("the revert plan does not refer to carol's password")
	}

	// Twice: nothing changes the second time.
	twice, err := load(file)
	if err != nil {
		t.Fatalf("the revert plan applied again: %v", err)
	}
	defer twice.Close()
	if _, res := recordedApply(t, store, twice); res.Succeeded != 0 || res.Skipped != len(rp.Plan.Changes) {
		t.Errorf("the revert plan applied twice: %+v, want every change skipped", res)
	}

	// The chain verifies, with the revert linked to the run.
	vr, err := store.Verify(ctx, "")
	if err != nil || !vr.OK || !slices.ContainsFunc(vr.Reverts, func(l audit.RevertLink) bool { return l.Run == reverting && l.Reverts == run && l.Problem == "" }) {
		t.Errorf("Verify = %+v, %v; want intact, run %d linked to run %d", vr, err, reverting, run)
	}

	// Reverting the revert restores the run's after-state.
	rr, err := ComputeRevert(ctx, RevertRequest{Audit: store, Run: reverting, Dial: dial, DeleteCreatedTopics: true, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if len(rr.Plan.Blockers) != 0 {
		t.Errorf("the revert of the revert has blockers %+v", rr.Plan.Blockers)
	}
	recordedApply(t, store, rr)
	sameKinds(t, "after reverting the revert, against after the run", after, kindView(t, dial))

	// Edited in between: the run reverted again, but shared's retention
	// changed by hand since: refused by name, the rest reverted.
	conn, err := dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ms := "777"
	if rs, err := conn.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &ms}}, "shared"); err != nil || rs[0].Err != nil {
		t.Fatalf("alter shared: %v %v", err, rs)
	}
	again, err := ComputeRevert(ctx, RevertRequest{Audit: store, Run: run, Dial: dial, DeleteCreatedTopics: true, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if len(again.Plan.Blockers) != 1 || again.Plan.Blockers[0].ID != catalogue.IDBlockRevertChangedSince || again.Plan.Blockers[0].Resource != "shared" {
		t.Fatalf("blockers %+v, want shared refused as changed since", again.Plan.Blockers)
	}
	recordedApply(t, store, again)
	want := copyView(before)
	var topics map[string][]any
	_ = json.Unmarshal([]byte(want["topics"]), &topics)
	topics["shared"][1] = map[string]string{"retention.ms": "777"} // left as edited
	b, _ := json.Marshal(topics)
	want["topics"] = string(b)
	sameKinds(t, "after reverting again with shared edited", want, kindView(t, dial))
}

func readOrNil(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

func copyView(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
