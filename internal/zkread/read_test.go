package zkread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

func readHandmade(t *testing.T, opt Options) *snapshot.Snapshot {
	t.Helper()
	if opt.Now == nil {
		opt.Now = fixedNow
	}
	s, err := Read(context.Background(), handmadeTree(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func brokerConfig(s *snapshot.Snapshot, broker, key string) *snapshot.Config {
	for i := range s.BrokerConfigs {
		if s.BrokerConfigs[i].Broker != broker {
			continue
		}
		for j := range s.BrokerConfigs[i].Configs {
			if s.BrokerConfigs[i].Configs[j].Key == key {
				return &s.BrokerConfigs[i].Configs[j]
			}
		}
	}
	return nil
}

func findingIDs(s *snapshot.Snapshot, resource string) []string {
	var ids []string
	for _, f := range s.Findings {
		if f.Resource == resource {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// TestPasswords: with the encoder secret both CBC and GCM passwords are
// decrypted into memory; without it they are references with a finding; a
// wrong secret is an error finding.
func TestPasswords(t *testing.T) {
	const ks, jaas = "listener.name.internal.ssl.keystore.password", "listener.name.internal.plain.sasl.jaas.config"
	cases := []struct {
		name    string
		secrets []string
		known   bool
		finding string
	}{
		{name: "secret", secrets: []string{handmadeEncoderSecret}, known: true},
		{name: "old secret first", secrets: []string{"previous-secret", handmadeEncoderSecret}, known: true},
		{name: "no secret", finding: "password-not-decrypted"},
		{name: "wrong secret", secrets: []string{"wrong"}, finding: "password-decrypt-failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readHandmade(t, Options{EncoderSecrets: c.secrets})
			for key, plain := range map[string]string{ks: handmadeKeystorePass, jaas: handmadeJaas} {
				cfg := brokerConfig(s, "1", key)
				if cfg == nil || !cfg.Sensitive || cfg.Value != "" || cfg.Secret == nil {
					t.Fatalf("%s: %+v", key, cfg)
				}
				if want := "zookeeper:/config/brokers/1#" + key; cfg.Secret.Ref() != want {
					t.Errorf("ref %q, want %q", cfg.Secret.Ref(), want)
				}
				v, ok := cfg.Secret.Reveal()
				if ok != c.known || (c.known && v != plain) {
					t.Errorf("%s: Reveal = %q, %v", key, v, ok)
				}
			}
			ids := strings.Join(findingIDs(s, "/config/brokers/1"), ",")
			if c.finding == "" && ids != "" || c.finding != "" && ids != c.finding+","+c.finding {
				t.Errorf("findings on /config/brokers/1: %q, want two %q", ids, c.finding)
			}
		})
	}
}

// TestSecretsNeverOutput: the snapshot's JSON and every fmt rendering of it
// hold none of the planted secrets, though the passwords were decrypted.
func TestSecretsNeverOutput(t *testing.T) {
	for _, full := range []bool{false, true} {
		s := readHandmade(t, Options{Full: full, EncoderSecrets: []string{handmadeEncoderSecret}})
		if v, _ := brokerConfig(s, "1", "listener.name.internal.ssl.keystore.password").Secret.Reveal(); v != handmadeKeystorePass {
			t.Fatal("password not decrypted; the test would prove nothing")
		}
		var buf bytes.Buffer
		if err := snapshot.Encode(&buf, s); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&buf, "%v %+v %#v %v", s, s, s, s.BrokerConfigs)
		tree := handmadeTree(t)
		var ciphertexts []string
		for _, n := range tree.Nodes {
			if strings.HasPrefix(n.Path, "/config/brokers/1") {
				for _, part := range strings.Split(string(n.Data), "encryptedPassword:")[1:] {
					ciphertexts = append(ciphertexts, part[:strings.IndexByte(part, ',')])
				}
			}
		}
		if len(ciphertexts) != 2 {
			t.Fatalf("found %d ciphertexts in the fixture, want 2", len(ciphertexts))
		}
		for _, secret := range append(handmadeSecretStrings(), ciphertexts...) {
			if strings.Contains(buf.String(), secret) {
				t.Errorf("output contains secret %q", secret)
			}
		}
	}
}

// TestEntityNames checks desanitizing: %3Cdefault%3E is a user named
// <default>, <default> is the default entity.
func TestEntityNames(t *testing.T) {
	s := readHandmade(t, Options{})
	got := map[string]bool{}
	for _, q := range s.Quotas {
		got[q.Entity.String()] = q.Entity[0].Default
	}
	for entity, isDefault := range map[string]bool{
		"user=%3Cdefault%3E":                       false, // the user literally named <default>
		"user=<default>":                           true,
		"user=<default>,client-id=<default>":       true,
		"user=CN=foo,OU=bar":                       false,
		"user=User With Space,client-id=<default>": false,
		"ip=::1":              false,
		"ip=<default>":        true,
		"client-id=<default>": true,
	} {
		d, ok := got[entity]
		if !ok || d != isDefault {
			t.Errorf("quota %s: present %v, default %v; want default %v", entity, ok, d, isDefault)
		}
	}
	var defaultUser, userNamedDefault float64
	for _, q := range s.Quotas {
		if len(q.Entity) == 1 && q.Entity[0].Type == "user" && q.Entity[0].Default {
			defaultUser = q.Values["producer_byte_rate"]
		}
		if len(q.Entity) == 1 && q.Entity[0].Type == "user" && !q.Entity[0].Default && q.Entity[0].Name == "<default>" {
			userNamedDefault = q.Values["producer_byte_rate"]
		}
	}
	if defaultUser != 524288 || userNamedDefault != 3000 {
		t.Errorf("default user quota %v, user named <default> %v; want both, 524288 and 3000", defaultUser, userNamedDefault)
	}
	if len(s.ScramUsers) != 2 || s.ScramUsers[0].Name != "alice" || len(s.ScramUsers[0].Credentials) != 2 {
		t.Errorf("SCRAM users %+v", s.ScramUsers)
	}
	for _, q := range s.Quotas {
		for k := range q.Values {
			if strings.HasPrefix(k, "SCRAM-") {
				t.Errorf("quota %s holds %s", q.Entity, k)
			}
		}
	}
}

func TestModes(t *testing.T) {
	mig := readHandmade(t, Options{})
	full := readHandmade(t, Options{Full: true})
	if mig.Read.Mode != ModeMigration || full.Read.Mode != ModeFull {
		t.Fatalf("modes %q %q", mig.Read.Mode, full.Read.Mode)
	}
	if st := mig.Topic("orders").Partitions[0].State; st != nil {
		t.Errorf("migration read has partition state %+v", st)
	}
	if st := full.Topic("orders").Partitions[0].State; st == nil || st.PartitionEpoch != 14 || st.LeaderEpoch != 12 {
		t.Errorf("full read state %+v", st)
	}
	if len(mig.ConsumerGroups) != 0 || len(full.ConsumerGroups) != 1 || full.ConsumerGroups[0].Offsets != 3 {
		t.Errorf("consumer groups: migration %+v, full %+v", mig.ConsumerGroups, full.ConsumerGroups)
	}
	if full.Read.Znodes <= mig.Read.Znodes {
		t.Errorf("full read %d znodes, migration %d", full.Read.Znodes, mig.Read.Znodes)
	}
}

// changingSource wraps a tree: it reports a start zxid, and one znode was
// modified after it while another listed one disappears.
type changingSource struct {
	*zktree.Tree
	start int64
	gone  string
}

func (c *changingSource) LastZxid() int64 { return c.start }
func (c *changingSource) Get(p string) ([]byte, zktree.Stat, error) {
	if p == c.gone {
		return nil, zktree.Stat{}, zktree.ErrNoNode
	}
	return c.Tree.Get(p)
}

func TestChangedDuringRead(t *testing.T) {
	tree := handmadeTree(t)
	var start int64
	for i := range tree.Nodes {
		start = max(start, tree.Nodes[i].Mzxid)
	}
	for i := range tree.Nodes {
		if tree.Nodes[i].Path == "/brokers/topics/orders" {
			tree.Nodes[i].Mzxid = start + 5
		}
	}
	src := &changingSource{Tree: tree, start: start, gone: "/config/clients/app-1"}
	s, err := Read(context.Background(), src, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/brokers/topics/orders", "/config/clients/app-1"}
	if fmt.Sprint(s.Read.Changed) != fmt.Sprint(want) || s.Read.StartZxid != start || s.Read.ZxidMax != start+5 {
		t.Errorf("read info %+v, want changed %v", s.Read, want)
	}
	if ids := findingIDs(s, "/"); len(ids) != 1 || ids[0] != "read-not-consistent" {
		t.Errorf("findings on /: %v", ids)
	}
}

// failingSource fails every Get under a prefix with a connection error.
type failingSource struct {
	*zktree.Tree
	prefix string
	mu     sync.Mutex
	calls  int
}

var errLost = errors.New("zkconn: lost the connection")

func (f *failingSource) Get(p string) ([]byte, zktree.Stat, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if strings.HasPrefix(p, f.prefix) {
		return nil, zktree.Stat{}, errLost
	}
	return f.Tree.Get(p)
}

func TestFatalErrors(t *testing.T) {
	_, err := Read(context.Background(), &failingSource{Tree: handmadeTree(t), prefix: "/config/users/"}, Options{})
	if !errors.Is(err, errLost) || !strings.Contains(err.Error(), "/config/users/") {
		t.Errorf("err = %v, want the lost connection naming the path", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, handmadeTree(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	empty := &zktree.Tree{Nodes: []zktree.Node{{Path: "/zookeeper"}}}
	if _, err := Read(context.Background(), empty, Options{}); !errors.Is(err, ErrNotKafka) {
		t.Errorf("empty tree: err = %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	var first []byte
	for i := range 5 {
		s := readHandmade(t, Options{Full: true, Workers: 1 + i*16, EncoderSecrets: []string{handmadeEncoderSecret}})
		var buf bytes.Buffer
		if err := snapshot.Encode(&buf, s); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.Bytes()
		} else if !bytes.Equal(first, buf.Bytes()) {
			t.Fatalf("run %d differs from run 0", i)
		}
	}
}

// The reader's Source is implemented by a captured tree (and, in package
// zkconn, by the live connection).
var _ Source = (*zktree.Tree)(nil)

// TestCompareACLMatchesKey: the reader's pre-sort orders ACLs exactly as
// snapshot.ACL.Key does.
func TestCompareACLMatchesKey(t *testing.T) {
	s := readHandmade(t, Options{})
	acls := append(s.ACLs, snapshot.ACL{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"},
		snapshot.ACL{ResourceType: "Topic", ResourceName: "order", PatternType: "LITERAL", Principal: "User:alicea", Host: "*", Operation: "Read", Permission: "Allow"},
		snapshot.ACL{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Deny"})
	sign := func(n int) int { return min(max(n, -1), 1) }
	for _, a := range acls {
		for _, b := range acls {
			if got, want := sign(snapshot.CompareACLs(a, b)), sign(strings.Compare(a.Key(), b.Key())); got != want {
				t.Fatalf("CompareACLs(%v, %v) = %d, Key order %d", a, b, got, want)
			}
		}
	}
}
