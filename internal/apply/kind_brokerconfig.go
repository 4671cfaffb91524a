package apply

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// broker-config: IncrementalAlterConfigs on broker resources, one broker
// per request ("" is the cluster-wide default, any broker takes it).
var brokerConfigKind = &kindSpec{
	rpc:      always(alterConfigs(kmsg.ConfigResourceTypeBroker)),
	batchKey: func(c *plan.Change) string { return c.Resource.Name },
	broker: func(c *plan.Change) int32 {
		id, err := strconv.ParseInt(c.Resource.Name, 10, 32)
		if err != nil {
			return -1
		}
		return int32(id)
	},
}
