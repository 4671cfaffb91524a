package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

var brokerConfigs = configKind{KindBrokerConfig, catalogue.ScopeBroker}

// broker-config: dynamic broker configs, per broker ("1") or cluster-wide
// (""), set through IncrementalAlterConfigs.
// KindBrokerConfig is a change to a broker's, or the cluster default's, dynamic configs.
const KindBrokerConfig Kind = "broker-config"

var brokerConfigSpec = &spec{
	kind:     KindBrokerConfig,
	valid:    needsBefore,
	resource: "broker",
	build:    func(b *builder) error { b.brokerConfigs(); return nil },
	observe: func(ix *Target, c *Change) *State {
		return &State{Configs: pick(ix.brokers[c.Resource.Name], touchedKeys(c))}
	},
	equal: func(obs, ref *State) bool {
		return equalConfigs(brokerConfigs.scope, stateConfigs(obs), stateConfigs(ref))
	},
	fields: configFields,
	label: func(r Resource) string {
		if r.Name == "" {
			return "<default>"
		}
		return "broker " + r.Name
	},
	invert: invertConfigs,
}

func (b *builder) brokerConfigs() {
	have := map[string][]snapshot.Config{}
	for _, bc := range b.in.Target.BrokerConfigs {
		have[bc.Broker] = bc.Configs
	}
	seen := map[string]bool{}
	for _, bc := range b.in.Source.BrokerConfigs {
		name := bc.Broker
		label := brokerLabel(name)
		if name != "" {
			id, err := strconv.Atoi(name)
			if err != nil {
				b.finding(catalogue.IDBrokerConfigBadID, snapshot.SeverityWarning, label, "dynamic broker config for a non-numeric broker id is skipped", "")
				continue
			}
			to := int32(id)
			if m := b.in.Options.BrokerIDMap; len(m) > 0 {
				mapped, ok := m[to]
				if !ok {
					b.block(catalogue.IDBlockBrokerNotMapped, KindBrokerConfig, label, "--broker-id-map has no entry for this broker, so its configs have no destination", "add the broker to --broker-id-map", nil)
					continue
				}
				to = mapped
			}
			if !b.targetBrokers[to] {
				b.block(catalogue.IDBlockBrokerMissing, KindBrokerConfig, label,
					fmt.Sprintf("per-broker configs go to broker %d, which the target does not have", to),
					"map the broker with --broker-id-map, or set the configs by hand on the right broker", nil)
				continue
			}
			name = strconv.Itoa(int(to))
		}
		seen[name] = true
		configs := configsWithout(bc.Configs, b.isRemovedBrokerConfig, func(c snapshot.Config) {
			b.finding(catalogue.IDConfigRemovedKafka4, snapshot.SeverityWarning, label, fmt.Sprintf("broker config %s is removed in Kafka 4 (or ZooKeeper-only) and is dropped", c.Key), "")
		})
		if name == "" {
			b.keptClusterConfigs(configs, have[""])
		}
		if cc := b.configChange(brokerConfigs, configs, have[name], brokerLabel(name), b.pruneBroker(name)); cc != nil {
			cc.Kind, cc.Resource = KindBrokerConfig, Resource{Type: "broker", Name: name}
			b.add(*cc)
		}
	}
	if b.in.Options.Prune {
		for _, bc := range b.in.Target.BrokerConfigs {
			if seen[bc.Broker] {
				continue
			}
			if bc.Broker == "" {
				b.keptClusterConfigs(nil, bc.Configs)
			}
			if cc := b.configChange(brokerConfigs, nil, bc.Configs, brokerLabel(bc.Broker), b.pruneBroker(bc.Broker)); cc != nil {
				cc.Kind, cc.Resource = KindBrokerConfig, Resource{Type: "broker", Name: bc.Broker}
				b.add(*cc)
			}
		}
	}
}

// pruneBroker returns which of a broker's configs (for "", the cluster-level
// ones) Prune deletes when the source does not have them. Cluster-level
// configs need PruneClusterConfigs too: a new Kafka 4 cluster holds defaults
// of its own that nobody migrated. Even then the cluster-level
// min.insync.replicas stays on a 4.1+ target: with eligible leader replicas
// (KIP-966, on by default from 4.1) the controller sets it itself and refuses
// its removal ("Cluster-level min.insync.replicas cannot be removed while ELR
// is enabled").
func (b *builder) pruneBroker(name string) func(key string) bool {
	o := b.in.Options
	return func(key string) bool {
		if !o.Prune || name != "" {
			return o.Prune
		}
		return o.PruneClusterConfigs && !(key == "min.insync.replicas" && b.targetAtLeast41())
	}
}

// targetAtLeast41 reports a Kafka 4.1+ target (an empty TargetVersion is 4.1).
func (b *builder) targetAtLeast41() bool { return b.target().AtLeast(catalogue.V4_1) }

// keptClusterConfigs notes, under Prune, the target's cluster-level broker
// configs the source does not have and Prune keeps.
func (b *builder) keptClusterConfigs(want, have []snapshot.Config) {
	o := b.in.Options
	if !o.Prune || !b.wantKind(KindBrokerConfig) {
		return
	}
	prunes := b.pruneBroker("")
	var keys []string
	for _, h := range have {
		if !slices.ContainsFunc(want, func(w snapshot.Config) bool { return w.Key == h.Key }) && !prunes(h.Key) {
			keys = append(keys, h.Key)
		}
	}
	if len(keys) == 0 {
		return
	}
	if o.PruneClusterConfigs {
		b.finding(catalogue.IDPruneKeepsClusterConfigs, snapshot.SeverityInfo, "broker <default>",
			"--prune-cluster-configs keeps the target's cluster-level min.insync.replicas: with eligible leader replicas (KIP-966, on by default from Kafka 4.1) the controller sets it and refuses its removal",
			"nothing; set the value you want instead of deleting it (kafka-configs --entity-type brokers --entity-default --alter)")
		return
	}
	b.finding(catalogue.IDPruneKeepsClusterConfigs, snapshot.SeverityInfo, "broker <default>",
		fmt.Sprintf("--prune keeps the target's cluster-level broker %s %s, which the source does not have: a new cluster sets defaults of its own (Kafka 4.1 sets min.insync.replicas for eligible leader replicas) that nobody migrated", english.Agree(len(keys), "config", "configs"), strings.Join(keys, ", ")),
		"give --prune-cluster-configs as well to delete them")
}

func brokerLabel(name string) string {
	if name == "" {
		return "broker <default>"
	}
	return "broker " + name
}
