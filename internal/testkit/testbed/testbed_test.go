package testbed

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"hash"
	"maps"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// These tests check that the znodes Kafka 3.9 itself wrote for the legacy
// state (testbed.sh legacy) have the formats in the shared reference
// (kafka-zk-model.md), and that the credentials and secret files the test bed
// hands to other tests really open them. They only read ZooKeeper.

func connectZK(t *testing.T) *zk.Conn {
	t.Helper()
	addr := ZK(t)
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func zget(t *testing.T, c *zk.Conn, path string) []byte {
	t.Helper()
	b, _, err := c.Get(path)
	if err != nil {
		t.Fatalf("get %s: %v (is the legacy state there? testbed.sh legacy)", path, err)
	}
	return b
}

func getJSON(t *testing.T, c *zk.Conn, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(zget(t, c, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// configOf reads a /config/<type>/<entity> znode.
func configOf(t *testing.T, c *zk.Conn, path string) map[string]string {
	t.Helper()
	var v struct {
		Version int               `json:"version"`
		Config  map[string]string `json:"config"`
	}
	getJSON(t, c, path, &v)
	if v.Version != 1 {
		t.Errorf("%s: version %d, want 1", path, v.Version)
	}
	return v.Config
}

var uuidRE = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

func TestTopicZnodes(t *testing.T) {
	c := connectZK(t)
	tests := []struct {
		topic   string
		parts   map[string][]int
		configs map[string]string
	}{
		// pinned to broker 1
		{"payments", map[string][]int{"0": {1}, "1": {1}, "2": {1}},
			map[string]string{"retention.bytes": "1073741824", "max.message.bytes": "2097152"}},
		{"replicated", map[string][]int{"0": {1, 2}, "1": {2, 1}}, map[string]string{"min.insync.replicas": "1"}},
		// partitions 3 and 4 added after creation
		{"orders", map[string][]int{"0": {1, 2}, "1": {2, 1}, "2": {1, 2}, "3": {2, 1}, "4": {1, 2}},
			map[string]string{"retention.ms": "86400000", "cleanup.policy": "delete", "min.insync.replicas": "1"}},
		{"customer-profiles", map[string][]int{"0": {2, 1}, "1": {1, 2}},
			map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1", "segment.ms": "3600000"}},
		{"legacy-format", map[string][]int{"0": {2}},
			map[string]string{"message.format.version": "2.8", "message.downconversion.enable": "false"}},
		// pinned to broker 2; partitions 4 and 5 added after creation
		{"metrics.events", map[string][]int{"0": {2}, "1": {2}, "2": {2}, "3": {2}, "4": {2}, "5": {2}}, map[string]string{}},
		{"audit-log", map[string][]int{"0": {1, 2}, "1": {2, 1}}, map[string]string{"cleanup.policy": "compact,delete"}},
	}
	for _, tc := range tests {
		t.Run(tc.topic, func(t *testing.T) {
			var z struct {
				Version  int              `json:"version"`
				Parts    map[string][]int `json:"partitions"`
				Adding   map[string][]int `json:"adding_replicas"`
				Removing map[string][]int `json:"removing_replicas"`
				TopicID  string           `json:"topic_id"`
			}
			getJSON(t, c, "/brokers/topics/"+tc.topic, &z)
			if z.Version != 3 {
				t.Errorf("version %d, want 3", z.Version)
			}
			if !uuidRE.MatchString(z.TopicID) {
				t.Errorf("topic_id %q is not a 22-character base64url id", z.TopicID)
			}
			if z.Adding == nil || z.Removing == nil || len(z.Adding)+len(z.Removing) != 0 {
				t.Errorf("adding/removing replicas %v %v, want two empty objects", z.Adding, z.Removing)
			}
			if !mapsEqual(z.Parts, tc.parts) {
				t.Errorf("partitions %v, want %v", z.Parts, tc.parts)
			}
			if got := configOf(t, c, "/config/topics/"+tc.topic); !mapsEqual(got, tc.configs) {
				t.Errorf("config %v, want %v", got, tc.configs)
			}
		})
	}
}

func mapsEqual[V any](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok {
			return false
		}
		ja, _ := json.Marshal(va)
		jb, _ := json.Marshal(vb)
		if string(ja) != string(jb) {
			return false
		}
	}
	return true
}

type aclEntry struct {
	Principal      string `json:"principal"`
	PermissionType string `json:"permissionType"`
	Operation      string `json:"operation"`
	Host           string `json:"host"`
}

func TestACLZnodes(t *testing.T) {
	c := connectZK(t)
	tests := []struct {
		path string
		want []aclEntry // must all be present (Kafka does not fix the order)
	}{
		{"/kafka-acl/Topic/orders", []aclEntry{
			{"User:alice", "Allow", "Read", "*"},
			{"User:alice", "Allow", "Describe", "*"},
			{"User:User With Space", "Allow", "Read", "*"},
			{"User:carol", "Allow", "Read", "db.example.com"},
		}},
		{"/kafka-acl/Topic/payments", []aclEntry{{"User:mallory", "Deny", "Read", "*"}, {"User:*", "Deny", "Write", "10.0.0.99"}}},
		{"/kafka-acl/Topic/*", []aclEntry{{"User:auditor", "Allow", "DescribeConfigs", "*"}}},
		{"/kafka-acl/Cluster/kafka-cluster", []aclEntry{
			{"User:alice", "Allow", "Create", "*"},
			{"User:alice", "Allow", "IdempotentWrite", "*"},
			{"User:CN=foo,OU=bar", "Allow", "DescribeConfigs", "*"},
			{"User:mallory", "Deny", "AlterConfigs", "*"},
		}},
		{"/kafka-acl/Group/billing", []aclEntry{{"User:mallory", "Deny", "Read", "*"}, {"User:alice", "Allow", "Write", "*"}}},
		{"/kafka-acl/TransactionalId/tx-orders", []aclEntry{{"User:mallory", "Deny", "Write", "*"}}},
		{"/kafka-acl/User/User:alice", []aclEntry{{"User:bob", "Allow", "CreateTokens", "*"}, {"User:bob", "Allow", "DescribeTokens", "*"}}},
		{"/kafka-acl/DelegationToken/reporting-token", []aclEntry{{"User:alice", "Allow", "Describe", "*"}}},
		{"/kafka-acl-extended/prefixed/Topic/metrics.", []aclEntry{{"User:mallory", "Deny", "All", "*"}}},
		{"/kafka-acl-extended/prefixed/Topic/etl-", []aclEntry{ // kafka-acls --producer
			{"User:svc-etl", "Allow", "Write", "*"}, {"User:svc-etl", "Allow", "Describe", "*"}, {"User:svc-etl", "Allow", "Create", "*"},
		}},
		{"/kafka-acl-extended/prefixed/Group/team-", []aclEntry{{"User:bob", "Allow", "Read", "*"}}},
		{"/kafka-acl-extended/prefixed/TransactionalId/tx-", []aclEntry{{"User:bob", "Allow", "Describe", "*"}}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			var z struct {
				Version int        `json:"version"`
				ACLs    []aclEntry `json:"acls"`
			}
			getJSON(t, c, tc.path, &z)
			if z.Version != 1 {
				t.Errorf("version %d, want 1", z.Version)
			}
			for _, w := range tc.want {
				if !slices.Contains(z.ACLs, w) {
					t.Errorf("missing %+v in %+v", w, z.ACLs)
				}
			}
		})
	}
	// The pattern type segment is lower-case, whatever ZkData's comment says.
	for _, p := range []string{"/kafka-acl-extended/PREFIXED", "/kafka-acl-extended/Prefixed"} {
		if ok, _, err := c.Exists(p); err != nil || ok {
			t.Errorf("%s exists=%v err=%v; want only /kafka-acl-extended/prefixed", p, ok, err)
		}
	}
}

func TestEntityNamesAreSanitized(t *testing.T) {
	c := connectZK(t)
	tests := []struct {
		path string
		key  string
		want string // "" = any value
	}{
		{"/config/users/CN%3Dfoo%2COU%3Dbar", "request_percentage", "25.0"},
		{"/config/users/User%20With%20Space", "SCRAM-SHA-512", ""},
		{"/config/users/svc%7Edeploy", "controller_mutation_rate", "10.0"},
		{"/config/users/<default>", "producer_byte_rate", "10485760"},
		{"/config/users/alice/clients/alice-cli", "producer_byte_rate", "524288"},
		{"/config/users/alice/clients/<default>", "consumer_byte_rate", "1048576"},
		{"/config/users/<default>/clients/batch-loader", "producer_byte_rate", "262144"},
		{"/config/users/<default>/clients/<default>", "request_percentage", "100.0"},
		{"/config/users/bob", "producer_byte_rate", "524288"},
		{"/config/clients/reporting-app", "request_percentage", "50.0"},
		{"/config/clients/<default>", "request_percentage", "200.0"},
		{"/config/ips/10.1.2.3", "connection_creation_rate", "10"},
		{"/config/ips/<default>", "connection_creation_rate", "100"},
		{"/config/brokers/<default>", "log.retention.ms", "259200000"},
		{"/config/brokers/<default>", "log.cleaner.io.max.bytes.per.second", "10485760"},
		{"/config/brokers/<default>", "unclean.leader.election.enable", "false"},
		{"/config/brokers/<default>", "log.cleanup.policy", "delete"},
		{"/config/brokers/1", "leader.replication.throttled.rate", "10485760"},
		{"/config/brokers/2", "log.cleaner.io.buffer.load.factor", "0.8"},
		{"/config/brokers/3", "log.cleaner.threads", "1"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			cfg := configOf(t, c, tc.path)
			v, ok := cfg[tc.key]
			if !ok || (tc.want != "" && v != tc.want) {
				t.Errorf("%s = %q (present %v), want %q", tc.key, v, ok, tc.want)
			}
		})
	}
}

type credential struct {
	User       string `json:"user"`
	Mechanism  string `json:"mechanism"`
	Password   string `json:"password"`
	Iterations int    `json:"iterations"`
}

func loadCredentials(t *testing.T) []credential {
	t.Helper()
	b, err := os.ReadFile(LegacyCredentialsFile(t))
	if err != nil {
		t.Fatal(err)
	}
	var creds []credential
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatalf("credentials file: %v", err)
	}
	return creds
}

var scramRE = regexp.MustCompile(`^salt=([A-Za-z0-9+/]+=*),stored_key=([A-Za-z0-9+/]+=*),server_key=([A-Za-z0-9+/]+=*),iterations=([0-9]+)$`)

// TestSCRAMCredentials checks the stored format and that every password in
// the credentials file derives the stored keys (RFC 5802), so the file the
// migration tests use is right.
func TestSCRAMCredentials(t *testing.T) {
	c := connectZK(t)
	creds := loadCredentials(t)
	if len(creds) != 6 {
		t.Errorf("%d credentials in the file, want 6", len(creds))
	}
	for _, cr := range creds {
		t.Run(cr.User+"/"+cr.Mechanism, func(t *testing.T) {
			if cr.User == "carol" {
				t.Fatal("carol's password must not be in the credentials file")
			}
			v := configOf(t, c, "/config/users/"+sanitize(cr.User))[cr.Mechanism]
			m := scramRE.FindStringSubmatch(v)
			if m == nil {
				t.Fatalf("%s value %q does not match salt=,stored_key=,server_key=,iterations=", cr.Mechanism, redact(v))
			}
			if it, _ := strconv.Atoi(m[4]); it != cr.Iterations {
				t.Errorf("iterations %d, want %d", it, cr.Iterations)
			}
			salt, _ := base64.StdEncoding.DecodeString(m[1])
			h := sha256.New
			if cr.Mechanism == "SCRAM-SHA-512" {
				h = sha512.New
			}
			salted, err := pbkdf2.Key(h, cr.Password, salt, cr.Iterations, h().Size())
			if err != nil {
				t.Fatal(err)
			}
			clientKey := mac(h, salted, "Client Key")
			stored := h()
			stored.Write(clientKey)
			if got := base64.StdEncoding.EncodeToString(stored.Sum(nil)); got != m[2] {
				t.Errorf("stored_key does not derive from the recorded password")
			}
			if got := base64.StdEncoding.EncodeToString(mac(h, salted, "Server Key")); got != m[3] {
				t.Errorf("server_key does not derive from the recorded password")
			}
		})
	}
	// carol exists in ZooKeeper with a password nobody recorded.
	if v := configOf(t, c, "/config/users/carol")["SCRAM-SHA-256"]; !scramRE.MatchString(v) {
		t.Errorf("carol: no SCRAM-SHA-256 credential")
	}
}

func mac(h func() hash.Hash, key []byte, msg string) []byte {
	m := hmac.New(h, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// sanitize is Kafka's Sanitizer for the few names used here.
func sanitize(s string) string {
	r := strings.NewReplacer("=", "%3D", ",", "%2C", " ", "%20", "~", "%7E")
	return r.Replace(s)
}

func redact(v string) string {
	if len(v) > 12 {
		return v[:12] + "…"
	}
	return v
}

// TestEncryptedBrokerPassword checks that broker 0's dynamic password config
// is stored in PasswordEncoder's format, and that the encoder secret file the
// test bed hands out decrypts it (AES/CBC, PBKDF2WithHmacSHA512 by default).
func TestEncryptedBrokerPassword(t *testing.T) {
	c := connectZK(t)
	v, ok := configOf(t, c, "/config/brokers/1")["listener.name.sasl_plaintext.ssl.key.password"]
	if !ok {
		t.Fatal("no listener.name.sasl_plaintext.ssl.key.password on /config/brokers/1")
	}
	if strings.Contains(v, "kp-secret-1") {
		t.Fatal("the password is stored in clear")
	}
	f := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		i := strings.LastIndex(kv, ":")
		if i < 0 {
			t.Fatalf("pair %q has no ':'", kv)
		}
		f[strings.TrimSpace(kv[:i])] = kv[i+1:]
	}
	for _, k := range []string{"keyFactoryAlgorithm", "cipherAlgorithm", "keyLength", "iterations", "salt",
		"initializationVector", "encryptedPassword", "passwordLength"} {
		if f[k] == "" {
			t.Errorf("encoded value has no %s", k)
		}
	}
	if f["cipherAlgorithm"] != "AES/CBC/PKCS5Padding" || f["keyFactoryAlgorithm"] != "PBKDF2WithHmacSHA512" {
		t.Fatalf("unexpected algorithms %q %q", f["cipherAlgorithm"], f["keyFactoryAlgorithm"])
	}
	secret, err := os.ReadFile(EncoderSecretFile(t))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := decryptCBC(string(secret), f)
	if err != nil {
		t.Fatal(err)
	}
	if plain != "kp-secret-1" {
		t.Errorf("decrypted to a %d-byte value, want the test value", len(plain))
	}
	if f["passwordLength"] != strconv.Itoa(len(plain)) {
		t.Errorf("passwordLength %s, plaintext length %d", f["passwordLength"], len(plain))
	}
}

func decryptCBC(secret string, f map[string]string) (string, error) {
	salt, err1 := base64.StdEncoding.DecodeString(f["salt"])
	iv, err2 := base64.StdEncoding.DecodeString(f["initializationVector"])
	ct, err3 := base64.StdEncoding.DecodeString(f["encryptedPassword"])
	iters, err4 := strconv.Atoi(f["iterations"])
	bits, err5 := strconv.Atoi(f["keyLength"])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return "", err
	}
	key, err := pbkdf2.Key(sha512.New, secret, salt, iters, bits/8)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 || len(iv) != aes.BlockSize {
		return "", errors.New("bad ciphertext or IV length")
	}
	out := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, ct)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > aes.BlockSize {
		return "", errors.New("bad padding: wrong encoder secret?")
	}
	return string(out[:len(out)-pad]), nil
}

func TestPendingDeletionAndClusterNodes(t *testing.T) {
	c := connectZK(t)
	for _, p := range []string{"/admin/delete_topics/doomed", "/brokers/topics/doomed"} {
		if ok, _, err := c.Exists(p); err != nil || !ok {
			t.Errorf("%s: exists=%v err=%v; the deletion should be pending", p, ok, err)
		}
	}
	if d := zget(t, c, "/admin/delete_topics/doomed"); len(d) != 0 {
		t.Errorf("/admin/delete_topics/doomed has data %q, want none", d)
	}

	var id map[string]any
	getJSON(t, c, "/cluster/id", &id)
	if v, ok := id["version"].(string); !ok || v != "1" {
		t.Errorf("/cluster/id version = %#v, want the JSON string \"1\"", id["version"])
	}
	if s, _ := id["id"].(string); !uuidRE.MatchString(s) {
		t.Errorf("/cluster/id id = %#v", id["id"])
	}

	var ctl map[string]any
	getJSON(t, c, "/controller", &ctl)
	if ctl["version"] != float64(2) || ctl["kraftControllerEpoch"] != float64(-1) {
		t.Errorf("/controller = %v, want version 2 with kraftControllerEpoch -1", ctl)
	}

	kids, _, err := c.Children("/delegation_token/tokens")
	if err != nil || len(kids) != 1 {
		t.Fatalf("delegation tokens %v (err %v), want 1", kids, err)
	}
	var tok map[string]any
	getJSON(t, c, "/delegation_token/tokens/"+kids[0], &tok)
	if tok["version"] != float64(3) || tok["owner"] != "User%3Aadmin" || tok["tokenId"] != kids[0] {
		t.Errorf("token = %v, want version 3, owner User%%3Aadmin", tok)
	}
}

// TestAdminLogsIn checks the client properties' credential on both clusters
// with a SCRAM-SHA-256 Metadata request.
func TestAdminLogsIn(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		brokers    map[int32]string // id -> rack
	}{
		{"source", SourceBootstrap(t), map[int32]string{1: "rack-a", 2: "rack-b"}},
		{"target node 1", TargetBootstrap(t), map[int32]string{1: "rack-a", 2: "rack-b"}},
		{"target node 2", Target1Bootstrap(t), map[int32]string{1: "rack-a", 2: "rack-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := adminLogsIn(t, tc.addr)
			got := map[int32]string{}
			for _, b := range md.Brokers {
				got[b.NodeID] = ""
				if b.Rack != nil {
					got[b.NodeID] = *b.Rack
				}
			}
			if !maps.Equal(got, tc.brokers) {
				t.Errorf("live brokers (id: rack) %v, want %v", got, tc.brokers)
			}
		})
	}
}

// adminLogsIn fails the test unless a SCRAM-SHA-256 Metadata request as
// AdminUser answers; it returns the answer.
func adminLogsIn(t *testing.T, addr string) kadm.Metadata {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.SASL(scram.Auth{User: AdminUser, Pass: AdminPassword}.AsSha256Mechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	if err != nil {
		t.Fatalf("metadata from %s as %s: %v", addr, AdminUser, err)
	}
	return md
}

// TestTargetFaultHelpers exercises the helpers fault tests use: a clean
// restart, a crash (SIGKILL) and a start on the same data.
func TestTargetFaultHelpers(t *testing.T) {
	addr := TargetBootstrap(t)
	RestartTarget(t)
	adminLogsIn(t, addr)

	KillTarget(t)
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections after KillTarget", addr)
	}
	StartTarget(t)
	adminLogsIn(t, addr)
}

// TestTargetKeepsScramAfterDeletesAndRestart: Kafka 4.1.1 drops every SCRAM
// credential of a mechanism when a restarting node replays SCRAM deletions
// from its metadata log (testbed/README.md, "SCRAM credentials lost on a
// target restart"). The test bed's nodes snapshot every few seconds so that,
// once a snapshot follows the deletions, a restart does not replay them and
// the admin user still logs in on both nodes.
func TestTargetKeepsScramAfterDeletesAndRestart(t *testing.T) {
	addr, addr1, dir := TargetBootstrap(t), Target1Bootstrap(t), Dir(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.SASL(scram.Auth{User: AdminUser, Pass: AdminPassword}.AsSha256Mechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mechs := []kadm.ScramMechanism{kadm.ScramSha256, kadm.ScramSha512}
	alter := func(del bool) {
		t.Helper()
		for _, m := range mechs { // Kafka refuses a user twice in one request
			var dels []kadm.DeleteSCRAM
			var ups []kadm.UpsertSCRAM
			for i := range 10 {
				u := "zkm-restart-" + strconv.Itoa(i)
				if del {
					dels = append(dels, kadm.DeleteSCRAM{User: u, Mechanism: m})
				} else {
					ups = append(ups, kadm.UpsertSCRAM{User: u, Mechanism: m, Iterations: 4096, Password: "pw-" + u})
				}
			}
			res, err := adm.AlterUserSCRAMs(ctx, dels, ups)
			if err == nil {
				err = res.Error()
			}
			if err != nil {
				t.Fatalf("alter SCRAM credentials (delete %v, %v): %v", del, m, err)
			}
		}
	}
	alter(false)
	alter(true)
	deleted := time.Now()

	// Wait (bounded) for each node to snapshot after the deletions.
	for _, node := range []string{"target", "target1"} {
		logDir := dir + "/data/" + node + "/__cluster_metadata-0"
		for {
			if snapshotSince(t, logDir, deleted) {
				break
			}
			if time.Since(deleted) > 60*time.Second {
				t.Fatalf("%s: no metadata snapshot (*.checkpoint) taken within 60 s of the SCRAM deletions; is metadata.log.max.snapshot.interval.ms set (testbed.sh)?", logDir)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	run(t, "stop", "target1")
	RestartTarget(t)
	StartTarget(t)
	adminLogsIn(t, addr)
	adminLogsIn(t, addr1)
}

// snapshotSince reports whether dir holds a KRaft snapshot written after t0.
func snapshotSince(t *testing.T, dir string, t0 time.Time) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".checkpoint") || e.Name() == "leader-epoch-checkpoint" {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(t0) {
			return true
		}
	}
	return false
}
