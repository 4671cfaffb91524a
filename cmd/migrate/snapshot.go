package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

const snapshotUsage = `Usage: migrate snapshot (--zookeeper host:port[,host:port][/chroot] | --snapshot FILE)
                        [--zk-auth @FILE] [--zk-tls-config-file FILE]
                        [--broker-config server.properties]... [--password-encoder-secret-file FILE]
                        [--full] [-o text|json] [--out FILE]

Reads the legacy cluster's whole metadata from ZooKeeper (read only) into a
snapshot: brokers, topics and assignments, topic/broker/client configs,
quotas, SCRAM users (by reference), ACLs, delegation tokens, pending
deletions and reassignments, /controller, /migration, /feature. Secrets are
never printed or saved, only referenced. --out saves the snapshot for later
commands (--snapshot FILE); -o json prints it.

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
	if output != "text" && output != "json" {
		return fail(e, "snapshot", fmt.Errorf("-o %q: want text or json", output))
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
	if output == "json" {
		if err := snapshot.Encode(e.stdout, s); err != nil {
			return fail(e, "snapshot", err)
		}
		return exitOK
	}
	writeSnapshotSummary(e.stdout, s, out)
	return exitOK
}

// writeSnapshotSummary prints counts per kind and the findings.
func writeSnapshotSummary(w io.Writer, s *snapshot.Snapshot, saved string) {
	p := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-22s %s\n", label, fmt.Sprintf(format, args...))
	}
	src := s.Source
	if s.Address != "" {
		src += " " + s.Address
	}
	fmt.Fprintf(w, "Snapshot of %s\n", src)
	r := s.Read
	if r.Mode != "" {
		line := fmt.Sprintf("%s read, %d znodes", r.Mode, r.Znodes)
		if r.ZxidMax > 0 {
			line += fmt.Sprintf(", zxid 0x%x..0x%x", r.ZxidMin, r.ZxidMax)
		}
		if len(r.Changed) > 0 {
			line += fmt.Sprintf(", %d changed while reading", len(r.Changed))
		}
		p("Read", "%s", line)
	}
	p("Cluster id", "%s", orNone(s.ClusterID))
	if c := s.Controller; c != nil {
		kind := "ZooKeeper controller"
		if c.KRaftControllerEpoch >= 0 {
			kind = fmt.Sprintf("KRaft controller (epoch %d): a migration is in progress", c.KRaftControllerEpoch)
		}
		p("Controller", "broker %d, epoch %d, %s", c.BrokerID, c.Epoch, kind)
	} else {
		p("Controller", "none")
	}
	if m := s.Migration; m != nil {
		p("Migration (/migration)", "KRaft controller %d epoch %d, metadata offset %d", m.KRaftControllerID, m.KRaftControllerEpoch, m.KRaftMetadataOffset)
	}
	for _, f := range s.Features {
		p("Feature", "%s level %d (enabled %v)", f.Name, f.MaxLevel, f.Enabled)
	}
	p("Brokers", "%d", len(s.Brokers))
	var parts, internal, noID, withCfg, reassigning int
	for _, t := range s.Topics {
		parts += len(t.Partitions)
		if t.Internal {
			internal++
		}
		if t.ID == "" {
			noID++
		}
		if len(t.Configs) > 0 {
			withCfg++
		}
		for _, pt := range t.Partitions {
			if len(pt.Adding) > 0 || len(pt.Removing) > 0 {
				reassigning++
			}
		}
	}
	p("Topics", "%d (%d internal, %d without topic id), %d partitions, %d reassigning", len(s.Topics), internal, noID, parts, reassigning)
	p("Topic configs", "%d topics with overrides", withCfg)
	var sens, known int
	for _, bc := range s.BrokerConfigs {
		for _, c := range bc.Configs {
			if c.Sensitive {
				sens++
				if c.Secret != nil && c.Secret.Known() {
					known++
				}
			}
		}
	}
	p("Broker configs", "%d entities, %d sensitive (%d resolved in memory)", len(s.BrokerConfigs), sens, known)
	p("Client quotas", "%d entities", len(s.Quotas))
	p("SCRAM users", "%d (credentials by reference)", len(s.ScramUsers))
	var prefixed int
	for _, a := range s.ACLs {
		if a.PatternType == "PREFIXED" {
			prefixed++
		}
	}
	p("ACLs", "%d (%d literal, %d prefixed)", len(s.ACLs), len(s.ACLs)-prefixed, prefixed)
	p("Delegation tokens", "%d", len(s.DelegationTokens))
	p("Pending deletes", "%d", len(s.PendingDeletes))
	p("Legacy requests", "%d reassignments, %d preferred elections", len(s.LegacyReassignments), len(s.PreferredElections))
	if r.Mode == "full" {
		p("Old consumer groups", "%d", len(s.ConsumerGroups))
	}
	if b := s.ProducerIDBlock; b != nil {
		p("Producer id block", "%d..%d (broker %d)", b.BlockStart, b.BlockEnd, b.Broker)
	}
	p("Static configs", "%d file(s)", len(s.StaticConfigs))
	counts := map[string]int{}
	for _, f := range s.Findings {
		counts[f.Severity]++
	}
	fmt.Fprintf(w, "\nFindings: %d errors, %d warnings, %d info\n", counts[snapshot.SeverityError], counts[snapshot.SeverityWarning], counts[snapshot.SeverityInfo])
	const maxShown = 30
	for i, f := range s.Findings {
		if i == maxShown {
			fmt.Fprintf(w, "  ... and %d more (-o json lists all)\n", len(s.Findings)-maxShown)
			break
		}
		fmt.Fprintf(w, "  %-7s %-24s %s: %s\n", f.Severity, f.ID, f.Resource, strings.TrimSpace(f.Message))
	}
	if saved != "" {
		fmt.Fprintf(w, "\nSaved to %s\n", saved)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
