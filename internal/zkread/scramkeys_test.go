package zkread

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zkmigrate/zkmigrate/internal/zktree"
)

// TestReadScramKeysKafka39 reads the keys Kafka 3.9 wrote: one entry per
// user and mechanism of the capture (carol, whose password nobody has,
// included), with the znode's salt and keys, and nothing else.
func TestReadScramKeysKafka39(t *testing.T) {
	tree, _, creds := loadKafka39(t)
	got, findings, err := ReadScramKeys(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 0 {
		t.Errorf("findings on Kafka's own tree: %v", findings)
	}
	var names []string
	for _, u := range got {
		names = append(names, u.User+" "+u.Mechanism)
	}
	want := []string{"CN=foo,OU=bar SCRAM-SHA-256", "User With Space SCRAM-SHA-512", "admin SCRAM-SHA-256",
		"alice SCRAM-SHA-256", "alice SCRAM-SHA-512", "bob SCRAM-SHA-256", "carol SCRAM-SHA-256"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("users (-want +got):\n%s", d)
	}
	for _, c := range creds {
		i := slices.IndexFunc(got, func(u UserScram) bool { return u.User == c.User && u.Mechanism == c.Mechanism })
		if i < 0 {
			continue
		}
		u := got[i]
		data, _, _ := tree.Get(u.Path)
		m, _ := ParseEntityConfig(data)
		direct, err := ParseScramCredential(m[c.Mechanism])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(direct.Salt, u.Credential.Salt) || !bytes.Equal(direct.StoredKey, u.Credential.StoredKey) ||
			!bytes.Equal(direct.ServerKey, u.Credential.ServerKey) || u.Credential.Iterations != c.Iterations {
			t.Errorf("%s: not the znode's credential", u)
		}
	}
}

// TestReadScramKeysFindings: a bad credential or name is a finding naming
// the znode, never quoting the value; other users are still read; quota
// keys and <default> are ignored.
func TestReadScramKeysFindings(t *testing.T) {
	good := "salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"
	tree := &zktree.Tree{Nodes: []zktree.Node{
		{Path: "/config/users"},
		{Path: "/config/users/<default>", Data: []byte(`{"version":1,"config":{"producer_byte_rate":"1"}}`)},
		{Path: "/config/users/svc%7Edeploy", Data: []byte(`{"version":1,"config":{"SCRAM-SHA-512":"` + good + `","producer_byte_rate":"1"}}`)},
		{Path: "/config/users/dave", Data: []byte(`{"version":1,"config":{"SCRAM-SHA-256":"salt=###,stored_key=SECRETVALUE,server_key=b,iterations=4096"}}`)},
		{Path: "/config/users/bad%zz", Data: []byte(`{"version":1,"config":{}}`)},
		{Path: "/config/users/quota-only", Data: []byte(`{"version":1,"config":{"consumer_byte_rate":"1"}}`)},
	}}
	tree.Sort()
	got, findings, err := ReadScramKeys(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].User != "svc~deploy" || got[0].Mechanism != "SCRAM-SHA-512" || string(got[0].Credential.Salt) != "salt" {
		t.Errorf("got %v", got)
	}
	var fs []string
	for _, f := range findings {
		fs = append(fs, f.ID+" "+f.Resource)
		if strings.Contains(f.Message, "SECRETVALUE") || strings.Contains(f.Message, "###") {
			t.Errorf("finding quotes the value: %s", f.Message)
		}
	}
	if d := cmp.Diff([]string{"znode-malformed /config/users/bad%zz", "scram-malformed /config/users/dave"}, fs); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if s := fmt.Sprintf("%v %+v %#v", got[0], got, got[0]); strings.Contains(s, "salt") || strings.Contains(s, "stored") {
		t.Errorf("fmt shows keys: %s", s)
	}
	if none, _, err := ReadScramKeys(&zktree.Tree{}); err != nil || none != nil {
		t.Errorf("no /config/users: %v %v", none, err)
	}
}
