package access

import (
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func parseProps(t *testing.T, name, body string) *props.File {
	t.Helper()
	f, err := props.Parse(name, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A node's settings come with where they are set; what a live node hides
// is not known until a file gives it, and a file that disagrees with the
// node is a finding while the node's own value is kept.
func TestNodeSources(t *testing.T) {
	f := parseProps(t, "controller.properties", "process.roles=controller\nnode.id=3\n\nsuper.users=User:admin;User:CN=ctl,O=corp\n")
	n := NodeFromFile(f)
	if n.ID != "3" || !slices.Equal(n.Roles, []string{RoleController}) || n.SuperUsers.Where != "controller.properties:4" || n.SuperUsers.Value != "User:admin;User:CN=ctl,O=corp" {
		t.Errorf("from the file: %+v", n)
	}
	if n.Class.Set || !n.Class.Known || n.Kind() != KindNone {
		t.Errorf("unset authorizer.class.name is no authorizer: %+v", n.Class)
	}
	if zk := NodeFromFile(parseProps(t, "server.properties", "broker.id=1\n")); !slices.Equal(zk.Roles, []string{RoleBroker}) || zk.ID != "1" {
		t.Errorf("a file without process.roles is a ZooKeeper broker's: %+v", zk)
	}

	str := func(s string) *string { return &s }
	live := NodeFromLive(1, map[string]LiveEntry{
		KeyClass:         {Value: str(ClassStandardAuthorizer), Source: "STATIC_BROKER_CONFIG"},
		KeySuperUsers:    {Source: "STATIC_BROKER_CONFIG"}, // hidden
		KeyAllowEveryone: {Value: str("false"), Source: "DEFAULT_CONFIG"},
		KeyRoles:         {Value: str("broker,controller"), Source: "STATIC_BROKER_CONFIG"},
	})
	if live.Known() || live.SuperUsers.Known || !live.SuperUsers.Set || live.AllowEveryone.Set || live.Kind() != KindKRaft {
		t.Errorf("live: %+v", live)
	}
	file := NodeFromFile(parseProps(t, "node1.properties", "node.id=1\nprocess.roles=broker,controller\nauthorizer.class.name="+ClassStandardAuthorizer+
		"\nsuper.users=User:admin\nallow.everyone.if.no.acl.found=true\n"))
	m, fs := Merge(live, file)
	if !m.SuperUsers.Known || m.SuperUsers.Value != "User:admin" || !strings.HasPrefix(m.SuperUsers.Where, "node1.properties:4") {
		t.Errorf("the file gives the hidden super.users: %+v", m.SuperUsers)
	}
	if m.AllowEveryone.Set || len(fs) != 1 || fs[0].ID != "ACCESS-CONFIG-MISMATCH" || !strings.Contains(fs[0].Message, "allow.everyone.if.no.acl.found") {
		t.Errorf("the node runs the default while the file sets true: %+v %+v", m.AllowEveryone, fs)
	}

	static := NodeFromStatic(snapshot.StaticConfig{File: "server.properties", BrokerID: "2", Configs: []snapshot.Config{
		{Key: KeyClass, Value: ClassAclAuthorizer}, {Key: KeySuperUsers, Value: "User:admin"}}})
	if static.ID != "2" || static.SuperUsers.Value != "User:admin" || static.Kind() != KindZK || !static.AllowEveryone.Known || static.AllowEveryone.Set {
		t.Errorf("from a snapshot: %+v", static)
	}
	if u := UnknownNode("controller 3", "3", RoleController); u.Known() || u.Kind() != KindCustom {
		t.Errorf("unknown: %+v", u)
	}
	for in, want := range map[string][]string{"1@h:9093,2@h:9093,1@x:1": {"1", "2"}, "": nil, "h:9093": nil, "a@h:1": nil} {
		if got := Voters(in); !slices.Equal(got, want) {
			t.Errorf("Voters(%q) = %v, want %v", in, got, want)
		}
	}
}
