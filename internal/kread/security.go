package kread

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Kafka's PascalCase spellings, as ZooKeeper stores them.
var (
	resourceTypeNames = map[kmsg.ACLResourceType]string{
		kmsg.ACLResourceTypeTopic:           "Topic",
		kmsg.ACLResourceTypeGroup:           "Group",
		kmsg.ACLResourceTypeCluster:         "Cluster",
		kmsg.ACLResourceTypeTransactionalId: "TransactionalId",
		kmsg.ACLResourceTypeDelegationToken: "DelegationToken",
		kmsg.ACLResourceTypeUser:            "User",
	}
	patternNames = map[kmsg.ACLResourcePatternType]string{
		kmsg.ACLResourcePatternTypeLiteral:  "LITERAL",
		kmsg.ACLResourcePatternTypePrefixed: "PREFIXED",
	}
	operationNames = map[kmsg.ACLOperation]string{
		kmsg.ACLOperationAll:             "All",
		kmsg.ACLOperationRead:            "Read",
		kmsg.ACLOperationWrite:           "Write",
		kmsg.ACLOperationCreate:          "Create",
		kmsg.ACLOperationDelete:          "Delete",
		kmsg.ACLOperationAlter:           "Alter",
		kmsg.ACLOperationDescribe:        "Describe",
		kmsg.ACLOperationClusterAction:   "ClusterAction",
		kmsg.ACLOperationDescribeConfigs: "DescribeConfigs",
		kmsg.ACLOperationAlterConfigs:    "AlterConfigs",
		kmsg.ACLOperationIdempotentWrite: "IdempotentWrite",
		kmsg.ACLOperationCreateTokens:    "CreateTokens",
		kmsg.ACLOperationDescribeTokens:  "DescribeTokens",
	}
	permissionNames = map[kmsg.ACLPermissionType]string{
		kmsg.ACLPermissionTypeAllow: "Allow",
		kmsg.ACLPermissionTypeDeny:  "Deny",
	}
)

// acls reads every ACL with one ANY filter over all resource and pattern
// types (USER and DELEGATION_TOKEN included, which kadm's builder cannot
// express).
func (r *reader) acls(ctx context.Context) ([]snapshot.ACL, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType = kmsg.ACLResourceTypeAny
	req.ResourcePatternType = kmsg.ACLResourcePatternTypeAny
	return r.describeACLs(ctx, req)
}

// describeACLs sends one DescribeACLs request (any operation, any
// permission) and converts what it returns.
func (r *reader) describeACLs(ctx context.Context, req *kmsg.DescribeACLsRequest) ([]snapshot.ACL, error) {
	req.Operation = kmsg.ACLOperationAny
	req.PermissionType = kmsg.ACLPermissionTypeAny
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return nil, r.wrap(err, "reading ACLs", "Cluster:Describe")
	}
	switch err := kerr.ErrorForCode(resp.ErrorCode); {
	case err == nil:
	case err == kerr.SecurityDisabled:
		if r.noAuthorizer.Swap(true) {
			return nil, nil // said once, for a scoped read's many requests
		}
		r.finding(snapshot.Finding{
			ID: catalogue.IDKReadNoAuthorizer, Severity: snapshot.SeverityWarning, Resource: "acls",
			Message: "the cluster has no authorizer configured, so it holds no ACLs and cannot take any",
			Fix:     "configure authorizer.class.name (StandardAuthorizer) on the KRaft cluster before migrating ACLs",
		})
		return nil, nil
	case isAuth(err):
		return nil, r.wrap(err, "reading ACLs", "Cluster:Describe")
	default:
		return nil, fmt.Errorf("kread: reading ACLs: %s", codeMsg(err, resp.ErrorMessage))
	}
	var out []snapshot.ACL
	for _, res := range resp.Resources {
		rt, okT := resourceTypeNames[res.ResourceType]
		pt, okP := patternNames[res.ResourcePatternType]
		for _, a := range res.ACLs {
			op, okO := operationNames[a.Operation]
			perm, okM := permissionNames[a.PermissionType]
			if !okT || !okP || !okO || !okM {
				r.finding(snapshot.Finding{
					ID: catalogue.IDKReadACLUnknown, Severity: snapshot.SeverityWarning,
					Resource: fmt.Sprintf("acl %s:%s:%s", res.ResourceType, res.ResourcePatternType, res.ResourceName),
					Message: fmt.Sprintf("an ACL for %s uses a resource type, pattern, operation or permission this tool does not know (%s %s %s %s); it is left out",
						a.Principal, res.ResourceType, res.ResourcePatternType, a.Operation, a.PermissionType),
				})
				continue
			}
			out = append(out, snapshot.ACL{
				ResourceType: rt, ResourceName: res.ResourceName, PatternType: pt,
				Principal: a.Principal, Host: a.Host, Operation: op, Permission: perm,
			})
		}
	}
	return out, nil
}

// entityOrder is the canonical order of quota entity components.
var entityOrder = map[string]int{snapshot.EntityUser: 0, snapshot.EntityClientID: 1, snapshot.EntityIP: 2}

// quotas reads every client-quota entity (non-strict, no filter).
func (r *reader) quotas(ctx context.Context) ([]snapshot.Quota, error) {
	return r.describeQuotas(ctx, nil)
}

// describeQuotas reads the client-quota entities that match the filter
// components (non-strict: entities with more components match too).
func (r *reader) describeQuotas(ctx context.Context, filter []kmsg.DescribeClientQuotasRequestComponent) ([]snapshot.Quota, error) {
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Strict = false
	req.Components = filter
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return nil, r.wrap(err, "reading client quotas", "Cluster:DescribeConfigs")
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		if isAuth(err) {
			return nil, r.wrap(err, "reading client quotas", "Cluster:DescribeConfigs")
		}
		return nil, fmt.Errorf("kread: reading client quotas: %s", codeMsg(err, resp.ErrorMessage))
	}
	out := make([]snapshot.Quota, 0, len(resp.Entries))
	for _, e := range resp.Entries {
		q := snapshot.Quota{Values: make(map[string]float64, len(e.Values))}
		for _, c := range e.Entity {
			ec := snapshot.EntityComponent{Type: c.Type}
			if c.Name == nil {
				ec.Default = true
			} else {
				ec.Name = *c.Name
			}
			q.Entity = append(q.Entity, ec)
		}
		sortEntity(q.Entity)
		for _, v := range e.Values {
			q.Values[v.Key] = v.Value
		}
		out = append(out, q)
	}
	return out, nil
}

// sortEntity orders components user, client-id, ip, then unknown types by
// name.
func sortEntity(e snapshot.QuotaEntity) {
	rank := func(t string) int {
		if r, ok := entityOrder[t]; ok {
			return r
		}
		return len(entityOrder)
	}
	for i := 1; i < len(e); i++ {
		for j := i; j > 0; j-- {
			a, b := e[j-1], e[j]
			if rank(a.Type) < rank(b.Type) || (rank(a.Type) == rank(b.Type) && a.Type <= b.Type) {
				break
			}
			e[j-1], e[j] = b, a
		}
	}
}

// scramMechanisms maps the protocol's mechanism numbers.
var scramMechanisms = map[int8]string{1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}

// scramUsers reads the SCRAM mechanisms and iterations of every user; the
// protocol never returns salts or keys.
func (r *reader) scramUsers(ctx context.Context) ([]snapshot.ScramUser, error) {
	return r.describeScram(ctx, nil)
}

// describeScram reads the SCRAM credentials of the named users (nil: of
// every user); a user without any is left out.
func (r *reader) describeScram(ctx context.Context, users []string) ([]snapshot.ScramUser, error) {
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest() // nil Users: all
	for _, u := range users {
		ru := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
		ru.Name = u
		req.Users = append(req.Users, ru)
	}
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return nil, r.wrap(err, "reading SCRAM users", "Cluster:Describe")
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		if isAuth(err) {
			return nil, r.wrap(err, "reading SCRAM users", "Cluster:Describe")
		}
		return nil, fmt.Errorf("kread: reading SCRAM users: %s", codeMsg(err, resp.ErrorMessage))
	}
	var out []snapshot.ScramUser
	for _, u := range resp.Results {
		if err := kerr.ErrorForCode(u.ErrorCode); err != nil {
			if err == kerr.ResourceNotFound {
				continue
			}
			return nil, fmt.Errorf("kread: reading SCRAM user %s: %s", u.User, codeMsg(err, u.ErrorMessage))
		}
		su := snapshot.ScramUser{Name: u.User}
		for _, ci := range u.CredentialInfos {
			mech, ok := scramMechanisms[ci.Mechanism]
			if !ok {
				mech = "mechanism-" + fmt.Sprint(ci.Mechanism)
			}
			sec := secret.Ref("kafka:user/" + u.User + "#" + mech)
			su.Credentials = append(su.Credentials, snapshot.ScramCredential{Mechanism: mech, Iterations: ci.Iterations, Secret: &sec})
		}
		if len(su.Credentials) > 0 {
			out = append(out, su)
		}
	}
	return out, nil
}
