package plan

import "github.com/zkmigrate/zkmigrate/internal/catalogue"

var groupConfigs = configKind{KindGroupConfig, catalogue.ScopeGroup}

// group-config: a group's dynamic configs (KIP-848 consumer.*, KIP-932
// share.*, KIP-1071 streams.*), set through IncrementalAlterConfigs on a
// GROUP resource. Kafka keeps them whether or not the group exists.
// KindGroupConfig is a change to a consumer group's configs (only from a KRaft source read through the admin protocol).
const KindGroupConfig Kind = "group-config"

var groupConfigSpec = &spec{
	kind:     KindGroupConfig,
	valid:    needsBeforeAndAfter,
	resource: "group",
	build: func(b *builder) error {
		b.namedConfigs(groupConfigs, "group", "group ", b.in.Source.GroupConfigs, b.in.Target.GroupConfigs)
		return nil
	},
	observe: func(ix *Target, c *Change) *State {
		return &State{Configs: pick(ix.groups[c.Resource.Name], touchedKeys(c))}
	},
	equal: func(obs, ref *State) bool {
		return equalConfigs(groupConfigs.scope, stateConfigs(obs), stateConfigs(ref))
	},
	fields: configFields,
	label:  func(r Resource) string { return "group " + r.Name },
	invert: invertConfigs,
}
