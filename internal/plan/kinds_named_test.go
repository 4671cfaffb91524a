package plan_test

import (
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// TestNamedConfigKinds: client-metrics subscriptions and group configs are
// created, updated and (with --prune, from an admin-protocol source only)
// deleted; equal ones (by the keys' Kafka types) are left alone; and the
// target once simulated plans empty.
func TestNamedConfigKinds(t *testing.T) {
	type kindCase struct {
		kind plan.Kind
		set  func(s *snapshot.Snapshot, l []snapshot.NamedConfigs)
		// keys renames the cases' keys (interval.ms, an INT; match and
		// metrics) to the kind's own keys of the same Kafka types.
		keys map[string]string
	}
	kinds := []kindCase{
		{plan.KindClientMetrics, func(s *snapshot.Snapshot, l []snapshot.NamedConfigs) { s.ClientMetrics = l }, nil},
		{plan.KindGroupConfig, func(s *snapshot.Snapshot, l []snapshot.NamedConfigs) { s.GroupConfigs = l },
			map[string]string{"interval.ms": "consumer.session.timeout.ms", "match": "share.auto.offset.reset", "metrics": "share.isolation.level"}},
	}
	rename := func(keys map[string]string, cs []snapshot.Config) []snapshot.Config {
		var out []snapshot.Config
		for _, c := range cs {
			if k, ok := keys[c.Key]; ok {
				c.Key = k
			}
			out = append(out, c)
		}
		snapshot.SortConfigs(out)
		return out
	}
	renameAll := func(keys map[string]string, l []snapshot.NamedConfigs) []snapshot.NamedConfigs {
		var out []snapshot.NamedConfigs
		for _, nc := range l {
			out = append(out, snapshot.NamedConfigs{Name: nc.Name, Configs: rename(keys, nc.Configs)})
		}
		return out
	}
	tests := []struct {
		name       string
		source     string // snapshot.Source
		src, tgt   []snapshot.NamedConfigs
		prune      bool
		want       plan.Action // "" for no change
		wantBefore []snapshot.Config
		wantAfter  []snapshot.Config
	}{
		{name: "create", src: []snapshot.NamedConfigs{named("x", "interval.ms", "1000")}, want: plan.ActionCreate,
			wantBefore: nil, wantAfter: cfg("interval.ms", "1000")},
		{name: "update", src: []snapshot.NamedConfigs{named("x", "interval.ms", "1000")}, tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "2000", "match", "a=b")},
			want: plan.ActionUpdate, wantBefore: cfg("interval.ms", "2000"), wantAfter: cfg("interval.ms", "1000")},
		{name: "update-prune-key", src: []snapshot.NamedConfigs{named("x", "interval.ms", "1000")}, tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "1000", "match", "a=b")},
			prune: true, want: plan.ActionUpdate, wantBefore: cfg("match", "a=b"), wantAfter: nil},
		{name: "delete-with-prune", tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "1000", "match", "a=b")}, prune: true,
			want: plan.ActionDelete, wantBefore: cfg("interval.ms", "1000", "match", "a=b"), wantAfter: nil},
		{name: "kept-without-prune", tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "1000")}},
		{name: "kept-zookeeper-source-prune", source: snapshot.SourceZooKeeper, tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "1000")}, prune: true},
		{name: "no-op-equal", src: []snapshot.NamedConfigs{named("x", "interval.ms", "01000", "match", "a=b")}, tgt: []snapshot.NamedConfigs{named("x", "interval.ms", "1000", "match", "a=b")}},
		{name: "no-op-equal-list", src: []snapshot.NamedConfigs{named("x", "metrics", "a, b")}, tgt: []snapshot.NamedConfigs{named("x", "metrics", "a,b")}},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(string(k.kind)+"/"+tt.name, func(t *testing.T) {
				src := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "s"}
				if tt.source != "" {
					src.Source = tt.source
				}
				tgt := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "t"}
				if k.kind == plan.KindGroupConfig && tt.name == "no-op-equal-list" {
					t.Skip("no LIST key in a group config")
				}
				k.set(src, renameAll(k.keys, tt.src))
				k.set(tgt, renameAll(k.keys, tt.tgt))
				in := plan.Input{Source: src, Target: tgt, Options: plan.Options{Prune: tt.prune, Include: []plan.Kind{k.kind}}}
				p := mustBuild(in)
				if tt.want == "" {
					if len(p.Changes) != 0 {
						t.Fatalf("changes %+v, want none", p.Changes)
					}
					return
				}
				if len(p.Changes) != 1 {
					t.Fatalf("%d changes, want 1: %+v", len(p.Changes), p.Changes)
				}
				c := p.Changes[0]
				if c.Kind != k.kind || c.Action != tt.want || c.Resource.Name != "x" || c.ID != string(k.kind)+":x" {
					t.Errorf("change %s %s %s %q, want %s %s x", c.ID, c.Kind, c.Action, c.Resource.Name, k.kind, tt.want)
				}
				if !sameConfigs(c.Before.Configs, rename(k.keys, tt.wantBefore)) || !sameConfigs(c.After.Configs, rename(k.keys, tt.wantAfter)) {
					t.Errorf("before %v after %v, want %v and %v", c.Before.Configs, c.After.Configs, tt.wantBefore, tt.wantAfter)
				}
				if st, obs := plan.Check(tgt, &c); st != plan.Pending {
					t.Errorf("Check against the planning target = %v (%s), want pending", st, obs)
				}
				done := plantest.Simulate(t, tgt, p.Changes)
				if st, _ := plan.Check(done, &c); st != plan.Done {
					t.Errorf("Check against the applied target = %v, want done", st)
				}
				in.Target = done
				if again := mustBuild(in); len(again.Changes) != 0 {
					t.Errorf("second plan has %d changes", len(again.Changes))
				}
				// Excluded, the kind plans nothing.
				in.Target, in.Options.Include, in.Options.Exclude = tgt, nil, []plan.Kind{k.kind}
				if p := mustBuild(in); len(p.Changes) != 0 {
					t.Errorf("--exclude %s: %d changes", k.kind, len(p.Changes))
				}
			})
		}
	}
}

func sameConfigs(a, b []snapshot.Config) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}
