package apply

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// topic: CreateTopics for a create (with its replica lists when placed
// explicitly, and its configs), DeleteTopics for a delete.
var topicKind = &kindSpec{
	lane: topicLane,
	rpc:  byAction(createTopics, deleteTopics),
	records: func(c *plan.Change) int {
		if c.After == nil {
			return 1
		}
		return 1 + int(c.After.Partitions) + len(c.After.Configs)
	},
	alreadyDone: func(c *plan.Change, code int16) bool {
		switch code {
		case kerr.TopicAlreadyExists.Code:
			return c.Action == plan.ActionCreate
		case kerr.UnknownTopicOrPartition.Code:
			return c.Action == plan.ActionDelete
		}
		return false
	},
}

var createTopics = &rpc{name: RPCCreateTopics, validateOnly: true, build: func(r *runner, b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis, req.ValidateOnly = r.o.TimeoutMillis, validate
	for _, c := range b {
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic = c.Resource.Name
		t.NumPartitions, t.ReplicationFactor = c.After.Partitions, int16(c.After.ReplicationFactor)
		if c.After.Assignment != nil {
			t.NumPartitions, t.ReplicationFactor = -1, -1
			for p, rs := range c.After.Assignment {
				a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
				a.Partition, a.Replicas = int32(p), rs
				t.ReplicaAssignment = append(t.ReplicaAssignment, a)
			}
		}
		for _, cf := range c.After.Configs {
			tc := kmsg.NewCreateTopicsRequestTopicConfig()
			tc.Name = cf.Key
			v := r.value(c, cf)
			tc.Value = &v
			t.Configs = append(t.Configs, tc)
		}
		req.Topics = append(req.Topics, t)
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		for _, t := range resp.(*kmsg.CreateTopicsResponse).Topics {
			idx.set(out, t.Topic, t.ErrorCode, t.ErrorMessage)
		}
	}
}}

var deleteTopics = &rpc{name: RPCDeleteTopics, build: func(r *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = r.o.TimeoutMillis
	for _, c := range b {
		t := kmsg.NewDeleteTopicsRequestTopic()
		name := c.Resource.Name
		t.Topic = &name
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, name)
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		for _, t := range resp.(*kmsg.DeleteTopicsResponse).Topics {
			idx.set(out, deref(t.Topic), t.ErrorCode, t.ErrorMessage)
		}
	}
}}
