package zkread

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// oldRelease is one old Kafka release whose legacy state testbed.sh old
// wrote with the release's own tools (old_state_script) and make capture-old
// captured from its chroot while its two brokers ran:
// testdata/<name>-legacy.json and the files beside it. What a release has
// decides what it wrote; the znode formats are Kafka's, recorded here as
// the capture shows them.
type oldRelease struct {
	name, release string
	// topicVersion is the /brokers/topics/<t> JSON version Kafka wrote: 1
	// up to 2.3, 2 from 2.4 (KIP-455), 3 from 2.8 (topic ids, KIP-516).
	topicVersion int
	// brokerVersion is the /brokers/ids/<id> registration version: 4 up to
	// IBP 2.6, 5 from IBP 2.7 (features).
	brokerVersion int
	// aclChange is the first /kafka-acl-changes notification: the resource
	// type in PascalCase up to 2.4, the enum name from 2.5.
	aclChange string
	// Kinds the release has: dynamic broker configs beyond the replication
	// throttles (1.1, KIP-226), delegation tokens (1.1), prefixed ACLs (2.0),
	// IncrementalAlterConfigs (2.3), controller_mutation_rate (2.7), SCRAM
	// through the brokers (2.7), IP quotas (2.8), topic ids (2.8).
	dynamicBroker, tokens, prefixed, incremental, mutationRate, ips, topicIDs bool
	// quotaDecimal: quotas written through the brokers (2.8) are stored as
	// doubles ("200.0"), through ZooKeeper as typed ("200").
	quotaDecimal bool
}

var oldReleases = []oldRelease{
	{name: "kafka011", release: "0.11.0.3", topicVersion: 1, brokerVersion: 4, aclChange: "Topic:orders"},
	{name: "kafka11", release: "1.1.1", topicVersion: 1, brokerVersion: 4, aclChange: "Topic:orders", dynamicBroker: true, tokens: true},
	{name: "kafka24", release: "2.4.1", topicVersion: 2, brokerVersion: 4, aclChange: "Topic:orders", dynamicBroker: true, tokens: true,
		prefixed: true, incremental: true},
	{name: "kafka28", release: "2.8.2", topicVersion: 3, brokerVersion: 5, aclChange: "TOPIC:orders", dynamicBroker: true, tokens: true,
		prefixed: true, incremental: true, mutationRate: true, ips: true, topicIDs: true, quotaDecimal: true},
}

// wantTopics is what the release's TopicCommand and ConfigCommand calls
// leave: name -> replica lists and dynamic configs.
func (r oldRelease) wantTopics() map[string]wantTopic {
	legacy := map[string]string{"message.format.version": "0.10.2", "message.timestamp.difference.max.ms": "86400000"}
	if r.prefixed { // 2.0+: message.downconversion.enable
		legacy["message.downconversion.enable"] = "false"
	}
	profilesPolicy := "compact"
	if r.incremental { // APPEND delete through IncrementalAlterConfigs
		profilesPolicy = "compact,delete"
	}
	return map[string]wantTopic{
		"orders": {[][]int32{{1, 2}, {2, 1}, {1, 2}, {2, 1}, {1, 2}},
			map[string]string{"retention.ms": "86400000", "cleanup.policy": "delete", "min.insync.replicas": "1"}},
		"customer-profiles": {[][]int32{{2, 1}, {1, 2}}, map[string]string{"cleanup.policy": profilesPolicy, "min.cleanable.dirty.ratio": "0.1"}},
		"legacy-format":     {[][]int32{{2}}, legacy},
		"tiny-segments":     {[][]int32{{2, 1}}, map[string]string{"segment.bytes": "524288"}},
		"payments":          {[][]int32{{1}, {1}, {1}}, map[string]string{"retention.bytes": "1073741824", "max.message.bytes": "2097152"}},
		"metrics.events":    {[][]int32{{2}, {2}, {2}, {2}, {2}, {2}}, map[string]string{}},
		"_schemas":          {[][]int32{{1, 2}}, map[string]string{"cleanup.policy": "compact"}},
		"audit-log":         {[][]int32{{1, 2}, {2, 1}}, map[string]string{"cleanup.policy": "compact,delete"}},
		"replicated": {[][]int32{{1, 2}, {2, 1}},
			map[string]string{"min.insync.replicas": "1", "leader.replication.throttled.replicas": "0:1,1:2"}},
	}
}

type wantTopic struct {
	Replicas [][]int32
	Configs  map[string]string
}

// wantACLs is what the release's AclCommand calls leave, as ACL.String.
func (r oldRelease) wantACLs() []string {
	acl := func(perm, principal, op, res, host string) string {
		return perm + " " + principal + " " + op + " on " + res + " from " + host
	}
	out := []string{
		acl("Allow", "User:alice", "Read", "Topic:LITERAL:orders", "*"),
		acl("Allow", "User:alice", "Write", "Topic:LITERAL:orders", "*"),
		acl("Allow", "User:alice", "Describe", "Topic:LITERAL:orders", "*"),
		acl("Allow", "User:User With Space", "Read", "Topic:LITERAL:orders", "*"),
		acl("Allow", "User:carol", "Read", "Topic:LITERAL:orders", "10.0.0.7"),
		acl("Deny", "User:mallory", "Read", "Topic:LITERAL:payments", "*"),
		acl("Deny", "User:*", "Write", "Topic:LITERAL:payments", "10.0.0.99"),
		acl("Allow", "User:auditor", "Describe", "Topic:LITERAL:*", "*"),
		acl("Allow", "User:auditor", "DescribeConfigs", "Topic:LITERAL:*", "*"),
		acl("Allow", "User:alice", "Read", "Group:LITERAL:billing", "*"),
		acl("Deny", "User:mallory", "Read", "Group:LITERAL:billing", "*"),
		acl("Allow", "User:alice", "Create", "Cluster:LITERAL:kafka-cluster", "*"),
		acl("Allow", "User:alice", "IdempotentWrite", "Cluster:LITERAL:kafka-cluster", "*"),
		acl("Allow", "User:CN=foo,OU=bar", "DescribeConfigs", "Cluster:LITERAL:kafka-cluster", "*"),
		acl("Deny", "User:mallory", "AlterConfigs", "Cluster:LITERAL:kafka-cluster", "*"),
		acl("Allow", "User:alice", "Write", "TransactionalId:LITERAL:tx-orders", "*"),
		acl("Allow", "User:alice", "Describe", "TransactionalId:LITERAL:tx-orders", "*"),
		acl("Deny", "User:mallory", "Write", "TransactionalId:LITERAL:tx-orders", "*"),
		acl("Allow", "User:svc-etl", "Write", "Topic:LITERAL:events", "*"),
		acl("Allow", "User:svc-etl", "Describe", "Topic:LITERAL:events", "*"),
	}
	// --producer: Cluster:Create before KIP-277 (2.0), Topic:Create after.
	if r.prefixed {
		out = append(out, acl("Allow", "User:svc-etl", "Create", "Topic:LITERAL:events", "*"))
	} else {
		out = append(out, acl("Allow", "User:svc-etl", "Create", "Cluster:LITERAL:kafka-cluster", "*"))
	}
	if r.tokens {
		out = append(out, acl("Allow", "User:alice", "Describe", "DelegationToken:LITERAL:reporting-token", "*"))
	}
	if r.prefixed {
		out = append(out,
			acl("Allow", "User:bob", "Read", "Topic:PREFIXED:metrics.", "*"),
			acl("Allow", "User:bob", "Describe", "Topic:PREFIXED:metrics.", "*"),
			acl("Deny", "User:mallory", "All", "Topic:PREFIXED:metrics.", "*"),
			acl("Allow", "User:bob", "Read", "Group:PREFIXED:team-", "*"),
			acl("Allow", "User:bob", "Describe", "TransactionalId:PREFIXED:tx-", "*"),
			acl("Allow", "User:svc-etl", "Write", "Topic:PREFIXED:etl-", "*"),
			acl("Allow", "User:svc-etl", "Describe", "Topic:PREFIXED:etl-", "*"),
			acl("Allow", "User:svc-etl", "Create", "Topic:PREFIXED:etl-", "*"))
	}
	slices.Sort(out)
	return out
}

// wantQuotas is what the release's ConfigCommand quota calls leave:
// entity (QuotaEntity.String) -> values.
func (r oldRelease) wantQuotas() map[string]map[string]float64 {
	q := map[string]map[string]float64{
		"user=alice":                            {"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152},
		"user=CN=foo,OU=bar":                    {"request_percentage": 25},
		"client-id=reporting-app":               {"consumer_byte_rate": 4194304, "request_percentage": 50},
		"user=alice,client-id=alice-cli":        {"producer_byte_rate": 524288},
		"user=alice,client-id=<default>":        {"consumer_byte_rate": 1048576},
		"user=<default>":                        {"producer_byte_rate": 10485760, "consumer_byte_rate": 10485760},
		"client-id=<default>":                   {"request_percentage": 200},
		"user=<default>,client-id=batch-loader": {"producer_byte_rate": 262144},
		"user=<default>,client-id=<default>":    {"request_percentage": 100},
		"user=bob":                              {"producer_byte_rate": 524288},
		"user=svc~deploy":                       {"producer_byte_rate": 262144},
	}
	if r.mutationRate {
		q["user=svc~deploy"] = map[string]float64{"controller_mutation_rate": 10}
	}
	if r.ips {
		q["ip=10.1.2.3"] = map[string]float64{"connection_creation_rate": 10}
		q["ip=<default>"] = map[string]float64{"connection_creation_rate": 100}
	}
	return q
}

// wantScram is user -> "MECHANISM/iterations" of every credential written,
// carol's (whose password is not recorded) included.
func (r oldRelease) wantScram() map[string][]string {
	return map[string][]string{
		"admin":           {"SCRAM-SHA-256/8192"},
		"alice":           {"SCRAM-SHA-256/8192", "SCRAM-SHA-512/8192"},
		"bob":             {"SCRAM-SHA-256/8192"},
		"CN=foo,OU=bar":   {"SCRAM-SHA-256/4096"},
		"User With Space": {"SCRAM-SHA-512/4096"},
		"carol":           {"SCRAM-SHA-256/4096"},
	}
}

// wantBrokerConfigs is broker ("" the cluster default) -> key -> value of
// the dynamic broker configs written ("<secret>" for the encrypted one).
func (r oldRelease) wantBrokerConfigs() map[string]map[string]string {
	if !r.dynamicBroker { // 0.11: the replication throttles only, per broker
		return map[string]map[string]string{
			"1": {"leader.replication.throttled.rate": "10485760", "follower.replication.throttled.rate": "10485760"},
			"2": {"leader.replication.throttled.rate": "5242880"},
		}
	}
	return map[string]map[string]string{
		"": {"log.retention.ms": "259200000", "log.cleaner.io.max.bytes.per.second": "10485760",
			"unclean.leader.election.enable": "false", "log.cleanup.policy": "delete"},
		"1": {"listener.name.sasl_plaintext.ssl.key.password": "<secret>", "leader.replication.throttled.rate": "10485760",
			"follower.replication.throttled.rate": "10485760", "log.cleaner.threads": "2"},
		"2": {"log.cleaner.threads": "1", "log.cleaner.backoff.ms": "20000", "log.cleaner.io.buffer.load.factor": "0.8"},
	}
}

// loadCapture loads a release's captured tree (testdata/<name>-legacy.json),
// its broker's server.properties and its recorded SCRAM passwords.
func loadCapture(t *testing.T, name string) (*zktree.Tree, *Static, []scramEntry) {
	t.Helper()
	tree, err := zktree.Load(filepath.Join("testdata", name+"-legacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadStatic(filepath.Join("testdata", name+"-server.properties"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name+"-legacy.scram.json"))
	if err != nil {
		t.Fatal(err)
	}
	var creds []scramEntry
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatal(err)
	}
	return tree, st, creds
}

// TestOldReleaseCaptures reads the state each old release's own tools
// wrote, whole, and checks it item by item against what those tools were
// told to write (testbed.sh old_state_script), so that a misread of an old
// znode format fails here even if the golden was regenerated with it: every
// topic with its replica lists (order included) and configs, topic ids
// exactly where the release assigns them, every ACL, quota entity, SCRAM
// credential (its keys derive from the recorded password by RFC 5802, so
// salt and iterations were read right), dynamic broker config (the
// encrypted password decrypts, 1.1+), the delegation token (1.1+), the
// brokers' registrations and the controller; the znode versions are
// Kafka's per release; nothing but information is found; no secret reaches
// the snapshot's output.
func TestOldReleaseCaptures(t *testing.T) {
	for _, r := range oldReleases {
		t.Run(r.name, func(t *testing.T) {
			tree, st, creds := loadCapture(t, r.name)
			if (len(st.EncoderSecrets) == 1) != r.dynamicBroker {
				t.Fatalf("encoder secrets in %s-server.properties: %d", r.name, len(st.EncoderSecrets))
			}
			s, err := Read(context.Background(), tree, Options{Full: true, EncoderSecrets: st.EncoderSecrets, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.Findings {
				if f.Severity != snapshot.SeverityInfo {
					t.Errorf("finding on Kafka %s's own tree: %+v", r.release, f)
				}
			}
			oldFormats(t, r, tree)

			// Brokers 1 and 2 with their racks, one of them the controller.
			var brokers []string
			for _, b := range s.Brokers {
				brokers = append(brokers, fmt.Sprintf("%d %s v%d %v", b.ID, b.Rack, b.Version, b.Endpoints))
			}
			if len(brokers) != 2 || !strings.HasPrefix(brokers[0], fmt.Sprintf("1 rack-a v%d [SASL_PLAINTEXT://127.0.0.1:", r.brokerVersion)) ||
				!strings.HasPrefix(brokers[1], fmt.Sprintf("2 rack-b v%d [SASL_PLAINTEXT://127.0.0.1:", r.brokerVersion)) {
				t.Errorf("brokers %q", brokers)
			}
			if s.Controller == nil || (s.Controller.BrokerID != 1 && s.Controller.BrokerID != 2) || s.Controller.KRaftControllerEpoch != -1 {
				t.Errorf("controller %+v, want broker 1 or 2, no KRaft epoch", s.Controller)
			}

			wantTopics := r.wantTopics()
			gotTopics := map[string]wantTopic{}
			for _, tp := range s.Topics {
				var reps [][]int32
				for i, p := range tp.Partitions {
					reps = append(reps, p.Replicas)
					if p.ID != int32(i) || p.State == nil || !slices.Contains(p.Replicas, p.State.Leader) {
						t.Errorf("topic %s partition %d: state %+v, want a leader among %v", tp.Name, p.ID, p.State, p.Replicas)
					}
				}
				gotTopics[tp.Name] = wantTopic{reps, snapshot.ConfigMap(tp.Configs)}
				if (tp.ID != "") != r.topicIDs {
					t.Errorf("topic %s: id %q; Kafka %s assigns topic ids: %v", tp.Name, tp.ID, r.release, r.topicIDs)
				}
			}
			if d := cmp.Diff(wantTopics, gotTopics); d != "" {
				t.Errorf("topics (-written +read):\n%s", d)
			}

			var acls []string
			for _, a := range s.ACLs {
				acls = append(acls, a.String())
			}
			slices.Sort(acls)
			if d := cmp.Diff(r.wantACLs(), acls); d != "" {
				t.Errorf("ACLs (-written +read):\n%s", d)
			}

			quotas := map[string]map[string]float64{}
			for _, q := range s.Quotas {
				quotas[q.Entity.String()] = q.Values
			}
			if d := cmp.Diff(r.wantQuotas(), quotas); d != "" {
				t.Errorf("quotas (-written +read):\n%s", d)
			}

			scram := map[string][]string{}
			for _, u := range s.ScramUsers {
				for _, c := range u.Credentials {
					scram[u.Name] = append(scram[u.Name], fmt.Sprintf("%s/%d", c.Mechanism, c.Iterations))
				}
			}
			if d := cmp.Diff(r.wantScram(), scram); d != "" {
				t.Errorf("SCRAM credentials (-written +read):\n%s", d)
			}
			secrets := append(scramKeysDerive(t, tree, creds), "admin-secret", "zkmigrate-testbed-token-secret")

			bcs := map[string]map[string]string{}
			for _, bc := range s.BrokerConfigs {
				m := map[string]string{}
				for _, c := range bc.Configs {
					m[c.Key] = c.Value
					if c.Sensitive {
						m[c.Key] = "<secret>"
						if v, ok := c.Secret.Reveal(); !ok || v != "kp-secret-1" {
							t.Errorf("broker %q %s: decrypted %v, want the password the test bed set", bc.Broker, c.Key, ok)
						}
					}
				}
				bcs[bc.Broker] = m
			}
			if d := cmp.Diff(r.wantBrokerConfigs(), bcs); d != "" {
				t.Errorf("broker configs (-written +read):\n%s", d)
			}
			if r.dynamicBroker {
				secrets = append(secrets, st.EncoderSecrets[0], "kp-secret-1")
				data, _, _ := tree.Get("/config/brokers/1")
				for _, part := range strings.Split(string(data), "encryptedPassword:")[1:] {
					secrets = append(secrets, part[:strings.IndexAny(part, ",\"")])
				}
			}

			// A v1 token (no tokenRequester before 3.3): the owner requested it.
			var tokens []string
			for _, tk := range s.DelegationTokens {
				tokens = append(tokens, fmt.Sprintf("%s %s %v", tk.Owner, tk.Requester, tk.Renewers))
				if tk.ExpiryTimestamp <= tk.IssueTimestamp || tk.MaxTimestamp < tk.ExpiryTimestamp {
					t.Errorf("token %s: timestamps issue %d expiry %d max %d", tk.TokenID, tk.IssueTimestamp, tk.ExpiryTimestamp, tk.MaxTimestamp)
				}
			}
			if wantTokens := map[bool]int{true: 1}[r.tokens]; len(tokens) != wantTokens || (wantTokens == 1 && tokens[0] != "User:admin User:admin [User:alice]") {
				t.Errorf("delegation tokens %q, want %d owned by User:admin, renewer User:alice", tokens, wantTokens)
			}

			var buf bytes.Buffer
			if err := snapshot.Encode(&buf, s); err != nil {
				t.Fatal(err)
			}
			for _, sec := range secrets {
				if len(sec) >= 8 && strings.Contains(buf.String(), sec) {
					t.Errorf("snapshot output contains secret %q", sec)
				}
			}
		})
	}
}

// oldFormats checks the raw znodes of a release against what Kafka is
// known to write there (kafka-zk-model.md), so that the fixture is what it
// claims to be.
func oldFormats(t *testing.T, r oldRelease, tree *zktree.Tree) {
	t.Helper()
	get := func(p string) string {
		data, _, err := tree.Get(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return string(data)
	}
	var topic struct {
		Version int             `json:"version"`
		TopicID *string         `json:"topic_id"`
		Adding  json.RawMessage `json:"adding_replicas"`
	}
	if err := json.Unmarshal([]byte(get("/brokers/topics/orders")), &topic); err != nil || topic.Version != r.topicVersion ||
		(topic.TopicID != nil) != r.topicIDs || (topic.Adding != nil) != (r.topicVersion >= 2) {
		t.Errorf("/brokers/topics/orders: %s, want version %d", get("/brokers/topics/orders"), r.topicVersion)
	}
	if got := get("/kafka-acl-changes/acl_changes_0000000000"); got != r.aclChange {
		t.Errorf("first literal ACL change %q, want %q", got, r.aclChange)
	}
	_, _, err := tree.Get("/kafka-acl-extended")
	if (err == nil) != r.prefixed {
		t.Errorf("/kafka-acl-extended: %v; Kafka %s has prefixed ACLs: %v", err, r.release, r.prefixed)
	}
	if r.tokens {
		for _, n := range tree.Nodes {
			if strings.HasPrefix(n.Path, "/delegation_token/tokens/") {
				var tok map[string]any
				if err := json.Unmarshal(n.Data, &tok); err != nil || tok["version"] != float64(1) || tok["tokenRequester"] != nil || tok["owner"] != "User%3Aadmin" {
					t.Errorf("%s: %s, want a v1 token without tokenRequester, owner sanitized", n.Path, n.Data)
				}
			}
		}
	}
	// Quota values: typed through ZooKeeper, doubles through the brokers.
	if got, want := get("/config/clients/<default>"), map[bool]string{false: `"200"`, true: `"200.0"`}[r.quotaDecimal]; !strings.Contains(got, want) {
		t.Errorf("/config/clients/<default>: %s, want the value %s", got, want)
	}
}

// scramKeysDerive checks every recorded credential against its znode: the
// stored and server keys are exactly RFC 5802's for the password the test
// bed set, with the znode's salt and iterations. It returns the znodes'
// credential fields (salts and keys), which no output may contain.
func scramKeysDerive(t *testing.T, tree *zktree.Tree, creds []scramEntry) []string {
	t.Helper()
	if len(creds) == 0 {
		t.Fatal("no recorded SCRAM credentials")
	}
	var fields []string
	for _, c := range creds {
		p := "/config/users/" + Sanitize(c.User)
		data, _, err := tree.Get(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		m, err := ParseEntityConfig(data)
		if err != nil {
			t.Fatal(err)
		}
		cred, err := ParseScramCredential(m[c.Mechanism])
		if err != nil {
			t.Fatalf("%s %s: %v", p, c.Mechanism, err)
		}
		var h func() hash.Hash = sha256.New
		if c.Mechanism == "SCRAM-SHA-512" {
			h = sha512.New
		}
		salted, err := pbkdf2.Key(h, c.Password, cred.Salt, int(cred.Iterations), h().Size())
		if err != nil {
			t.Fatal(err)
		}
		mac := func(key []byte, msg string) []byte { m := hmac.New(h, key); m.Write([]byte(msg)); return m.Sum(nil) }
		hh := h()
		hh.Write(mac(salted, "Client Key"))
		if !bytes.Equal(hh.Sum(nil), cred.StoredKey) || !bytes.Equal(mac(salted, "Server Key"), cred.ServerKey) || cred.Iterations != c.Iterations {
			t.Errorf("%s %s: keys do not derive from the test bed's password (iterations %d)", c.User, c.Mechanism, cred.Iterations)
		}
		fields = append(fields, c.Password, base64.StdEncoding.EncodeToString(cred.Salt),
			base64.StdEncoding.EncodeToString(cred.StoredKey), base64.StdEncoding.EncodeToString(cred.ServerKey))
	}
	return fields
}
