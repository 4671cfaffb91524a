// Package check is the pre-upgrade audit behind `migrate check`. Run reads
// one snapshot of a ZooKeeper-mode cluster (and the server.properties files
// it was given) and returns findings: what will break when the cluster moves
// to KRaft and Kafka 4, what the admin protocol cannot carry to a new
// cluster, ACL hygiene, and existing topics that violate the
// TopicActionPolicy.
//
// Every finding has a stable id from the Catalogue (check's part of the
// finding vocabulary in internal/catalogue), a severity, the resource it is
// about, what is wrong, why it matters and the fix. The vocabulary is also
// the source of docs/checks.md (go run ./tools/checksdoc). Run is a
// pure function: no I/O, deterministic order, linear in the size of the
// snapshot (ACLs are indexed by resource and principal).
package check
