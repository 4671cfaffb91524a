// Package zkdisk reads ZooKeeper's own files from an offline data directory
// (ZooKeeper 3.4–3.9): the fuzzy snapshots (snapshot.<zxid>, also gzip- and
// snappy-compressed as 3.6+ writes them) and the transaction logs
// (log.<zxid>), checksums verified, and replays the transactions into a
// zktree.Tree at the newest consistent point or at a chosen zxid or time.
// It opens every file read-only and never writes the directory. Damage (a
// bad checksum, a short entry, a gap between logs) is reported as a Warning
// naming the file and offset, and the last consistent point before it used.
package zkdisk
