// Package zkgen writes a synthetic legacy (ZooKeeper-mode) Kafka cluster in
// Kafka's exact znode formats: cluster id, controller, features, broker
// registrations, topics with partition state, topic / broker / user / client /
// ip configs, SCRAM credentials, encrypted broker passwords and ACLs.
//
// The same generator writes into a live ZooKeeper (ZKWriter: multi-op batches
// over several connections in parallel) or into an in-memory zktree.Tree
// (TreeWriter), so tests and benchmarks can run without a server. Output is a
// pure function of Config: the same seed gives byte-identical znode data.
// Walk reads a tree back with go-zookeeper alone, pipelined (the raw limit
// the snapshot reader is benchmarked against); Delete removes one.
//
// Synthetic shortcuts, all documented on the names that take them:
//   - /brokers/ids/<id> and /controller are written persistent, not
//     ephemeral, so the tree survives the generator's session.
//   - SCRAM credentials are computed properly (PBKDF2, 4096 iterations), but
//     from a small pool of (password, salt) pairs per mechanism
//     (ScramPoolSize), so several users share a salt. Every credential is a
//     valid one for its pool password; only the per-user uniqueness is faked.
//   - Null-data parents (partitions/<p>, /admin/delete_topics/<t>, ...) are
//     written with empty data: go-zookeeper cannot send null, and Kafka's
//     readers see the two the same way.
//   - /cluster/id is written last, so its presence marks a complete tree.
package zkgen
