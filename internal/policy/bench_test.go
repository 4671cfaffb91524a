package policy

import (
	"fmt"
	"strings"
	"testing"
)

// benchRules are 20 rules of the kinds people write: config floors and
// ceilings, presence checks, layout checks over the assignment, topic name
// patterns, principal checks and rules scoped by regular expression.
var benchRules = []string{
	`!("retention.ms" in post.configs) || int(post.configs["retention.ms"]) == -1 || int(post.configs["retention.ms"]) >= 3600000`,
	`pre == null || pre.partitions == post.partitions || post.configs[?"cleanup.policy"].orValue("delete") != "compact"`,
	`post.replication_factor >= 3 || post.configs[?"min.insync.replicas"].orValue("1") == "1"`,
	`post.partitions <= 1000`,
	`post.assignment.all(r, r.size() == r.distinct().size())`,
	`topic.matches("^[a-z0-9._-]+$")`,
	`size(topic) <= 200`,
	`!topic.startsWith("tmp-") || post.configs[?"retention.ms"].orValue("0") != "-1"`,
	`post.configs[?"max.message.bytes"].orValue("1048588") == "1048588" || int(post.configs["max.message.bytes"]) <= 10485760`,
	`!("segment.bytes" in post.configs) || int(post.configs["segment.bytes"]) >= 1048576`,
	`post.configs[?"compression.type"].orValue("producer") in ["producer", "zstd", "lz4", "snappy", "gzip", "uncompressed"]`,
	`!("message.format.version" in post.configs)`,
	`post.configs[?"unclean.leader.election.enable"].orValue("false") == "false"`,
	`pre == null || post.replication_factor >= pre.replication_factor`,
	`post.assignment.size() == 0 || post.assignment.size() == post.partitions`,
	`principal == "" || principal.startsWith("User:")`,
	`action != "MODIFY" || pre.partitions <= post.partitions`,
	`post.configs.size() <= 50`,
	`!("remote.storage.enable" in post.configs) || post.configs["remote.storage.enable"] == "false"`,
	`post.partitions % 1 == 0 && post.replication_factor > 0`,
}

func benchPolicy(b *testing.B) *Policy {
	var sb strings.Builder
	sb.WriteString("version: 1\nrules:\n")
	for i, r := range benchRules {
		topics := ""
		if i%5 == 4 {
			topics = "    topics: \"[a-m].*\"\n"
		}
		fmt.Fprintf(&sb, "  - name: r%02d\n    actions: [CREATE, MODIFY]\n%s    expr: '%s'\n", i, topics, strings.ReplaceAll(r, "'", "''"))
	}
	p, err := Parse("bench.yaml", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	if len(p.Rules()) != 20 {
		b.Fatalf("%d rules, want 20", len(p.Rules()))
	}
	return p
}

// benchTopics returns n topics of 1–12 partitions, replication factor 3,
// with 0–4 config overrides, all complying with benchRules.
func benchTopics(n int) ([]string, []TopicState) {
	names := make([]string, n)
	states := make([]TopicState, n)
	keys := []string{"retention.ms", "cleanup.policy", "min.insync.replicas", "compression.type"}
	vals := []string{"604800000", "compact", "2", "zstd"}
	for i := range states {
		names[i] = fmt.Sprintf("%c-topic-%06d", 'a'+rune(i%26), i)
		parts := int32(1 + i%12)
		s := TopicState{Partitions: parts, ReplicationFactor: 3, Configs: map[string]string{}}
		for p := int32(0); p < parts; p++ {
			s.Assignment = append(s.Assignment, []int32{(p) % 6, (p + 1) % 6, (p + 2) % 6})
		}
		for k := 0; k < i%5; k++ {
			s.Configs[keys[k]] = vals[k]
		}
		states[i] = s
	}
	return names, states
}

// BenchmarkEvaluate50kTopics20Rules evaluates 50,000 topics against 20
// rules per iteration (every topic as a CREATE, as migrate policy test and
// check do; then as a MODIFY, as plan does for changed topics).
func BenchmarkEvaluate50kTopics20Rules(b *testing.B) {
	p := benchPolicy(b)
	names, states := benchTopics(50000)
	for _, mode := range []string{"create", "modify"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				for i := range states {
					var d Decision
					if mode == "create" {
						d = p.EvaluateExisting(names[i], states[i])
					} else {
						d = p.Evaluate(Request{Action: Modify, Topic: names[i], Principal: "User:admin", Pre: &states[i], Post: &states[i]})
					}
					if !d.Allowed {
						b.Fatalf("%s: %+v", names[i], d)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(states)), "ns/topic")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
