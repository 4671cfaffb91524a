package zkread

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// seedZnodes adds the data of every fixture znode whose path contains part
// (the handmade tree and every captured tree in testdata) to f's corpus.
func seedZnodes(f *testing.F, part string) {
	trees := []*zktree.Tree{handmadeTree(f)}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		if t, err := zktree.Load(file); err == nil {
			trees = append(trees, t)
		}
	}
	for _, t := range trees {
		for _, n := range t.Nodes {
			if strings.Contains(n.Path, part) && len(n.Data) > 0 {
				f.Add(n.Data)
			}
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"version":"1"}`))
}

func FuzzParseTopic(f *testing.F) {
	seedZnodes(f, "/brokers/topics/")
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := ParseTopic("t", data)
		if err == nil {
			for i := 1; i < len(tp.Partitions); i++ {
				if tp.Partitions[i-1].ID >= tp.Partitions[i].ID {
					t.Fatalf("partitions not sorted and unique: %v", tp.Partitions)
				}
			}
		}
	})
}

func FuzzParsePartitionState(f *testing.F) {
	seedZnodes(f, "/state")
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParsePartitionState(data, 3)
		if err == nil && st.PartitionEpoch != 3 {
			t.Fatal("partition epoch is not the znode version")
		}
	})
}

func FuzzParseBroker(f *testing.F) {
	seedZnodes(f, "/brokers/ids/")
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBroker(1, data)
		if err == nil && len(b.Endpoints) == 0 {
			t.Fatal("broker without endpoints accepted")
		}
	})
}

func FuzzParseEntityConfig(f *testing.F) {
	seedZnodes(f, "/config/")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseEntityConfig(data)
		if err == nil && m == nil {
			t.Fatal("nil map without error")
		}
	})
}

func FuzzParseACLs(f *testing.F) {
	seedZnodes(f, "/kafka-acl")
	f.Fuzz(func(t *testing.T, data []byte) {
		acls, err := ParseACLs("Topic", "t", PatternLiteral, data)
		if err != nil {
			return
		}
		for _, a := range acls {
			if !slices.Contains(operations, a.Operation) || (a.Permission != "Allow" && a.Permission != "Deny") {
				t.Fatalf("non-canonical ACL %+v", a)
			}
		}
	})
}

func FuzzParseScramCredential(f *testing.F) {
	for _, s := range []string{aliceScram256, aliceScram512, bobScram256, "salt=,stored_key=,server_key=,iterations=1", "a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseScramCredential(s)
		if err == nil && c.Iterations <= 0 {
			t.Fatal("non-positive iterations accepted")
		}
	})
}

func FuzzParseDelegationToken(f *testing.F) {
	seedZnodes(f, "/delegation_token/tokens/")
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := ParseDelegationToken("id", data)
		if err == nil && (tok.TokenID == "" || tok.Owner == "") {
			t.Fatalf("token without id or owner: %+v", tok)
		}
	})
}

// FuzzParseSmall covers the single znodes: cluster id, controller and its
// epoch, /migration, /feature, producer id block, legacy admin requests.
func FuzzParseSmall(f *testing.F) {
	for _, p := range []string{"/cluster/id", "/controller", "/migration", "/feature", "/latest_producer_id_block", "/admin/", "/isr_change"} {
		seedZnodes(f, p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseClusterID(data)
		_, _ = ParseController(data)
		_, _ = ParseControllerEpoch(data)
		_, _ = ParseMigration(data)
		_, _ = ParseFeatures(data)
		_, _ = ParseProducerIDBlock(data)
		_, _ = ParseReassignPartitions(data)
		_, _ = ParsePartitionList(data)
	})
}

// FuzzRead puts fuzzed data into znodes of every kind of the handmade tree
// and checks that the read completes.
func FuzzRead(f *testing.F) {
	seedZnodes(f, "/")
	f.Fuzz(func(t *testing.T, data []byte) {
		tree := handmadeTree(t)
		for i := range tree.Nodes {
			if len(tree.Nodes[i].Data) > 0 && i%3 == len(data)%3 {
				tree.Nodes[i].Data = data
			}
		}
		if _, err := Read(context.Background(), tree, Options{Full: true, Workers: 4}); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDesanitize(f *testing.F) {
	for _, s := range []string{"CN%3Dfoo%2COU%3Dbar", "User%20With%20Space", "%3Cdefault%3E", "<default>", "a+b", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Desanitize(Sanitize(s))
		if err != nil || d != s {
			t.Fatalf("Desanitize(Sanitize(%q)) = %q, %v", s, d, err)
		}
		_, _ = Desanitize(s)
	})
}

// agreesWithJSON fails when fast accepts data and encoding/json rejects it
// or decodes a different value.
func agreesWithJSON[T any](t *testing.T, data []byte, fast func([]byte) (T, bool)) {
	got, ok := fast(data)
	if !ok {
		return
	}
	var slow T
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("fast path accepted what encoding/json rejects (%v): %q", err, data)
	}
	if d := cmp.Diff(slow, got, cmp.AllowUnexported(flexInt{})); d != "" {
		t.Fatalf("fast and encoding/json differ on %q:\n%s", data, d)
	}
}

// FuzzTopicFastPath: whenever the fast topic decoder accepts an input,
// encoding/json accepts it too and decodes exactly the same value.
func FuzzTopicFastPath(f *testing.F) {
	seedZnodes(f, "/brokers/topics/")
	for _, s := range []string{`{"version":3,"partitions":{"0":[-0,2147483647,-2147483648]},"topic_id":"x"}`, `{"version":1,"partitions":{"0":[1],"0":[2]}}`,
		`{"version":1,"partitions":{"0":[]}} `, `{"version":01,"partitions":{}}`, "{\"version\":1,\"partitions\":{\"\xff\":[1]}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreesWithJSON(t, data, fastTopic) })
}

// FuzzConfigFastPath: whenever the fast config decoder accepts an input,
// encoding/json decodes exactly the same value.
func FuzzConfigFastPath(f *testing.F) {
	seedZnodes(f, "/config/")
	for _, s := range []string{`{"version":1,"config":{"a":"1","a":"2"}}`, `{"config":{},"version":1}`, `{"version":1,"config":{"k":"v\\u00e9"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreesWithJSON(t, data, fastConfig) })
}

// FuzzACLFastPath: whenever the fast ACL decoder accepts an input,
// encoding/json decodes exactly the same value.
func FuzzACLFastPath(f *testing.F) {
	seedZnodes(f, "/kafka-acl")
	for _, s := range []string{`{"version":1,"acls":[]}`, `{"acls":[{}],"version":1}`,
		`{"version":1,"acls":[{"principal":"User:a","principal":"User:b"}]}`,
		`{"version":1,"acls":[{"host":"*","operation":"Read","permissionType":"Allow","principal":"User:a"}]}`,
		`{"version":1,"acls":[{"Principal":"User:a"}]}`, `{"version":1,"acls":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreesWithJSON(t, data, fastACLs) })
}
