package apply

import "github.com/twmb/franz-go/pkg/kmsg"

// group-config: IncrementalAlterConfigs on GROUP resources (Kafka 4.0+).
var groupConfigKind = &kindSpec{
	rpc: always(alterConfigs(kmsg.ConfigResourceTypeGroupConfig)),
}
