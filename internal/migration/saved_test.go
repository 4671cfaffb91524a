package migration

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestLoadSavedRefusesBeforeReading: a file that is not a sound plan, or a
// policy other than the plan's, is refused naming the file before the
// source or the target is read.
func TestLoadSavedRefusesBeforeReading(t *testing.T) {
	dir := t.TempDir()
	polFile := writeFile(t, dir, "policy.yaml", policyYAML)
	otherPol := writeFile(t, dir, "other.yaml", strings.Replace(policyYAML, "payments\"", "refunds\"", 1))
	pol, digest, err := LoadPolicy(polFile)
	if err != nil {
		t.Fatal(err)
	}
	_, otherDigest, _ := LoadPolicy(otherPol)
	save := func(name string, edit func(p *plan.Plan)) string {
		p, err := BuildPlan(source(), target(), nil, plan.Options{Policy: digest}, pol, nil)
		if err != nil {
			t.Fatal(err)
		}
		edit(p)
		path := filepath.Join(dir, name)
		if err := planfile.Write(path, p); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := save("good.plan", func(*plan.Plan) {})
	// An edit after sealing: the digest no longer matches.
	p, _ := planfile.Read(good)
	p.Changes[0].After.Partitions = 99
	data, _ := json.Marshal(p)
	edited := writeFile(t, dir, "edited.plan", string(data))

	tests := []struct {
		name, file, policy string
		want               string
		policyErr          *PolicyError
	}{
		{name: "no such file", file: filepath.Join(dir, "none.plan"), want: "none.plan"},
		{name: "not a plan", file: writeFile(t, dir, "junk.plan", "{\"changes\": 7}"), want: "junk.plan"},
		{name: "edited after saving", file: edited, want: "edited.plan: field digest: digest mismatch"},
		{name: "a change apply cannot carry", file: save("after.plan", func(p *plan.Plan) { p.Changes[0].After = nil }),
			want: "after.plan: plan change 1 (topic:orders): no after-state"},
		{name: "a bad topics expression", file: save("re.plan", func(p *plan.Plan) { p.Options.TopicRegex = "(" }), want: "re.plan: field options.topics"},
		{name: "policy not given again", file: good, policyErr: &PolicyError{PlanFile: good, Planned: digest}},
		{name: "another policy", file: good, policy: otherPol, policyErr: &PolicyError{PlanFile: good, Planned: digest, Given: otherPol, GivenDigest: otherDigest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			_, err := LoadSaved(context.Background(), SavedRequest{PlanFile: tt.file, PolicyFile: tt.policy, Source: fixed(source(), &calls),
				Dial: func(context.Context) (*kafkaconn.Conn, error) { calls++; return nil, errors.New("dialled") }})
			if calls != 0 {
				t.Errorf("%d read(s) before the refusal", calls)
			}
			if tt.policyErr != nil {
				var pe *PolicyError
				if !errors.As(err, &pe) || *pe != *tt.policyErr {
					t.Fatalf("LoadSaved = %v, want %+v", err, tt.policyErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadSaved = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestJustify: a saved plan applies only when the target has not moved
// away from it, both clusters are the ones it was made for, and the source
// read now would plan each change identically (or the target shows it
// done); the secrets come from the plan built now.
func TestJustify(t *testing.T) {
	pol, err := policy.Parse("p.yaml", []byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	creds := []plan.Credential{{User: "alice", Mechanism: "SCRAM-SHA-256", Password: secret.New("scram-credentials:alice/SCRAM-SHA-256", "alice-pw")}}
	saved, err := BuildPlan(source(), target(), creds, plan.Options{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	withTopic := func(name string, partitions int) *snapshot.Snapshot {
		s := target()
		for i := 0; i < partitions; i++ {
			if i == 0 {
				s.Topics = append(s.Topics, snapshot.Topic{Name: name})
			}
			s.Topics[len(s.Topics)-1].Partitions = append(s.Topics[len(s.Topics)-1].Partitions, snapshot.Partition{ID: int32(i), Replicas: []int32{1}})
		}
		return s
	}
	tests := []struct {
		name     string
		src, tgt func() *snapshot.Snapshot
		creds    []plan.Credential
		pol      *policy.Policy
		want     string // "" justified
		stale    bool
	}{
		{name: "justified", src: source, tgt: target, creds: creds},
		{name: "already done is fine", src: source, tgt: func() *snapshot.Snapshot {
			s := withTopic("orders", 1)
			s.Topics[0].Configs = []snapshot.Config{{Key: "retention.ms", Value: "86400000"}}
			return s
		}, creds: creds},
		{name: "the target moved away", src: source, tgt: func() *snapshot.Snapshot { return withTopic("orders", 3) }, creds: creds,
			want: "topic orders: found", stale: true},
		{name: "the source dropped a topic", src: func() *snapshot.Snapshot {
			s := source()
			s.Topics = s.Topics[:1]
			return s
		}, tgt: target, creds: creds, want: "topic:payments"},
		{name: "the password file is gone", src: source, tgt: target, want: "scram-user:alice/SCRAM-SHA-256"},
		{name: "a policy denies a saved change", src: source, tgt: target, creds: creds, pol: pol, want: "topic:payments"},
		{name: "another source cluster", src: func() *snapshot.Snapshot {
			s := source()
			s.ClusterID = "other-src"
			return s
		}, tgt: target, creds: creds, want: "the plan was made for source cluster src-id, but the source given now (zk:2181) is cluster other-src"},
		{name: "another target cluster", src: source, tgt: func() *snapshot.Snapshot {
			s := target()
			s.ClusterID = "other-dst"
			return s
		}, creds: creds, want: "target cluster dst-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secrets, err := Justify(saved, tt.src(), tt.tgt(), tt.creds, tt.pol, "", nil)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if v, ok := secrets.Resolve("scram-user:alice/SCRAM-SHA-256", plan.ScramKey, "scram-credentials:alice/SCRAM-SHA-256"); !ok || v != "alice-pw" {
					t.Errorf("the justified plan's secret resolves to %q, %v", v, ok)
				}
				return
			}
			var se *plan.StaleError
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &se) != tt.stale {
				t.Fatalf("Justify = %v, want an error containing %q (stale: %v)", err, tt.want, tt.stale)
			}
		})
	}
}
