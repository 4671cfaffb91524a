package benchkit

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// A kind of more than RawMax resources goes in requests of RawMax, and
// topics in CreateTopics of at most RawMaxRecords records (the KRaft
// controller refuses more than 10,000); every resource once and in order.
func TestRawRequestsSplit(t *testing.T) {
	for _, tc := range []struct {
		topics, partitions, configs, acls, quotas int
		want                                      []int // resources per request, in order
	}{
		{topics: 1, partitions: 2, configs: 1, want: []int{1, 0, 0}},
		// 2 partitions and a config: 4 records a topic, 2,250 a request
		{topics: 2250, partitions: 2, configs: 1, acls: RawMax, quotas: 3, want: []int{2250, RawMax, 3}},
		{topics: 4501, partitions: 2, configs: 1, acls: RawMax + 2, quotas: 1, want: []int{2250, 2250, 1, RawMax, 2, 1}},
		// 1 record a topic: RawMax a request
		{topics: RawMax + 1, want: []int{RawMax, 1, 0, 0}},
		// more records than RawMaxRecords in one topic: alone in its request
		{topics: 3, partitions: RawMaxRecords, want: []int{1, 1, 1, 0, 0}},
	} {
		t.Run(fmt.Sprintf("%d×%d,%d,%d", tc.topics, tc.partitions, tc.acls, tc.quotas), func(t *testing.T) {
			s := &snapshot.Snapshot{}
			for i := range tc.topics {
				tp := snapshot.Topic{Name: fmt.Sprintf("t%06d", i)}
				for p := range tc.partitions {
					tp.Partitions = append(tp.Partitions, snapshot.Partition{ID: int32(p)})
				}
				for c := range tc.configs {
					tp.Configs = append(tp.Configs, snapshot.Config{Key: fmt.Sprint("k", c), Value: "v"})
				}
				s.Topics = append(s.Topics, tp)
			}
			for i := range tc.acls {
				s.ACLs = append(s.ACLs, snapshot.ACL{ResourceName: fmt.Sprintf("t%06d", i), Principal: "User:a", Host: "*"})
			}
			for i := range tc.quotas {
				s.Quotas = append(s.Quotas, snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: fmt.Sprint(i)}}})
			}
			var got []int
			var names []string
			for _, req := range RawRequests(s) {
				switch r := req.(type) {
				case *kmsg.CreateTopicsRequest:
					got = append(got, len(r.Topics))
					for _, t := range r.Topics {
						names = append(names, t.Topic)
					}
				case *kmsg.CreateACLsRequest:
					got = append(got, len(r.Creations))
				case *kmsg.AlterClientQuotasRequest:
					got = append(got, len(r.Entries))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("resources per request %v, want %v", got, tc.want)
			}
			if len(names) != len(s.Topics) {
				t.Fatalf("%d topics sent, want %d", len(names), len(s.Topics))
			}
			for i, n := range names {
				if want := s.Topics[i].Name; n != want {
					t.Fatalf("topic %d is %s, want %s", i, n, want)
				}
			}
		})
	}
}

// Failed counts every resource a response refused and names the first.
func TestFailed(t *testing.T) {
	msg := "Unable to perform excessively large batch operation."
	ct := kmsg.NewPtrCreateTopicsResponse()
	for i, code := range []int16{0, kerr.PolicyViolation.Code, kerr.PolicyViolation.Code} {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic, rt.ErrorCode = fmt.Sprint("t", i), code
		if code != 0 {
			rt.ErrorMessage = &msg
		}
		ct.Topics = append(ct.Topics, rt)
	}
	ca := kmsg.NewPtrCreateACLsResponse()
	ca.Results = append(ca.Results, kmsg.NewCreateACLsResponseResult(), kmsg.CreateACLsResponseResult{ErrorCode: kerr.SecurityDisabled.Code})
	cq := kmsg.NewPtrAlterClientQuotasResponse()
	name := "app"
	cq.Entries = append(cq.Entries, kmsg.AlterClientQuotasResponseEntry{ErrorCode: kerr.InvalidRequest.Code,
		Entity: []kmsg.AlterClientQuotasResponseEntryEntity{{Type: "user", Name: &name}}})
	for _, tc := range []struct {
		resp  kmsg.Response
		n     int
		first string
	}{
		{ct, 2, "topic t1: " + kerr.PolicyViolation.Error() + ": " + msg},
		{ca, 1, "ACL 1: " + kerr.SecurityDisabled.Error()},
		{cq, 1, "quota app: " + kerr.InvalidRequest.Error()},
		{kmsg.NewPtrCreateTopicsResponse(), 0, ""},
	} {
		if n, first := Failed(tc.resp); n != tc.n || first != tc.first {
			t.Errorf("%T: %d, %q; want %d, %q", tc.resp, n, first, tc.n, tc.first)
		}
	}
}
