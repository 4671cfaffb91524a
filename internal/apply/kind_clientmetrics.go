package apply

import "github.com/twmb/franz-go/pkg/kmsg"

// client-metrics: IncrementalAlterConfigs on CLIENT_METRICS resources. A
// subscription is created by setting its keys and deleted by deleting them
// all (as kafka-client-metrics.sh --delete does).
var clientMetricsKind = &kindSpec{
	rpc: always(alterConfigs(kmsg.ConfigResourceTypeClientMetrics)),
}
