// Package zkread reads a ZooKeeper-mode Kafka cluster's metadata (Kafka
// 0.11–3.9) into a snapshot.Snapshot. It never writes: it reads through the
// small Source interface (Get and Children), which a live ZooKeeper
// connection (package zkconn) and a captured *zktree.Tree both implement, so
// the same reader runs against an ensemble and against test fixtures.
//
// Reads are pipelined: a bounded pool of workers keeps many requests in
// flight on one connection. A malformed, unknown-version or unreadable znode
// becomes a snapshot.Finding naming its path and the rest of the read
// completes. Secrets (SCRAM keys, encrypted broker passwords) are held by
// reference; a broker password is decrypted in memory only when the password
// encoder secret is supplied. The znode formats are those of
// shared/reference/kafka-zk-model.md.
package zkread
