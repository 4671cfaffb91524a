package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/cmdline"
	"github.com/zkmigrate/zkmigrate/internal/memprofile"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

var snapshotUsage = usageText("snapshot_usage")

func (c *cli) newSnapshotCmd() *cobra.Command {
	var src cliflags.Source
	var output, out string
	cmd := c.leaf("snapshot", "read the legacy cluster's metadata from ZooKeeper into a snapshot (summary, -o json, --out FILE)", snapshotUsage,
		func(ctx context.Context, e *env, args []string) int {
			return runSnapshot(ctx, e, &src, output, out, args)
		})
	fs := cmd.Flags()
	src.Register(fs)
	cmdline.OutputFlag(fs, &output, "output: text (a summary) or json (the snapshot)", "text", "json")
	fs.StringVar(&out, "out", "", "save the snapshot to `FILE`: .json plain, else zstd-compressed\nwritten atomically: plain JSON when it ends in .json, else zstd-compressed JSON (.zst; zstd -dc FILE shows it)")
	return cmd
}

func runSnapshot(ctx context.Context, e *env, src *cliflags.Source, output, out string, args []string) int {
	view, err := render.SnapshotView(render.Output(output), e.stdout)
	if err != nil {
		return fail(e, "snapshot", outputError(err))
	}
	progress := e.progressOut(src.Quiet)
	s, err := loadSource(ctx, src, progress)
	if err != nil {
		return fail(e, "snapshot", err)
	}
	memprofile.Phase("read")
	if out != "" {
		if err := snapshot.Save(out, s); err != nil {
			return fail(e, "snapshot", fmt.Errorf("save %s: %w", out, err))
		}
		memprofile.Phase("save")
	}
	if err := view(render.SnapshotShown{Snapshot: s, Saved: out}); err != nil {
		return fail(e, "snapshot", err)
	}
	return exitOK
}
