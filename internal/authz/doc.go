// Package authz holds Kafka's two ACL authorizers' decision procedures,
// ported from Kafka's source, with no I/O: ZooKeeper mode's
// kafka.security.authorizer.AclAuthorizer (Kafka 2.4-3.9, NewZK) and
// KRaft's org.apache.kafka.metadata.authorizer.StandardAuthorizer (3.3-4.1,
// NewKRaft). Each takes the ACLs and the authorizer configuration
// (super.users, allow.everyone.if.no.acl.found; ParseZKConfig and
// ParseKRaftConfig read them as each class does) and answers a request
// (principal, host, operation, resource type and name) or the
// by-resource-type question of KIP-679 with a Decision: allowed or not,
// and the reason — the ACL, the super user rule or the default that
// decided, or that Kafka throws (Broken) or never answers (Hang).
//
// The ports are faithful, differences included: the differential test
// (oracle_test.go, testdata/kafka/AuthzOracle.java) holds every decision,
// on thousands of generated cases, to what Kafka's own classes decide —
// AclAuthorizer from the 3.9.1 jars, StandardAuthorizer from the 3.9.1 and
// 4.1.1 jars. What both do:
//
//   - super.users first: a super user is allowed everything.
//   - The ACLs in scope for Type:name are the LITERAL ones on name and on
//     "*" and the PREFIXED ones on every prefix of name, for every
//     principal. If there is none, allow.everyone.if.no.acl.found decides;
//     one ACL of anyone (User:bob Write Topic:*) takes every topic out of
//     its reach.
//   - DENY before ALLOW. A DENY matches its own operation or All, with no
//     implication (DENY Read does not deny Describe). An ALLOW of Read,
//     Write, Delete or Alter also allows Describe, AlterConfigs also
//     DescribeConfigs, All everything.
//   - Principals match as text ("User:alice" is not "user:alice"); the
//     only wildcard principal is "User:*". Hosts match as text or "*",
//     against Java's InetAddress.getHostAddress (HostAddress), so an ACL
//     host "::1" never matches (Java prints 0:0:0:0:0:0:0:1).
//
// Where they differ:
//
//   - super.users: AclAuthorizer throws (the broker does not start) on an
//     empty element in the middle ("a;;b") or at the start; StandardAuthorizer
//     skips it. A semicolon cannot be escaped; commas are ordinary, so
//     DNs work ("User:CN=x,O=y").
//   - allow.everyone.if.no.acl.found: AclAuthorizer accepts only true or
//     false (any case) and throws on anything else ("yes");
//     StandardAuthorizer reads anything but "true" as false.
//   - Names starting with "*": StandardAuthorizer's walk skips a LITERAL
//     ACL whose name is a proper prefix of the resource name, and "*" is
//     one for "*g1": ALLOW User:alice Read Group:* allows group g1 on both,
//     but group *g1 only on AclAuthorizer. (Topic names cannot hold "*";
//     group and transactional ids can.)
//   - Names starting with a character below "*" (space, !"#$%&'()):
//     StandardAuthorizer's second walk (the "*" section) starts at "*" and
//     goes on to the ACL names sorted below it; when one of them is not a
//     prefix of the request's name it cuts "*" to the common prefix. A
//     common prefix of one character jumps back to "*": the request
//     handler loops for ever (Hang: group "!b" with any ACL on a group
//     "!a..." — no deny matched first); of two or more, substring throws
//     StringIndexOutOfBoundsException (Broken). Both confirmed on 3.9.1 and
//     4.1.1; AclAuthorizer has neither.
//   - ACL principals without ':': AclAuthorizer cannot load them (the
//     broker does not start: every decision Broken); StandardAuthorizer
//     accepts them at creation and throws IllegalStateException for every
//     request whose walk reaches one before a matching DENY.
//   - AuthorizeByResourceType: AclAuthorizer has its own override; a
//     matching LITERAL "*" DENY denies, then allow.everyone allows
//     outright, then any matching ALLOW not covered by a DENY allows, with
//     no operation implications. StandardAuthorizer uses the interface's
//     default: it first authorizes the resource "hardcode" (with the
//     implications, super users and allow.everyone as for any name), then
//     walks every ACL of the type. So with allow.everyone and ALLOW
//     User:bob Write Topic:*, User:alice may (Write, Topic) on ZooKeeper
//     and not on KRaft (idempotent producers without ACLs stop working);
//     DENY PREFIXED "h" decides "hardcode" on KRaft only; ALLOW User:*
//     Write Group:* gives (Describe, Group) on KRaft only.
//
// Before 2.4, ZooKeeper mode's authorizer was kafka.security.auth.SimpleAclAuthorizer
// (0.11-2.3, NewZKLegacy). Its decision order and implications are
// AclAuthorizer's. Before 2.0 there were no PREFIXED ACLs (KIP-290; 2.0
// needs inter.broker.protocol.version 2.0-IV1 to create them). Before 2.1 a
// custom principal class was compared as it was (KAFKA-7028 normalises it to
// its type and name), which this package does not model; and before 3.6
// neither authorizer trimmed allow.everyone.if.no.acl.found (KAFKA-14962).
// authorizeByResourceType exists from 2.8; older brokers ask for
// IdempotentWrite on the cluster instead.
//
// What is not modelled: StandardAuthorizer before its initial load
// (AuthorizerNotReadyException for all but super users), CIDR hosts (after
// 4.1), custom authorizers, and names whose common prefix ends inside a
// UTF-16 surrogate pair (StandardAuthorizer's walk then cuts a character
// in half; this port cuts at whole characters).
package authz
