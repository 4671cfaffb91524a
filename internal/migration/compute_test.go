package migration

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestCompute: the plan of a saved target snapshot, with each request
// field doing what it says, and the phases reported in order.
func TestCompute(t *testing.T) {
	dir := t.TempDir()
	tgtFile := writeSnapshot(t, dir, "target.json", target())
	pol := writeFile(t, dir, "policy.yaml", policyYAML)
	creds := writeFile(t, dir, "creds.json", `[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw"}]`)
	tests := []struct {
		name        string
		req         PlanRequest
		changes     []string // change ids, in order
		blockers    int
		wantPolicy  bool
		wantSecrets int // values SecretValues holds
	}{
		{name: "everything", req: PlanRequest{},
			changes: []string{"topic:orders", "topic:payments"}, blockers: 3},
		{name: "topics scope", req: PlanRequest{Options: plan.Options{TopicRegex: "ord.*", Include: []plan.Kind{plan.KindTopic}}},
			changes: []string{"topic:orders"}},
		{name: "a policy denies payments", req: PlanRequest{PolicyFile: pol, Options: plan.Options{Include: []plan.Kind{plan.KindTopic}}},
			changes: []string{"topic:orders"}, blockers: 1, wantPolicy: true},
		{name: "a password recreates alice", req: PlanRequest{CredentialsFile: creds, Options: plan.Options{Include: []plan.Kind{plan.KindScramUser}}},
			changes: []string{"scram-user:alice/SCRAM-SHA-256"}, blockers: 2, wantSecrets: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			var phases, steps []string
			r := tt.req
			r.Source = fixed(source(), &calls)
			r.Target = Target{SnapshotFile: tgtFile, Principal: "User:migrator"}
			r.Hooks = Hooks{Phase: func(n string) { phases = append(phases, n) }, Progress: func(m string) { steps = append(steps, m) }}
			pl, err := Compute(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			defer pl.Close()
			var ids []string
			for _, c := range pl.Plan.Changes {
				ids = append(ids, c.ID)
			}
			if !reflect.DeepEqual(ids, tt.changes) || len(pl.Plan.Blockers) != tt.blockers {
				t.Errorf("changes %v with %d blocker(s), want %v with %d", ids, len(pl.Plan.Blockers), tt.changes, tt.blockers)
			}
			if calls != 1 || !reflect.DeepEqual(phases, []string{"source", "target", "plan"}) || len(steps) != 0 {
				t.Errorf("source read %d time(s), phases %v, steps %v; want once, source target plan, no steps (the target is a file)", calls, phases, steps)
			}
			if pl.Plan.Options.Principal != "User:migrator" || pl.Conn != nil {
				t.Errorf("principal %q, conn %v; want the target's principal and no connection", pl.Plan.Options.Principal, pl.Conn)
			}
			if got := strings.HasPrefix(pl.Plan.Options.Policy, "sha256:"); got != tt.wantPolicy {
				t.Errorf("plan records policy %q, want one: %v", pl.Plan.Options.Policy, tt.wantPolicy)
			}
			if got := pl.SecretValues(); len(got) != tt.wantSecrets || (len(got) == 1 && got[0] != "alice-pw") {
				t.Errorf("SecretValues = %d value(s), want %d", len(got), tt.wantSecrets)
			}
			if pl.Secrets == nil {
				t.Error("no secrets resolver for the plan built now")
			}
		})
	}
}

// TestComputeStopsBeforeReading: a bad policy or credentials file, or a
// topics expression that does not compile, stops Compute before the source
// or the target is read.
func TestComputeStopsBeforeReading(t *testing.T) {
	dir := t.TempDir()
	badPolicy := writeFile(t, dir, "bad.yaml", "version: 1\nrules:\n  - name: x\n    expr: 'topic =='\n")
	badCreds := writeFile(t, dir, "creds.json", `[{"user":"alice"}]`)
	tests := []struct {
		name string
		req  PlanRequest
		want string
	}{
		{"policy file missing", PlanRequest{PolicyFile: filepath.Join(dir, "none.yaml")}, "policy file "},
		{"policy does not compile", PlanRequest{PolicyFile: badPolicy}, "bad.yaml"},
		{"credentials refused", PlanRequest{CredentialsFile: badCreds}, "creds.json:1:2: entry 1: user and password are required"},
		{"topics regexp", PlanRequest{Options: plan.Options{TopicRegex: "("}}, `topics "("`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			r := tt.req
			r.Source = fixed(source(), &calls)
			r.Target = Target{Dial: func(context.Context) (*kafkaconn.Conn, error) {
				calls++
				return nil, errors.New("dialled")
			}}
			_, err := Compute(context.Background(), r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compute = %v, want an error containing %q", err, tt.want)
			}
			if calls != 0 {
				t.Errorf("%d read(s) before the refusal", calls)
			}
		})
	}
}

// TestWriteScramResets: the reset list names each SCRAM credential without
// a password by its user and mechanism, taken from the blocker's fields:
// a user name holding " SCRAM-" (which the blocker's resource text cannot
// be split at) comes out whole.
func TestWriteScramResets(t *testing.T) {
	dir := t.TempDir()
	creds := writeFile(t, dir, "creds.json", `[{"user":"alice","mechanism":"SCRAM-SHA-512","password":"alice-pw"}]`)
	out := filepath.Join(dir, "resets.json")
	var calls int
	pl, err := Compute(context.Background(), PlanRequest{Source: fixed(source(), &calls),
		Target:          Target{SnapshotFile: writeSnapshot(t, dir, "target.json", target())},
		CredentialsFile: creds, ScramResetsFile: out})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []plan.ScramReset
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v\n%s", out, err, data)
	}
	want := []plan.ScramReset{{User: "alice", Mechanism: "SCRAM-SHA-256"}, {User: "ops SCRAM-team", Mechanism: "SCRAM-SHA-512"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resets = %+v, want %+v", got, want)
	}
	if strings.Contains(string(data), "alice-pw") {
		t.Error("the reset list holds a password")
	}
	// Nothing to reset is an empty list, not null.
	pl.Plan.Blockers = nil
	if err := WriteScramResets(out, pl.Plan); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) != "[]\n" {
		t.Errorf("no resets wrote %q, want []", data)
	}
}

// TestBuildPlanRecordsEndpoints: the plan names both clusters with their
// digests, which a saved plan is checked against.
func TestBuildPlanRecordsEndpoints(t *testing.T) {
	src, tgt := source(), target()
	p := build(t, src, tgt, plan.Options{})
	if p.Source.ClusterID != "src-id" || p.Target.ClusterID != "dst-id" || p.Source.Digest != snapshot.Digest(src) || p.Target.Address != "kafka:9092" {
		t.Errorf("endpoints %+v / %+v", p.Source, p.Target)
	}
}

// TestBuildPlanEndpoints: the plan records each side's cluster and the
// snapshot.Digest of what was read (computed beside the plan); a failed
// build returns no plan.
func TestBuildPlanEndpoints(t *testing.T) {
	src, tgt := source(), target()
	p, err := BuildPlan(src, tgt, nil, plan.Options{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got plan.Endpoint
		s   *snapshot.Snapshot
	}{{p.Source, src}, {p.Target, tgt}} {
		want := plan.Endpoint{Kind: c.s.Source, Address: c.s.Address, ClusterID: c.s.ClusterID, Digest: snapshot.Digest(c.s)}
		if c.got != want || c.got.Digest == "" {
			t.Errorf("endpoint %+v, want %+v", c.got, want)
		}
	}
	if p, err := BuildPlan(src, tgt, nil, plan.Options{Placement: "nowhere"}, nil, nil); err == nil {
		t.Errorf("a bad placement built a plan: %+v", p)
	}
}

// TestComputeTargetFile: a target snapshot file is decoded while the source
// is read, yet errors come as in order: a failing source is reported (not
// the bad target file), a bad target file after a good source names the
// file.
func TestComputeTargetFile(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "target.json", `{"format": 1, "topics": [{"name": "a"`)
	failing := func(context.Context) (*snapshot.Snapshot, error) { return nil, errors.New("source unreachable") }
	var calls int
	for _, tt := range []struct {
		name   string
		source SourceFunc
		target string
		want   string
	}{
		{"source fails, target bad", failing, bad, "source unreachable"},
		{"source fails, target missing", failing, filepath.Join(dir, "none.json"), "source unreachable"},
		{"target bad", fixed(source(), &calls), bad, "target.json: not a snapshot: unexpected EOF"},
		{"target missing", fixed(source(), &calls), filepath.Join(dir, "none.json"), "none.json: no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compute(context.Background(), PlanRequest{Source: tt.source, Target: Target{SnapshotFile: tt.target}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compute = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
