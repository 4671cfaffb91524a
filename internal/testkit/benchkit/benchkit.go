// Package benchkit holds what benchmarks in several packages share: the
// "raw limit" baseline, the same admin RPCs sent directly with no reading,
// planning, checking or recording.
package benchkit

import (
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// RawRequests builds the creations of s's topics (partition count, RF 1,
// configs), literal Read ACLs and quotas as one request per kind.
func RawRequests(s *snapshot.Snapshot) []kmsg.Request {
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.TimeoutMillis = 60000
	for _, t := range s.Topics {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Name, int32(len(t.Partitions)), 1
		for _, cf := range t.Configs {
			c := kmsg.NewCreateTopicsRequestTopicConfig()
			c.Name, c.Value = cf.Key, kmsg.StringPtr(cf.Value)
			rt.Configs = append(rt.Configs, c)
		}
		ct.Topics = append(ct.Topics, rt)
	}
	ca := kmsg.NewPtrCreateACLsRequest()
	for _, a := range s.ACLs {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, a.ResourceName, kmsg.ACLResourcePatternTypeLiteral
		c.Principal, c.Host, c.Operation, c.PermissionType = a.Principal, a.Host, kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
		ca.Creations = append(ca.Creations, c)
	}
	cq := kmsg.NewPtrAlterClientQuotasRequest()
	for _, q := range s.Quotas {
		e := kmsg.NewAlterClientQuotasRequestEntry()
		ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
		ent.Type, ent.Name = "user", kmsg.StringPtr(q.Entity[0].Name)
		e.Entity = append(e.Entity, ent)
		for k, v := range q.Values {
			op := kmsg.NewAlterClientQuotasRequestEntryOp()
			op.Key, op.Value = k, v
			e.Ops = append(e.Ops, op)
		}
		cq.Entries = append(cq.Entries, e)
	}
	return []kmsg.Request{ct, ca, cq}
}
