package zkgen_test

import (
	"context"
	"sync"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/zkgen"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// benchTree is a 5,000-topic generated tree, built once per test binary.
var benchTree = sync.OnceValues(func() (*zktree.Tree, zkgen.Summary) {
	return generated(zkgen.Config{Topics: 5000, PartitionsPerTopic: 4, ACLs: 10000, QuotaEntities: 1000, ScramUsers: 500, Brokers: 3, Seed: 1})
})

func generated(cfg zkgen.Config) (*zktree.Tree, zkgen.Summary) {
	w := zkgen.NewTreeWriter()
	sum, err := zkgen.Generate(context.Background(), cfg, w, zkgen.Options{})
	if err != nil {
		panic(err)
	}
	return w.Tree(), sum
}

// TestReaderReadsGeneratedTree is a cross-check between the generator and
// the reader: zkread over a generated tree in memory finds what the
// generator says it wrote, without findings.
func TestReaderReadsGeneratedTree(t *testing.T) {
	tr, sum := generated(zkgen.Config{Topics: 800, PartitionsPerTopic: 3, ACLs: 1500, QuotaEntities: 200, ScramUsers: 80, Brokers: 4, Seed: 5})
	for _, full := range []bool{false, true} {
		s, err := zkread.Read(context.Background(), tr, zkread.Options{Full: full, EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
		if err != nil {
			t.Fatal(err)
		}
		parts, states := 0, 0
		for _, tp := range s.Topics {
			parts += len(tp.Partitions)
			for _, p := range tp.Partitions {
				if p.State != nil {
					states++
				}
			}
		}
		wantStates := 0
		if full {
			wantStates = sum.Partitions
		}
		got := [...]int{len(s.Topics), parts, states, len(s.ACLs), len(s.Quotas), len(s.ScramUsers), len(s.PendingDeletes), len(s.Brokers), len(s.DelegationTokens)}
		want := [...]int{sum.Topics, sum.Partitions, wantStates, sum.ACLEntries, sum.Quotas.Total(), sum.ScramUsers, sum.PendingDeletes, sum.Brokers, sum.DelegationTokens}
		if got != want {
			t.Errorf("full=%v: [topics partitions states acls quotas scram pending brokers tokens] = %v, generator wrote %v", full, got, want)
		}
		for _, f := range s.Findings {
			if f.ID == "notifications-pending" && f.Resource == "/config/changes" && full && sum.ConfigChanges > 0 {
				continue // the generator writes a few change notifications, as a live cluster has
			}
			t.Errorf("full=%v: finding %s %s: %s", full, f.ID, f.Resource, f.Message)
		}
	}
}

// BenchmarkReadGeneratedTree is zkread's parse and assembly cost without a
// network: the same generated tree read from memory in both modes.
func BenchmarkReadGeneratedTree(b *testing.B) {
	tr, sum := benchTree()
	for _, mode := range []struct {
		name string
		full bool
	}{{"migration", false}, {"full", true}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := zkread.Read(context.Background(), tr, zkread.Options{Full: mode.full, EncoderSecrets: []string{zkgen.DefaultEncoderSecret}})
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Topics) != sum.Topics {
					b.Fatalf("read %d topics, wrote %d", len(s.Topics), sum.Topics)
				}
				b.ReportMetric(float64(s.Read.Znodes), "znodes/op")
			}
		})
	}
}
