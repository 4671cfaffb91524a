package plan

import (
	"strconv"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

// The Kafka facts the plan follows (removed keys, value floors) are the
// catalogue's, for the plan's target version.

// target is the Kafka version the plan is for (an empty or unparsable
// Options.TargetVersion is catalogue.DefaultTarget, 4.1).
func (b *builder) target() catalogue.Version {
	return catalogue.TargetOrDefault(b.in.Options.TargetVersion)
}

// isRemovedTopicConfig reports a topic key the target no longer defines.
// Writing one to a 4.x cluster makes later config changes fail
// (KAFKA-19851), so the plan drops it with a finding.
func (b *builder) isRemovedTopicConfig(key string) bool {
	_, ok := catalogue.Removed(catalogue.ScopeTopic, key, b.target())
	return ok
}

// isRemovedBrokerConfig reports a broker key the target no longer defines,
// ZooKeeper-only families included.
func (b *builder) isRemovedBrokerConfig(key string) bool {
	_, ok := catalogue.Removed(catalogue.ScopeBroker, key, b.target())
	return ok
}

// topicFloors are the topic config floors of the target version (Kafka
// 4.1 raised topic-level segment.bytes to 1 MiB, KAFKA-19080).
func (b *builder) topicFloors() []floor {
	t := b.target()
	var out []floor
	for _, f := range catalogue.FloorsFor(catalogue.ScopeTopic, t) {
		why := "Kafka " + f.Since.String() + "'s minimum of " + strconv.FormatInt(f.Min, 10)
		if f.Unit != "" {
			why += " (" + f.Unit + ")"
		}
		out = append(out, floor{key: f.Key, min: f.Min, minText: strconv.FormatInt(f.Min, 10), why: why})
	}
	return out
}
