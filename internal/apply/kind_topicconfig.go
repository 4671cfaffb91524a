package apply

import "github.com/twmb/franz-go/pkg/kmsg"

// topic-config: IncrementalAlterConfigs on topic resources.
var topicConfigKind = &kindSpec{
	lane: topicLane,
	rpc:  always(alterConfigs(kmsg.ConfigResourceTypeTopic)),
}
