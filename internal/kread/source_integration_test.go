package kread

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/testkit/testbed"
	"github.com/zkmigrate/zkmigrate/internal/zkconn"
	"github.com/zkmigrate/zkmigrate/internal/zkread"
)

// TestSourceEqualsZooKeeperRealKafka reads the real Kafka 3.9 source (in
// ZooKeeper mode, with the legacy state) twice, from ZooKeeper and through
// its brokers' admin protocol, and compares field by field everything the
// protocol carries.
//
// Excluded, and why:
//   - Address, Source, Read: how each was read, not what.
//   - Broker.Endpoints and Version: the protocol gives one host:port (the
//     listener asked) and no registration version; host:port is compared
//     with the ZooKeeper endpoint.
//   - Controller.Epoch, Migration, ProducerIDBlock, LegacyReassignments,
//     PreferredElections, ConsumerGroups: ZooKeeper bookkeeping the
//     protocol does not expose (none of them is migrated).
//   - PendingDeletes and their topics: invisible through the protocol
//     (the brokers drop a topic being deleted); named by a finding.
//   - The configs of brokers that are not running (broker 3): a broker
//     that does not run cannot be described; named by the same finding.
//   - Secret values: SCRAM keys and sensitive config values are never
//     returned; each is named by a finding.
//   - Config.Source: the protocol's own label.
func TestSourceEqualsZooKeeperRealKafka(t *testing.T) {
	zkAddr := testbed.ZK(t)
	bootstrap := testbed.SourceBootstrap(t)
	props := testbed.SourceClientProps(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	zc, err := zkconn.Dial(ctx, zkconn.Options{Connect: zkAddr})
	if err != nil {
		t.Fatal(err)
	}
	zk, err := zkread.Read(ctx, zc, zkread.Options{Address: zkAddr})
	zc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if zk.Topic("legacy-format") == nil || len(zk.PendingDeletes) == 0 {
		t.Fatalf("the legacy state is missing at %s (testbed/testbed.sh legacy)", zkAddr)
	}
	cfg, err := kafkaconn.Load(props)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	kf, err := Read(ctx, conn, Options{Source: true})
	if err != nil {
		t.Fatal(err)
	}

	if kf.Source != snapshot.SourceKafka || kf.Address != bootstrap {
		t.Errorf("source %q at %q, want kafka at %s", kf.Source, kf.Address, bootstrap)
	}
	if kf.ClusterID == "" || kf.ClusterID != zk.ClusterID {
		t.Errorf("cluster id %q, ZooKeeper /cluster/id %q", kf.ClusterID, zk.ClusterID)
	}
	if kf.Controller == nil || zk.Controller == nil || kf.Controller.BrokerID != zk.Controller.BrokerID {
		t.Errorf("controller %+v, ZooKeeper %+v", kf.Controller, zk.Controller)
	}
	if d := cmp.Diff(zk.Features, kf.Features); d != "" {
		t.Errorf("features (-zookeeper +protocol):\n%s", d)
	}

	// Brokers: id, rack, and host:port among the ZooKeeper endpoints.
	running := map[string]bool{}
	if len(kf.Brokers) != len(zk.Brokers) {
		t.Errorf("%d brokers served, %d registered in ZooKeeper", len(kf.Brokers), len(zk.Brokers))
	}
	for i := range min(len(kf.Brokers), len(zk.Brokers)) {
		k, z := kf.Brokers[i], zk.Brokers[i]
		running[strconv.Itoa(int(k.ID))] = true
		hp := k.Host + ":" + strconv.Itoa(int(k.Port))
		if k.ID != z.ID || k.Rack != z.Rack || !slices.ContainsFunc(z.Endpoints, func(e string) bool { return strings.HasSuffix(e, "://"+hp) }) {
			t.Errorf("broker %+v served, %+v in ZooKeeper", k, z)
		}
	}

	// Topics: every one not being deleted, with id, partitions, replica
	// order, reassignments and dynamic configs.
	var want []snapshot.Topic
	for _, tp := range zk.Topics {
		if !slices.Contains(zk.PendingDeletes, tp.Name) {
			want = append(want, tp)
		}
	}
	if d := cmp.Diff(want, kf.Topics, configOpts...); d != "" {
		t.Errorf("topics (-zookeeper +protocol):\n%s", d)
	}
	for _, name := range zk.PendingDeletes {
		if kf.Topic(name) != nil {
			t.Errorf("topic %s, pending deletion, is served", name)
		}
	}

	// Broker configs: the cluster default and every running broker.
	var wantBC []snapshot.BrokerConfig
	for _, bc := range zk.BrokerConfigs {
		if bc.Broker == "" || running[bc.Broker] {
			wantBC = append(wantBC, bc)
		}
	}
	if d := cmp.Diff(wantBC, kf.BrokerConfigs, configOpts...); d != "" {
		t.Errorf("broker configs (-zookeeper +protocol):\n%s", d)
	}
	if len(wantBC) == len(zk.BrokerConfigs) {
		t.Errorf("the legacy state has no configs of a broker that is not running (broker 3): %+v", zk.BrokerConfigs)
	}

	if d := cmp.Diff(zk.ACLs, kf.ACLs); d != "" {
		t.Errorf("ACLs (-zookeeper +protocol):\n%s", d)
	}
	if d := cmp.Diff(zk.Quotas, kf.Quotas); d != "" {
		t.Errorf("quotas (-zookeeper +protocol):\n%s", d)
	}
	if d := cmp.Diff(zk.DelegationTokens, kf.DelegationTokens); d != "" || len(kf.DelegationTokens) == 0 {
		t.Errorf("delegation tokens (-zookeeper +protocol, want at least the legacy one):\n%s", d)
	}
	if d := cmp.Diff(zk.Reassignments, kf.Reassignments); d != "" {
		t.Errorf("reassignments (-zookeeper +protocol):\n%s", d)
	}
	// SCRAM users: names, mechanisms, iterations; the keys never.
	scram := cmp.Comparer(func(a, b secret.Secret) bool { return !a.Known() && !b.Known() })
	if d := cmp.Diff(zk.ScramUsers, kf.ScramUsers, scram); d != "" {
		t.Errorf("SCRAM users (-zookeeper +protocol):\n%s", d)
	}

	// What is not carried is named, per item.
	named := map[string]bool{}
	for _, f := range kf.Findings {
		named[f.ID+" "+f.Resource] = true
	}
	for _, u := range zk.ScramUsers {
		if !named[catalogue.IDKReadScramKeys+" scram-user User:"+u.Name] {
			t.Errorf("SCRAM user %s not named as not carried", u.Name)
		}
	}
	if !named[catalogue.IDKReadSensitiveConfig+" broker 1 listener.name.sasl_plaintext.ssl.key.password"] {
		t.Errorf("broker 1's encrypted password not named as not carried: %+v", kf.Findings)
	}
	if !named[catalogue.IDKReadZooKeeperMode+" source "+bootstrap] {
		t.Errorf("pending deletions not named as invisible: %+v", kf.Findings)
	}
}

// configOpts compare configs by key, value and sensitivity: sensitive
// values are never served (and the protocol's reference names another place
// than ZooKeeper's), and Source is the protocol's label. Kafka 3.9 serves
// each value as ZooKeeper stores it, so values compare as strings.
var configOpts = []cmp.Option{
	cmpopts.EquateEmpty(),
	cmp.Transformer("config", func(c snapshot.Config) struct{ Key, Value string } {
		if c.Sensitive {
			return struct{ Key, Value string }{c.Key, "<sensitive>"}
		}
		return struct{ Key, Value string }{c.Key, c.Value}
	}),
}

// TestReadKRaftAsSourceRealKafka reads the Kafka 4.1 KRaft cluster (the test
// bed's target) as a source: it is not taken for ZooKeeper mode (no
// pending-deletion finding), delegation tokens disabled on it are no error,
// and the SCRAM admin user is named as not carried.
func TestReadKRaftAsSourceRealKafka(t *testing.T) {
	bootstrap := testbed.TargetBootstrap(t)
	cfg, err := kafkaconn.Load(testbed.TargetClientProps(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := kafkaconn.Dial(ctx, strings.Split(bootstrap, ","), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := Read(ctx, conn, Options{Source: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(s.Features, func(f snapshot.Feature) bool { return f.Name == "metadata.version" }) || s.ClusterID == "" {
		t.Errorf("features %+v, cluster id %q: want a KRaft cluster's metadata.version and id", s.Features, s.ClusterID)
	}
	named := map[string]bool{}
	for _, f := range s.Findings {
		named[f.ID] = true
		if f.ID == catalogue.IDKReadZooKeeperMode || f.ID == catalogue.IDKReadTokensNotRead {
			t.Errorf("KRaft source read: unexpected finding %+v", f)
		}
	}
	if !named[catalogue.IDKReadScramKeys] || !slices.ContainsFunc(s.ScramUsers, func(u snapshot.ScramUser) bool { return u.Name == testbed.AdminUser }) {
		t.Errorf("the target's SCRAM user %s is not named as not carried: %+v", testbed.AdminUser, s.Findings)
	}
}
