package planfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// fuzzTarget has a topic, a broker config, a quota, an ACL and a SCRAM user
// for the changes to be checked against.
var fuzzTarget = func() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: 1, Source: snapshot.SourceKafka, ClusterID: "t", Brokers: []snapshot.Broker{{ID: 0}, {ID: 1}},
		Topics: []snapshot.Topic{{Name: "a", Partitions: []snapshot.Partition{{ID: 0, Replicas: []int32{0, 1}}, {ID: 1, Replicas: []int32{1, 0}}},
			Configs: []snapshot.Config{{Key: "retention.ms", Value: "1"}}}},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "0", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "2"}}}},
		Quotas:        []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1}}},
		ACLs:          []snapshot.ACL{{ResourceType: "Topic", ResourceName: "a", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}},
		ScramUsers:    []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 4096}}}},
	}
	s.Sort()
	return s
}()

// FuzzDecode gives arbitrary bytes to the saved-plan reader and, when it
// accepts them, to apply's validation: neither panics, and every error
// names the file.
func FuzzDecode(f *testing.F) {
	good := sealed(f)
	f.Add(good)
	var compact bytes.Buffer
	_ = json.Compact(&compact, good)
	f.Add(compact.Bytes())
	f.Add([]byte(`{"format":3,"digest":"sha256:00","changes":[{"id":"topic:a","kind":"topic","action":"create","resource":{"type":"topic","name":"a"},"before":null,"after":{"partitions":1}}]}`))
	f.Add([]byte(`{"format":3,"changes":[{"kind":"acl","resource":{"acl":null}}],"changes":null}`))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Decode("fuzz.json", bytes.NewReader(data)); err != nil && !strings.Contains(err.Error(), "fuzz.json") {
			t.Fatalf("error does not name the file: %v", err)
		}
		// Past the digest (an editor can recompute it): what validation
		// accepts, the staleness and justification checks handle.
		var p plan.Plan
		if jsonfile.Decode(bytes.NewReader(data), &p) != nil {
			return
		}
		if err := plan.Validate(&p); err != nil {
			if !strings.HasPrefix(err.Error(), "plan change ") {
				t.Fatalf("validation error does not name the change: %v", err)
			}
			return
		}
		ix := plan.NewTarget(fuzzTarget)
		for i := range p.Changes {
			ix.Check(&p.Changes[i])
		}
		p.Source.ClusterID, p.Target.ClusterID = "s", "t"
		_ = plan.Recheck(&p, &plan.Plan{Source: p.Source, Target: p.Target}, ix)
	})
}
