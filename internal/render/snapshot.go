package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// snapshotFindingsShown is how many findings the snapshot summary lists.
const snapshotFindingsShown = 30

// SnapshotSummary writes `migrate snapshot`'s text output: how the source
// was read, counts per kind, and the reader's findings (the first 30).
// saved, when not empty, is the file the snapshot was saved to. Sensitive
// values are only counted, never printed.
func SnapshotSummary(w io.Writer, s *snapshot.Snapshot, saved string) error {
	ew := &errWriter{w: w}
	p := func(label, format string, args ...any) {
		ew.printf("%-22s %s\n", label, fmt.Sprintf(format, args...))
	}
	src := s.Source
	if s.Address != "" {
		src += " " + s.Address
	}
	ew.printf("Snapshot of %s\n", src)
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
	protocol := s.Source == snapshot.SourceKafka // read through the brokers: no ZooKeeper bookkeeping
	if c := s.Controller; c != nil && protocol {
		p("Controller", "broker %d (as the brokers report it; the admin protocol gives no epoch)", c.BrokerID)
	} else if c != nil {
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
	if protocol { // only a KRaft cluster has them, read through its brokers
		p("Client metrics", "%d subscriptions", len(s.ClientMetrics))
		p("Group configs", "%d groups", len(s.GroupConfigs))
	}
	if protocol {
		p("Pending deletes", "not visible through the admin protocol")
		p("Legacy requests", "not visible through the admin protocol")
	} else {
		p("Pending deletes", "%d", len(s.PendingDeletes))
		p("Legacy requests", "%d reassignments, %d preferred elections", len(s.LegacyReassignments), len(s.PreferredElections))
	}
	if r.Mode == "full" {
		p("Old consumer groups", "%d", len(s.ConsumerGroups))
	}
	if b := s.ProducerIDBlock; b != nil {
		p("Producer id block", "%d..%d (broker %d)", b.BlockStart, b.BlockEnd, b.Broker)
	}
	p("Static configs", "%s", english.N(len(s.StaticConfigs), "file"))
	counts := map[string]int{}
	for _, f := range s.Findings {
		counts[f.Severity]++
	}
	ew.printf("\nFindings: %d errors, %d warnings, %d info\n", counts[snapshot.SeverityError], counts[snapshot.SeverityWarning], counts[snapshot.SeverityInfo])
	for i, f := range s.Findings {
		if i == snapshotFindingsShown {
			ew.printf("  ... and %d more (-o json lists all)\n", len(s.Findings)-snapshotFindingsShown)
			break
		}
		ew.printf("  %-7s %-24s %s: %s\n", f.Severity, f.ID, f.Resource, strings.TrimSpace(f.Message))
	}
	if saved != "" {
		ew.printf("\nSaved to %s\n", saved)
	}
	return ew.err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
