package catalogue

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// TestEqualValuesGolden compares each pair of testdata/values.txt (a source
// value and Kafka's own printed form) by its key's type; the verdicts are in
// testdata/values.golden.
func TestEqualValuesGolden(t *testing.T) {
	f, err := os.Open("testdata/values.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		txt := sc.Text()
		if txt == "" || strings.HasPrefix(txt, "#") {
			out.WriteString(txt + "\n")
			continue
		}
		fs := strings.Split(txt, "\t")
		if len(fs) != 4 {
			t.Fatalf("testdata/values.txt:%d: want 4 tab-separated fields, got %d", line, len(fs))
		}
		scope := map[string]Scope{"topic": ScopeTopic, "broker": ScopeBroker}[fs[0]]
		typ := ConfigType(scope, fs[1])
		verdict := "different"
		if EqualValues(scope, fs[1], fs[2], fs[3]) {
			verdict = "equal"
		}
		if EqualValues(scope, fs[1], fs[2], fs[3]) != EqualValues(scope, fs[1], fs[3], fs[2]) {
			t.Errorf("testdata/values.txt:%d: comparison is not symmetric", line)
		}
		name := string(typ)
		if typ == TypeUnknown {
			name = "unknown (text)"
		}
		fmt.Fprintf(&out, "%-6s %-70s %-14s %q vs %q: %s\n", fs[0], fs[1], name, fs[2], fs[3], verdict)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	golden.AssertString(t, "testdata/values.golden", out.String())
}

// TestConfigTypeTable checks the generated table against types Kafka's
// ConfigDef declares (TopicConfig, LogConfig, ServerConfigs), one per type.
func TestConfigTypeTable(t *testing.T) {
	for _, c := range []struct {
		scope Scope
		key   string
		want  Type
	}{
		{ScopeBroker, "log.cleaner.io.max.bytes.per.second", TypeDouble},
		{ScopeTopic, "retention.ms", TypeLong},
		{ScopeTopic, "segment.bytes", TypeInt},
		{ScopeBroker, "offsets.topic.replication.factor", TypeShort},
		{ScopeTopic, "unclean.leader.election.enable", TypeBoolean},
		{ScopeTopic, "cleanup.policy", TypeList},
		{ScopeBroker, "principal.builder.class", TypeClass},
		{ScopeBroker, "ssl.keystore.password", TypePassword},
		{ScopeTopic, "compression.type", TypeString},
		{ScopeBroker, "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", TypePassword},
		{ScopeBroker, "listener.name.internal.ssl.keystore.location", TypeString},
		{ScopeTopic, "log.retention.ms", TypeUnknown}, // a broker key, not a topic one
		{ScopeBroker, "listener.name.x", TypeUnknown},
		{ScopeBroker, "no.such.key", TypeUnknown},
	} {
		if got := ConfigType(c.scope, c.key); got != c.want {
			t.Errorf("ConfigType(%v, %s) = %q, want %q", c.scope, c.key, got, c.want)
		}
	}
}
