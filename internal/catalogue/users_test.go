package catalogue_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/check"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// source is a ZooKeeper source with one topic and one dynamic broker
// config holding key=value.
func source(scope catalogue.Scope, key, value string) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceZooKeeper, ClusterID: "src",
		Brokers:       []snapshot.Broker{{ID: 1}},
		Topics:        []snapshot.Topic{{Name: "orders", ID: "AAAAAAAAAAAAAAAAAAAAAA", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{1}}}}},
		StaticConfigs: []snapshot.StaticConfig{{File: "server.properties", Configs: []snapshot.Config{{Key: "broker.id", Value: "1"}}}},
	}
	c := snapshot.Config{Key: key, Value: value}
	if scope == catalogue.ScopeTopic {
		s.Topics[0].Configs = []snapshot.Config{c}
	} else {
		s.BrokerConfigs = []snapshot.BrokerConfig{{Broker: "1", Configs: []snapshot.Config{c}}}
	}
	return s
}

func target() *snapshot.Snapshot {
	return &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "tgt", Brokers: []snapshot.Broker{{ID: 1}}}
}

// plans reports whether the plan for target version v sends key, and
// whether it names the key as dropped.
func plans(t *testing.T, scope catalogue.Scope, key string, v catalogue.Version) (sent, dropped bool) {
	t.Helper()
	p, err := plan.Build(plan.Input{Source: source(scope, key, "1"), Target: target(), Options: plan.Options{TargetVersion: v.String()}})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(p.Changes)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Findings {
		if f.ID == "config-removed-kafka4" && (strings.Contains(f.Message, " "+key+" ") || strings.Contains(f.Message, " "+key+"=")) {
			dropped = true
		}
	}
	return strings.Contains(string(js), `"key":"`+key+`"`), dropped
}

// checks reports whether check, for target version v, reports key as
// removed.
func checks(t *testing.T, scope catalogue.Scope, key string, v catalogue.Version) bool {
	t.Helper()
	fs, err := check.Run(source(scope, key, "1"), check.Options{TargetVersion: v.String()})
	if err != nil {
		t.Fatal(err)
	}
	id := "K4-BROKER-CONFIG-REMOVED"
	if scope == catalogue.ScopeTopic {
		id = "K4-TOPIC-CONFIG-REMOVED"
	}
	for _, f := range fs {
		if f.ID == id && strings.Contains(f.Message, key) {
			return true
		}
	}
	return false
}

// plan and check follow the one removed-key table: on each target, a key
// the catalogue removes is dropped by the plan and reported by the check,
// and a key it keeps is sent and not reported.
func TestPlanAndCheckAgreeOnRemovedKeys(t *testing.T) {
	type key struct {
		scope catalogue.Scope
		name  string
	}
	keys := []key{{catalogue.ScopeTopic, "retention.ms"}, {catalogue.ScopeBroker, "log.retention.ms"}}
	for _, r := range catalogue.RemovedKeys {
		keys = append(keys, key{r.Scope, r.Key})
	}
	for _, p := range catalogue.RemovedPrefixes {
		keys = append(keys, key{catalogue.ScopeBroker, p.Prefix + "some.key"})
	}
	for _, v := range []catalogue.Version{catalogue.V4_0, catalogue.V4_1} {
		for _, k := range keys {
			_, removed := catalogue.Removed(k.scope, k.name, v)
			sent, dropped := plans(t, k.scope, k.name, v)
			reported := checks(t, k.scope, k.name, v)
			if sent == removed || dropped != removed || reported != removed {
				t.Errorf("%s on %s: catalogue removes it %v; plan sends it %v, names it dropped %v; check reports it %v",
					k.name, v, removed, sent, dropped, reported)
			}
		}
	}
}

// plan --raise-to-target-minimums raises to the catalogue's topic floors,
// and check reports values below them, on the same targets.
func TestPlanAndCheckAgreeOnTopicFloors(t *testing.T) {
	for _, f := range catalogue.Floors {
		if f.Scope != catalogue.ScopeTopic {
			continue
		}
		below := f.Min - 1
		for _, v := range []catalogue.Version{catalogue.V4_0, catalogue.V4_1} {
			_, enforced := catalogue.FloorOf(f.Scope, f.Key, v)
			src := source(f.Scope, f.Key, itoa(below))
			p, err := plan.Build(plan.Input{Source: src, Target: target(), Options: plan.Options{TargetVersion: v.String(), RaiseToTargetMinimums: true}})
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(p.Changes)
			raised := strings.Contains(string(js), `{"key":"`+f.Key+`","value":"`+itoa(f.Min)+`"}`)
			fs, err := check.Run(src, check.Options{TargetVersion: v.String()})
			if err != nil {
				t.Fatal(err)
			}
			errored := false
			for _, x := range fs {
				if strings.Contains(x.Message, f.Key+"="+itoa(below)) && x.Severity == check.SeverityError {
					errored = true
				}
			}
			if raised != enforced || errored != enforced {
				t.Errorf("%s=%d on %s: floor enforced %v; plan raises it %v; check reports an error %v", f.Key, below, v, enforced, raised, errored)
			}
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
