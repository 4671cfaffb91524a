package apply

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// reassignment: AlterPartitionReassignments to the after-state's replica
// lists (no validate_only mode).
var reassignmentKind = &kindSpec{rpc: always(alterReassignments), lane: topicLane}

var alterReassignments = &rpc{name: RPCAlterReassignments, build: func(r *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = r.o.TimeoutMillis
	for _, c := range b {
		t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
		t.Topic = c.Resource.Name
		for p, rs := range c.After.Assignment {
			pp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
			pp.Partition, pp.Replicas = int32(p), rs
			t.Partitions = append(t.Partitions, pp)
		}
		req.Topics = append(req.Topics, t)
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		rr := resp.(*kmsg.AlterPartitionAssignmentsResponse)
		if rr.ErrorCode != 0 {
			for i := range out {
				out[i] = outcome{code: rr.ErrorCode, msg: deref(rr.ErrorMessage)}
			}
			return
		}
		// A topic the response names is done unless a partition of it
		// failed (the first failure is its outcome); one it does not
		// name keeps the no-result outcome, a failure.
		for _, t := range rr.Topics {
			var code int16
			var msg *string
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 && code == 0 {
					code, msg = p.ErrorCode, ptr(fmt.Sprintf("partition %d: %s", p.Partition, deref(p.ErrorMessage)))
				}
			}
			idx.set(out, t.Topic, code, msg)
		}
	}
}}
