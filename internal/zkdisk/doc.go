// Package zkdisk reads ZooKeeper's own files from an offline data directory
// (ZooKeeper 3.4–3.9): the fuzzy snapshots (snapshot.<zxid>, also gzip- and
// snappy-compressed as 3.6+ writes them) and the transaction logs
// (log.<zxid>), checksums verified, and replays the transactions into a
// zktree.Tree at the newest consistent point or at a chosen zxid or time.
// It opens every file read-only and never writes the directory. Damage (a
// bad checksum, a short entry, a gap between logs) is reported as a Warning
// naming the file and offset, and the last consistent point before it used.
//
// A read keeps only what it is asked for (Options.Chroot: the chroot's
// subtree and its ancestors; Options.Skip: all but the znodes it names):
// the others are left out while the snapshot is parsed and the logs
// replayed, their data read past and their existence kept as a 64-bit hash
// of the path (so that a create below one, or of one, replays as ZooKeeper
// replays it), their zxids still counted for the fuzzy snapshot's bound.
// A read takes at most Options.MaxBytes (1 GiB by default) from the files,
// decompressed, the snapshots and logs together: a compressed snapshot that
// expands past it is refused with a *CapError naming the file.
package zkdisk
