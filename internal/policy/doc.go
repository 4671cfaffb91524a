// Package policy implements the unified TopicActionPolicy: one policy for
// CREATE, MODIFY and DELETE of topics, which sees the action, the topic, the
// principal and the topic's state before and after the change (partitions,
// replication factor, replica assignment, configs).
//
// A policy is a YAML file of rules. Each rule is a CEL expression that must
// evaluate to true for the action to be allowed. Expressions are type-checked
// once, at load, and compiled once; Evaluate is safe for concurrent use. An
// expression that fails to evaluate denies (fail closed).
//
// The file may also name the legacy Java policy classes
// (create.topic.policy.class.name, alter.config.policy.class.name) as adapter
// entries. zkmigrate cannot run Java: adapters are reported, once, as enforced
// by the target's controllers, and never deny anything here.
//
// Convert rewrites the legacy broker settings of server.properties files into
// a policy file and into the properties the KRaft controllers need.
//
// The package does no network I/O; Load reads one file.
package policy
