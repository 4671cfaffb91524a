package plan

import (
	"fmt"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

var clientMetrics = configKind{KindClientMetrics, catalogue.ScopeClientMetrics}

// client-metrics: a client-metrics subscription (KIP-714: metrics,
// interval.ms, match), set through IncrementalAlterConfigs on a
// CLIENT_METRICS resource. A subscription exists while it has configs.
// KindClientMetrics is a change to a client-metrics resource (only from a KRaft source read through the admin protocol).
const KindClientMetrics Kind = "client-metrics"

var clientMetricsSpec = &spec{
	kind:     KindClientMetrics,
	valid:    needsBeforeAndAfter,
	resource: "client-metrics",
	build: func(b *builder) error {
		b.namedConfigs(clientMetrics, "client-metrics", "client-metrics ", b.in.Source.ClientMetrics, b.in.Target.ClientMetrics)
		return nil
	},
	observe: func(ix *Target, c *Change) *State {
		return &State{Configs: pick(ix.clientMetrics[c.Resource.Name], touchedKeys(c))}
	},
	equal: func(obs, ref *State) bool {
		return equalConfigs(clientMetrics.scope, stateConfigs(obs), stateConfigs(ref))
	},
	fields: configFields,
	label:  nameLabel,
	invert: invertConfigs,
}

// namedConfigs builds the changes of a kind of named config resources
// (client-metrics subscriptions, groups): a resource the target lacks is
// created, one that differs updated, and with Prune one only the target has
// is deleted, as are its keys the source lacks. Prune touches these kinds
// only for a source read through the admin protocol: ZooKeeper has none, so
// a ZooKeeper source says nothing about them.
func (b *builder) namedConfigs(k configKind, typ, labelPrefix string, src, tgt []snapshot.NamedConfigs) {
	if !b.wantKind(k.kind) {
		return
	}
	prune := b.in.Options.Prune && b.in.Source.Source == snapshot.SourceKafka
	if b.in.Options.Prune && !prune && len(tgt) > 0 {
		b.finding(catalogue.IDPruneKeepsKRaftOnly, snapshot.SeverityInfo, string(k.kind),
			fmt.Sprintf("--prune leaves the target's %s alone: a %s source cannot hold them", english.N(len(tgt), string(k.kind)+" resource"), b.in.Source.Source),
			"")
	}
	have := make(map[string][]snapshot.Config, len(tgt))
	for _, t := range tgt {
		have[t.Name] = t.Configs
	}
	seen := make(map[string]bool, len(src))
	emit := func(name string, want []snapshot.Config, present bool) {
		cc := b.configChange(k, want, have[name], labelPrefix+name, func(string) bool { return prune })
		if cc == nil {
			return
		}
		switch {
		case !present:
			cc.Action = ActionCreate
		case len(cc.After.Configs) == 0 && len(cc.Before.Configs) == len(have[name]):
			cc.Action = ActionDelete
		}
		cc.Kind, cc.Resource = k.kind, Resource{Type: typ, Name: name}
		b.add(*cc)
	}
	for _, s := range src {
		seen[s.Name] = true
		_, present := have[s.Name]
		emit(s.Name, s.Configs, present && len(have[s.Name]) > 0)
	}
	if prune {
		for _, t := range tgt {
			if !seen[t.Name] {
				emit(t.Name, nil, true)
			}
		}
	}
}
