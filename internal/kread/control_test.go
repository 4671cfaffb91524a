package kread

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// plainCluster is a kfake cluster without SASL or ACLs, and a connection.
func plainCluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, *kafkaconn.Conn) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3), kfake.ClusterID("ctl")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn, err := kafkaconn.Dial(context.Background(), c.ListenAddrs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return c, conn
}

// What kfake cannot hold (reassignments in progress, User and
// DelegationToken ACLs, sensitive broker configs, a cluster without
// DescribeCluster) is answered through kfake's control hooks, so the real
// request and response plumbing still runs.
func TestReadControlled(t *testing.T) {
	c, conn := plainCluster(t, kfake.SeedTopics(3, "moving", "still"))

	c.ControlKey(int16(kmsg.ListPartitionReassignments), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		resp.Topics = []kmsg.ListPartitionReassignmentsResponseTopic{{Topic: "moving", Partitions: []kmsg.ListPartitionReassignmentsResponseTopicPartition{
			{Partition: 1, Replicas: []int32{0, 1, 2}, AddingReplicas: []int32{2}, RemovingReplicas: []int32{0}},
		}}}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.DescribeACLs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.DescribeACLsResponse)
		acl := func(p string, op kmsg.ACLOperation) []kmsg.DescribeACLsResponseResourceACL {
			return []kmsg.DescribeACLsResponseResourceACL{{Principal: p, Host: "*", Operation: op, PermissionType: kmsg.ACLPermissionTypeAllow}}
		}
		resp.Resources = []kmsg.DescribeACLsResponseResource{
			{ResourceType: kmsg.ACLResourceTypeUser, ResourceName: "User:alice", ResourcePatternType: kmsg.ACLResourcePatternTypeLiteral, ACLs: acl("User:ops", kmsg.ACLOperationCreateTokens)},
			{ResourceType: kmsg.ACLResourceTypeUser, ResourceName: "User:alice", ResourcePatternType: kmsg.ACLResourcePatternTypeLiteral, ACLs: acl("User:ops", kmsg.ACLOperationDescribeTokens)},
			{ResourceType: kmsg.ACLResourceTypeDelegationToken, ResourceName: "tok-1", ResourcePatternType: kmsg.ACLResourcePatternTypeLiteral, ACLs: acl("User:ops", kmsg.ACLOperationDescribe)},
			{ResourceType: kmsg.ACLResourceTypeTopic, ResourceName: "x", ResourcePatternType: kmsg.ACLResourcePatternTypeLiteral, ACLs: acl("User:future", kmsg.ACLOperation(42))},
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.DescribeConfigs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.DescribeConfigsRequest)
		if len(req.Resources) != 1 || req.Resources[0].ResourceType != kmsg.ConfigResourceTypeBroker {
			return nil, nil, false // topics: kfake answers
		}
		resp := kreq.ResponseKind().(*kmsg.DescribeConfigsResponse)
		rr := kmsg.DescribeConfigsResponseResource{ResourceType: kmsg.ConfigResourceTypeBroker, ResourceName: req.Resources[0].ResourceName}
		entry := func(k string, v *string, src kmsg.ConfigSource, sens bool) kmsg.DescribeConfigsResponseResourceConfig {
			return kmsg.DescribeConfigsResponseResourceConfig{Name: k, Value: v, Source: src, IsSensitive: sens}
		}
		switch rr.ResourceName {
		case "":
			rr.Configs = []kmsg.DescribeConfigsResponseResourceConfig{
				entry("min.insync.replicas", ptr("2"), kmsg.ConfigSourceDynamicDefaultBrokerConfig, false),
				entry("log.retention.ms", ptr("1"), kmsg.ConfigSourceDynamicBrokerConfig, false),
			}
		case "1":
			rr.Configs = []kmsg.DescribeConfigsResponseResourceConfig{
				entry("listener.name.sasl_ssl.ssl.key.password", nil, kmsg.ConfigSourceDynamicBrokerConfig, true),
				entry("log.cleaner.threads", ptr("2"), kmsg.ConfigSourceDynamicBrokerConfig, false),
				entry("min.insync.replicas", ptr("2"), kmsg.ConfigSourceDynamicDefaultBrokerConfig, false),
				entry("log.dirs", ptr("/data"), kmsg.ConfigSourceStaticBrokerConfig, false),
				entry("num.io.threads", ptr("8"), kmsg.ConfigSourceDefaultConfig, false),
			}
		}
		resp.Resources = append(resp.Resources, rr)
		return resp, nil, true
	})
	// A cluster that cannot answer DescribeCluster: Metadata supplies the
	// same facts.
	c.ControlKey(int16(kmsg.DescribeCluster), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.DescribeClusterResponse)
		resp.ErrorCode = kerr.UnsupportedVersion.Code
		return resp, nil, true
	})

	s, err := Read(context.Background(), conn, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if s.ClusterID != "ctl" || len(s.Brokers) != 3 || s.Controller == nil {
		t.Errorf("metadata fallback: cluster %q, %d brokers, controller %+v", s.ClusterID, len(s.Brokers), s.Controller)
	}
	wantReassign := []snapshot.PartitionAssignment{{Topic: "moving", Partition: 1, Replicas: []int32{0, 1, 2}, Adding: []int32{2}, Removing: []int32{0}}}
	if d := cmp.Diff(wantReassign, s.Reassignments); d != "" {
		t.Errorf("reassignments (-want +got):\n%s", d)
	}
	moving := s.Topic("moving")
	if moving == nil || len(moving.Partitions) != 3 {
		t.Fatalf("topic moving: %+v", moving)
	}
	for _, p := range moving.Partitions {
		wantAdd, wantRem := []int32(nil), []int32(nil)
		if p.ID == 1 {
			wantAdd, wantRem = []int32{2}, []int32{0}
		}
		if !cmp.Equal(p.Adding, wantAdd) || !cmp.Equal(p.Removing, wantRem) {
			t.Errorf("moving/%d: adding %v removing %v, want %v %v", p.ID, p.Adding, p.Removing, wantAdd, wantRem)
		}
	}
	if st := s.Topic("still"); st == nil || st.Partitions[1].Adding != nil {
		t.Errorf("topic still: %+v", st)
	}

	wantACLs := []snapshot.ACL{
		{ResourceType: "DelegationToken", ResourceName: "tok-1", PatternType: "LITERAL", Principal: "User:ops", Host: "*", Operation: "Describe", Permission: "Allow"},
		{ResourceType: "User", ResourceName: "User:alice", PatternType: "LITERAL", Principal: "User:ops", Host: "*", Operation: "CreateTokens", Permission: "Allow"},
		{ResourceType: "User", ResourceName: "User:alice", PatternType: "LITERAL", Principal: "User:ops", Host: "*", Operation: "DescribeTokens", Permission: "Allow"},
	}
	if d := cmp.Diff(wantACLs, s.ACLs); d != "" {
		t.Errorf("ACLs (-want +got):\n%s", d)
	}
	wantFindings := []snapshot.Finding{{
		ID: "kread/acl-unknown", Severity: "warning", Resource: "acl TOPIC:LITERAL:x",
		Message: "an ACL for User:future uses a resource type, pattern, operation or permission this tool does not know (TOPIC LITERAL UNKNOWN ALLOW); it is left out",
	}}
	if d := cmp.Diff(wantFindings, s.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}

	wantBrokers := []snapshot.BrokerConfig{
		{Broker: "", Configs: []snapshot.Config{{Key: "min.insync.replicas", Value: "2", Source: "DYNAMIC_DEFAULT_BROKER_CONFIG"}}},
		{Broker: "1", Configs: []snapshot.Config{
			{Key: "listener.name.sasl_ssl.ssl.key.password", Sensitive: true, Secret: secretRef("kafka:broker/1#listener.name.sasl_ssl.ssl.key.password"), Source: "DYNAMIC_BROKER_CONFIG"},
			{Key: "log.cleaner.threads", Value: "2", Source: "DYNAMIC_BROKER_CONFIG"},
		}},
	}
	if d := cmp.Diff(wantBrokers, s.BrokerConfigs, secretCmp); d != "" {
		t.Errorf("broker configs (-want +got):\n%s", d)
	}
}

func TestReadSecurityDisabled(t *testing.T) {
	c, conn := plainCluster(t)
	c.ControlKey(int16(kmsg.DescribeACLs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		resp := kreq.ResponseKind().(*kmsg.DescribeACLsResponse)
		resp.ErrorCode = kerr.SecurityDisabled.Code
		resp.ErrorMessage = ptr("No Authorizer is configured.")
		return resp, nil, true
	})
	s, err := Read(context.Background(), conn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ACLs) != 0 || len(s.Findings) != 1 || s.Findings[0].ID != "kread/no-authorizer" {
		t.Errorf("ACLs %v findings %+v", s.ACLs, s.Findings)
	}
}

// Errors that are not about authorization keep the broker's message.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		key  kmsg.Key
		fn   func(kmsg.Request) kmsg.Response
		want string
	}{
		{"quotas", kmsg.DescribeClientQuotas, func(r kmsg.Request) kmsg.Response {
			resp := r.ResponseKind().(*kmsg.DescribeClientQuotasResponse)
			resp.ErrorCode, resp.ErrorMessage = kerr.InvalidRequest.Code, ptr("bad\nfilter")
			return resp
		}, "kread: reading client quotas: INVALID_REQUEST: bad filter"},
		{"topic configs", kmsg.DescribeConfigs, func(r kmsg.Request) kmsg.Response {
			req := r.(*kmsg.DescribeConfigsRequest)
			resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
			for _, rr := range req.Resources {
				resp.Resources = append(resp.Resources, kmsg.DescribeConfigsResponseResource{ResourceType: rr.ResourceType, ResourceName: rr.ResourceName, ErrorCode: kerr.PolicyViolation.Code})
			}
			return resp
		}, "kread: reading configs of topic t1: POLICY_VIOLATION: Request parameters do not satisfy the configured policy."},
		{"reassignments auth", kmsg.ListPartitionReassignments, func(r kmsg.Request) kmsg.Response {
			resp := r.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
			resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			return resp
		}, "kread: listing partition reassignments needs Cluster:Describe for User:ANONYMOUS"},
		{"scram auth", kmsg.DescribeUserSCRAMCredentials, func(r kmsg.Request) kmsg.Response {
			resp := r.ResponseKind().(*kmsg.DescribeUserSCRAMCredentialsResponse)
			resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			return resp
		}, "kread: reading SCRAM users needs Cluster:Describe for User:ANONYMOUS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, conn := plainCluster(t, kfake.SeedTopics(1, "t1"))
			c.ControlKey(int16(tt.key), func(r kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				return tt.fn(r), nil, true
			})
			_, err := Read(context.Background(), conn, Options{Concurrency: 1})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}
