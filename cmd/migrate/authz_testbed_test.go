package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/zkmigrate/zkmigrate/internal/authz"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestAuthzPredictsRealKafka: the legacy state's SCRAM users try real
// operations on the Kafka 3.9 source (AclAuthorizer) and, after migrate
// apply, on the Kafka 4.1 target (StandardAuthorizer); what each broker
// allows and refuses is what authz.NewZK and authz.NewKRaft, over the ACLs
// read from that side and its server.properties' super.users and
// allow.everyone.if.no.acl.found, predicted. Every operation is one a
// client makes, chosen to leave no data behind: produce to a partition that
// does not exist (authorization comes first), fetch one byte, validate-only
// topic creation and config change, and so on.
func TestAuthzPredictsRealKafka(t *testing.T) {
	b := newBed(t)
	users := scramUsers(t, b.creds)
	source := testbed.SourceBootstrap(t)

	zkCfg, err := authz.ParseZKProperties(serverProps(t, b.serverProps))
	if err != nil {
		t.Fatal(err)
	}
	srcACLs := readACLs(t, source, testbed.SourceClientProps(t))
	probeAll(t, "source", source, authz.NewZK(srcACLs, zkCfg), users)
	if after := readACLs(t, source, testbed.SourceClientProps(t)); len(after) != len(srcACLs) {
		t.Fatalf("the probes changed the source's ACLs: %d, then %d", len(srcACLs), len(after))
	}

	testbed.ResetTarget(t)
	code, _, errs := b.migrate(t, append(append([]string{"apply", "--yes", "--scram-credentials", b.creds}, b.sourceArgs()...), b.targetArgs()...)...)
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, errs)
	}
	kCfg, err := authz.ParseKRaftProperties(serverProps(t, testbed.TargetServerProps(t)))
	if err != nil {
		t.Fatal(err)
	}
	tgtACLs := readACLs(t, b.target, b.targetProps)
	probeAll(t, "target", b.target, authz.NewKRaft(tgtACLs, kCfg), users)
	if after := readACLs(t, b.target, b.targetProps); len(after) != len(tgtACLs) {
		t.Fatalf("the probes changed the target's ACLs: %d, then %d", len(tgtACLs), len(after))
	}
}

type scramUser struct {
	User, Mechanism, Password string
}

// scramUsers are the legacy users with a known password, one mechanism each.
func scramUsers(t *testing.T, path string) []scramUser {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []scramUser
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []scramUser
	seen := map[string]bool{}
	for _, u := range all {
		if !seen[u.User] {
			seen[u.User] = true
			out = append(out, u)
		}
	}
	if len(out) < 4 {
		t.Fatalf("%s: only %d users", path, len(out))
	}
	return out
}

func serverProps(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := props.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f.Map()
}

// readACLs reads every ACL the broker at addr holds (DescribeAcls with
// every filter field ANY, as the test bed's admin).
func readACLs(t *testing.T, addr, clientProps string) []authz.ACL {
	t.Helper()
	conn := dialAdmin(t, addr, clientProps)
	r := kmsg.NewPtrDescribeACLsRequest()
	r.ResourceType, r.ResourcePatternType, r.Operation, r.PermissionType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny, kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := r.RequestWith(ctx, conn.Client)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		t.Fatalf("%s: DescribeAcls: %v", addr, err)
	}
	var out []authz.ACL
	for _, res := range resp.Resources {
		for _, a := range res.ACLs {
			out = append(out, authz.ACL{Type: authz.ResourceType(res.ResourceType), Name: res.ResourceName, Pattern: authz.PatternType(res.ResourcePatternType),
				Principal: a.Principal, Host: a.Host, Operation: authz.Operation(a.Operation), Permission: authz.Permission(a.PermissionType)})
		}
	}
	if len(out) < 30 {
		t.Fatalf("%s holds %d ACLs; the legacy state has 33", addr, len(out))
	}
	return out
}

// probe is one client operation: what it asks of the authorizer and how
// to try it.
type probe struct {
	name string
	// want is the broker's decision, from the authorizer's.
	want func(a authz.Authorizer, principal, host string) (bool, string)
	// try sends the request through broker 1 (or the controller) and
	// reports whether it was authorized.
	try func(ctx context.Context, c *userClient) (bool, error)
}

type userClient struct {
	cl         *kgo.Client
	controller int32
	zk         bool // the source: CreateTopics goes to the controller
}

func (c *userClient) req(ctx context.Context, r kmsg.Request) (kmsg.Response, error) {
	return c.cl.Broker(1).Request(ctx, r)
}

// one is the authorizer's decision on one request.
func one(op authz.Operation, t authz.ResourceType, name string) func(authz.Authorizer, string, string) (bool, string) {
	return func(a authz.Authorizer, p, h string) (bool, string) {
		d := a.Authorize(authz.Request{Principal: p, Host: h, Operation: op, Type: t, Name: name})
		return d.Allowed, d.String()
	}
}

// authorized maps a response's error code: the resource's authorization
// failure is false, anything else true (the request got past the check).
func authorized(code int16, denied error) (bool, error) {
	err := kerr.ErrorForCode(code)
	if errors.Is(err, denied) {
		return false, nil
	}
	if errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, kerr.IllegalSaslState) {
		return false, err
	}
	return true, nil
}

var probes = []probe{
	{"produce to orders (Write Topic)", one(authz.OpWrite, authz.ResourceTopic, "orders"), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrProduceRequest()
		r.Acks, r.TimeoutMillis = 1, 5000
		tp := kmsg.NewProduceRequestTopic()
		tp.Topic = "orders"
		p := kmsg.NewProduceRequestTopicPartition()
		p.Partition, p.Records = 99, []byte{} // no such partition: nothing is written
		tp.Partitions = append(tp.Partitions, p)
		r.Topics = append(r.Topics, tp)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}},
	{"fetch from orders (Read Topic)", one(authz.OpRead, authz.ResourceTopic, "orders"), fetch("orders")},
	{"fetch from metrics.events (Read Topic)", one(authz.OpRead, authz.ResourceTopic, "metrics.events"), fetch("metrics.events")},
	{"describe topic orders (Describe Topic)", one(authz.OpDescribe, authz.ResourceTopic, "orders"), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr("orders")
		r.Topics = append(r.Topics, mt)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.MetadataResponse).Topics[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}},
	{"create topic authz-e2e-probe, validate only (Create Cluster or Topic)", func(a authz.Authorizer, p, h string) (bool, string) {
		d := a.Authorize(authz.Request{Principal: p, Host: h, Operation: authz.OpCreate, Type: authz.ResourceCluster, Name: authz.ClusterName})
		if d.Allowed {
			return true, d.String()
		}
		d = a.Authorize(authz.Request{Principal: p, Host: h, Operation: authz.OpCreate, Type: authz.ResourceTopic, Name: "authz-e2e-probe"})
		return d.Allowed, d.String()
	}, func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrCreateTopicsRequest()
		r.ValidateOnly, r.TimeoutMillis = true, 10000
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "authz-e2e-probe", 1, 1
		r.Topics = append(r.Topics, ct)
		broker := int32(1)
		if c.zk {
			broker = c.controller // a ZooKeeper-mode broker that is not the controller answers NOT_CONTROLLER before it authorizes
		}
		resp, err := c.cl.Broker(int(broker)).Request(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}},
	{"describe configs of topic orders (DescribeConfigs Topic)", one(authz.OpDescribeConfigs, authz.ResourceTopic, "orders"),
		describeConfigs(kmsg.ConfigResourceTypeTopic, "orders", kerr.TopicAuthorizationFailed)},
	{"describe configs of broker 1 (DescribeConfigs Cluster)", one(authz.OpDescribeConfigs, authz.ResourceCluster, authz.ClusterName),
		describeConfigs(kmsg.ConfigResourceTypeBroker, "1", kerr.ClusterAuthorizationFailed)},
	{"alter configs of topic orders, validate only (AlterConfigs Topic)", one(authz.OpAlterConfigs, authz.ResourceTopic, "orders"), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrIncrementalAlterConfigsRequest()
		r.ValidateOnly = true
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Op, cfg.Value = "retention.ms", kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr("86400000")
		res.Configs = append(res.Configs, cfg)
		r.Resources = append(r.Resources, res)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.IncrementalAlterConfigsResponse).Resources[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}},
	{"describe ACLs (Describe Cluster)", one(authz.OpDescribe, authz.ResourceCluster, authz.ClusterName), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrDescribeACLsRequest()
		r.ResourceType, r.ResourcePatternType, r.Operation, r.PermissionType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny, kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.DescribeACLsResponse).ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
	{"describe group billing (Describe Group)", one(authz.OpDescribe, authz.ResourceGroup, "billing"), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrDescribeGroupsRequest()
		r.Groups = []string{"billing"}
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.DescribeGroupsResponse).Groups[0].ErrorCode, kerr.GroupAuthorizationFailed)
	}},
	{"init an idempotent producer (IdempotentWrite Cluster, or Write on some Topic)", func(a authz.Authorizer, p, h string) (bool, string) {
		d := a.Authorize(authz.Request{Principal: p, Host: h, Operation: authz.OpIdempotentWrite, Type: authz.ResourceCluster, Name: authz.ClusterName})
		if d.Allowed {
			return true, d.String()
		}
		d = a.AuthorizeByResourceType(p, h, authz.OpWrite, authz.ResourceTopic)
		return d.Allowed, d.String()
	}, func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrInitProducerIDRequest()
		r.TransactionTimeoutMillis, r.ProducerID, r.ProducerEpoch = 60000, -1, -1
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.InitProducerIDResponse).ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
	{"create an invalid ACL (Alter Cluster)", one(authz.OpAlter, authz.ResourceCluster, authz.ClusterName), func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrCreateACLsRequest()
		cr := kmsg.NewCreateACLsRequestCreation()
		// An empty resource name: both lines refuse it as invalid after the
		// authorization check, so nothing is created.
		cr.ResourceType, cr.ResourceName, cr.ResourcePatternType = kmsg.ACLResourceTypeTopic, "", kmsg.ACLResourcePatternTypeLiteral
		cr.Principal, cr.Host, cr.Operation, cr.PermissionType = "User:authz-e2e", "*", kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
		r.Creations = append(r.Creations, cr)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.CreateACLsResponse).Results[0].ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
}

func fetch(topic string) func(context.Context, *userClient) (bool, error) {
	return func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrFetchRequest()
		r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 0, 0, 1
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic = topic
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition, fp.FetchOffset, fp.PartitionMaxBytes, fp.CurrentLeaderEpoch, fp.LogStartOffset = 0, 0, 1, -1, -1
		ft.Partitions = append(ft.Partitions, fp)
		r.Topics = append(r.Topics, ft)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		fr := resp.(*kmsg.FetchResponse)
		if fr.ErrorCode != 0 {
			return authorized(fr.ErrorCode, kerr.TopicAuthorizationFailed)
		}
		return authorized(fr.Topics[0].Partitions[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}
}

func describeConfigs(typ kmsg.ConfigResourceType, name string, denied error) func(context.Context, *userClient) (bool, error) {
	return func(ctx context.Context, c *userClient) (bool, error) {
		r := kmsg.NewPtrDescribeConfigsRequest()
		res := kmsg.NewDescribeConfigsRequestResource()
		res.ResourceType, res.ResourceName = typ, name
		r.Resources = append(r.Resources, res)
		resp, err := c.req(ctx, r)
		if err != nil {
			return false, err
		}
		return authorized(resp.(*kmsg.DescribeConfigsResponse).Resources[0].ErrorCode, denied)
	}
}

// probeAll has every user try every probe on one side and holds Kafka's
// answers to the authorizer's predictions. Clients connect from
// 127.0.0.1, which is what the brokers' getHostAddress prints.
func probeAll(t *testing.T, side, addr string, a authz.Authorizer, users []scramUser) {
	t.Helper()
	tried, differ, allowed := 0, 0, 0
	for _, u := range users {
		c := connectUser(t, addr, u, a.Kind() == "AclAuthorizer")
		principal := "User:" + u.User
		var row []string
		for _, p := range probes {
			want, why := p.want(a, principal, "127.0.0.1")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			got, err := p.try(ctx, c)
			cancel()
			if err != nil {
				t.Fatalf("%s, %s: %s: %v", side, principal, p.name, err)
			}
			tried++
			if got {
				allowed++
				row = append(row, "+"+strings.SplitN(p.name, " (", 2)[0])
			} else {
				row = append(row, "-"+strings.SplitN(p.name, " (", 2)[0])
			}
			if got != want {
				differ++
				t.Errorf("%s (%s), %s: %s: Kafka %s it; %s predicted %s", side, a.Kind(), principal, p.name, verb(got), a.Kind(), why)
			}
		}
		c.cl.Close()
		t.Logf("%s, %s: %s", side, principal, strings.Join(row, "; "))
	}
	t.Logf("%s (%s): %d requests by %d users, %d allowed, %d decided otherwise than predicted", side, a.Kind(), tried, len(users), allowed, differ)
	if allowed == 0 || allowed == tried {
		t.Errorf("%s: %d of %d allowed: the probes do not tell allowed from refused", side, allowed, tried)
	}
}

func verb(allowed bool) string {
	if allowed {
		return "allowed"
	}
	return "refused"
}

// connectUser logs in as u (SCRAM) and learns the brokers and the
// controller.
func connectUser(t *testing.T, addr string, u scramUser, zk bool) *userClient {
	t.Helper()
	auth := scram.Auth{User: u.User, Pass: u.Password}
	var m sasl.Mechanism = auth.AsSha256Mechanism()
	if u.Mechanism == "SCRAM-SHA-512" {
		m = auth.AsSha512Mechanism()
	}
	// Fetch and Produce by topic name (before topic ids), which both
	// lines accept.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(m), kgo.MaxVersions(kversion.V3_0_0()), kgo.RequestRetries(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	if err != nil {
		cl.Close()
		t.Fatalf("%s: logging in as %s (%s): %v", addr, u.User, u.Mechanism, err)
	}
	return &userClient{cl: cl, controller: md.Controller, zk: zk}
}
