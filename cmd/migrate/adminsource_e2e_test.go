package main

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
)

// TestProtocolSourceToKafka41 migrates the Kafka 3.9 source read through its
// brokers' admin protocol (--source-bootstrap-server, not ZooKeeper) onto an
// empty Kafka 4.1 target: the saved plan records the source as kafka with
// the cluster id ZooKeeper holds, applies, and a second plan has no change;
// what is left are the blockers of what the protocol does not carry (the
// encrypted broker password, carol's SCRAM password nobody has) and the
// value 4.1 refuses (tiny-segments), each by name.
func TestProtocolSourceToKafka41(t *testing.T) {
	b := newBed(t)
	srcArgs := []string{"--source-bootstrap-server", testbed.SourceBootstrap(t), "--source-command-config", testbed.SourceClientProps(t)}
	testbed.ResetTarget(t)
	common := append(append(slices.Clone(srcArgs), b.targetArgs()...), "--scram-credentials", b.creds)
	planFile := b.dir + "/plan.json"

	code, out, errs := b.migrate(t, append([]string{"plan", "-o", "json", "--out", planFile}, common...)...)
	if code != exitPending {
		t.Fatalf("plan: exit %d, want 2\n%s", code, errs)
	}
	p := decodePlan(t, out)
	zk := readZooKeeper(t, b)
	if p.Source.Kind != snapshot.SourceKafka || p.Source.Address != testbed.SourceBootstrap(t) || p.Source.ClusterID != zk.ClusterID || zk.ClusterID == "" {
		t.Errorf("plan source %+v, want kind kafka at %s with ZooKeeper's cluster id %q", p.Source, testbed.SourceBootstrap(t), zk.ClusterID)
	}

	code, _, errs = b.migrate(t, append([]string{"apply", "--plan", planFile, "--yes", "--scram-credentials", b.creds}, append(slices.Clone(srcArgs), b.targetArgs()...)...)...)
	if code != exitOK {
		t.Fatalf("apply --plan: exit %d\n%s", code, errs)
	}

	code, out, errs = b.migrate(t, append([]string{"plan", "-o", "json", "--include", cliflags.KindList()}, common...)...)
	again := decodePlan(t, out)
	if code != exitOK || len(again.Changes) != 0 {
		var ids []string
		for _, c := range again.Changes {
			ids = append(ids, c.ID)
		}
		t.Fatalf("second plan: exit %d with changes %v, want none\n%s", code, ids, errs)
	}
	var blockers []string
	for _, bl := range again.Blockers {
		blockers = append(blockers, bl.ID+" "+bl.Resource)
	}
	sort.Strings(blockers)
	want := []string{
		"config-invalid-on-target tiny-segments",
		"scram-no-password User:carol SCRAM-SHA-256",
		"secret-unknown broker 1",
	}
	if !slices.Equal(blockers, want) {
		t.Errorf("second plan blockers %q, want %q", blockers, want)
	}
	if !slices.ContainsFunc(again.Blockers, func(bl plan.Blocker) bool {
		return bl.ID == "secret-unknown" && strings.Contains(bl.Reason, "never return its value through the admin protocol")
	}) {
		t.Errorf("the broker password's blocker does not say the protocol never returns it: %+v", again.Blockers)
	}
	named := map[string]bool{}
	for _, f := range again.Findings {
		named[f.ID+" "+f.Resource] = true
	}
	for _, w := range []string{catalogue.IDKReadSensitiveConfig + " broker 1 listener.name.sasl_plaintext.ssl.key.password",
		catalogue.IDKReadScramKeys + " scram-user User:carol", catalogue.IDKReadZooKeeperMode + " source " + testbed.SourceBootstrap(t)} {
		if !named[w] {
			t.Errorf("second plan findings lack %s", w)
		}
	}

	// The target holds what ZooKeeper holds, but for what is named above
	// and the topic pending deletion, which the brokers no longer serve.
	src := readProtocol(t, srcArgs)
	for i := range src.BrokerConfigs {
		src.BrokerConfigs[i].Configs = slices.DeleteFunc(src.BrokerConfigs[i].Configs, func(c snapshot.Config) bool { return c.Sensitive })
	}
	compareMigrated(t, src, b.readTarget(t))
	if tgt := b.readTarget(t); tgt.Topic("doomed") != nil {
		t.Errorf("topic doomed, pending deletion on the source, was created on the target")
	}
}

// readZooKeeper reads the source's ZooKeeper as `migrate snapshot` does.
func readZooKeeper(t *testing.T, b *bed) *snapshot.Snapshot {
	t.Helper()
	f := cliflags.Source{ZooKeeper: b.zk, ZKTimeout: 15e9}
	s, err := loadSource(context.Background(), &f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readProtocol reads the source through its brokers as the CLI does.
func readProtocol(t *testing.T, args []string) *snapshot.Snapshot {
	t.Helper()
	f := cliflags.Source{Bootstrap: args[1], CommandConfig: args[3]}
	s, err := loadSource(context.Background(), &f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckProtocolSourceAndCrossCheck runs check on the 3.9 source read
// through its brokers, then with ZooKeeper and the brokers together.
func TestCheckProtocolSourceAndCrossCheck(t *testing.T) {
	b := newBed(t)
	srcArgs := []string{"--source-bootstrap-server", testbed.SourceBootstrap(t), "--source-command-config", testbed.SourceClientProps(t)}
	audit := []string{"--audit-db", b.auditDB, "-o", "json", "--fail-on", "none"}

	ids := func(args ...string) map[string][]string {
		t.Helper()
		code, out, errs := b.migrate(t, append(append([]string{"check"}, audit...), args...)...)
		if code != exitOK {
			t.Fatalf("check %v: exit %d\n%s", args, code, errs)
		}
		var r struct {
			Source   string
			Findings []struct{ ID, Resource, Message string }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("check -o json: %v\n%s", err, out)
		}
		if want := "kafka " + testbed.SourceBootstrap(t); !strings.HasSuffix(r.Source, want) {
			t.Errorf("report source %q, want it to end with %q", r.Source, want)
		}
		m := map[string][]string{}
		for _, f := range r.Findings {
			m[f.ID] = append(m[f.ID], f.Resource+" | "+f.Message)
		}
		return m
	}

	// Through the brokers alone: SCRAM users and the broker password are
	// reported once each, by the audit's own ids, saying why.
	got := ids(srcArgs...)
	if len(got["CARRY-SCRAM"]) == 0 || len(got["KRAFT-PASSWORD-NO-SECRET"]) != 1 || !strings.Contains(got["KRAFT-PASSWORD-NO-SECRET"][0], "the admin protocol never returns its value") {
		t.Errorf("CARRY-SCRAM %q, KRAFT-PASSWORD-NO-SECRET %q: want users and one protocol-worded password finding", got["CARRY-SCRAM"], got["KRAFT-PASSWORD-NO-SECRET"])
	}
	if len(got[catalogue.IDKReadScramKeys])+len(got[catalogue.IDKReadSensitiveConfig]) > 0 {
		t.Errorf("the reader's findings repeat what CARRY-SCRAM / KRAFT-PASSWORD-NO-SECRET say: %q %q", got[catalogue.IDKReadScramKeys], got[catalogue.IDKReadSensitiveConfig])
	}
	if len(got[catalogue.IDKReadZooKeeperMode]) == 0 {
		t.Errorf("no %s saying pending deletions are invisible: %v", catalogue.IDKReadZooKeeperMode, got)
	}

	// ZooKeeper and the brokers: the two differences Kafka left behind.
	got = ids(append([]string{"--zookeeper", b.zk}, srcArgs...)...)
	var cross []string
	for id, rs := range got {
		if strings.HasPrefix(id, "CROSS-") {
			for _, r := range rs {
				res, _, _ := strings.Cut(r, " | ")
				cross = append(cross, id+" "+res)
			}
		}
	}
	sort.Strings(cross)
	if want := []string{"CROSS-BROKER-CONFIG-OFFLINE broker:3", "CROSS-TOPIC-DELETING topic:doomed"}; !slices.Equal(cross, want) {
		t.Errorf("cross-check findings %q, want %q", cross, want)
	}
	if len(got[catalogue.IDTopicPendingDelete]) == 0 {
		t.Errorf("the ZooKeeper audit did not run alongside the cross-check: %v", got)
	}
}
