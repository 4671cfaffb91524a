package plan_test

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// typedSource holds values as the source's ZooKeeper stores them; typedTarget
// the same values as Kafka 4.1 prints them in DescribeConfigs.
func typedSource() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 1}},
		Topics: []snapshot.Topic{{Name: "t", Partitions: parts([]int32{1}),
			Configs: cfg("cleanup.policy", "compact, delete", "min.cleanable.dirty.ratio", "0.50", "unclean.leader.election.enable", "TRUE")}},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "", Configs: cfg("log.cleaner.io.max.bytes.per.second", "10485760", "x.unknown", "1.0")}},
	}
	s.Sort()
	return s
}

func typedTarget(unknown string) *snapshot.Snapshot {
	t := &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 1}},
		Topics: []snapshot.Topic{{Name: "t", Partitions: parts([]int32{1}),
			Configs: cfg("cleanup.policy", "compact,delete", "min.cleanable.dirty.ratio", "0.5", "unclean.leader.election.enable", "true")}},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "", Configs: cfg("log.cleaner.io.max.bytes.per.second", "1.048576E7", "x.unknown", unknown)}},
	}
	t.Sort()
	return t
}

// TestConfigsComparedByType: values equal by their Kafka type plan nothing;
// an unknown key is still compared as text.
func TestConfigsComparedByType(t *testing.T) {
	p := mustBuild(plan.Input{Source: typedSource(), Target: typedTarget("1.0")})
	if len(p.Changes) != 0 {
		var b strings.Builder
		_ = render.PlanText(&b, p)
		t.Errorf("values equal by type were planned again:\n%s", b.String())
	}
	p = mustBuild(plan.Input{Source: typedSource(), Target: typedTarget("1")})
	if len(p.Changes) != 1 || p.Changes[0].ID != "broker-config:<default>" || len(p.Changes[0].After.Configs) != 1 || p.Changes[0].After.Configs[0].Key != "x.unknown" {
		t.Errorf("want one change of the unknown key x.unknown (text 1.0 vs 1), got %+v", p.Changes)
	}
}

// TestCheckComparesByType: apply's staleness check and its verify read the
// target back; Kafka's printed form of the planned value counts as done.
func TestCheckComparesByType(t *testing.T) {
	empty := &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 1}}, Topics: []snapshot.Topic{{Name: "t", Partitions: parts([]int32{1})}}}
	p := mustBuild(plan.Input{Source: typedSource(), Target: empty})
	if len(p.Changes) != 2 {
		t.Fatalf("want a topic-config and a broker-config change, got %d", len(p.Changes))
	}
	applied := typedTarget("1.0")
	for i := range p.Changes {
		if st, obs := plan.Check(applied, &p.Changes[i]); st != plan.Done {
			t.Errorf("%s against the target printing Kafka's forms: %v (observed %s), want done", p.Changes[i].ID, st, obs)
		}
	}
	drifted := typedTarget("1.0")
	drifted.BrokerConfigs[0].Configs[0].Value = "2.097152E7"
	for i := range p.Changes {
		if p.Changes[i].Kind == plan.KindBrokerConfig {
			if st, _ := plan.Check(drifted, &p.Changes[i]); st != plan.Stale {
				t.Errorf("a different DOUBLE value: %v, want stale", st)
			}
		}
	}
}

// A BOOLEAN is true whatever its case: a tiered topic written "TRUE" is
// still blocked.
func TestTieredTopicBooleanCase(t *testing.T) {
	src := &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 1}},
		Topics: []snapshot.Topic{{Name: "tiered", Partitions: parts([]int32{1}), Configs: cfg("remote.storage.enable", "TRUE")}}}
	p := mustBuild(plan.Input{Source: src, Target: &snapshot.Snapshot{Format: 1, Brokers: []snapshot.Broker{{ID: 1}}}})
	if len(p.Changes) != 0 || len(p.Blockers) != 1 || p.Blockers[0].ID != "tiered-storage-topic" {
		t.Errorf("remote.storage.enable=TRUE: changes %+v, blockers %+v; want the topic blocked as tiered", p.Changes, p.Blockers)
	}
}
