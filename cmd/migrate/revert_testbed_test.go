package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/zkmigrate/zkmigrate/internal/audit"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// revertView is what of the shared target a revert test owns, kind by
// kind: its topics (target replicas and configs), broker 1's throttle, its
// quotas, ACLs and SCRAM users, client-metrics subscriptions and group
// configs (all named with prefix).
func revertView(s *snapshot.Snapshot, prefix string) map[string]string {
	js := func(v any) string { b, _ := json.MarshalIndent(v, "", " "); return string(b) }
	mine := func(name string) bool { return strings.HasPrefix(name, prefix) }
	topics := map[string]any{}
	for _, tp := range s.Topics {
		if mine(tp.Name) {
			var rs [][]int32
			for i := range tp.Partitions {
				// A reassignment is done once its replicas are the
				// target's (as apply's verify sees it); Kafka moves the
				// data after.
				rs = append(rs, tp.Partitions[i].TargetReplicas())
			}
			topics[tp.Name] = []any{rs, snapshot.ConfigMap(tp.Configs)}
		}
	}
	throttle := ""
	for _, b := range s.BrokerConfigs {
		if b.Broker == "1" {
			throttle = snapshot.ConfigMap(b.Configs)["leader.replication.throttled.rate"]
		}
	}
	quotas := map[string]map[string]float64{}
	for _, q := range s.Quotas {
		if mine(q.Entity[0].Name) {
			quotas[q.Entity.String()] = q.Values
		}
	}
	var acls []string
	for _, a := range s.ACLs {
		if strings.HasPrefix(a.Principal, "User:"+prefix) {
			acls = append(acls, a.Key())
		}
	}
	slices.Sort(acls)
	scram := map[string]int32{}
	for _, u := range s.ScramUsers {
		for _, c := range u.Credentials {
			if mine(u.Name) {
				scram[u.Name+"/"+c.Mechanism] = c.Iterations
			}
		}
	}
	named := func(list []snapshot.NamedConfigs) map[string]map[string]string {
		out := map[string]map[string]string{}
		for _, n := range list {
			if mine(n.Name) {
				out[n.Name] = snapshot.ConfigMap(n.Configs)
			}
		}
		return out
	}
	return map[string]string{"topics": js(topics), "broker-configs": throttle, "quotas": js(quotas), "acls": js(acls),
		"scram": js(scram), "client-metrics": js(named(s.ClientMetrics)), "group-configs": js(named(s.GroupConfigs))}
}

// TestAuditRevertRealKafka41: on the Kafka 4.1 target, a run that changes
// something of every kind it can change back (created, updated and, with
// --prune, deleted topics, topic and broker configs, a reassignment,
// quotas, ACLs, SCRAM users, client-metrics and group configs) is
// reverted and the target, read back kind by kind, equals its state
// before the run. An edited revert plan (re-sealed) is refused; applied
// twice, the revert changes nothing the second time; audit verify passes
// and links the runs. Reverting the revert with a resource edited in
// between refuses that one by name and restores the rest of the run's
// after-state.
func TestAuditRevertRealKafka41(t *testing.T) {
	dir := t.TempDir()
	b := &bed{target: testbed.TargetBootstrap(t), targetProps: testbed.TargetClientProps(t), dir: dir, auditDB: filepath.Join(dir, "audit.db")}
	conn := b.admin(t)
	ctx := context.Background()
	p := fmt.Sprintf("rv%d-", time.Now().UnixNano()%1000000)
	read := func() *snapshot.Snapshot {
		t.Helper()
		s, err := kread.Read(ctx, conn, kread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := setThrottle(ctx, conn.Admin, ""); err != nil {
		t.Fatal(err)
	}
	base := read()
	// settled waits until no replica of this test's topics is moving: Kafka
	// finishes a reassignment after accepting it (which is what apply's
	// verify sees), and a read while the data moves shows both replica
	// sets, which the next step would take for a change made since.
	settled := func() {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			moving, err := conn.Admin.ListPartitionReassignments(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			busy := false
			moving.Each(func(r kadm.ListPartitionReassignmentsResponse) { busy = busy || strings.HasPrefix(r.Topic, p) })
			if tp := read().Topic(p + "moved"); tp != nil {
				for _, pt := range tp.Partitions {
					busy = busy || len(pt.Replicas) != 1
				}
			}
			if !busy {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("replicas of %smoved still moving after a minute", p)
			}
		}
	}

	// Sources are the target as read, with this test's resources: a
	// KRaft source (for client-metrics and group configs) that --prune
	// compares with the target on nothing but them.
	creds := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(creds, []byte(fmt.Sprintf(`[{"user":"%salice","mechanism":"SCRAM-SHA-256","password":"alice-pw-1"},{"user":"%scarol","mechanism":"SCRAM-SHA-512","password":"carol-pw-1"}]`, p, p)), 0o600); err != nil {
		t.Fatal(err)
	}
	topic := func(name string, assign [][]int32, kv ...string) snapshot.Topic {
		tp := snapshot.Topic{Name: p + name}
		for i, rs := range assign {
			tp.Partitions = append(tp.Partitions, snapshot.Partition{ID: int32(i), Replicas: rs})
		}
		for i := 0; i+1 < len(kv); i += 2 {
			tp.Configs = append(tp.Configs, snapshot.Config{Key: kv[i], Value: kv[i+1]})
		}
		return tp
	}
	acl := func(user string) snapshot.ACL {
		return snapshot.ACL{ResourceType: "Topic", ResourceName: p, PatternType: "PREFIXED", Principal: "User:" + p + user, Host: "*", Operation: "Read", Permission: "Allow"}
	}
	quota := func(user string, v float64) snapshot.Quota {
		return snapshot.Quota{Entity: snapshot.QuotaEntity{{Type: "user", Name: p + user}}, Values: map[string]float64{"producer_byte_rate": v}}
	}
	scram := func(user, mech string) snapshot.ScramUser {
		return snapshot.ScramUser{Name: p + user, Credentials: []snapshot.ScramCredential{{Mechanism: mech, Iterations: 4096}}}
	}
	named := func(name string, kv ...string) snapshot.NamedConfigs {
		n := snapshot.NamedConfigs{Name: p + name}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Configs = append(n.Configs, snapshot.Config{Key: kv[i], Value: kv[i+1]})
		}
		return n
	}
	source := func(name string, edit func(s *snapshot.Snapshot)) string {
		s := cloneSnap(t, base)
		s.Source, s.ClusterID, s.Address = snapshot.SourceKafka, "revert-src-"+p, ""
		edit(s)
		s.Sort()
		path := filepath.Join(dir, name+".json")
		if err := snapshot.Save(path, s); err != nil {
			t.Fatal(err)
		}
		return path
	}
	setup := source("setup", func(s *snapshot.Snapshot) {
		s.Topics = append(s.Topics, topic("old", [][]int32{{2, 1}, {1, 2}}, "cleanup.policy", "compact", "retention.ms", "1000"),
			topic("shared", [][]int32{{1, 2}}, "cleanup.policy", "compact", "retention.ms", "5000"), topic("moved", [][]int32{{1}, {2}}))
		s.ACLs = append(s.ACLs, acl("bob"))
		s.Quotas = append(s.Quotas, quota("bob", 512))
		s.ScramUsers = append(s.ScramUsers, scram("carol", "SCRAM-SHA-512"))
		s.ClientMetrics = append(s.ClientMetrics, named("sub0", "metrics", "*", "interval.ms", "5000"))
		s.GroupConfigs = append(s.GroupConfigs, named("g1", "consumer.session.timeout.ms", "45000"))
	})
	scope := []string{"--topics", "^" + p, "--principals", "^User:" + p, "--scram-credentials", creds, "--yes"}
	// The target is shared with other packages' tests: what this test made
	// is pruned back to the target as it found it.
	clean := source("clean", func(*snapshot.Snapshot) {})
	t.Cleanup(func() {
		if code, out, errs := b.migrate(t, append(append([]string{"apply", "--snapshot", clean, "--prune", "--no-audit"}, scope...), b.targetArgs()...)...); code != exitOK {
			t.Errorf("cleaning up: exit %d\n%s%s", code, out, errs)
		}
	})
	if code, out, errs := b.migrate(t, append(append([]string{"apply", "--snapshot", setup, "--no-audit"}, scope...), b.targetArgs()...)...); code != exitOK {
		t.Fatalf("setting the state before the run up: exit %d\n%s%s", code, out, errs)
	}
	before := revertView(read(), p)

	run := source("run", func(s *snapshot.Snapshot) {
		s.Topics = append(s.Topics, topic("fresh", [][]int32{{1, 2}, {2, 1}}, "retention.ms", "60000"),
			topic("shared", [][]int32{{1, 2}}, "retention.ms", "10000"), topic("moved", [][]int32{{2}, {1}}))
		for i := range s.BrokerConfigs {
			if s.BrokerConfigs[i].Broker == "1" {
				s.BrokerConfigs[i].Configs = append(s.BrokerConfigs[i].Configs, snapshot.Config{Key: "leader.replication.throttled.rate", Value: "1000000"})
			}
		}
		if !slices.ContainsFunc(s.BrokerConfigs, func(b snapshot.BrokerConfig) bool { return b.Broker == "1" }) {
			s.BrokerConfigs = append(s.BrokerConfigs, snapshot.BrokerConfig{Broker: "1", Configs: []snapshot.Config{{Key: "leader.replication.throttled.rate", Value: "1000000"}}})
		}
		s.ACLs = append(s.ACLs, acl("alice"))
		s.Quotas = append(s.Quotas, quota("alice", 1024))
		s.ScramUsers = append(s.ScramUsers, scram("alice", "SCRAM-SHA-256"))
		s.ClientMetrics = append(s.ClientMetrics, named("sub1", "metrics", "org.apache.kafka.producer.", "interval.ms", "1000"))
		s.GroupConfigs = append(s.GroupConfigs, named("g1", "consumer.session.timeout.ms", "50000"))
	})
	code, out, errs := b.migrate(t, append(append([]string{"apply", "--snapshot", run, "--prune", "--reassign", "-o", "json"}, scope...), b.targetArgs()...)...)
	if code != exitOK {
		t.Fatalf("the run: exit %d\n%s%s", code, out, errs)
	}
	settled()
	after := revertView(read(), p)
	for kind := range before {
		if before[kind] == after[kind] {
			t.Errorf("the run left %s as it was: the test changes nothing of that kind", kind)
		}
	}
	runID := auditRunOf(t, b, "apply")

	file := filepath.Join(dir, "revert.json")
	code, out, errs = b.migrate(t, append([]string{"audit", "revert", fmt.Sprint(runID), "--delete-created-topics", "--scram-credentials", creds, "--out", file}, b.targetArgs()...)...)
	if code != exitPending || strings.Contains(out, "# blockers") {
		t.Fatalf("audit revert: exit %d, want 2 without blockers\n%s%s", code, out, errs)
	}

	// Edited and re-sealed: refused, naming the change; nothing sent.
	rp, err := planfile.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rp.Changes, func(c plan.Change) bool { return c.Kind == plan.KindQuota && c.Action == plan.ActionCreate })
	rp.Changes[i].After.Quota = map[string]float64{"producer_byte_rate": 1}
	edited := filepath.Join(dir, "edited.json")
	if err := planfile.Write(edited, rp); err != nil {
		t.Fatal(err)
	}
	applyPlan := func(f string, extra ...string) (int, string, string) {
		// A saved plan's deletes are confirmed by their count.
		rp, err := planfile.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		confirm := fmt.Sprint(migration.Deletes(rp))
		return b.migrate(t, append(append([]string{"apply", "--plan", f, "--yes", "--confirm-deletes", confirm, "--scram-credentials", creds}, extra...), b.targetArgs()...)...)
	}
	if code, out, errs := applyPlan(edited); code != exitError || !strings.Contains(errs, rp.Changes[i].ID) || revertView(read(), p)["quotas"] != after["quotas"] {
		t.Errorf("an edited revert plan: exit %d, want 1 naming %s and nothing changed\n%s%s", code, rp.Changes[i].ID, out, errs)
	}

	if code, out, errs := applyPlan(file); code != exitOK {
		t.Fatalf("apply of the revert: exit %d\n%s%s", code, out, errs)
	}
	settled()
	for kind, got := range revertView(read(), p) {
		if d := cmp.Diff(before[kind], got); d != "" {
			t.Errorf("after the revert %s differ from before the run (-before +now):\n%s", kind, d)
		}
	}
	code, out, errs = applyPlan(file, "-o", "json")
	var twice struct {
		Summary struct{ Succeeded, Skipped int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &twice); code != exitOK || err != nil || twice.Summary.Succeeded != 0 {
		t.Errorf("the revert applied twice: exit %d, %v, %+v; want nothing sent\n%s", code, err, twice.Summary, errs)
	}
	revertID := revertOf(t, b, runID)
	if code, out, errs := b.migrate(t, "audit", "verify", "--audit-db", b.auditDB); code != exitOK || !strings.Contains(out, fmt.Sprintf("Linked: run %d reverts run %d", revertID, runID)) {
		t.Errorf("audit verify after the revert: exit %d\n%s%s", code, out, errs)
	}

	// Revert the revert, with shared's retention edited in between.
	if rs, err := conn.Admin.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: kmsg.StringPtr("7777")}}, p+"shared"); err != nil || rs[0].Err != nil {
		t.Fatalf("editing %sshared: %v %v", p, err, rs)
	}
	code, out, errs = b.migrate(t, append([]string{"audit", "revert", fmt.Sprint(revertID), "--delete-created-topics", "--scram-credentials", creds, "-o", "json", "--out", file}, b.targetArgs()...)...)
	rr := decodePlan(t, out)
	if code != exitPending || len(rr.Blockers) != 1 || rr.Blockers[0].ID != catalogue.IDBlockRevertChangedSince || rr.Blockers[0].Resource != p+"shared" {
		t.Fatalf("revert of the revert: exit %d, blockers %+v; want %sshared refused as changed since\n%s", code, rr.Blockers, p, errs)
	}
	if code, out, errs := applyPlan(file); code != exitOK {
		t.Fatalf("apply of the revert of the revert: exit %d\n%s%s", code, out, errs)
	}
	settled()
	want := maps.Clone(after)
	var topics map[string][]any
	_ = json.Unmarshal([]byte(want["topics"]), &topics)
	topics[p+"shared"][1] = map[string]string{"cleanup.policy": "compact", "retention.ms": "7777"} // as edited
	bs, _ := json.MarshalIndent(topics, "", " ")
	want["topics"] = string(bs)
	for kind, got := range revertView(read(), p) {
		if d := cmp.Diff(want[kind], got); d != "" {
			t.Errorf("after reverting the revert %s differ from after the run (-run +now):\n%s", kind, d)
		}
	}
}

// auditRunOf is the id of the newest run of command in b's audit trail.
func auditRunOf(t *testing.T, b *bed, command string) int64 {
	t.Helper()
	for _, r := range auditRuns(t, b) {
		if r.Command == command {
			return r.ID
		}
	}
	t.Fatalf("no %s run in the audit trail", command)
	return 0
}

// revertOf is the first run in b's audit trail that reverts run.
func revertOf(t *testing.T, b *bed, run int64) int64 {
	t.Helper()
	runs := auditRuns(t, b)
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Reverts == run {
			return runs[i].ID
		}
	}
	t.Fatalf("no run reverts run %d", run)
	return 0
}

func auditRuns(t *testing.T, b *bed) []audit.RunSummary {
	t.Helper()
	code, out, errs := runMigrate(t, "audit", "log", "-o", "json", "--limit", "0", "--audit-db", b.auditDB)
	var runs []audit.RunSummary
	if err := json.Unmarshal([]byte(out), &runs); code != exitOK || err != nil {
		t.Fatalf("audit log: exit %d, %v\n%s", code, err, errs)
	}
	return runs
}

// setThrottle sets (or with "" removes) broker 1's
// leader.replication.throttled.rate.
func setThrottle(ctx context.Context, adm *kadm.Client, v string) error {
	c := kadm.AlterConfig{Op: kadm.DeleteConfig, Name: "leader.replication.throttled.rate"}
	if v != "" {
		c = kadm.AlterConfig{Op: kadm.SetConfig, Name: c.Name, Value: &v}
	}
	rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{c}, 1)
	if err == nil && len(rs) > 0 {
		err = rs[0].Err
	}
	return err
}

func cloneSnap(t *testing.T, s *snapshot.Snapshot) *snapshot.Snapshot {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var c snapshot.Snapshot
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}
