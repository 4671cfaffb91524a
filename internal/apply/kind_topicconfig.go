package apply

import "github.com/twmb/franz-go/pkg/kmsg"

// topic-config: IncrementalAlterConfigs on topic resources.
var topicConfigKind = &kindSpec{
	rpc:   always(alterConfigs(kmsg.ConfigResourceTypeTopic)),
	valid: needsBefore,
}
