package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidTopicName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"orders", true}, {"a.b_c-D9", true}, {"__consumer_offsets", true}, {strings.Repeat("x", 249), true},
		{"", false}, {".", false}, {"..", false}, {"...", true}, {strings.Repeat("x", 250), false},
		{"with space", false}, {"slash/x", false}, {"café", false}, {"a:b", false}, {"tab\t", false},
	}
	for _, tt := range tests {
		if why := ValidTopicName(tt.name); (why == "") != tt.ok {
			t.Errorf("ValidTopicName(%q) = %q, want ok=%v", tt.name, why, tt.ok)
		}
	}
}

// TestLoadRefusesAmbiguousSnapshots edits a valid snapshot file the way a
// person might and checks that Load refuses it, naming the file and the
// entries.
func TestLoadRefusesAmbiguousSnapshots(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "valid.snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string // "" = accepted
	}{
		{"unchanged", func(map[string]any) {}, ""},
		{"invalid topic name", func(m map[string]any) { topic(m, 1)["name"] = "bad topic!" },
			`topics[1]: topic name "bad topic!" contains " "`},
		{"dot topic", func(m map[string]any) { topic(m, 0)["name"] = ".." }, `topics[0]: topic name ".." cannot be`},
		{"empty topic", func(m map[string]any) { topic(m, 0)["name"] = "" }, `topics[0]: topic name "" is empty`},
		{"long topic", func(m map[string]any) { topic(m, 0)["name"] = strings.Repeat("t", 250) }, `is 250 characters long`},
		{"duplicate topic", func(m map[string]any) { topic(m, 1)["name"] = "orders" }, `topics[0] and topics[1] are both topic "orders"`},
		{"duplicate partition", func(m map[string]any) {
			topic(m, 0)["partitions"].([]any)[1].(map[string]any)["id"] = 0
		}, `topic "orders": partitions[0] and topic "orders": partitions[1] are both partition "0"`},
		{"duplicate topic config", func(m map[string]any) {
			tp := topic(m, 0)
			tp["configs"] = append(tp["configs"].([]any), map[string]any{"key": "retention.ms", "value": "1"})
		}, `are both config "retention.ms"`},
		{"duplicate broker", func(m map[string]any) { m["brokers"].([]any)[1].(map[string]any)["id"] = 1 }, `brokers[0] and brokers[1] are both broker "1"`},
		{"duplicate broker config", func(m map[string]any) {
			m["broker_configs"].([]any)[1].(map[string]any)["broker"] = ""
		}, `broker_configs[0] and broker_configs[1] are both cluster default`},
		{"duplicate quota entity", func(m map[string]any) {
			m["quotas"] = append(m["quotas"].([]any), map[string]any{"entity": []any{map[string]any{"type": "user", "name": "alice"}}, "values": map[string]any{"consumer_byte_rate": 1}})
		}, `quotas[0] and quotas[1] are both quota entity "user=alice"`},
		{"duplicate scram user", func(m map[string]any) {
			m["scram_users"] = append(m["scram_users"].([]any), map[string]any{"name": "alice", "credentials": []any{}})
		}, `scram_users[0] and scram_users[1] are both user "alice"`},
		{"duplicate scram mechanism", func(m map[string]any) {
			u := m["scram_users"].([]any)[0].(map[string]any)
			u["credentials"] = append(u["credentials"].([]any), map[string]any{"mechanism": "SCRAM-SHA-256", "iterations": 8192})
		}, `are both mechanism "SCRAM-SHA-256"`},
		{"duplicate token", func(m map[string]any) {
			m["delegation_tokens"] = append(m["delegation_tokens"].([]any), map[string]any{"token_id": "t1", "owner": "User:bob"})
		}, `delegation_tokens[0] and delegation_tokens[1] are both token "t1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(base, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			b, _ := json.Marshal(m)
			path := filepath.Join(t.TempDir(), "edited.snapshot.json")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Load(path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if len(s.Topics) != 2 {
					t.Fatalf("loaded %d topics", len(s.Topics))
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v; want %s: ...%s...", err, path, tt.want)
			}
		})
	}
}

func topic(m map[string]any, i int) map[string]any { return m["topics"].([]any)[i].(map[string]any) }

// FuzzRead: no input panics; a refusal names the file; what Parse
// accepts is valid (Validate passes) and encodes and decodes back.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":1,"topics":[{"name":"a"},{"name":"a"}]}`))
	f.Add([]byte(`{"format":1,"topics":[{"name":"a/b"}]}`))
	f.Add([]byte("{\n\"format\": 1,\n\"topics\": [{\"name\": 7}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read("fuzz.snapshot.json", bytes.NewReader(b))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.snapshot.json:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Read accepted a snapshot Validate refuses: %v", err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, s); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if _, err := Decode(&buf); err != nil {
			t.Fatalf("a decoded snapshot does not decode again: %v", err)
		}
	})
}
