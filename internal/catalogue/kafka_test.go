package catalogue

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// configDef is one release's config keys as its own ConfigDefs define
// them (testdata/kafka/ConfigKeys.java), with the range minimum of keys
// that have one.
type configDef map[Scope]map[string]*int64

func loadConfigDef(t *testing.T, release string) configDef {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "kafka", "configdef-"+release+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := configDef{ScopeTopic: {}, ScopeBroker: {}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			t.Fatalf("configdef-%s.txt:%d: want scope and key", release, n)
		}
		scope := map[string]Scope{"topic": ScopeTopic, "broker": ScopeBroker}[fields[0]]
		var min *int64
		if len(fields) == 3 {
			v, err := strconv.ParseInt(strings.TrimPrefix(fields[2], "min="), 10, 64)
			if err != nil {
				t.Fatalf("configdef-%s.txt:%d: %v", release, n, err)
			}
			min = &v
		}
		d[scope][fields[1]] = min
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(d[ScopeBroker]) < 300 || len(d[ScopeTopic]) < 30 {
		t.Fatalf("configdef-%s.txt holds %d broker and %d topic keys: not a whole ConfigDef", release, len(d[ScopeBroker]), len(d[ScopeTopic]))
	}
	return d
}

var scopeName = map[Scope]string{ScopeTopic: "topic", ScopeBroker: "broker"}

// targets are the Kafka 4 releases whose ConfigDefs are in testdata.
var targets = []struct {
	v       Version
	release string
}{{V4_0, "4.0.1"}, {V4_1, "4.1.1"}}

// outsideKafkaConfig are removed keys that Kafka's broker ConfigDef never
// held, so its key lists cannot vouch for them.
var outsideKafkaConfig = map[string]string{
	// JmxReporter's aliases of metrics.jmx.exclude/include: EXCLUDE_CONFIG_ALIAS
	// and INCLUDE_CONFIG_ALIAS in 3.9.1's JmxReporter, gone in 4.0.1 and 4.1.1.
	"metrics.jmx.blacklist": "JmxReporter alias",
	"metrics.jmx.whitelist": "JmxReporter alias",
	// Added in 4.0 (share groups), so not in 3.9.1; 4.0.1 defines it, 4.1.1 does not.
	"share.fetch.max.fetch.records": "4.0 only",
}

// The removed-key table is exactly what Kafka's ConfigDefs say: every key
// 3.9 defines and a target does not is removed on that target, no key the
// target defines is, and each entry's release is the first without it.
func TestRemovedKeysMatchKafka(t *testing.T) {
	old := loadConfigDef(t, "3.9.1")
	for _, tg := range targets {
		now := loadConfigDef(t, tg.release)
		for scope, keys := range old {
			for key := range keys {
				_, defined := now[scope][key]
				_, removed := Removed(scope, key, tg.v)
				if removed == defined {
					t.Errorf("%s %s on %s: Kafka defines it %v, catalogue removes it %v", scopeName[scope], key, tg.release, defined, removed)
				}
			}
		}
		for scope, keys := range now {
			for key := range keys {
				if _, removed := Removed(scope, key, tg.v); removed {
					t.Errorf("%s %s: catalogue removes it on %s, which defines it", scopeName[scope], key, tg.release)
				}
			}
		}
	}
	v40 := loadConfigDef(t, "4.0.1")
	for _, r := range RemovedKeys {
		if why := outsideKafkaConfig[r.Key]; why != "" {
			continue
		}
		if _, ok := old[r.Scope][r.Key]; ok == (r.Removed == V3_0) {
			t.Errorf("%s: removed in %s, but 3.9.1 defines it: %v", r.Key, r.Removed, ok)
		}
		if _, ok := v40[r.Scope][r.Key]; ok != (r.Removed == V4_1) {
			t.Errorf("%s: removed in %s, but 4.0.1 defines it: %v", r.Key, r.Removed, ok)
		}
		if r.Replacement == "" {
			t.Errorf("%s: no replacement text", r.Key)
		}
	}
}

// floorExempt are raised minimums that are not floors a move can meet:
// KRaft-only keys a ZooKeeper source cannot carry (node.id) and new
// validators that only forbid negative durations.
var floorExempt = map[string]string{
	"node.id":                                   "KRaft-only; ZooKeeper brokers have broker.id",
	"controller.quorum.append.linger.ms":        "negative durations only",
	"controller.quorum.election.backoff.max.ms": "negative durations only",
	"controller.quorum.election.timeout.ms":     "negative durations only",
	"controller.quorum.fetch.timeout.ms":        "negative durations only",
	"controller.quorum.request.timeout.ms":      "negative durations only",
	"controller.quorum.retry.backoff.ms":        "negative durations only",
}

// Every floor is Kafka's own minimum from its release on and higher than
// the one before; every minimum raised since 3.9 is a floor or exempt.
func TestFloorsMatchKafka(t *testing.T) {
	old := loadConfigDef(t, "3.9.1")
	defs := map[Version]configDef{}
	for _, tg := range targets {
		defs[tg.v] = loadConfigDef(t, tg.release)
	}
	for _, tg := range targets {
		now := defs[tg.v]
		for _, f := range Floors {
			min, ok := now[f.Scope][f.Key]
			before := old[f.Scope][f.Key]
			switch {
			case !ok || min == nil:
				t.Errorf("%s %s: %s has no minimum for it", scopeName[f.Scope], f.Key, tg.release)
			case tg.v.AtLeast(f.Since) && *min != f.Min:
				t.Errorf("%s %s: floor %d from %s, Kafka %s's minimum is %d", scopeName[f.Scope], f.Key, f.Min, f.Since, tg.release, *min)
			case !tg.v.AtLeast(f.Since) && *min >= f.Min:
				t.Errorf("%s %s: floor from %s, but %s already has minimum %d", scopeName[f.Scope], f.Key, f.Since, tg.release, *min)
			case before != nil && *before >= f.Min:
				t.Errorf("%s %s: 3.9.1 already has minimum %d", scopeName[f.Scope], f.Key, *before)
			}
		}
		for scope, keys := range now {
			for key, min := range keys {
				before, inOld := old[scope][key]
				if !inOld || min == nil || (before != nil && *before >= *min) || floorExempt[key] != "" {
					continue
				}
				if f, ok := FloorOf(scope, key, tg.v); !ok || f.Min != *min {
					t.Errorf("%s %s: %s raised its minimum to %d (3.9.1: %v), not in Floors", scopeName[scope], key, tg.release, *min, before)
				}
			}
		}
	}
}

func TestRemoved(t *testing.T) {
	tests := []struct {
		scope   Scope
		key     string
		target  Version
		removed bool
		zkOnly  bool
		fix     string
	}{
		{ScopeTopic, "message.format.version", V4_0, true, false, "record format v2"},
		{ScopeTopic, "segment.bytes", V4_1, false, false, ""},
		{ScopeTopic, "zookeeper.connect", V4_1, false, false, ""}, // families are broker keys only
		{ScopeBroker, "zookeeper.connect", V4_0, true, true, "controller.quorum.bootstrap.servers"},
		{ScopeBroker, "zookeeper.metadata.migration.enable", V4_0, true, true, "KIP-866"}, // the exact key wins over its family
		{ScopeBroker, "password.encoder.secret", V4_1, true, true, "no encoder"},
		{ScopeBroker, "authorizer.zookeeper.url", V4_1, true, true, "StandardAuthorizer"},
		{ScopeBroker, "inter.broker.protocol.version", V4_0, true, true, "metadata.version"},
		{ScopeBroker, "group.coordinator.new.enable", V4_0, false, false, ""},
		{ScopeBroker, "group.coordinator.new.enable", V4_1, true, false, "KIP-848"},
		{ScopeBroker, "quota.producer.default", V4_0, true, false, "Removed in 3.0"},
		{ScopeBroker, "log.retention.ms", V4_1, false, false, ""},
		{ScopeBroker, "listener.name.x.zookeeper.connect", V4_1, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(scopeName[tt.scope]+" "+tt.key+" "+tt.target.String(), func(t *testing.T) {
			r, ok := Removed(tt.scope, tt.key, tt.target)
			if ok != tt.removed {
				t.Fatalf("removed %v, want %v", ok, tt.removed)
			}
			if !ok {
				return
			}
			if r.ZooKeeperOnly != tt.zkOnly || !strings.Contains(r.Replacement, tt.fix) || r.Key != tt.key {
				t.Errorf("got %+v, want ZooKeeperOnly %v and a replacement naming %q", r, tt.zkOnly, tt.fix)
			}
		})
	}
}

func TestFloorsFor(t *testing.T) {
	tests := []struct {
		scope  Scope
		target Version
		keys   string
	}{
		{ScopeTopic, V4_0, ""},
		{ScopeTopic, V4_1, "segment.bytes"},
		{ScopeTopic, Version{4, 2}, "segment.bytes"},
		{ScopeBroker, V4_0, "log.segment.bytes remote.log.manager.copier.thread.pool.size remote.log.manager.expiration.thread.pool.size"},
		{ScopeBroker, V4_1, "log.segment.bytes remote.log.manager.copier.thread.pool.size remote.log.manager.expiration.thread.pool.size metadata.log.segment.bytes"},
	}
	for _, tt := range tests {
		var keys []string
		for _, f := range FloorsFor(tt.scope, tt.target) {
			keys = append(keys, f.Key)
			if g, ok := FloorOf(tt.scope, f.Key, tt.target); !ok || g != f {
				t.Errorf("FloorOf(%s) = %+v, %v; FloorsFor has %+v", f.Key, g, ok, f)
			}
		}
		if got := strings.Join(keys, " "); got != tt.keys {
			t.Errorf("%s on %s: floors %q, want %q", scopeName[tt.scope], tt.target, got, tt.keys)
		}
	}
	if _, ok := FloorOf(ScopeTopic, "segment.bytes", V4_0); ok {
		t.Error("4.0 has no topic segment.bytes floor")
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{"4.1", V4_1, true},
		{"4.1.1", V4_1, true},
		{"4.10", Version{4, 10}, true},
		{"3.9", Version{3, 9}, true},
		{"4", Version{}, false},
		{"4.x", Version{}, false},
		{"4.1.1.1", Version{}, false},
		{"-4.1", Version{}, false},
		{"", Version{}, false},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if TargetOrDefault("") != DefaultTarget || TargetOrDefault("junk") != DefaultTarget || TargetOrDefault("4.0") != V4_0 {
		t.Error("TargetOrDefault does not fall back to the default target")
	}
	if !V4_1.AtLeast(V4_0) || V4_0.AtLeast(V4_1) || !(Version{5, 0}).AtLeast(V4_1) || (Version{3, 9}).AtLeast(V4_0) {
		t.Error("AtLeast orders versions wrongly")
	}
}

func TestInternalTopics(t *testing.T) {
	for name, want := range map[string]bool{
		"__consumer_offsets": true, "__transaction_state": true, "__share_group_state": true,
		"__cluster_metadata": true, "__remote_log_metadata": true,
		"_schemas": false, "__consumer_offsets2": false, "orders": false, "": false,
	} {
		if got := IsInternalTopic(name); got != want {
			t.Errorf("IsInternalTopic(%q) = %v, want %v", name, got, want)
		}
	}
}
