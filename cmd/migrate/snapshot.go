package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

const snapshotUsage = `Usage: migrate snapshot (--zookeeper host:port[,host:port][/chroot] | --snapshot FILE)
                        [--zk-auth @FILE] [--zk-tls-config-file FILE]
                        [--broker-config server.properties]... [--password-encoder-secret-file FILE]
                        [--full] [-o text|json] [--out FILE]
       migrate snapshot --zk-data-dir DIR [--zk-data-log-dir DIR] [--zk-chroot /kafka]
                        [--zk-zxid ZXID | --zk-time TIME] [flags]
       migrate snapshot --source-bootstrap-server host:port [--source-command-config FILE] [flags]

Reads the legacy cluster's whole metadata from ZooKeeper (read only) into a
snapshot: brokers, topics and assignments, topic/broker/client configs,
quotas, SCRAM users (by reference), ACLs, delegation tokens, pending
deletions and reassignments, /controller, /migration, /feature. Secrets are
never printed or saved, only referenced. --out saves the snapshot for later
commands (--snapshot FILE); -o json prints it.

--zk-data-dir reads ZooKeeper's own files instead, offline (a backup, an
air-gapped copy, a stopped ensemble member): the newest valid snapshot at or
before the point wanted, then the transaction logs replayed onto it, to the
newest consistent point or to --zk-zxid / --zk-time (checksums verified;
plain, gzip and snappy snapshots of ZooKeeper 3.4-3.9). A damaged or
truncated log tail is a warning finding naming the file and offset, and the
last consistent point before it is read. The files are never written.

--source-bootstrap-server reads the same snapshot through the brokers' admin
protocol (any Kafka: 3.x in ZooKeeper mode, 3.x or 4.x KRaft), recorded as
source "kafka" at that address. It lacks what the protocol never returns,
each item named in a finding: SCRAM keys (mechanism and iterations only),
sensitive config values, and, in ZooKeeper mode, topics pending deletion and
the configs of brokers that are not running (docs/sources.md).

`

func (c *cli) newSnapshotCmd() *cobra.Command {
	var src sourceFlags
	var output, out string
	cmd := c.command("snapshot", "read the legacy cluster's metadata from ZooKeeper into a snapshot (summary, -o json, --out FILE)", snapshotUsage,
		func(ctx context.Context, e *env, args []string) int {
			return runSnapshot(ctx, e, &src, output, out, args)
		})
	fs := cmd.Flags()
	src.register(fs)
	outputFlag(fs, &output, "output: text (a summary) or json (the snapshot)", "text", "json")
	fs.StringVar(&out, "out", "", "save the snapshot to `FILE`: zstd-compressed JSON, written atomically (zstd -dc FILE shows it)")
	return cmd
}

func runSnapshot(ctx context.Context, e *env, src *sourceFlags, output, out string, args []string) int {
	if len(args) > 0 {
		return fail(e, "snapshot", fmt.Errorf("unexpected argument %q", args[0]))
	}
	view, err := render.SnapshotView(render.Output(output), e.stdout)
	if err != nil {
		return fail(e, "snapshot", outputError(err))
	}
	progress := e.progressOut(src.quiet)
	s, err := src.load(ctx, progress)
	if err != nil {
		return fail(e, "snapshot", err)
	}
	memPhase("read")
	if out != "" {
		if err := snapshot.Save(out, s); err != nil {
			return fail(e, "snapshot", fmt.Errorf("save %s: %w", out, err))
		}
		memPhase("save")
	}
	if err := view(render.SnapshotShown{Snapshot: s, Saved: out}); err != nil {
		return fail(e, "snapshot", err)
	}
	return exitOK
}
