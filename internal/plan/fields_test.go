package plan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestFieldsNeverHoldSecrets: every change of every golden case, secrets
// known in memory, gives fields whose JSON and text hold no secret value;
// a sensitive field holds its reference only.
func TestFieldsNeverHoldSecrets(t *testing.T) {
	sensitiveSeen := 0
	for name, in := range cases(t) {
		p := mustBuild(in)
		for i := range p.Changes {
			c := &p.Changes[i]
			fields, err := plan.Fields(c)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, _ := json.Marshal(fields)
			var text strings.Builder
			for _, f := range fields {
				text.WriteString(render.FieldText(f, "->") + "\n")
				if f.Sensitive {
					sensitiveSeen++
					for _, v := range []*string{f.Before, f.After} {
						if v != nil && *v != "" && !strings.Contains(*v, ":") {
							t.Errorf("%s %s: sensitive field %s holds %q, not a reference", name, c.ID, f.Key, *v)
						}
					}
				}
			}
			for _, s := range []string{secretPassword, scramPassword} {
				if strings.Contains(string(b), s) || strings.Contains(text.String(), s) {
					t.Errorf("%s %s: a secret value is in its fields:\n%s\n%s", name, c.ID, b, text.String())
				}
			}
		}
	}
	if sensitiveSeen == 0 {
		t.Fatal("no sensitive field in any case: the test checks nothing")
	}
}

// TestFields: what each kind's change shows, key by key (before, after,
// sensitive), table-driven over hand-made changes.
func TestFields(t *testing.T) {
	pw := secret.New("scram-credentials:alice/SCRAM-SHA-256", scramPassword)
	key := secret.New("zookeeper:/config/brokers/1#ssl.key.password", secretPassword)
	tests := []struct {
		name string
		c    plan.Change
		want []string // render.FieldText of each field
	}{
		{"topic create", plan.Change{Kind: plan.KindTopic, Action: plan.ActionCreate,
			After: &plan.State{Partitions: 2, ReplicationFactor: 3, Configs: []snapshot.Config{{Key: "cleanup.policy", Value: "compact"}, {Key: "x", Value: ""}}}},
			[]string{"+ partitions = 2", "+ replication factor = 3", "+ assignment = placed by the target", "+ cleanup.policy = compact", `+ x = ""`}},
		{"topic delete", plan.Change{Kind: plan.KindTopic, Action: plan.ActionDelete, Before: &plan.State{Partitions: 1, ReplicationFactor: 1}},
			[]string{"- partitions (was 1)", "- replication factor (was 1)"}},
		{"partitions", plan.Change{Kind: plan.KindPartitions, Action: plan.ActionUpdate, Before: &plan.State{Partitions: 2}, After: &plan.State{Partitions: 3, Assignment: [][]int32{{3, 1}}}},
			[]string{"~ partitions: 2 -> 3", "+ assignment = 2:[3,1]"}},
		{"reassignment", plan.Change{Kind: plan.KindReassignment, Action: plan.ActionUpdate, Before: &plan.State{Assignment: [][]int32{{1, 2}}}, After: &plan.State{Assignment: [][]int32{{2, 3}}}},
			[]string{"~ assignment: 0:[1,2] -> 0:[2,3]"}},
		{"broker config with a secret", plan.Change{Kind: plan.KindBrokerConfig, Action: plan.ActionUpdate,
			Before: &plan.State{Configs: []snapshot.Config{{Key: "a", Value: "1"}, {Key: "gone", Value: " x"}, {Key: "ssl.key.password", Sensitive: true}}},
			After:  &plan.State{Configs: []snapshot.Config{{Key: "a", Value: "2"}, {Key: "ssl.key.password", Sensitive: true, Secret: &key}}}},
			[]string{"~ a: 1 -> 2", `- gone (was " x")`, "~ ssl.key.password: (sensitive) -> (sensitive, from zookeeper:/config/brokers/1#ssl.key.password)"}},
		{"config turned sensitive", plan.Change{Kind: plan.KindTopicConfig, Action: plan.ActionUpdate,
			Before: &plan.State{Configs: []snapshot.Config{{Key: "k", Value: "old-plain"}}},
			After:  &plan.State{Configs: []snapshot.Config{{Key: "k", Sensitive: true, Secret: &key}}}},
			[]string{"~ k: (sensitive) -> (sensitive, from zookeeper:/config/brokers/1#ssl.key.password)"}},
		{"quota", plan.Change{Kind: plan.KindQuota, Action: plan.ActionUpdate, Before: &plan.State{Quota: map[string]float64{"a": 1, "b": 2}}, After: &plan.State{Quota: map[string]float64{"a": 1.5, "c": 3}}},
			[]string{"~ a: 1 -> 1.5", "- b (was 2)", "+ c = 3"}},
		{"acl", plan.Change{Kind: plan.KindACL, Action: plan.ActionCreate, After: &plan.State{Present: true}}, nil},
		{"scram create", plan.Change{Kind: plan.KindScramUser, Action: plan.ActionCreate, After: &plan.State{Iterations: 8192, Password: &pw}},
			[]string{"+ iterations = 8192", "+ password = (sensitive, from scram-credentials:alice/SCRAM-SHA-256)"}},
		{"scram resend", plan.Change{Kind: plan.KindScramUser, Action: plan.ActionUpdate, Before: &plan.State{Iterations: 4096}, After: &plan.State{Iterations: 4096, Password: &pw}},
			[]string{"= iterations = 4096", "~ password: (sensitive) -> (sensitive, from scram-credentials:alice/SCRAM-SHA-256)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, err := plan.Fields(&tt.c)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fields {
				got = append(got, render.FieldText(f, "->"))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if strings.Contains(strings.Join(got, ""), "old-plain") {
				t.Error("the value of a key that is now sensitive is shown")
			}
		})
	}
}
