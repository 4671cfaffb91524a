package plan_test

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestBlockersNameTheSourceKind: what cannot be carried is explained by
// where the source was read from (ZooKeeper keeps salted keys and encrypted
// passwords; the admin protocol returns neither).
func TestBlockersNameTheSourceKind(t *testing.T) {
	for _, tt := range []struct {
		kind, secret, scram string
	}{
		{snapshot.SourceZooKeeper, "encrypted in ZooKeeper", "ZooKeeper holds only salted keys"},
		{snapshot.SourceKafka, "never return its value through the admin protocol", "give only the mechanism and iterations"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			ref := secret.Ref("r")
			src := &snapshot.Snapshot{Format: 1, Source: tt.kind, Brokers: []snapshot.Broker{{ID: 1}},
				BrokerConfigs: []snapshot.BrokerConfig{{Broker: "1", Configs: []snapshot.Config{{Key: "ssl.key.password", Sensitive: true, Secret: &ref}}}},
				ScramUsers:    []snapshot.ScramUser{{Name: "carol", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096, Secret: &ref}}}}}
			tgt := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, Brokers: []snapshot.Broker{{ID: 1}}}
			p := mustBuild(plan.Input{Source: src, Target: tgt})
			got := map[string]string{}
			for _, b := range p.Blockers {
				got[b.ID] = b.Reason
			}
			if !strings.Contains(got["secret-unknown"], tt.secret) {
				t.Errorf("secret-unknown %q, want it to say %q", got["secret-unknown"], tt.secret)
			}
			if !strings.Contains(got["scram-no-password"], tt.scram) {
				t.Errorf("scram-no-password %q, want it to say %q", got["scram-no-password"], tt.scram)
			}
		})
	}
}
