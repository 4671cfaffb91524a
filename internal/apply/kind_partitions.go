package apply

import (
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// partitions: CreatePartitions up to the after-state's count, with the new
// partitions' replica lists when placed explicitly.
var partitionsKind = &kindSpec{
	lane: topicLane,
	rpc:  always(createPartitions),
}

var createPartitions = &rpc{name: RPCCreatePartitions, validateOnly: true, build: func(r *runner, b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis, req.ValidateOnly = r.o.TimeoutMillis, validate
	for _, c := range b {
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = c.Resource.Name, c.After.Partitions
		for _, rs := range c.After.Assignment {
			a := kmsg.NewCreatePartitionsRequestTopicAssignment()
			a.Replicas = rs
			t.Assignment = append(t.Assignment, a)
		}
		req.Topics = append(req.Topics, t)
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		for _, t := range resp.(*kmsg.CreatePartitionsResponse).Topics {
			idx.set(out, t.Topic, t.ErrorCode, t.ErrorMessage)
		}
	}
}}
