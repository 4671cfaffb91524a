package migration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
)

// fakeTarget starts an in-process Kafka (kfake) and returns a DialFunc for
// it.
func fakeTarget(t *testing.T) DialFunc {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("dst-id"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return func(ctx context.Context) (*kafkaconn.Conn, error) {
		return kafkaconn.Dial(ctx, cluster.ListenAddrs(), kafkaconn.Default())
	}
}

// TestPlanApplyVerifyAndSaved: against an in-process Kafka, a computed plan
// applies with its secrets, Verify sees every applied change, and a plan
// saved before the apply is then justified as already done, with nothing
// left to send.
func TestPlanApplyVerifyAndSaved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dial := fakeTarget(t)
	creds := writeFile(t, dir, "creds.json", `[{"user":"alice","mechanism":"SCRAM-SHA-256","password":"alice-pw"}]`)
	// kfake places replicas itself, so the target places them.
	opts := plan.Options{Placement: plan.PlacementTarget, Include: []plan.Kind{plan.KindTopic, plan.KindTopicConfig, plan.KindScramUser}}
	var steps []string
	hooks := Hooks{Progress: func(m string) { steps = append(steps, m) }}
	var reads int
	pl, err := Compute(ctx, PlanRequest{Source: fixed(source(), &reads), Target: Target{Dial: dial}, Options: opts, CredentialsFile: creds, Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	if len(steps) != 1 || !strings.HasPrefix(steps[0], "Reading target 127.0.0.1:") {
		t.Errorf("progress %q, want one Reading target line", steps)
	}
	if pl.TargetKey() != "dst-id" {
		t.Errorf("TargetKey = %q, want the cluster id", pl.TargetKey())
	}
	var ids []string
	for _, c := range pl.Plan.Changes {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "topic:orders topic:payments scram-user:alice/SCRAM-SHA-256" {
		t.Fatalf("plan changes %v", ids)
	}
	saved := filepath.Join(dir, "plan.json")
	if err := planfile.Write(saved, pl.Plan); err != nil {
		t.Fatal(err)
	}

	var sent Applied
	res, err := pl.Apply(ctx, pl.Plan, apply.Options{}, &sent)
	if err != nil || res.Failed != 0 || res.Succeeded != len(pl.Plan.Changes) {
		t.Fatalf("Apply = %+v, %v; want all %d changes applied", res, err, len(pl.Plan.Changes))
	}
	if len(sent.Changes()) != len(pl.Plan.Changes) {
		t.Errorf("Applied saw %d changes, want %d", len(sent.Changes()), len(pl.Plan.Changes))
	}
	missing, err := Verify(ctx, pl.Reader(), sent.Changes(), 10*time.Second)
	if err != nil || missing != nil {
		t.Fatalf("Verify = %v, %v; want every change shown", missing, err)
	}

	again, err := LoadSaved(ctx, SavedRequest{PlanFile: saved, Source: fixed(source(), &reads), Dial: dial, CredentialsFile: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	ix := plan.NewTarget(again.Target)
	for i := range again.Plan.Changes {
		if st, _ := ix.Check(&again.Plan.Changes[i]); st != plan.Done {
			t.Errorf("saved change %s is %v on the target, want done", again.Plan.Changes[i].ID, st)
		}
	}
	if reads != 2 {
		t.Errorf("source read %d times, want twice", reads)
	}
}

// TestApplyNeedsALiveTarget: a plan against a target snapshot is for
// review; Apply refuses it without sending anything.
func TestApplyNeedsALiveTarget(t *testing.T) {
	pl := &Planned{Plan: build(t, source(), target(), plan.Options{}), Target: target()}
	if _, err := pl.Apply(context.Background(), pl.Plan, apply.Options{}, nil); err == nil || !strings.Contains(err.Error(), "live target") {
		t.Errorf("Apply without a connection = %v, want a refusal", err)
	}
	if pl.TargetKey() != "dst-id" {
		t.Errorf("TargetKey = %q", pl.TargetKey())
	}
}
