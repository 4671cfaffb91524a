package plan

import (
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestEachSecret: the one walk of a plan's secrets visits every password
// and config of every change's before- and after-state, then of every
// blocked change, in order, saying which it is.
func TestEachSecret(t *testing.T) {
	pw := secret.New("scram-credentials:alice/SCRAM-SHA-256", "pw")
	ref := secret.Ref("zookeeper:/config/brokers/1#ssl.key.password")
	p := &Plan{
		Changes: []Change{
			{ID: "scram-user:alice/SCRAM-SHA-256", After: &State{Password: &pw}},
			{ID: "broker-config:1", Before: &State{Configs: []snapshot.Config{{Key: "a", Value: "1"}}},
				After: &State{Configs: []snapshot.Config{{Key: "ssl.key.password", Sensitive: true, Secret: &ref}}}},
		},
		Blockers: []Blocker{{Change: &Change{ID: "topic:t", After: &State{Configs: []snapshot.Config{{Key: "b"}}}}}, {}},
	}
	var got []string
	EachSecret(p, func(at SecretSite) {
		what := "password"
		if at.Config != nil {
			what = at.Config.Key
		}
		side := "before"
		if at.After {
			side = "after"
		}
		if at.Blocked {
			side = "blocked " + side
		}
		got = append(got, at.Change.ID+" "+side+" "+what)
	})
	want := []string{
		"scram-user:alice/SCRAM-SHA-256 after password",
		"broker-config:1 before a",
		"broker-config:1 after ssl.key.password",
		"topic:t blocked after b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("EachSecret visited %q, want %q", got, want)
	}
	s := SecretsOf(p)
	if v, ok := s.Resolve("scram-user:alice/SCRAM-SHA-256", ScramKey, pw.Ref()); !ok || v != "pw" {
		t.Errorf("SecretsOf resolves the password to %q, %v", v, ok)
	}
}
