package apply

import (
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// acl: CreateAcls for a create, DeleteAcls (an exact filter) for a delete;
// results come back in request order.
var aclKind = &kindSpec{
	rpc: byAction(createACLs, deleteACLs),
}

var createACLs = &rpc{name: RPCCreateACLs, build: func(_ *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrCreateACLsRequest()
	for _, c := range b {
		req.Creations = append(req.Creations, aclCreation(c.Resource.ACL))
	}
	return req, func(resp kmsg.Response, out []outcome) {
		for i, res := range resp.(*kmsg.CreateACLsResponse).Results {
			if i < len(out) {
				out[i] = outcome{code: res.ErrorCode, msg: deref(res.ErrorMessage)}
			}
		}
	}
}}

var deleteACLs = &rpc{name: RPCDeleteACLs, build: func(_ *runner, b []*plan.Change, _ bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrDeleteACLsRequest()
	for _, c := range b {
		req.Filters = append(req.Filters, aclFilter(c.Resource.ACL))
	}
	return req, func(resp kmsg.Response, out []outcome) {
		for i, res := range resp.(*kmsg.DeleteACLsResponse).Results {
			if i < len(out) {
				out[i] = outcome{code: res.ErrorCode, msg: deref(res.ErrorMessage)}
			}
		}
	}
}}

// aclCodes converts an ACL's names to protocol enums. The plan only holds
// ACLs read from ZooKeeper or Kafka, whose names parse; an unknown name
// becomes UNKNOWN and the broker rejects that one ACL.
func aclCodes(a *snapshot.ACL) (kmsg.ACLResourceType, kmsg.ACLResourcePatternType, kmsg.ACLOperation, kmsg.ACLPermissionType) {
	rt, _ := kmsg.ParseACLResourceType(a.ResourceType)
	pt, _ := kmsg.ParseACLResourcePatternType(a.PatternType)
	op, _ := kmsg.ParseACLOperation(a.Operation)
	perm, _ := kmsg.ParseACLPermissionType(a.Permission)
	return rt, pt, op, perm
}

func aclCreation(a *snapshot.ACL) kmsg.CreateACLsRequestCreation {
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourcePatternType, c.Operation, c.PermissionType = aclCodes(a)
	c.ResourceName, c.Principal, c.Host = a.ResourceName, a.Principal, a.Host
	return c
}

func aclFilter(a *snapshot.ACL) kmsg.DeleteACLsRequestFilter {
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType, f.Operation, f.PermissionType = aclCodes(a)
	name, principal, host := a.ResourceName, a.Principal, a.Host
	f.ResourceName, f.Principal, f.Host = &name, &principal, &host
	return f
}
