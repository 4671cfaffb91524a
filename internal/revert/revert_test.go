package revert_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/plan/plantest"
	"github.com/zkmigrate/zkmigrate/internal/render"
	"github.com/zkmigrate/zkmigrate/internal/revert"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

func cfg(kv ...string) []snapshot.Config {
	var out []snapshot.Config
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, snapshot.Config{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

func parts(assign ...[]int32) []snapshot.Partition {
	out := make([]snapshot.Partition, len(assign))
	for i, rs := range assign {
		out[i] = snapshot.Partition{ID: int32(i), Replicas: rs}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

const keyPass = "broker-key-pass-value"

// source is a KRaft cluster read through the admin protocol (so that
// --prune also deletes client-metrics subscriptions and group configs),
// with something of every kind to carry.
func source() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, ClusterID: "src",
		Brokers: []snapshot.Broker{{ID: 1}, {ID: 2}, {ID: 3}},
		Topics: []snapshot.Topic{
			{Name: "fresh", Partitions: parts([]int32{1, 2}, []int32{2, 3}), Configs: cfg("retention.ms", "3600000")},
			{Name: "grow", Partitions: parts([]int32{1}, []int32{2})},
			{Name: "moved", Partitions: parts([]int32{2, 3}, []int32{3, 1})},
			{Name: "shared", Partitions: parts([]int32{1}), Configs: cfg("retention.ms", "10", "segment.ms", "99")},
		},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "1", Configs: []snapshot.Config{{Key: "log.cleaner.threads", Value: "2"},
			{Key: "listener.name.x.ssl.key.password", Sensitive: true, Secret: ptr(secret.New("zookeeper:/config/brokers/1#listener.name.x.ssl.key.password", keyPass))}}}},
		Quotas:        []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "alice"}}, Values: map[string]float64{"producer_byte_rate": 1024}}},
		ACLs:          []snapshot.ACL{{ResourceType: "Topic", ResourceName: "fresh", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}},
		ScramUsers:    []snapshot.ScramUser{{Name: "alice", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-256", Iterations: 8192}}}},
		ClientMetrics: []snapshot.NamedConfigs{{Name: "sub1", Configs: cfg("interval.ms", "1000", "metrics", "org.apache.kafka.producer.")}},
		GroupConfigs:  []snapshot.NamedConfigs{{Name: "g1", Configs: cfg("consumer.session.timeout.ms", "50000")}},
	}
	s.Sort()
	return s
}

// before is the target before the run: what the run prunes, updates and
// moves.
func before() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Format: snapshot.FormatVersion, Source: snapshot.SourceKafka, ClusterID: "dst", Address: "kafka:9092",
		Brokers: []snapshot.Broker{{ID: 1}, {ID: 2}, {ID: 3}},
		Topics: []snapshot.Topic{
			{Name: "grow", Partitions: parts([]int32{1})},
			{Name: "moved", Partitions: parts([]int32{1, 2}, []int32{2, 3})},
			{Name: "old", Partitions: parts([]int32{3, 1}, []int32{1, 2}, []int32{2, 3}), Configs: cfg("cleanup.policy", "compact", "retention.ms", "1000")},
			{Name: "shared", Partitions: parts([]int32{1}), Configs: cfg("cleanup.policy", "delete", "retention.ms", "5")},
		},
		BrokerConfigs: []snapshot.BrokerConfig{{Broker: "1", Configs: cfg("log.cleaner.threads", "1", "num.io.threads", "8")}},
		Quotas:        []snapshot.Quota{{Entity: snapshot.QuotaEntity{{Type: "user", Name: "bob"}}, Values: map[string]float64{"consumer_byte_rate": 5}}},
		ACLs:          []snapshot.ACL{{ResourceType: "Group", ResourceName: "g0", PatternType: "PREFIXED", Principal: "User:bob", Host: "*", Operation: "Read", Permission: "Allow"}},
		ScramUsers:    []snapshot.ScramUser{{Name: "carol", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}}},
		ClientMetrics: []snapshot.NamedConfigs{{Name: "sub0", Configs: cfg("interval.ms", "5000", "metrics", "*")}},
		GroupConfigs:  []snapshot.NamedConfigs{{Name: "g1", Configs: cfg("consumer.session.timeout.ms", "45000")}},
	}
	s.Sort()
	return s
}

func creds(users ...string) []plan.Credential {
	var out []plan.Credential
	for _, u := range users {
		mech := "SCRAM-SHA-256"
		if u == "carol" {
			mech = "SCRAM-SHA-512"
		}
		out = append(out, plan.Credential{User: u, Mechanism: mech, Password: secret.New("scram-credentials:"+u+"/"+mech, u+"-password")})
	}
	return out
}

// applied is a run that applied its plan p to tgt: every change succeeded
// but those given with another status; the whole states of what it
// deleted are found on tgt, as apply records them.
func applied(t *testing.T, id int64, p *plan.Plan, tgt *snapshot.Snapshot, statuses map[string]revert.Status) revert.Run {
	t.Helper()
	// The record holds the changes as JSON: secrets by reference only.
	var changes []plan.Change
	b, err := json.Marshal(p.Changes)
	if err == nil {
		err = json.Unmarshal(b, &changes)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := revert.Run{ID: id, Seq: 40 + id, Digest: "d" + strings.Repeat("0", 63), TargetClusterID: tgt.ClusterID,
		Changes: changes, Status: map[string]revert.Status{}, Whole: map[string]*plan.State{}}
	ix := plan.NewTarget(tgt)
	for i := range p.Changes {
		c := &p.Changes[i]
		st, ok := statuses[c.ID]
		if !ok {
			st = revert.Applied
		}
		r.Status[c.ID] = st
		if w := ix.Whole(c); w != nil {
			r.Whole[c.ID] = w
		}
	}
	return r
}

// made are the changes of r the target shows made: what Simulate applies.
func made(r revert.Run, inFlightMade bool) []plan.Change {
	var out []plan.Change
	for _, c := range r.Changes {
		if st := r.Status[c.ID]; st == revert.Applied || st == revert.InFlight && inFlightMade {
			out = append(out, c)
		}
	}
	return out
}

func migrationPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Build(plan.Input{Source: source(), Target: before(), Credentials: creds("alice"),
		SourceEndpoint: plan.Endpoint{Kind: "kafka", ClusterID: "src"}, TargetEndpoint: plan.Endpoint{Kind: "kafka", ClusterID: "dst"},
		Options: plan.Options{Prune: true, Reassign: true}})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[plan.Kind]bool{}
	for _, c := range p.Changes {
		kinds[c.Kind] = true
	}
	for _, k := range plan.Kinds {
		if !kinds[k] {
			t.Fatalf("the migration plan has no %s change: the fixture does not cover every kind", k)
		}
	}
	return p
}

func build(t *testing.T, r revert.Run, tgt *snapshot.Snapshot, deleteTopics bool, cr []plan.Credential) *plan.Plan {
	t.Helper()
	p, err := revert.Build(revert.Input{Run: r, Target: tgt, TargetEndpoint: plan.Endpoint{Kind: "kafka", Address: tgt.Address, ClusterID: tgt.ClusterID},
		Source: plan.Endpoint{Kind: "audit", Address: "audit.db"}, DeleteCreatedTopics: deleteTopics, Credentials: cr})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// view is a snapshot kind by kind, as a revert must restore it: topics
// with their replicas and configs, broker configs, quotas, ACLs, SCRAM
// credentials (mechanism and iterations), client-metrics and group configs.
func view(s *snapshot.Snapshot) map[string]string {
	js := func(v any) string { b, _ := json.MarshalIndent(v, "", " "); return string(b) }
	type topic struct {
		Replicas [][]int32
		Configs  map[string]string
	}
	topics := map[string]topic{}
	for _, tp := range s.Topics {
		var rs [][]int32
		for _, p := range tp.Partitions {
			rs = append(rs, p.Replicas)
		}
		topics[tp.Name] = topic{rs, snapshot.ConfigMap(tp.Configs)}
	}
	configs := func(cs []snapshot.Config) map[string]string {
		m := map[string]string{}
		for _, c := range cs {
			m[c.Key] = c.Value
			if c.Sensitive {
				m[c.Key] = "(sensitive)"
			}
		}
		return m
	}
	brokers := map[string]map[string]string{}
	for _, b := range s.BrokerConfigs {
		if len(b.Configs) > 0 {
			brokers[b.Broker] = configs(b.Configs)
		}
	}
	quotas := map[string]map[string]float64{}
	for _, q := range s.Quotas {
		quotas[q.Entity.String()] = q.Values
	}
	var acls []string
	for _, a := range s.ACLs {
		acls = append(acls, a.Key())
	}
	slices.Sort(acls)
	scram := map[string]int32{}
	for _, u := range s.ScramUsers {
		for _, c := range u.Credentials {
			scram[u.Name+"/"+c.Mechanism] = c.Iterations
		}
	}
	named := func(list []snapshot.NamedConfigs) map[string]map[string]string {
		m := map[string]map[string]string{}
		for _, n := range list {
			m[n.Name] = configs(n.Configs)
		}
		return m
	}
	return map[string]string{"topics": js(topics), "broker-configs": js(brokers), "quotas": js(quotas), "acls": js(acls),
		"scram": js(scram), "client-metrics": js(named(s.ClientMetrics)), "group-configs": js(named(s.GroupConfigs))}
}

// TestRevertRestoresEveryKind: a run that changed resources of every kind
// (created, updated and, with --prune, deleted them) is reverted, and the
// target equals its state before the run kind by kind, but for the
// partitions it added (Kafka cannot remove them: a blocker). Reverting the
// revert restores the run's after-state; the revert applied, a revert
// built again changes nothing.
func TestRevertRestoresEveryKind(t *testing.T) {
	p := migrationPlan(t)
	pre := before()
	run := applied(t, 7, p, pre, nil)
	after := plantest.Simulate(t, pre, made(run, false))
	rp := build(t, run, after, true, creds("carol"))
	if len(rp.Blockers) != 1 || rp.Blockers[0].ID != catalogue.IDBlockRevertPartitions || rp.Blockers[0].Resource != "grow" {
		t.Fatalf("blockers %+v, want only the partitions added to grow", rp.Blockers)
	}
	if rp.Reverts == nil || rp.Reverts.Run != 7 || rp.Reverts.Seq != 47 || !rp.Reverts.DeleteCreatedTopics {
		t.Errorf("Reverts = %+v", rp.Reverts)
	}
	restored := plantest.Simulate(t, after, rp.Changes)
	kept := before()
	kept.Topic("grow").Partitions = after.Topic("grow").Partitions // the blocker: the run's partition stays
	want := view(kept)
	for kind, got := range view(restored) {
		if d := cmp.Diff(want[kind], got); d != "" {
			t.Errorf("%s after the revert differ from before the run (-before +after):\n%s", kind, d)
		}
	}

	// Applied, a revert built again finds everything back: nothing to do.
	again := build(t, run, restored, true, creds("carol"))
	if len(again.Changes) != 0 || !hasFinding(again, catalogue.IDRevertAlreadyReverted) {
		t.Errorf("a revert built after the revert applied: %d changes, findings %+v; want none and already-reverted", len(again.Changes), again.Findings)
	}

	// The revert is a run of its own: reverting it restores the after-state.
	rrun := applied(t, 8, rp, after, nil)
	rr := build(t, rrun, restored, true, creds("alice"))
	back := plantest.Simulate(t, restored, rr.Changes)
	want = view(after)
	for kind, got := range view(back) {
		if d := cmp.Diff(want[kind], got); d != "" {
			t.Errorf("%s after reverting the revert differ from after the run (-run +revert of revert):\n%s", kind, d)
		}
	}
}

func hasFinding(p *plan.Plan, id string) bool {
	return slices.ContainsFunc(p.Findings, func(f snapshot.Finding) bool { return f.ID == id })
}

// TestRevertScenarios pins the revert plan of each case (golden text and
// JSON): what is reverted, refused and kept, and why.
func TestRevertScenarios(t *testing.T) {
	p := migrationPlan(t)
	pre := before()
	tests := []struct {
		name string
		// statuses of the run's changes other than applied; inFlightMade:
		// the target shows the in-flight ones made.
		statuses     map[string]revert.Status
		inFlightMade bool
		// edit changes the target after the run.
		edit         func(s *snapshot.Snapshot)
		deleteTopics bool
		creds        []plan.Credential
	}{
		{name: "whole", deleteTopics: true, creds: creds("carol")},
		{name: "kept-topics-no-password"},
		{name: "edited-since", deleteTopics: true, creds: creds("carol"), edit: func(s *snapshot.Snapshot) {
			s.Topic("shared").Configs = cfg("cleanup.policy", "compact", "retention.ms", "10", "segment.ms", "99")
			s.ACLs = nil // the run's ACL deleted by hand: already back
			s.Quotas[0].Values = map[string]float64{"producer_byte_rate": 2048}
		}},
		{name: "partial", deleteTopics: true, creds: creds("carol"), inFlightMade: true, statuses: map[string]revert.Status{
			"topic:old": revert.NotApplied, "quota:user=alice": revert.NotApplied, "acl:" + p.Changes[aclIndex(p)].Resource.Name: revert.NotApplied,
			"broker-config:1": revert.InFlight, "group-config:g1": revert.NotApplied, "client-metrics:sub0": revert.NotApplied,
			"reassignment:moved": revert.InFlight, "partitions:grow": revert.NotApplied, "scram-user:carol/SCRAM-SHA-512": revert.NotApplied,
			"topic-config:shared": revert.NotApplied, "client-metrics:sub1": revert.NotApplied, "quota:user=bob": revert.NotApplied,
		}},
		{name: "partial-in-flight-not-made", deleteTopics: true, statuses: map[string]revert.Status{
			"broker-config:1": revert.InFlight, "reassignment:moved": revert.InFlight, "topic:fresh": revert.InFlight,
		}},
		{name: "nothing-applied", statuses: allNot(p)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := applied(t, 7, p, pre, tt.statuses)
			after := plantest.Simulate(t, pre, made(run, tt.inFlightMade))
			if tt.edit != nil {
				tt.edit(after)
			}
			rp := build(t, run, after, tt.deleteTopics, tt.creds)
			var text, js bytes.Buffer
			if err := render.PlanTextWith(&text, rp, render.TextOptions{Detail: true}); err != nil {
				t.Fatal(err)
			}
			if err := render.PlanJSON(&js, rp); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".txt", text.Bytes())
			golden(t, tt.name+".json", js.Bytes())
			if strings.Contains(js.String(), keyPass) || strings.Contains(js.String(), "carol-password") {
				t.Error("the revert plan holds a secret value")
			}
			sim := plantest.Simulate(t, after, rp.Changes)
			for _, b := range rp.Blockers {
				if b.ID == catalogue.IDBlockRevertChangedSince && !strings.Contains(text.String(), b.Resource) {
					t.Errorf("blocker for %s is not named in the text", b.Resource)
				}
			}
			if tt.name == "edited-since" {
				if got := sim.Topic("shared").Configs; !slices.Equal(got, after.Topic("shared").Configs) {
					t.Errorf("the revert overwrote topic shared, edited since the run: %v", got)
				}
			}
		})
	}
}

func allNot(p *plan.Plan) map[string]revert.Status {
	m := map[string]revert.Status{}
	for _, c := range p.Changes {
		m[c.ID] = revert.NotApplied
	}
	return m
}

func aclIndex(p *plan.Plan) int {
	return slices.IndexFunc(p.Changes, func(c plan.Change) bool { return c.Kind == plan.KindACL && c.Action == plan.ActionCreate })
}

// TestRevertSecrets: a sensitive config the run deleted (its value from
// the target, which Kafka never returns) cannot be set again: the key is
// left as it is, with a blocker. One a revert deleted (its value the
// source's reference) is set again from that reference: the plan holds the
// reference only, and the value when a source read now gives it.
func TestRevertSecrets(t *testing.T) {
	pre := before()
	pre.BrokerConfigs[0].Configs = append(pre.BrokerConfigs[0].Configs,
		snapshot.Config{Key: "ssl.keystore.password", Sensitive: true, Secret: ptr(secret.Ref("kafka:broker/1#ssl.keystore.password"))})
	snapshot.SortConfigs(pre.BrokerConfigs[0].Configs)
	p, _ := plan.Build(plan.Input{Source: source(), Target: pre, Credentials: creds("alice"),
		SourceEndpoint: plan.Endpoint{Kind: "kafka", ClusterID: "src"}, TargetEndpoint: plan.Endpoint{Kind: "kafka", ClusterID: "dst"},
		Options: plan.Options{Prune: true, Include: []plan.Kind{plan.KindBrokerConfig}}})
	run := applied(t, 3, p, pre, nil)
	after := plantest.Simulate(t, pre, made(run, false))
	rp := build(t, run, after, false, nil)
	if len(rp.Blockers) != 1 || rp.Blockers[0].ID != catalogue.IDBlockRevertSecretUnknown || !strings.Contains(rp.Blockers[0].Reason, "ssl.keystore.password") {
		t.Fatalf("blockers %+v, want the unknown ssl.keystore.password", rp.Blockers)
	}
	if len(rp.Changes) != 1 || slices.ContainsFunc(rp.Changes[0].After.Configs, func(c snapshot.Config) bool { return c.Key == "ssl.keystore.password" }) ||
		slices.ContainsFunc(rp.Changes[0].Before.Configs, func(c snapshot.Config) bool { return c.Key == "ssl.keystore.password" }) {
		t.Fatalf("revert change %+v touches the unknown key", rp.Changes)
	}

	// The revert deleted the key the run set from the source; its revert
	// sets it again from the source's reference.
	rrun := applied(t, 4, rp, after, nil)
	restored := plantest.Simulate(t, after, rp.Changes)
	rr := build(t, rrun, restored, false, nil)
	const ref = "zookeeper:/config/brokers/1#listener.name.x.ssl.key.password"
	pw := func(p *plan.Plan) *snapshot.Config {
		for _, c := range p.Changes {
			for i, cf := range c.After.Configs {
				if cf.Key == "listener.name.x.ssl.key.password" {
					return &c.After.Configs[i]
				}
			}
		}
		return nil
	}
	got := pw(rr)
	if got == nil || got.Secret == nil || got.Secret.Ref() != ref || got.Secret.Known() || !hasFinding(rr, catalogue.IDRevertSecretFromSource) {
		t.Fatalf("the revert of the revert sets %+v, findings %+v; want the source's reference, unresolved, with a finding", got, rr.Findings)
	}
	withValue, err := revert.Build(revert.Input{Run: rrun, Target: restored, TargetEndpoint: plan.Endpoint{ClusterID: "dst"},
		Secrets: []secret.Secret{secret.New(ref, keyPass), secret.New("zookeeper:/config/brokers/2#x", "other")}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := pw(withValue).Secret.Reveal(); !ok || v != keyPass || hasFinding(withValue, catalogue.IDRevertSecretFromSource) {
		t.Errorf("with the source's secrets the value is %q, %v; want it resolved by reference", v, ok)
	}
	if s := plan.SecretsOf(withValue); s == nil {
		t.Fatal("no secrets")
	} else if v, ok := s.Resolve("broker-config:1", "listener.name.x.ssl.key.password", ref); !ok || v != keyPass {
		t.Errorf("SecretsOf the revert resolves %q, %v", v, ok)
	}
}

// TestRevertRefusesAnotherCluster: the target must be the cluster the run
// changed, and a run that recorded none cannot be checked.
func TestRevertRefusesAnotherCluster(t *testing.T) {
	p := migrationPlan(t)
	run := applied(t, 7, p, before(), nil)
	other := before()
	other.ClusterID = "elsewhere"
	_, err := revert.Build(revert.Input{Run: run, Target: other})
	var ee *plan.EndpointError
	if !errors.As(err, &ee) || ee.Side != "target" || !strings.Contains(err.Error(), "run 7 changed cluster dst") || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("err = %v, want an endpoint error naming both clusters", err)
	}
	run.TargetClusterID = ""
	if _, err := revert.Build(revert.Input{Run: run, Target: before()}); err == nil || !strings.Contains(err.Error(), "recorded no target cluster id") {
		t.Errorf("err = %v, want a refusal for a run without a target cluster id", err)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Assert(t, filepath.Join("testdata", name), got)
}
