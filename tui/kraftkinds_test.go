package tui

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestReviewShowsKRaftKinds: the review lists client-metrics and
// group-config changes under their kinds, by their labels, and the detail
// of one shows its fields key by key (the kind-neutral diff; nothing in
// the TUI knows these kinds).
func TestReviewShowsKRaftKinds(t *testing.T) {
	cf := func(kv ...string) []snapshot.Config {
		var out []snapshot.Config
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, snapshot.Config{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "s",
		ClientMetrics: []snapshot.NamedConfigs{{Name: "producers", Configs: cf("interval.ms", "60000", "metrics", "org.apache.kafka.producer.")}},
		GroupConfigs:  []snapshot.NamedConfigs{{Name: "orders-app", Configs: cf("consumer.session.timeout.ms", "50000")}}}
	tgt := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "t",
		GroupConfigs: []snapshot.NamedConfigs{{Name: "orders-app", Configs: cf("consumer.session.timeout.ms", "45000")}}}
	p, err := plan.Build(plan.Input{Source: src, Target: tgt})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestRoot(120, 40, p, "apply")
	v := view(m)
	for _, want := range []string{"client-metrics", "producers", "group-config", "group orders-app"} {
		if !strings.Contains(v, want) {
			t.Errorf("review lacks %q:\n%s", want, v)
		}
	}
	// The cursor on the group change (the last), its detail shows the field.
	drive(t, m, "G", "d")
	if v := view(m); !strings.Contains(v, "consumer.session.timeout.ms") || !strings.Contains(v, "45000") || !strings.Contains(v, "50000") {
		t.Errorf("detail of the group-config change lacks its field diff:\n%s", v)
	}
}
