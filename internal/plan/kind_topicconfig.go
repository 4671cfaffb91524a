package plan

import (
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

var topicConfigs = configKind{KindTopicConfig, catalogue.ScopeTopic}

// topic-config: the dynamic config overrides of an existing topic.
// KindTopicConfig is a change to an existing topic's configs.
const KindTopicConfig Kind = "topic-config"

var topicConfigSpec = &spec{
	kind:     KindTopicConfig,
	valid:    needsBefore,
	resource: "topic",
	modify:   modifyTopicConfig,
	observe: func(ix *Target, c *Change) *State {
		tt := ix.s.Topic(c.Resource.Name)
		if tt == nil {
			return nil
		}
		return &State{Configs: pick(tt.Configs, touchedKeys(c))}
	},
	equal: func(obs, ref *State) bool {
		return equalConfigs(topicConfigs.scope, stateConfigs(obs), stateConfigs(ref))
	},
	fields: configFields,
	label:  nameLabel,
	invert: invertConfigs,
}

// modifyTopicConfig sets the source's overrides the target lacks or holds
// otherwise (and with Prune deletes those the source does not have).
func modifyTopicConfig(b *builder, t *topicPass) *Change {
	st := t.src
	cc := b.configChange(topicConfigs, t.configs, t.tgt.Configs, "topic "+st.Name, func(string) bool { return b.in.Options.Prune })
	if cc == nil {
		return nil
	}
	cc.Kind, cc.Resource = KindTopicConfig, topicResource(st.Name)
	for _, n := range b.raised {
		key, _, _ := strings.Cut(n, " ")
		if _, ok := lookup(cc.After.Configs, key); ok {
			cc.Notes = append(cc.Notes, n)
		}
	}
	t.post.Configs = applyConfigs(t.post.Configs, cc.After.Configs, cc.Before.Configs)
	return cc
}
