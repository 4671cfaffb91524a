package plan_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// FuzzBuild: any pair of snapshot files (they are user input through
// --snapshot and --target-snapshot) plans, renders and simulates without
// panicking; errors are fine.
func FuzzBuild(f *testing.F) {
	// Small seeds: the fuzzing engine slows down sharply with large inputs.
	src := []byte(`{"format":1,"brokers":[{"id":1}],"topics":[{"name":"t","partitions":[{"id":0,"replicas":[1]}],"configs":[{"key":"retention.ms","value":"1"}]}],` +
		`"acls":[{"resource_type":"Topic","resource_name":"t","pattern_type":"LITERAL","principal":"User:a","host":"*","operation":"Read","permission":"Allow"}],` +
		`"quotas":[{"entity":[{"type":"user","name":"a"}],"values":{"producer_byte_rate":1}}],"broker_configs":[{"broker":"1","configs":[{"key":"k","value":"v"}]}]}`)
	tgt := []byte(`{"format":1,"brokers":[{"id":1}],"topics":[{"name":"u","partitions":[{"id":0,"replicas":[1]}]}]}`)
	f.Add(src, tgt, "1=1", true)
	f.Add(src, []byte(`{"format":1,"topics":[{"name":"orders","partitions":[{"id":5}]}]}`), "", false)
	f.Fuzz(func(t *testing.T, a, b []byte, brokerMap string, prune bool) {
		s, err1 := snapshot.Decode(bytes.NewReader(a))
		g, err2 := snapshot.Decode(bytes.NewReader(b))
		m, ok := brokerIDMap(brokerMap)
		if err1 != nil || err2 != nil || !ok {
			return
		}
		s.Sort()
		g.Sort()
		p, err := plan.Build(plan.Input{Source: s, Target: g, Options: plan.Options{BrokerIDMap: m, Prune: prune, Reassign: m != nil}})
		if err != nil {
			return
		}
		var out bytes.Buffer
		_ = render.PlanText(&out, p)
		ix := plan.NewTarget(g)
		for i := range p.Changes {
			ix.Check(&p.Changes[i])
		}
		plantest.Simulate(t, g, p.Changes)
	})
}

// brokerIDMap reads "1=2,3=4" for the fuzzer (the command's flag parser
// lives in cmd/migrate); ok is false for anything else.
func brokerIDMap(s string) (map[int32]int32, bool) {
	if s == "" {
		return nil, true
	}
	m := map[int32]int32{}
	for _, pair := range strings.Split(s, ",") {
		from, to, found := strings.Cut(pair, "=")
		f, err1 := strconv.ParseInt(from, 10, 32)
		t, err2 := strconv.ParseInt(to, 10, 32)
		if !found || err1 != nil || err2 != nil || f < 0 || t < 0 {
			return nil, false
		}
		m[int32(f)] = int32(t)
	}
	return m, true
}
