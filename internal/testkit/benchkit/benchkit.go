// Package benchkit holds what benchmarks in several packages share: the
// "raw limit" baseline, the same admin RPCs sent directly with no reading,
// planning, checking or recording.
package benchkit

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// RawMax is the most resources one raw request carries: a kind with more
// goes in requests of RawMax. Neither kfake nor a real Kafka 4.1 broker
// answers a single 25,000-topic CreateTopics before the client's read
// deadline, so "one request per kind" stops being a limit anyone can reach.
const RawMax = 5000

// RawMaxRecords is the most metadata records one raw CreateTopics makes
// (a topic is 1 + its partitions + its configs): the KRaft controller
// refuses a request of more than 10,000 with POLICY_VIOLATION "Unable to
// perform excessively large batch operation", every topic in it.
const RawMaxRecords = 9000

// RawRequests builds the creations of s's topics (partition count, RF 1,
// configs), literal Read ACLs and quotas as one request per kind, each
// kind of more than RawMax resources (or topics of more than RawMaxRecords
// records) split into requests of at most that.
func RawRequests(s *snapshot.Snapshot) []kmsg.Request {
	var out []kmsg.Request
	for _, req := range rawRequests(s) {
		out = append(out, split(req)...)
	}
	return out
}

func rawRequests(s *snapshot.Snapshot) []kmsg.Request {
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

// split cuts a request of more than RawMax resources into requests of
// RawMax; the first request keeps the resources' order.
func split(req kmsg.Request) []kmsg.Request {
	var out []kmsg.Request
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		records := func(t kmsg.CreateTopicsRequestTopic) int { return 1 + int(t.NumPartitions) + len(t.Configs) }
		for _, part := range chunksBy(r.Topics, records) {
			c := *r
			c.Topics = part
			out = append(out, &c)
		}
	case *kmsg.CreateACLsRequest:
		for _, part := range chunks(r.Creations) {
			c := *r
			c.Creations = part
			out = append(out, &c)
		}
	case *kmsg.AlterClientQuotasRequest:
		for _, part := range chunks(r.Entries) {
			c := *r
			c.Entries = part
			out = append(out, &c)
		}
	default:
		out = append(out, req)
	}
	return out
}

// chunks cuts s into pieces of at most RawMax elements.
func chunks[T any](s []T) [][]T {
	return chunksBy(s, func(T) int { return 0 })
}

// chunksBy cuts s into pieces of at most RawMax elements and RawMaxRecords
// records (an element alone may have more).
func chunksBy[T any](s []T, records func(T) int) [][]T {
	var out [][]T
	start, n := 0, 0
	for i, x := range s {
		rec := records(x)
		if i > start && (i-start == RawMax || n+rec > RawMaxRecords) {
			out = append(out, s[start:i])
			start, n = i, 0
		}
		n += rec
	}
	return append(out, s[start:])
}

// Failed counts the resources a raw request's response refused, and
// describes the first ("topic t1: POLICY_VIOLATION: ..."): a raw request
// the broker answered with per-resource errors did not apply them, so it
// is no limit.
func Failed(resp kmsg.Response) (n int, first string) {
	note := func(what string, code int16, msg *string) {
		if code == 0 {
			return
		}
		if n++; n == 1 {
			first = fmt.Sprintf("%s: %v", what, kerr.ErrorForCode(code))
			if msg != nil && *msg != "" {
				first += ": " + *msg
			}
		}
	}
	switch r := resp.(type) {
	case *kmsg.CreateTopicsResponse:
		for _, t := range r.Topics {
			note("topic "+t.Topic, t.ErrorCode, t.ErrorMessage)
		}
	case *kmsg.CreateACLsResponse:
		for i, c := range r.Results {
			note(fmt.Sprintf("ACL %d", i), c.ErrorCode, c.ErrorMessage)
		}
	case *kmsg.AlterClientQuotasResponse:
		for _, e := range r.Entries {
			name := ""
			if len(e.Entity) > 0 && e.Entity[0].Name != nil {
				name = *e.Entity[0].Name
			}
			note("quota "+name, e.ErrorCode, e.ErrorMessage)
		}
	}
	return n, first
}
