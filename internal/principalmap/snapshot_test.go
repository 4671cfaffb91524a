package principalmap

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func acl(principal, topic string) snapshot.ACL {
	return snapshot.ACL{ResourceType: "Topic", ResourceName: topic, PatternType: "LITERAL", Principal: principal, Host: "*", Operation: "Read", Permission: "Allow"}
}

func user(name string, mechs ...string) snapshot.ScramUser {
	u := snapshot.ScramUser{Name: name}
	for _, m := range mechs {
		u.Credentials = append(u.Credentials, snapshot.ScramCredential{Mechanism: m, Iterations: 4096})
	}
	return u
}

func quota(user, client string, v float64) snapshot.Quota {
	e := snapshot.QuotaEntity{{Type: snapshot.EntityUser, Name: user, Default: user == ""}}
	if client != "" {
		e = append(e, snapshot.EntityComponent{Type: snapshot.EntityClientID, Name: client})
	}
	return snapshot.Quota{Entity: e, Values: map[string]float64{"producer_byte_rate": v}}
}

// The example map over a source with every case: renamed ACL, quota and
// SCRAM principals, a merge, an unmapped DN and Kerberos name, a SCRAM
// collision, quota collisions with equal and different values, User
// resources, <default> entities and principals of no mapped kind.
func TestApplySnapshot(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "example.properties"))
	if err != nil {
		t.Fatal(err)
	}
	src := &snapshot.Snapshot{
		ACLs: []snapshot.ACL{
			acl("User:CN=jakub,OU=eng", "orders"),
			acl("User:jakub", "orders"), // merges with the line above
			acl("User:jakub", "payments"),
			acl("User:OU=x,CN=Bob.Smith,O=y", "orders"),
			acl("User:alice@OTHER.COM", "orders"), // no Kerberos rule applies
			acl("User:CN=x\n", "orders"),          // not evaluated
			acl("User:*", "public"),
			acl("Group:CN=jakub,OU=eng", "orders"),
			{ResourceType: "User", ResourceName: "User:CN=jakub,OU=eng", PatternType: "LITERAL", Principal: "User:admin", Host: "*", Operation: "CreateTokens", Permission: "Allow"},
		},
		Quotas: []snapshot.Quota{
			quota("CN=jakub,OU=eng", "", 100),
			quota("jakub", "", 100), // same values: one quota
			quota("CN=jakub,OU=eng", "app", 1),
			quota("jakub", "app", 2), // different values: a collision
			quota("", "", 5),
			quota("", "app", 6),
			quota("user@MYDOMAIN.COM", "", 7),
		},
		ScramUsers: []snapshot.ScramUser{
			user("user@MYDOMAIN.COM", "SCRAM-SHA-256"),
			user("kafka/broker1@EXAMPLE.COM", "SCRAM-SHA-512"),
			user("alice@EXAMPLE.COM", "SCRAM-SHA-256"),
			user("alice", "SCRAM-SHA-512"), // collides with the line above
			user("carol", "SCRAM-SHA-256"),
		},
		Findings: []snapshot.Finding{{ID: "znode-malformed", Severity: "error", Resource: "/x", Message: "kept"}},
	}
	src.Sort()
	before, _ := json.Marshal(src)
	out, res := m.ApplySnapshot(src)
	if after, _ := json.Marshal(src); !bytes.Equal(before, after) {
		t.Error("ApplySnapshot changed its input")
	}
	if err := out.Validate(); err != nil {
		t.Errorf("mapped snapshot: %v", err)
	}
	sorted := *out
	sorted.Sort()
	if !reflect.DeepEqual(&sorted, out) {
		t.Error("mapped snapshot is not sorted")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		ACLs       []snapshot.ACL
		Quotas     []snapshot.Quota
		ScramUsers []snapshot.ScramUser
		Findings   []snapshot.Finding
		Renames    []Rename
		Collisions []Collision
	}{out.ACLs, out.Quotas, out.ScramUsers, out.Findings, res.Renames, res.Collisions}); err != nil {
		t.Fatal(err)
	}
	golden(t, "snapshot.golden", b.String())
	if want := len(src.Findings) + len(res.Findings); len(res.Findings) != 4 || len(out.Findings) != want {
		t.Errorf("mapped snapshot has %d findings, want the source's and the result's %d", len(out.Findings), want)
	}
}

// TestTargetNamesAreApplySnapshots: TargetUser and TargetPrincipal (what
// sync's change rounds read the target by) give each name exactly what
// ApplySnapshot gives it: mapped by a rule, a pair or Kerberos, carried
// unchanged when no rule applies, the map fails or maps a user to a
// principal that is not a User.
func TestTargetNamesAreApplySnapshots(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "example.properties"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{
		"CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown",
		"CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown",
		"OU=x,CN=Bob.Smith,O=y", "O=nocn", "CN=jakub,OU=eng", `CN=a\,b,O=c`,
		"user@MYDOMAIN.COM", "kafka/broker1@EXAMPLE.COM", "alice@EXAMPLE.COM", "alice@OTHER.COM",
		"a@b@c", "bob@corp.example", "alice", "CN=x\n", "CN=😀",
	}
	changed := 0
	for _, n := range names {
		src := &snapshot.Snapshot{
			ACLs:       []snapshot.ACL{{ResourceType: "User", ResourceName: "User:" + n, PatternType: "LITERAL", Principal: "User:" + n, Host: "*", Operation: "CreateTokens", Permission: "Allow"}},
			Quotas:     []snapshot.Quota{quota(n, "", 1)},
			ScramUsers: []snapshot.ScramUser{user(n, "SCRAM-SHA-256")},
		}
		out, _ := m.ApplySnapshot(src)
		if got := m.TargetPrincipal("User:" + n); got != out.ACLs[0].Principal || got != out.ACLs[0].ResourceName {
			t.Errorf("TargetPrincipal(User:%q) = %q; ApplySnapshot made the principal %q and the resource %q", n, got, out.ACLs[0].Principal, out.ACLs[0].ResourceName)
		}
		got := m.TargetUser(n)
		if got != out.Quotas[0].Entity[0].Name || got != out.ScramUsers[0].Name {
			t.Errorf("TargetUser(%q) = %q; ApplySnapshot made the quota user %q and the SCRAM user %q", n, got, out.Quotas[0].Entity[0].Name, out.ScramUsers[0].Name)
		}
		if got != n {
			changed++
		}
	}
	if changed < 5 {
		t.Errorf("only %d of %d names were renamed: the case proves little", changed, len(names))
	}
	// A pair that maps a user to a Group: a user stays itself, as a
	// principal it is mapped.
	f := filepath.Join(t.TempDir(), "map.properties")
	if err := os.WriteFile(f, []byte("zkmigrate.map=User:ops -> Group:ops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if u, p := g.TargetUser("ops"), g.TargetPrincipal("User:ops"); u != "ops" || p != "Group:ops" {
		t.Errorf("User:ops -> Group:ops: TargetUser %q, TargetPrincipal %q; want ops and Group:ops", u, p)
	}
}
