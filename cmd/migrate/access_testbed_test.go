package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestAccessRealKafka migrates the legacy state Kafka 3.9 wrote (ACLs and
// SCRAM users) onto the Kafka 4.1 target and proves it with `access diff`,
// each node's settings from the test bed's own properties files: exactly
// two causes remain, both true — the target's User:ANONYMOUS super user
// (its brokers reach the controller over PLAINTEXT) and StandardAuthorizer
// not applying auditor's LITERAL Group:* ACL to group names starting with
// "*" — and with those accepted the target is equivalent (exit 0). A planted
// difference (one ACL deleted on the target) is one more cause (exit 3).
// Then real SCRAM clients make real requests on both clusters, and what
// each is allowed and refused is what `access explain` says for each side.
func TestAccessRealKafka(t *testing.T) {
	b := newBed(t)
	dir := testbed.Dir(t)
	srcCfg := []string{"--broker-config", filepath.Join(dir, "conf", "source.properties"), "--broker-config", filepath.Join(dir, "conf", "source1.properties")}
	tgtCfg := []string{"--target-config", filepath.Join(dir, "conf", "target.properties"), "--target-config", filepath.Join(dir, "conf", "target1.properties")}
	// The target's ACLs and SCRAM users made the source's, whatever ran
	// before (--prune), the passwords set again (--resend-secrets).
	// apply proves the target it left and records the proof.
	code, out, errs := b.migrate(t, append(append(append(append([]string{"apply", "--zookeeper", b.zk, "--include", "acl,scram-user", "--prune", "--resend-secrets",
		"--scram-credentials", b.creds, "--yes"}, srcCfg...), tgtCfg...), b.targetArgs()...), "-o", "json")...)
	if code != exitOK || !strings.Contains(errs, "Access: NOT equivalent: the target decides") || !strings.Contains(errs, "2 causes") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	var ex struct {
		AccessProofs []struct{ What, Verdict, Digest string } `json:"access_proofs"`
	}
	_, exported, _ := b.migrate(t, "audit", "export", "1", "--audit-db", b.auditDB, "-o", "json")
	if err := json.Unmarshal([]byte(exported), &ex); err != nil || len(ex.AccessProofs) != 1 || ex.AccessProofs[0].What != "target" ||
		ex.AccessProofs[0].Verdict != access.Differences || !strings.HasPrefix(ex.AccessProofs[0].Digest, "sha256:") {
		t.Errorf("the audit trail's proof: %v %+v", err, ex.AccessProofs)
	}
	diff := append(append(append([]string{"access", "diff", "--zookeeper", b.zk}, srcCfg...), b.targetArgs()...), tgtCfg...)
	proof := func(extra ...string) (int, *access.Result) {
		t.Helper()
		code, out, errs := b.migrate(t, append(append(diff, extra...), "-o", "json")...)
		var r access.Result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("access diff: exit %d, %v\n%s\n%s", code, err, out, errs)
		}
		return code, &r
	}
	code, r := proof()
	kinds, byKind := map[string]int{}, map[string]access.Group{}
	for _, g := range r.Groups {
		kinds[g.Kind]++
		byKind[g.Kind] = g
	}
	if code != exitPartial || len(r.Groups) != 2 || kinds["super-user"] != 1 || kinds["authorizer"] != 1 || len(r.Gaps) != 0 {
		t.Fatalf("after a faithful migration: exit %d, causes %v, gaps %+v", code, kinds, r.Gaps)
	}
	if g := byKind["super-user"]; g.Principals[0] != "User:ANONYMOUS" {
		t.Errorf("super user cause: %s", g.Cause)
	}
	if g := byKind["authorizer"]; g.Principals[0] != "User:auditor" || !strings.Contains(g.Cause, `names that start with "*"`) {
		t.Errorf("authorizer cause: %s", g.Cause)
	}
	accept := "--accept=" + r.Groups[0].ID + "," + r.Groups[1].ID
	if code, r := proof(accept); code != exitOK || r.Verdict != access.Equivalent || r.Classes == 0 {
		t.Fatalf("accepted: exit %d, verdict %s", code, r.Verdict)
	}

	// A planted difference: alice loses Read on orders.
	dropped := snapshot.ACL{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}
	deleteACL(t, b.admin(t), dropped)
	t.Cleanup(func() { createACL(t, b.admin(t), dropped) })
	code, r = proof(accept)
	if code != exitPartial || len(r.Groups) != 3 {
		t.Fatalf("planted: exit %d, %d causes", code, len(r.Groups))
	}
	g := r.Groups[0] // the unaccepted one sorts first
	if g.Accepted || g.Kind != "acl" || g.Principals[0] != "User:alice" || g.Resources[0] != "Topic:orders" || g.Example.Decisions[0].ACL == nil || *g.Example.Decisions[0].ACL != dropped {
		t.Errorf("planted cause: %+v", g)
	}

	// Real clients against both clusters, compared with explain.
	probeAgainstExplain(t, b, srcCfg, tgtCfg)
}

func deleteACL(t *testing.T, conn *kafkaconn.Conn, a snapshot.ACL) {
	t.Helper()
	req := kmsg.NewPtrDeleteACLsRequest()
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType = kmsg.ACLResourceTypeTopic, kmsg.ACLResourcePatternTypeLiteral
	f.ResourceName, f.Principal, f.Host = &a.ResourceName, &a.Principal, &a.Host
	f.Operation, f.PermissionType = kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
	req.Filters = append(req.Filters, f)
	resp, err := req.RequestWith(context.Background(), conn.Client)
	if err != nil || len(resp.Results) != 1 || resp.Results[0].ErrorCode != 0 || len(resp.Results[0].MatchingACLs) != 1 {
		t.Fatalf("delete %s: %v %+v", a, err, resp)
	}
}

func createACL(t *testing.T, conn *kafkaconn.Conn, a snapshot.ACL) {
	t.Helper()
	req := kmsg.NewPtrCreateACLsRequest()
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, kmsg.ACLResourcePatternTypeLiteral
	c.ResourceName, c.Principal, c.Host = a.ResourceName, a.Principal, a.Host
	c.Operation, c.PermissionType = kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
	req.Creations = append(req.Creations, c)
	if resp, err := req.RequestWith(context.Background(), conn.Client); err != nil || resp.Results[0].ErrorCode != 0 {
		t.Errorf("restore %s: %v %+v", a, err, resp)
	}
}

// accessProbe is one real request that makes one authorization check.
type accessProbe struct {
	operation, resource string
	send                func(ctx context.Context, cl *kafkaconn.Conn) (allowed bool, err error)
}

var accessProbes = []accessProbe{
	{"Describe", "Topic:orders", accessMetadataProbe("orders")},
	{"Describe", "Topic:metrics.events", accessMetadataProbe("metrics.events")},
	{"DescribeConfigs", "Topic:orders", func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrDescribeConfigsRequest()
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
		req.Resources = append(req.Resources, r)
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return false, err
		}
		return deniedCode(resp.Resources[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}},
	{"DescribeConfigs", "Cluster:kafka-cluster", func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrDescribeConfigsRequest()
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, ""
		req.Resources = append(req.Resources, r)
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return false, err
		}
		return deniedCode(resp.Resources[0].ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
	{"Describe", "Group:billing", accessGroupProbe("billing")},
	{"Describe", "Group:team-x", accessGroupProbe("team-x")},
	{"Describe", "Cluster:kafka-cluster", func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrDescribeACLsRequest()
		req.ResourceType, req.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
		req.Operation, req.PermissionType = kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return false, err
		}
		return deniedCode(resp.ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
	{"Describe", "TransactionalId:tx-orders", func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType, req.CoordinatorKeys = 1, []string{"tx-orders"}
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return accessAnswered(err, kerr.TransactionalIDAuthorizationFailed)
		}
		return deniedCode(resp.Coordinators[0].ErrorCode, kerr.TransactionalIDAuthorizationFailed)
	}},
	{access.InitProducerID, "", func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionTimeoutMillis = 60000
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return accessAnswered(err, kerr.ClusterAuthorizationFailed)
		}
		return deniedCode(resp.ErrorCode, kerr.ClusterAuthorizationFailed)
	}},
}

func accessMetadataProbe(topic string) func(context.Context, *kafkaconn.Conn) (bool, error) {
	return func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, mt)
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return false, err
		}
		return deniedCode(resp.Topics[0].ErrorCode, kerr.TopicAuthorizationFailed)
	}
}

// accessGroupProbe finds the group's coordinator: FindCoordinator checks
// Describe on the group (whether a coordinator is ready yet is decided
// after).
func accessGroupProbe(group string) func(context.Context, *kafkaconn.Conn) (bool, error) {
	return func(ctx context.Context, c *kafkaconn.Conn) (bool, error) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType, req.CoordinatorKeys = 0, []string{group}
		resp, err := req.RequestWith(ctx, c.Client)
		if err != nil {
			return accessAnswered(err, kerr.GroupAuthorizationFailed)
		}
		return deniedCode(resp.Coordinators[0].ErrorCode, kerr.GroupAuthorizationFailed)
	}
}

// accessAnswered reads a request's error: refused when it is denied, allowed
// when Kafka answered with another error code (the request got past its
// authorization check), else the error.
func accessAnswered(err error, denied *kerr.Error) (bool, error) {
	var ke *kerr.Error
	switch {
	case errors.Is(err, denied):
		return false, nil
	case errors.As(err, &ke):
		return true, nil
	}
	return false, err
}

// deniedCode reads an answer: refused when it is denied's code, allowed when it
// is any other (the request got past its authorization check).
func deniedCode(c int16, denied *kerr.Error) (bool, error) {
	return c != denied.Code, nil
}

// probeAgainstExplain logs in as each SCRAM user whose password the bed
// knows, on the 3.9 source and the 4.1 target, makes every probe, and
// compares what each cluster allowed with `access explain`'s decision for
// that side (host 127.0.0.1, as the brokers see the client).
func probeAgainstExplain(t *testing.T, b *bed, srcCfg, tgtCfg []string) {
	t.Helper()
	// Both sides once into files, so that each explain reads files only.
	srcFile, tgtFile := filepath.Join(b.dir, "source.json"), filepath.Join(b.dir, "target.json")
	if code, _, errs := b.migrate(t, "snapshot", "--zookeeper", b.zk, "--out", srcFile); code != exitOK {
		t.Fatalf("snapshot: %s", errs)
	}
	acls, _, err := kread.ReadACLs(context.Background(), b.admin(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Save(tgtFile, &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, ACLs: acls}); err != nil {
		t.Fatal(err)
	}
	var creds []struct{ User, Mechanism, Password string }
	raw, err := os.ReadFile(b.creds)
	if err != nil || json.Unmarshal(raw, &creds) != nil {
		t.Fatalf("credentials %s: %v", b.creds, err)
	}
	seen := map[string]bool{}
	compared := 0
	for _, c := range creds {
		if seen[c.User] {
			continue
		}
		seen[c.User] = true
		conns := map[string]*kafkaconn.Conn{
			access.SideSource: dialAsUser(t, testbed.SourceBootstrap(t), c.User, c.Mechanism, c.Password),
			access.SideTarget: dialAsUser(t, b.target, c.User, c.Mechanism, c.Password),
		}
		for _, p := range accessProbes {
			args := append(append(append([]string{"access", "explain", "--snapshot", srcFile, "--target-snapshot", tgtFile}, srcCfg...), tgtCfg...),
				"--principal", "User:"+c.User, "--operation", p.operation, "--host", "127.0.0.1", "-o", "json")
			if p.resource != "" {
				args = append(args, "--resource", p.resource)
			}
			_, out, errs := b.migrate(t, args...)
			var x access.Explanation
			if err := json.Unmarshal([]byte(out), &x); err != nil {
				t.Fatalf("explain %v: %v\n%s", args, err, errs)
			}
			for _, d := range x.Decisions {
				if d.Decides != "" {
					continue // the target's controllers; the probes go to brokers
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				allowed, err := p.send(ctx, conns[d.Side])
				cancel()
				if err != nil {
					t.Fatalf("User:%s %s %s on the %s: %v", c.User, p.operation, p.resource, d.Side, err)
				}
				if allowed != (d.Outcome == "ALLOWED") {
					t.Errorf("User:%s %s %s on the %s: the cluster %s, explain says %s (%s)", c.User, p.operation, p.resource, d.Side,
						map[bool]string{true: "allowed it", false: "refused it"}[allowed], d.Outcome, d.Reason)
				}
				compared++
			}
		}
	}
	if want := 2 * len(accessProbes) * len(seen); compared != want || len(seen) < 5 {
		t.Errorf("compared %d decisions of %d users, want %d", compared, len(seen), want)
	}
	t.Logf("%d real requests of %d SCRAM users on both clusters decided as explain said", compared, len(seen))
}

// dialAsUser connects as a SCRAM user (the test bed's clients: SASL_PLAINTEXT).
func dialAsUser(t *testing.T, bootstrap, user, mechanism, password string) *kafkaconn.Conn {
	t.Helper()
	props := filepath.Join(t.TempDir(), "client.properties")
	jaas := fmt.Sprintf(`org.apache.kafka.common.security.scram.ScramLoginModule required username=%q password=%q;`, user, password)
	body := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=" + mechanism + "\nsasl.jaas.config=" + strings.ReplaceAll(jaas, `\`, `\\`) + "\n"
	if err := os.WriteFile(props, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return dialAdmin(t, bootstrap, props)
}
