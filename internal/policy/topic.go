package policy

import (
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// FromTopic returns the state a policy sees for a snapshot topic: its
// partition count, replication factor, the replicas each partition ends with
// (during a reassignment, the target replicas) and its non-sensitive dynamic
// config overrides.
func FromTopic(t *snapshot.Topic) TopicState {
	s := TopicState{
		Partitions:        int32(len(t.Partitions)),
		ReplicationFactor: t.ReplicationFactor(),
		Configs:           make(map[string]string, len(t.Configs)),
	}
	if len(t.Partitions) > 0 {
		n := len(t.Partitions)
		for _, p := range t.Partitions {
			if int(p.ID) >= n {
				n = int(p.ID) + 1
			}
		}
		s.Assignment = make([][]int32, n)
		for i := range t.Partitions {
			p := &t.Partitions[i]
			if p.ID >= 0 {
				s.Assignment[p.ID] = append([]int32(nil), p.TargetReplicas()...)
			}
		}
	}
	for _, c := range t.Configs {
		if c.Sensitive || c.Secret != nil || catalogue.LooksSensitive(c.Key) {
			continue
		}
		s.Configs[c.Key] = c.Value
	}
	return s
}
