// Package access proves that a migration keeps every client's access: it
// decides every request class that any ACL or authorizer setting of either
// side can tell apart with each side's own authorizer (internal/authz's
// ports of ZooKeeper mode's AclAuthorizer and KRaft's StandardAuthorizer)
// and compares the decisions. The result is a proof ("the target decides
// every request as the source did") or counterexamples grouped by cause,
// each with both decisions and both reasons.
//
// It is pure: ACLs, the authorizer settings of each node and a principal
// map in, a Result out; the use case in internal/migration reads them.
// docs/access.md says what is proved, over which request classes, and what
// is not.
package access
