package apply

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DryRun wraps a Requester for --validate-only. It passes read-only requests
// and the four writes that have a validate_only mode (CreateTopics,
// CreatePartitions, IncrementalAlterConfigs, AlterClientQuotas) when that
// mode is set; any other request is refused with a *RefusedError and never
// sent. Run wraps its Requester in it whenever Options.ValidateOnly is set,
// so no RPC, including one added later, can write during a dry run.
func DryRun(cl Requester) Requester { return dryRun{cl} }

// RefusedError is a request the dry-run guard would not send.
type RefusedError struct {
	Key kmsg.Key
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("validate-only: refusing to send %s (it would change the target)", e.Key.Name())
}

type dryRun struct{ cl Requester }

// readOnly are the requests that never change a cluster.
var readOnly = map[kmsg.Key]bool{
	kmsg.Metadata: true, kmsg.ApiVersions: true, kmsg.DescribeCluster: true,
	kmsg.DescribeConfigs: true, kmsg.DescribeACLs: true, kmsg.DescribeClientQuotas: true,
	kmsg.DescribeUserSCRAMCredentials: true, kmsg.ListPartitionReassignments: true,
	kmsg.DescribeLogDirs: true, kmsg.ListGroups: true, kmsg.DescribeGroups: true,
	kmsg.FindCoordinator: true, kmsg.ListOffsets: true, kmsg.DescribeProducers: true,
	kmsg.DescribeTransactions: true, kmsg.ListTransactions: true, kmsg.DescribeQuorum: true,
	kmsg.DescribeTopicPartitions: true,
}

// Allowed reports whether the dry-run guard lets req through.
func Allowed(req kmsg.Request) bool {
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		return r.ValidateOnly
	case *kmsg.CreatePartitionsRequest:
		return r.ValidateOnly
	case *kmsg.IncrementalAlterConfigsRequest:
		return r.ValidateOnly
	case *kmsg.AlterClientQuotasRequest:
		return r.ValidateOnly
	}
	return readOnly[kmsg.Key(req.Key())]
}

func (d dryRun) RequestSharded(ctx context.Context, req kmsg.Request) []kgo.ResponseShard {
	if !Allowed(req) {
		return []kgo.ResponseShard{{Meta: kgo.BrokerMetadata{NodeID: -1}, Req: req, Err: &RefusedError{Key: kmsg.Key(req.Key())}}}
	}
	return d.cl.RequestSharded(ctx, req)
}
