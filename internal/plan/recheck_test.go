package plan_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// withIDs is a case's input with the endpoints a real source and target give.
func withIDs(in plan.Input) plan.Input {
	in.SourceEndpoint = plan.Endpoint{Kind: "zookeeper", Address: "zk:2181", ClusterID: in.Source.ClusterID}
	in.TargetEndpoint = plan.Endpoint{Kind: "kafka", Address: "k:9092", ClusterID: in.Target.ClusterID}
	return in
}

// asSaved is p as apply reads it back from a file: secrets by reference.
func asSaved(t *testing.T, p *plan.Plan) *plan.Plan {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out plan.Plan
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func change(t *testing.T, p *plan.Plan, id string) *plan.Change {
	t.Helper()
	i := slices.IndexFunc(p.Changes, func(c plan.Change) bool { return c.ID == id })
	if i < 0 {
		t.Fatalf("no change %s", id)
	}
	return &p.Changes[i]
}

// An unedited saved plan is justified, before it is applied and after (a
// resumed apply: every change is done, the source plans nothing).
func TestRecheckAcceptsTheSavedPlan(t *testing.T) {
	for name, in := range cases(t) {
		t.Run(name, func(t *testing.T) {
			in := withIDs(in)
			saved := asSaved(t, mustBuild(in))
			if err := plan.Recheck(saved, mustBuild(in), plan.NewTarget(in.Target)); err != nil {
				t.Fatalf("before apply: %v", err)
			}
			in.Target = plantest.Simulate(t, in.Target, saved.Changes)
			if err := plan.Recheck(saved, mustBuild(in), plan.NewTarget(in.Target)); err != nil && !in.Options.ResendSecrets {
				t.Fatalf("after apply: %v", err)
			}
		})
	}
}

func TestRecheckRefuses(t *testing.T) {
	base := withIDs(cases(t)["partial-target"])
	for _, c := range []struct {
		name  string
		edit  func(t *testing.T, saved *plan.Plan, in *plan.Input)
		wants []string
	}{
		{"partition count", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			change(t, p, "partitions:orders").After.Partitions = 9
		}, []string{"partitions:orders: after-state"}},
		{"retention.ms", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			c := change(t, p, "topic:wide")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "retention.ms", Value: "1"})
		}, []string{"topic:wide: after-state"}},
		{"added ACL", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			a := snapshot.ACL{ResourceType: "Cluster", ResourceName: "kafka-cluster", PatternType: "LITERAL", Principal: "User:mallory", Host: "*", Operation: "All", Permission: "Allow"}
			r := plan.Resource{Type: "acl", Name: a.String(), ACL: &a}
			p.Changes = append(p.Changes, plan.Change{ID: plan.ChangeID(plan.KindACL, r), Kind: plan.KindACL, Action: plan.ActionCreate, Resource: r, After: &plan.State{Present: true}})
		}, []string{"acl:Allow User:mallory All on Cluster:LITERAL:kafka-cluster from *: the current source would not plan this change"}},
		{"action", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			change(t, p, "topic:wide").Action = plan.ActionUpdate
		}, []string{"topic:wide: action update, the source plans create"}},
		{"secret moved to another broker's change", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			c := change(t, p, "broker-config:<default>")
			ref := secret.Ref("zookeeper:/config/brokers/1#listener.name.sasl_ssl.ssl.key.password")
			c.After.Configs = append(c.After.Configs, snapshot.Config{Key: "listener.name.sasl_ssl.ssl.key.password", Sensitive: true, Secret: &ref})
		}, []string{"broker-config:<default>: after-state"}},
		{"the source changed since", func(t *testing.T, _ *plan.Plan, in *plan.Input) {
			in.Source.Topic("orders").Configs = cfg("cleanup.policy", "delete", "retention.ms", "1000")
		}, []string{"topic-config:orders: after-state"}},
		{"a policy now denies it", func(t *testing.T, _ *plan.Plan, in *plan.Input) {
			in.Policy = denyPolicy{"wide"}
		}, []string{"topic:wide: blocked now: policy rule \"no-wide\""}},
		{"another source", func(t *testing.T, _ *plan.Plan, in *plan.Input) {
			in.SourceEndpoint.ClusterID = "other-source"
		}, []string{"the plan was made for source cluster src-cluster, but the source given now (zk:2181) is cluster other-source"}},
		{"another target", func(t *testing.T, _ *plan.Plan, in *plan.Input) {
			in.TargetEndpoint.ClusterID = "other-target"
		}, []string{"target cluster tgt-cluster", "is cluster other-target"}},
		{"no target id now", func(t *testing.T, _ *plan.Plan, in *plan.Input) {
			in.TargetEndpoint.ClusterID = ""
		}, []string{"the target k:9092 reports no cluster id"}},
		{"no source id saved", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			p.Source.ClusterID = ""
		}, []string{"the plan records no source cluster id"}},
		{"no target id saved", func(t *testing.T, p *plan.Plan, _ *plan.Input) {
			p.Target.ClusterID = ""
		}, []string{"the plan records no target cluster id"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := base
			in.Source = legacy()
			saved := asSaved(t, mustBuild(in))
			c.edit(t, saved, &in)
			err := plan.Recheck(saved, mustBuild(in), plan.NewTarget(in.Target))
			if err == nil {
				t.Fatal("Recheck accepted the plan")
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// Shows is what apply's verify waits for: after every change is applied the
// target shows each one, and a secret sent again (--resend-secrets) is shown
// before as after, since Kafka never returns it; Check calls such a change
// Pending, so a verify built on Check == Done waited out its whole timeout.
func TestTargetShowsAppliedChanges(t *testing.T) {
	for name, in := range cases(t) {
		t.Run(name, func(t *testing.T) {
			p := mustBuild(in)
			before, after := plan.NewTarget(in.Target), plan.NewTarget(plantest.Simulate(t, in.Target, p.Changes))
			resent := 0
			for i := range p.Changes {
				c := &p.Changes[i]
				if !after.Shows(c) {
					t.Errorf("%s: the target after apply does not show it", c.ID)
				}
				if st, _ := before.Check(c); st == plan.Pending && before.Shows(c) {
					resent++
					if !in.Options.ResendSecrets {
						t.Errorf("%s: pending, yet the target shows it before apply", c.ID)
					}
				}
			}
			if in.Options.ResendSecrets && resent == 0 {
				t.Errorf("no resent secret is shown before apply")
			}
		})
	}
}
