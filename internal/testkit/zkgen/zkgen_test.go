package zkgen

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/testkit/golden"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// generate runs the generator at cfg into memory.
func generate(t testing.TB, cfg Config, opt Options) (*zktree.Tree, Summary) {
	t.Helper()
	w := NewTreeWriter()
	sum, err := Generate(context.Background(), cfg, w, opt)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return w.Tree(), sum
}

func encodeTree(t testing.TB, tr *zktree.Tree) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := zktree.Encode(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSanitize(t *testing.T) {
	// Java outputs of Kafka 3.9's Sanitizer, from the reference (§0.1).
	tests := []struct{ in, want string }{
		{"CN=foo,OU=bar", "CN%3Dfoo%2COU%3Dbar"},
		{"x@y.com", "x%40y.com"},
		{"a~b*c", "a%7Eb%2Ac"},
		{"User With Space", "User%20With%20Space"},
		{"a/b", "a%2Fb"},
		{"é+&", "%C3%A9%2B%26"},
		{"<default>", "%3Cdefault%3E"},
		{"plain-name_1.x", "plain-name_1.x"},
		{"::1", "%3A%3A1"},
	}
	for _, tc := range tests {
		got := Sanitize(tc.in)
		if got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := url.QueryUnescape(got)
		if err != nil || back != tc.in {
			t.Errorf("QueryUnescape(%q) = %q, %v; want %q", got, back, err, tc.in)
		}
	}
}

func TestScramCredentialKnownAnswer(t *testing.T) {
	// The reference's vector (§3.1), recomputed there against Kafka.
	got := scramCredential(scramMechs[0], "alice-secret", []byte("fixedsalt123"), 4096)
	want := "salt=Zml4ZWRzYWx0MTIz,stored_key=iNR/BxL/vWjVwJtlrSeLh27TDqdaTjACtFbDkaLsyCY=,server_key=ML2o2oCkTRwiFNsPIJSYL6UFGIVJ6l91z/LR+Gv7Dq0=,iterations=4096"
	if got != want {
		t.Errorf("SCRAM-SHA-256 credential:\n got %s\nwant %s", got, want)
	}
}

// decryptPassword is an independent reading of Kafka's PasswordEncoder
// format (reference §4.3): parse on the last ':' of each pair, PBKDF2 the
// secret, AES-CBC, PKCS#7, and check the UTF-16 length.
func decryptPassword(secret, encoded string) (string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(encoded, ",") {
		i := strings.LastIndexByte(kv, ':')
		if i < 0 {
			return "", fmt.Errorf("pair %q has no ':'", kv)
		}
		m[kv[:i]] = kv[i+1:]
	}
	for _, k := range []string{"encryptedPassword", "keyFactoryAlgorithm", "cipherAlgorithm", "keyLength", "iterations", "salt", "initializationVector", "passwordLength"} {
		if _, ok := m[k]; !ok {
			return "", fmt.Errorf("missing %s", k)
		}
	}
	if m["keyFactoryAlgorithm"] != "PBKDF2WithHmacSHA512" || m["cipherAlgorithm"] != "AES/CBC/PKCS5Padding" {
		return "", fmt.Errorf("unexpected algorithms %s %s", m["keyFactoryAlgorithm"], m["cipherAlgorithm"])
	}
	dec := base64.StdEncoding.DecodeString
	salt, err1 := dec(m["salt"])
	iv, err2 := dec(m["initializationVector"])
	ct, err3 := dec(m["encryptedPassword"])
	bits, err4 := strconv.Atoi(m["keyLength"])
	iter, err5 := strconv.Atoi(m["iterations"])
	plen, err6 := strconv.Atoi(m["passwordLength"])
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			return "", err
		}
	}
	key, err := pbkdf2.Key(sha512.New, secret, salt, iter, bits/8)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 || len(iv) != aes.BlockSize {
		return "", fmt.Errorf("bad ciphertext or IV length")
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
	pad := int(pt[len(pt)-1])
	if pad < 1 || pad > aes.BlockSize {
		return "", fmt.Errorf("bad padding")
	}
	s := string(pt[:len(pt)-pad])
	if n := len(utf16.Encode([]rune(s))); n != plen {
		return "", fmt.Errorf("sanity check of length failed: %d != %d", n, plen)
	}
	return s, nil
}

func TestPasswordEncoder(t *testing.T) {
	// Known answer produced by Kafka 3.9's EncryptingPasswordEncoder (§4.3).
	kafka := "initializationVector:qk571yNP9c2aGSfUnhxpcw==,keyLength:128,salt:Ki8D2y1bEgmvcb2HMBm0J5fX87FYeaVeBUVp40jUWS76lVqaKwuhZ4DrWWa2p8kh9bIISZ5WQt1fSjGpXedgQdrvHy8mWiQtMqj6bJfXNJO8Vy5zgfMY3qTGIFW1/2C04qcNjar6am9AdsGH+h6DbZiaanWdc2XzKSzu6iOTPIuhWTGYcKihN3RU0i6XYCRqulrbJFVhPrSxnVLNw3TudyC2kTLMHMPBNI15qRVpnYxYtOqBUAdwVV8lCGecQLUOEfzRTOgvkuuL/U7j81thw9QgvLZdBdySVxRtD+rkzpykHuuH6tmFYq7hhMio9UYbNefYkFpH4JoJEE5Pi6r35g==,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,iterations:4096,passwordLength:14,encryptedPassword:lonkfoR+EOcjf0c8AR5k4nvOX0HJJikyzrVR8BSolhI="
	got, err := decryptPassword("s3cr3t-enc", kafka)
	if err != nil || got != "päss:w,rd=€/😀" {
		t.Fatalf("decrypt Kafka vector = %q, %v", got, err)
	}
	tests := []string{"päss:w,rd=€/😀", "x", "exactly-16-bytes", `org.apache.kafka.common.security.scram.ScramLoginModule required username="b" password="p";`}
	for i, plain := range tests {
		enc := encryptPassword(rand.New(rand.NewPCG(uint64(i), 99)), "s3cr3t-enc", plain)
		got, err := decryptPassword("s3cr3t-enc", enc)
		if err != nil || got != plain {
			t.Errorf("round trip %q = %q, %v", plain, got, err)
		}
		if _, err := decryptPassword("wrong-secret", enc); err == nil {
			t.Errorf("%q decrypted with the wrong secret", plain)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"negative topics", func(c *Config) { c.Topics = -1 }, "must not be negative"},
		{"no partitions", func(c *Config) { c.PartitionsPerTopic = 0 }, "--partitions-per-topic must be at least 1"},
		{"no brokers", func(c *Config) { c.Brokers = 0 }, "--brokers must be at least 1"},
		{"too many brokers", func(c *Config) { c.Brokers = 5000 }, "more than 1000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Small(1)
			tc.cfg(&c)
			_, err := Generate(context.Background(), c, NewTreeWriter(), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if err := Full(1).Validate(); err != nil {
		t.Errorf("Full: %v", err)
	}
}

func TestTreeWriterLikeZooKeeper(t *testing.T) {
	ctx := context.Background()
	w := NewTreeWriter()
	if err := w.Write(ctx, 0, []Node{{"/a", nil}, {"/a/b", []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		nodes []Node
		want  string
	}{
		{"missing parent", []Node{{"/c", nil}, {"/x/y", nil}}, "/x/y: parent does not exist"},
		{"exists", []Node{{"/d", nil}, {"/a/b", nil}}, "/a/b: node already exists"},
	}
	for _, tc := range tests {
		err := w.Write(ctx, 0, tc.nodes)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want %q", tc.name, err, tc.want)
		}
	}
	if n := w.Len(); n != 2 {
		t.Errorf("failed batches were not rolled back: %d nodes, want 2", n)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := generate(t, Small(1), Options{Writers: 1, Batch: 1000})
	b, _ := generate(t, Small(1), Options{Writers: 5, Batch: 7}) // splits topic units across batches
	c, _ := generate(t, Small(2), Options{})
	ea, eb, ec := encodeTree(t, a), encodeTree(t, b), encodeTree(t, c)
	if !bytes.Equal(ea, eb) {
		t.Errorf("same seed, different writers/batch: trees differ\n%s", cmp.Diff(string(ea), string(eb)))
	}
	if bytes.Equal(ea, ec) {
		t.Errorf("seeds 1 and 2 gave the same tree")
	}
}

// TestSummaryGolden pins the small tree's summary, so a change to the mix
// is a visible diff (go test ./internal/testkit/zkgen -run Golden -update).
func TestSummaryGolden(t *testing.T) {
	_, sum := generate(t, Small(1), Options{})
	got, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Assert(t, filepath.Join("testdata", "small-seed1.summary.json"), got)
}

// TestTreeMatchesSummaryAndFormats reads back every znode of a small tree,
// checks it parses as the reference describes, counts each kind
// independently, and compares the counts with the generator's Summary.
func TestTreeMatchesSummaryAndFormats(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			cfg := Small(seed)
			tr, sum := generate(t, cfg, Options{Writers: 3, Batch: 11})
			got := checkTree(t, tr, cfg)
			if d := cmp.Diff(sum, got); d != "" {
				t.Errorf("Summary differs from the tree's own counts (-summary +tree):\n%s", d)
			}
			// every rare kind appears at the small size
			for name, n := range map[string]int{"topics without id": got.TopicsWithoutID, "pending deletes": got.PendingDeletes,
				"reassigning": got.Reassigning, "removed keys": got.TopicRemovedKeys, "prefixed acls": got.ACLPrefixedResources,
				"deny acls": got.ACLDenyEntries, "user+client quotas": got.Quotas.UserClient, "defaults": got.Quotas.Defaults,
				"ip quotas": got.Quotas.IP, "broker passwords": got.BrokerPasswords} {
				if n == 0 {
					t.Errorf("no %s in the small tree", name)
				}
			}
		})
	}
}

func TestSizes(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"empty", Config{Brokers: 1, Seed: 1}},
		{"one broker", Config{Topics: 15, PartitionsPerTopic: 2, ACLs: 20, QuotaEntities: 3, ScramUsers: 2, Brokers: 1, Seed: 3}},
		{"internal topics", Config{Topics: 120, PartitionsPerTopic: 1, ACLs: 5, QuotaEntities: 10, ScramUsers: 0, Brokers: 3, Seed: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, sum := generate(t, tc.cfg, Options{Writers: 2, Batch: 5})
			if d := cmp.Diff(sum, checkTree(t, tr, tc.cfg)); d != "" {
				t.Errorf("(-summary +tree):\n%s", d)
			}
			if sum.Topics != tc.cfg.Topics || sum.ACLEntries != tc.cfg.ACLs || sum.Quotas.Total() != tc.cfg.QuotaEntities || sum.ScramUsers != tc.cfg.ScramUsers {
				t.Errorf("asked for %+v, got %+v", tc.cfg, sum)
			}
		})
	}
}

var (
	uuidRe     = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)
	scramRe    = regexp.MustCompile(`^salt=([A-Za-z0-9+/=]+),stored_key=([A-Za-z0-9+/=]+),server_key=([A-Za-z0-9+/=]+),iterations=(\d+)$`)
	sanitaryRe = regexp.MustCompile(`^[A-Za-z0-9._%-]+$`)
	quotaKeys  = map[string]bool{"producer_byte_rate": true, "consumer_byte_rate": true, "request_percentage": true, "controller_mutation_rate": true}
	aclOpNames = map[string]bool{"All": true, "Read": true, "Write": true, "Create": true, "Delete": true, "Alter": true, "Describe": true,
		"ClusterAction": true, "DescribeConfigs": true, "AlterConfigs": true, "IdempotentWrite": true, "CreateTokens": true, "DescribeTokens": true}
)

// strictJSON decodes data into v, refusing unknown fields.
func strictJSON(t *testing.T, p string, data []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Errorf("%s: %v in %s", p, err, data)
	}
}

// jsonKeys returns the top-level keys of a JSON object.
func jsonKeys(t *testing.T, p string, data []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Errorf("%s: %v", p, err)
	}
	return m
}

// configOf parses /config/<type>/<entity>: version 1 and string values only.
func configOf(t *testing.T, p string, data []byte) map[string]string {
	t.Helper()
	var z struct {
		Version *int                       `json:"version"`
		Config  map[string]json.RawMessage `json:"config"`
	}
	strictJSON(t, p, data, &z)
	if z.Version == nil || *z.Version != 1 || z.Config == nil {
		t.Errorf("%s: want version 1 and a config object: %s", p, data)
	}
	out := map[string]string{}
	for k, raw := range z.Config {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Errorf("%s: config %s is not a string: %s", p, k, raw)
		}
		out[k] = s
	}
	return out
}

// entity checks a /config entity name and returns it desanitized.
func entity(t *testing.T, p, name string) string {
	t.Helper()
	if name == Default {
		return name
	}
	if !sanitaryRe.MatchString(name) {
		t.Errorf("%s: %q has characters Sanitizer would have escaped", p, name)
	}
	raw, err := url.QueryUnescape(name)
	if err != nil {
		t.Errorf("%s: %v", p, err)
	}
	if Sanitize(raw) != name {
		t.Errorf("%s: %q decodes to %q, which sanitizes to %q", p, name, raw, Sanitize(raw))
	}
	return raw
}

// checkTree parses every znode and counts it into a Summary of its own.
func checkTree(t *testing.T, tr *zktree.Tree, cfg Config) Summary {
	t.Helper()
	s := Summary{Seed: cfg.Seed, Znodes: len(tr.Nodes)}
	nodes := map[string][]byte{}
	for _, n := range tr.Nodes {
		nodes[n.Path] = n.Data
	}
	children := func(p string) []string {
		c, err := tr.Children(p)
		if err != nil {
			t.Fatalf("children of %s: %v", p, err)
		}
		return c
	}
	brokerIDs := map[int]bool{}
	for _, id := range children("/brokers/ids") {
		p := "/brokers/ids/" + id
		var b struct {
			Version   int               `json:"version"`
			Host      *string           `json:"host"`
			Port      int               `json:"port"`
			JMXPort   int               `json:"jmx_port"`
			Timestamp string            `json:"timestamp"`
			Endpoints []string          `json:"endpoints"`
			Map       map[string]string `json:"listener_security_protocol_map"`
			Rack      string            `json:"rack"`
			Features  map[string]struct {
				MinVersion *int `json:"min_version"`
				MaxVersion *int `json:"max_version"`
			} `json:"features"`
		}
		strictJSON(t, p, nodes[p], &b)
		n, err := strconv.Atoi(id)
		if err != nil || b.Version != 5 || len(b.Endpoints) == 0 || b.Host == nil || b.Map == nil || b.Features["metadata.version"].MaxVersion == nil {
			t.Errorf("%s: not a v5 registration: %s", p, nodes[p])
		}
		if _, err := strconv.ParseInt(b.Timestamp, 10, 64); err != nil {
			t.Errorf("%s: timestamp %q is not a decimal string", p, b.Timestamp)
		}
		brokerIDs[n] = true
		s.Brokers++
	}

	var cid struct{ Version, ID string }
	strictJSON(t, "/cluster/id", nodes["/cluster/id"], &cid)
	if cid.Version != "1" || !uuidRe.MatchString(cid.ID) {
		t.Errorf("/cluster/id: %s", nodes["/cluster/id"])
	}
	var ctl struct {
		Version              int    `json:"version"`
		BrokerID             int    `json:"brokerid"`
		Timestamp            string `json:"timestamp"`
		KRaftControllerEpoch int    `json:"kraftControllerEpoch"`
	}
	strictJSON(t, "/controller", nodes["/controller"], &ctl)
	if ctl.Version != 2 || !brokerIDs[ctl.BrokerID] || ctl.KRaftControllerEpoch != -1 {
		t.Errorf("/controller: %s", nodes["/controller"])
	}
	ce, err := strconv.Atoi(string(nodes["/controller_epoch"]))
	if err != nil || ce < 1 {
		t.Errorf("/controller_epoch: %q", nodes["/controller_epoch"])
	}
	var feat struct {
		Version  int `json:"version"`
		Status   int `json:"status"`
		Features map[string]struct {
			MaxVersionLevel int `json:"max_version_level"`
		} `json:"features"`
	}
	strictJSON(t, "/feature", nodes["/feature"], &feat)
	if feat.Version != 2 || feat.Status != 1 || feat.Features["metadata.version"].MaxVersionLevel < 1 {
		t.Errorf("/feature: %s", nodes["/feature"])
	}
	var pid struct {
		Version    int    `json:"version"`
		Broker     int    `json:"broker"`
		BlockStart string `json:"block_start"`
		BlockEnd   string `json:"block_end"`
	}
	strictJSON(t, "/latest_producer_id_block", nodes["/latest_producer_id_block"], &pid)
	if start, err1 := strconv.ParseInt(pid.BlockStart, 10, 64); err1 != nil || pid.BlockEnd != strconv.FormatInt(start+999, 10) {
		t.Errorf("/latest_producer_id_block: %s", nodes["/latest_producer_id_block"])
	}

	// topics
	deleting := map[string]bool{}
	for _, d := range children("/admin/delete_topics") {
		deleting[d] = true
		if len(nodes["/admin/delete_topics/"+d]) != 0 {
			t.Errorf("/admin/delete_topics/%s: want null data", d)
		}
		if nodes["/brokers/topics/"+d] == nil {
			t.Errorf("/admin/delete_topics/%s: no such topic", d)
		}
		s.PendingDeletes++
	}
	for _, name := range children("/brokers/topics") {
		p := "/brokers/topics/" + name
		var z struct {
			Version  int              `json:"version"`
			Parts    map[string][]int `json:"partitions"`
			Adding   map[string][]int `json:"adding_replicas"`
			Removing map[string][]int `json:"removing_replicas"`
			TopicID  string           `json:"topic_id"`
		}
		strictJSON(t, p, nodes[p], &z)
		keys := jsonKeys(t, p, nodes[p])
		switch z.Version {
		case 3:
			if !uuidRe.MatchString(z.TopicID) || strings.HasPrefix(z.TopicID, "-") {
				t.Errorf("%s: topic_id %q", p, z.TopicID)
			}
			if b, err := base64.RawURLEncoding.DecodeString(z.TopicID); err != nil || len(b) != 16 {
				t.Errorf("%s: topic_id %q is not 16 bytes base64url", p, z.TopicID)
			}
		case 1, 2:
			if _, ok := keys["topic_id"]; ok {
				t.Errorf("%s: v%d with topic_id", p, z.Version)
			}
			s.TopicsWithoutID++
		default:
			t.Errorf("%s: version %d", p, z.Version)
		}
		_, hasAdding := keys["adding_replicas"]
		_, hasRemoving := keys["removing_replicas"]
		if (z.Version >= 2) != (hasAdding && hasRemoving) {
			t.Errorf("%s: v%d adding/removing present = %v/%v", p, z.Version, hasAdding, hasRemoving)
		}
		if len(z.Adding) > 0 {
			s.Reassigning++
			s.ReassigningParts += len(z.Adding)
		}
		if strings.HasPrefix(name, "__") {
			s.InternalTopics++
		}
		parts := children(p + "/partitions")
		if len(parts) != len(z.Parts) {
			t.Errorf("%s: %d partition znodes for %d assignments", p, len(parts), len(z.Parts))
		}
		if len(nodes[p+"/partitions"]) != 0 {
			t.Errorf("%s/partitions: want null data", p)
		}
		for i := range len(z.Parts) {
			key := strconv.Itoa(i)
			reps, ok := z.Parts[key]
			if !ok {
				t.Errorf("%s: partition %d missing", p, i)
				continue
			}
			for _, r := range reps {
				if !brokerIDs[r] {
					t.Errorf("%s: partition %d replica %d is not a broker", p, i, r)
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(reps)))) != len(reps) {
				t.Errorf("%s: partition %d replicas repeat: %v", p, i, reps)
			}
			if add := z.Adding[key]; len(add) > 0 {
				target := slices.DeleteFunc(slices.Clone(reps), func(r int) bool { return slices.Contains(z.Removing[key], r) })
				for _, a := range add {
					if !slices.Contains(target, a) {
						t.Errorf("%s: adding %d is not in the target %v", p, a, target)
					}
				}
			}
			sp := p + "/partitions/" + key + "/state"
			var st struct {
				ControllerEpoch     *int  `json:"controller_epoch"`
				Leader              *int  `json:"leader"`
				Version             int   `json:"version"`
				LeaderEpoch         *int  `json:"leader_epoch"`
				ISR                 []int `json:"isr"`
				LeaderRecoveryState *int  `json:"leader_recovery_state"`
			}
			data, ok := nodes[sp]
			if !ok {
				t.Errorf("%s missing", sp)
				continue
			}
			strictJSON(t, sp, data, &st)
			if st.Version != 1 || st.ControllerEpoch == nil || *st.ControllerEpoch > ce || st.Leader == nil || st.LeaderEpoch == nil || st.ISR == nil {
				t.Errorf("%s: %s", sp, data)
				continue
			}
			switch l := *st.Leader; {
			case l == -2:
				if !deleting[name] {
					t.Errorf("%s: leader -2 but the topic is not being deleted", sp)
				}
			case l == -1:
			case !slices.Contains(reps, l) || !slices.Contains(st.ISR, l):
				t.Errorf("%s: leader %d not in replicas %v / isr %v", sp, l, reps, st.ISR)
			}
			if st.LeaderRecoveryState != nil && *st.LeaderRecoveryState != 1 {
				t.Errorf("%s: leader_recovery_state written as %d (only RECOVERING=1 is written)", sp, *st.LeaderRecoveryState)
			}
			s.Partitions++
		}
		s.Topics++
	}

	// topic configs
	for _, name := range children("/config/topics") {
		p := "/config/topics/" + name
		if nodes["/brokers/topics/"+name] == nil {
			t.Errorf("%s: orphan config", p)
		}
		c := configOf(t, p, nodes[p])
		s.TopicConfigs++
		if len(c) > 0 {
			s.TopicConfigsNonEmpty++
		}
		for k := range c {
			if _, ok := removedTopicKeys[k]; ok {
				s.TopicRemovedKeys++
			}
		}
	}

	// broker configs
	for _, b := range children("/config/brokers") {
		p := "/config/brokers/" + b
		c := configOf(t, p, nodes[p])
		for k, v := range c {
			if strings.HasSuffix(k, ".password") || strings.HasSuffix(k, "sasl.jaas.config") {
				if b == Default {
					t.Errorf("%s: password config %s at <default>", p, k)
				}
				if plain, err := decryptPassword(cfg.encoderSecret(), v); err != nil || plain == "" {
					t.Errorf("%s: %s does not decrypt: %v", p, k, err)
				}
				s.BrokerPasswords++
			}
		}
		if _, err := strconv.Atoi(b); err != nil && b != Default {
			t.Errorf("%s: entity is neither a broker id nor <default>", p)
		}
		s.BrokerConfigs++
	}

	// users: SCRAM and quotas, and their clients
	saltToK := map[string]int{}
	for m := range scramMechs {
		for k := range min(ScramPoolSize, cfg.ScramUsers) {
			saltToK[fmt.Sprint(m, string(poolSalt(cfg.Seed, m, k)))] = k
		}
	}
	isDefault := func(names ...string) bool { return slices.Contains(names, Default) }
	for _, u := range children("/config/users") {
		p := "/config/users/" + u
		entity(t, p, u)
		if len(nodes[p]) == 0 {
			if len(children(p)) == 0 {
				t.Errorf("%s: null data and no clients", p)
			}
		} else {
			c := configOf(t, p, nodes[p])
			quota, scram := false, false
			for k, v := range c {
				switch {
				case quotaKeys[k]:
					if _, err := strconv.ParseFloat(v, 64); err != nil {
						t.Errorf("%s: %s=%q is not a number", p, k, v)
					}
					quota = true
				case k == "SCRAM-SHA-256" || k == "SCRAM-SHA-512":
					scram = true
					s.ScramCredentials++
					m := 0
					if k == "SCRAM-SHA-512" {
						m = 1
					}
					checkScram(t, p, k, v, m, cfg.Seed, saltToK)
				default:
					t.Errorf("%s: unexpected key %s", p, k)
				}
			}
			if quota {
				s.Quotas.User++
				if isDefault(u) {
					s.Quotas.Defaults++
				}
			}
			if scram {
				if isDefault(u) {
					t.Errorf("%s: SCRAM credentials on the default user", p)
				}
				s.ScramUsers++
			}
			if !quota && !scram {
				t.Errorf("%s: empty config", p)
			}
		}
		if _, ok := nodes[p+"/clients"]; !ok {
			continue
		}
		if len(nodes[p+"/clients"]) != 0 {
			t.Errorf("%s/clients: want null data", p)
		}
		for _, c := range children(p + "/clients") {
			cp := p + "/clients/" + c
			entity(t, cp, c)
			for k := range configOf(t, cp, nodes[cp]) {
				if !quotaKeys[k] {
					t.Errorf("%s: unexpected key %s", cp, k)
				}
			}
			s.Quotas.UserClient++
			if isDefault(u, c) {
				s.Quotas.Defaults++
			}
		}
	}
	for _, c := range children("/config/clients") {
		p := "/config/clients/" + c
		entity(t, p, c)
		for k := range configOf(t, p, nodes[p]) {
			if !quotaKeys[k] {
				t.Errorf("%s: unexpected key %s", p, k)
			}
		}
		s.Quotas.Client++
		if isDefault(c) {
			s.Quotas.Defaults++
		}
	}
	for _, ip := range children("/config/ips") {
		p := "/config/ips/" + ip
		raw := entity(t, p, ip)
		if c := configOf(t, p, nodes[p]); len(c) != 1 || c["connection_creation_rate"] == "" {
			t.Errorf("%s: %v", p, c)
		}
		if raw != Default && !regexp.MustCompile(`^[0-9a-f.:]+$`).MatchString(raw) {
			t.Errorf("%s: %q is not an IP", p, raw)
		}
		s.Quotas.IP++
		if isDefault(ip) {
			s.Quotas.Defaults++
		}
	}

	// ACLs
	for _, root := range []string{"/kafka-acl", "/kafka-acl-extended/prefixed"} {
		types := children(root)
		if !slices.Equal(types, slices.Sorted(slices.Values(aclTypes))) {
			t.Errorf("%s: type nodes %v", root, types)
		}
		for _, typ := range types {
			for _, name := range children(root + "/" + typ) {
				p := root + "/" + typ + "/" + name
				var z struct {
					Version int `json:"version"`
					ACLs    []struct {
						Principal      string `json:"principal"`
						PermissionType string `json:"permissionType"`
						Operation      string `json:"operation"`
						Host           string `json:"host"`
					} `json:"acls"`
				}
				strictJSON(t, p, nodes[p], &z)
				if z.Version != 1 || len(z.ACLs) == 0 {
					t.Errorf("%s: %s", p, nodes[p])
				}
				if typ == "Cluster" && name != "kafka-cluster" || typ == "User" && !strings.HasPrefix(name, "User:") {
					t.Errorf("%s: bad resource name", p)
				}
				seen := map[string]bool{}
				for _, a := range z.ACLs {
					k := a.Principal + "|" + a.PermissionType + "|" + a.Operation + "|" + a.Host
					if seen[k] {
						t.Errorf("%s: duplicate entry %s", p, k)
					}
					seen[k] = true
					if !strings.HasPrefix(a.Principal, "User:") || !aclOpNames[a.Operation] || a.Host == "" ||
						(a.PermissionType != "Allow" && a.PermissionType != "Deny") {
						t.Errorf("%s: bad entry %+v", p, a)
					}
					if a.PermissionType == "Deny" {
						s.ACLDenyEntries++
					}
				}
				s.ACLEntries += len(z.ACLs)
				s.ACLResources++
				if root != "/kafka-acl" {
					s.ACLPrefixedResources++
				}
			}
		}
	}

	// delegation tokens and config change notifications
	if _, ok := nodes["/delegation_token"]; ok {
		for _, id := range children("/delegation_token/tokens") {
			p := "/delegation_token/tokens/" + id
			var tok struct {
				Version         int      `json:"version"`
				Owner           string   `json:"owner"`
				TokenRequester  string   `json:"tokenRequester"`
				Renewers        []string `json:"renewers"`
				IssueTimestamp  int64    `json:"issueTimestamp"`
				MaxTimestamp    int64    `json:"maxTimestamp"`
				ExpiryTimestamp int64    `json:"expiryTimestamp"`
				TokenID         string   `json:"tokenId"`
			}
			strictJSON(t, p, nodes[p], &tok)
			if tok.Version != 3 || tok.TokenID != id || tok.IssueTimestamp <= 0 || tok.ExpiryTimestamp <= tok.IssueTimestamp || tok.MaxTimestamp < tok.ExpiryTimestamp {
				t.Errorf("%s: %s", p, nodes[p])
			}
			for _, pr := range append([]string{tok.Owner, tok.TokenRequester}, tok.Renewers...) {
				if raw := entity(t, p, pr); !strings.HasPrefix(raw, "User:") {
					t.Errorf("%s: principal %q is not User:<name>", p, raw)
				}
			}
			s.DelegationTokens++
		}
	}
	for _, c := range children("/config/changes") {
		p := "/config/changes/" + c
		var ch struct {
			Version    int    `json:"version"`
			EntityPath string `json:"entity_path"`
		}
		strictJSON(t, p, nodes[p], &ch)
		if _, ok := nodes["/config/"+ch.EntityPath]; ch.Version != 2 || !ok || !regexp.MustCompile(`^config_change_\d{10}$`).MatchString(c) {
			t.Errorf("%s: %s (entity must exist)", p, nodes[p])
		}
		s.ConfigChanges++
	}

	// nothing outside the kinds above
	known := regexp.MustCompile(`^/(consumers|brokers(/ids(/\d+)?|/seqid|/topics(/[^/]+(/partitions(/\d+(/state)?)?)?)?)?|delegation_token(/tokens(/[^/]+)?|/token_changes)?|config(/changes(/[^/]+)?|/topics(/[^/]+)?|/brokers(/[^/]+)?|/clients(/[^/]+)?|/ips(/[^/]+)?|/users(/[^/]+(/clients(/[^/]+)?)?)?)?|admin(/delete_topics(/[^/]+)?)?|isr_change_notification|log_dir_event_notification|latest_producer_id_block|cluster(/id)?|controller|controller_epoch|feature|kafka-acl(/[A-Za-z]+(/[^/]+)?)?|kafka-acl-extended(/prefixed(/[A-Za-z]+(/[^/]+)?)?)?|kafka-acl-changes|kafka-acl-extended-changes)$`)
	for _, n := range tr.Nodes {
		if !known.MatchString(n.Path) || path.Clean(n.Path) != n.Path {
			t.Errorf("unexpected znode %s", n.Path)
		}
	}
	return s
}

// checkScram parses a credential and recomputes it from its pool password.
func checkScram(t *testing.T, p, mech, v string, m int, seed int64, saltToK map[string]int) {
	t.Helper()
	sm := scramRe.FindStringSubmatch(v)
	if sm == nil {
		t.Errorf("%s: %s is not salt=..,stored_key=..,server_key=..,iterations=..", p, mech)
		return
	}
	size := 32
	if m == 1 {
		size = 64
	}
	salt, err := base64.StdEncoding.DecodeString(sm[1])
	stored, err2 := base64.StdEncoding.DecodeString(sm[2])
	server, err3 := base64.StdEncoding.DecodeString(sm[3])
	if err != nil || err2 != nil || err3 != nil || len(stored) != size || len(server) != size || sm[4] != "4096" {
		t.Errorf("%s: %s: bad field sizes or encoding", p, mech)
		return
	}
	k, ok := saltToK[fmt.Sprint(m, string(salt))]
	if !ok {
		t.Errorf("%s: %s salt is not from the pool", p, mech)
		return
	}
	if want := scramCredential(scramMechs[m], scramPassword(seed, k), salt, 4096); v != want {
		t.Errorf("%s: %s does not derive from pool password %d", p, mech, k)
	}
}

func BenchmarkGenerateTree(b *testing.B) {
	cfg := Config{Topics: 5000, PartitionsPerTopic: 4, ACLs: 10000, QuotaEntities: 1000, ScramUsers: 500, Brokers: 3, Seed: 1}
	for b.Loop() {
		w := NewTreeWriter()
		sum, err := Generate(context.Background(), cfg, w, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Znodes), "znodes/op")
	}
}
