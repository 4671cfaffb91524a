package render_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/kraftseed"
	"github.com/zkmigrate/zkmigrate/internal/render"
)

// TestBootstrapText: a run's report per case — written, dry run, nothing
// to add, a write that failed part way, tokens and topics — against
// goldens (the text is byte for byte what `migrate bootstrap` printed
// before it moved here).
func TestBootstrapText(t *testing.T) {
	admin := kraftseed.User{User: "admin", Mechanism: "SCRAM-SHA-256", Iterations: 8192}
	alice := kraftseed.User{User: "alice", Mechanism: "SCRAM-SHA-512", Iterations: 4096}
	dir := kraftseed.Target{Dir: "/kafka/c1", Out: "/kafka/c1/bootstrap.checkpoint", ClusterID: "AAAAAAAAAAAAAAAAAAAAAA", NodeID: "1",
		MetadataVersion: 27, Records: 6, Added: []kraftseed.User{alice}, Kept: []kraftseed.User{admin}}
	written := dir
	written.Written, written.SHA256 = true, "5d2e6721198a6bcc7bf9707ec96a0d7ee957c0e135ae7435a276f590f7b05fea"
	second := dir
	second.Out, second.NodeID = "/kafka/c2/bootstrap.checkpoint", "2"
	same := kraftseed.Target{Out: "in.checkpoint", MetadataVersion: 27, Records: 8, Added: []kraftseed.User{}, Kept: []kraftseed.User{admin, alice},
		KeptTokens: []string{"live"}, KeptTopics: []string{"orders"}}
	for _, tc := range []struct {
		golden string
		res    kraftseed.Result
	}{
		{"bootstrap-written.txt", kraftseed.Result{Source: "zk:2181", ClusterID: "src", Found: 2, Targets: []kraftseed.Target{written, second}}},
		{"bootstrap-dry-run.txt", kraftseed.Result{DryRun: true, Source: "zk:2181", Found: 2, Skipped: []string{"/config/users/eve: bad"},
			Tokens: 1, Expired: []string{"old", "older"}, Topics: 1, NoTopicID: []string{"legacy"}, Pending: []string{"doomed"}, BrokerIDs: []int32{1, 2},
			Targets: []kraftseed.Target{{Out: "out.checkpoint", MetadataVersion: 27, Records: 6, Added: []kraftseed.User{alice}, Kept: []kraftseed.User{},
				AddedTokens: []string{"live"}, AddedTopics: []string{"orders"}}}}},
		{"bootstrap-nothing.txt", kraftseed.Result{Source: "/data/zk at zxid 0x1c", Found: 2, Targets: []kraftseed.Target{same}}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var b strings.Builder
			render.BootstrapText(&b, &tc.res)
			golden(t, filepath.Join("testdata", tc.golden), b.String())
		})
	}
}

// TestCheckpointText: bootstrap --show's listing.
func TestCheckpointText(t *testing.T) {
	l := &kraftseed.Listing{File: "bootstrap.checkpoint", Batches: 4, Records: 9,
		Kinds:    []kraftseed.Kind{{Type: "FeatureLevelRecord", Count: 4}, {Type: "UserScramCredentialRecord", Count: 5}},
		Features: []kraftseed.Feature{{Name: "metadata.version", Level: 27}, {Name: "group.version", Level: 1}},
		Scram:    []kraftseed.User{{User: "admin", Mechanism: "SCRAM-SHA-256", Iterations: 8192}},
		Tokens:   []string{"live (owner User:alice)"}, Topics: []string{"orders (id Wm4s3qv8RHSv0DVk2nJtYA)"}}
	var b strings.Builder
	render.CheckpointText(&b, l)
	golden(t, filepath.Join("testdata", "bootstrap-show.txt"), b.String())
}
