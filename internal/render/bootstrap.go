package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
)

// BootstrapText writes what a bootstrap run did (or, dry, would do): the
// source's credentials, tokens and topics, then per checkpoint what was
// kept and added and whether it was written. Users and mechanisms only,
// never a salt or key.
func BootstrapText(w io.Writer, res *kraftseed.Result) {
	src := res.Source
	if res.ClusterID != "" {
		src += " (cluster id " + res.ClusterID + ")"
	}
	fmt.Fprintf(w, "Source ZooKeeper %s: %s\n", src, english.N(res.Found, "SCRAM credential"))
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  skipped  %s\n", s)
	}
	if res.Tokens > 0 || len(res.Expired) > 0 {
		fmt.Fprintf(w, "Delegation tokens: %d to seed", res.Tokens)
		if len(res.Expired) > 0 {
			fmt.Fprintf(w, "; %d expired, left out: %s", len(res.Expired), strings.Join(res.Expired, ", "))
		}
		fmt.Fprintln(w)
	}
	if res.Topics > 0 || len(res.NoTopicID) > 0 {
		fmt.Fprintf(w, "Topics: %d to create with their topic ids; the target's brokers must have node ids %v (a partition on a broker that never registers has no leader)\n", res.Topics, res.BrokerIDs)
		if len(res.NoTopicID) > 0 {
			fmt.Fprintf(w, "  without a topic id (left to plan/apply, which creates them with new ids): %s\n", strings.Join(res.NoTopicID, ", "))
		}
		if len(res.Pending) > 0 {
			fmt.Fprintf(w, "  pending deletion on the source, left out: %s\n", strings.Join(res.Pending, ", "))
		}
	}
	for _, t := range res.Targets {
		fmt.Fprintf(w, "\n%s", t.Out)
		if t.ClusterID != "" {
			fmt.Fprintf(w, " (cluster id %s, node %s)", t.ClusterID, t.NodeID)
		}
		fmt.Fprintf(w, ": metadata.version level %d, %s\n", t.MetadataVersion, english.N(t.Records, "record"))
		for _, u := range t.Kept {
			fmt.Fprintf(w, "  keep     %s: already in the checkpoint, kept as it is (the source's is not added)\n", u)
		}
		for _, u := range t.Added {
			fmt.Fprintf(w, "  add      %s (%d iterations)\n", u, u.Iterations)
		}
		for _, id := range t.KeptTokens {
			fmt.Fprintf(w, "  keep     delegation token %s: already in the checkpoint\n", id)
		}
		for _, id := range t.AddedTokens {
			fmt.Fprintf(w, "  add      delegation token %s\n", id)
		}
		for _, name := range t.KeptTopics {
			fmt.Fprintf(w, "  keep     topic %s: already in the checkpoint\n", name)
		}
		for _, name := range t.AddedTopics {
			fmt.Fprintf(w, "  add      topic %s with its topic id\n", name)
		}
		n := t.AddedCount()
		switch {
		case n == 0:
			fmt.Fprintln(w, "  nothing to add; the file is left as it is")
		case res.DryRun:
			fmt.Fprintf(w, "  dry run: would add %s; nothing written\n", english.N(n, "record"))
		case t.Written:
			fmt.Fprintf(w, "  wrote %s more; sha256 %s\n", english.N(n, "record"), t.SHA256)
		default:
			fmt.Fprintln(w, "  not written")
		}
	}
	if !res.DryRun {
		fmt.Fprintln(w, "\nNext: start the controllers (every one bootstrapped), then the brokers; then migrate plan / apply for the rest.")
	}
}

// CheckpointText is bootstrap --show: a checkpoint's records by kind, its
// feature levels, SCRAM users and mechanisms (keys never), topics and
// delegation tokens.
func CheckpointText(w io.Writer, l *kraftseed.Listing) {
	fmt.Fprintf(w, "%s: %d records in %d batches (snapshot header and footer not counted)\n", l.File, l.Records, l.Batches)
	for _, k := range l.Kinds {
		fmt.Fprintf(w, "  %-28s %d\n", k.Type, k.Count)
	}
	fmt.Fprintln(w, "Feature levels:")
	for _, f := range l.Features {
		fmt.Fprintf(w, "  %-34s %d\n", f.Name, f.Level)
	}
	fmt.Fprintf(w, "SCRAM credentials (%d; keys never shown):\n", len(l.Scram))
	for _, u := range l.Scram {
		fmt.Fprintf(w, "  %s (%d iterations)\n", u, u.Iterations)
	}
	if len(l.Topics) > 0 {
		fmt.Fprintf(w, "Topics (%d):\n", len(l.Topics))
		for _, tp := range l.Topics {
			fmt.Fprintf(w, "  %s\n", tp)
		}
	}
	if len(l.Tokens) > 0 {
		fmt.Fprintf(w, "Delegation tokens (%d):\n", len(l.Tokens))
		for _, tk := range l.Tokens {
			fmt.Fprintf(w, "  %s\n", tk)
		}
	}
}
