package authz

import (
	"strings"
	"testing"
)

// parseACL reads "ALLOW User:alice Read Topic:orders LITERAL *" (permission,
// principal, operation, type:name, pattern, host); for tests.
func parseACL(t testing.TB, s string) ACL {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 6 {
		t.Fatalf("acl %q: want 6 fields", s)
	}
	perm, err := ParsePermission(f[0])
	if err != nil {
		t.Fatal(err)
	}
	op, err := ParseOperation(f[2])
	if err != nil {
		t.Fatal(err)
	}
	typ, name, _ := strings.Cut(f[3], ":")
	rt, err := ParseResourceType(typ)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := ParsePatternType(f[4])
	if err != nil {
		t.Fatal(err)
	}
	return ACL{Type: rt, Name: name, Pattern: pat, Principal: f[1], Host: f[5], Operation: op, Permission: perm}
}

func parseACLs(t testing.TB, ss ...string) []ACL {
	t.Helper()
	var out []ACL
	for _, s := range ss {
		out = append(out, parseACL(t, s))
	}
	return out
}

// parseRequest reads "User:alice Read Topic:orders 1.2.3.4".
func parseRequest(t testing.TB, s string) Request {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 4 {
		t.Fatalf("request %q: want 4 fields", s)
	}
	op, err := ParseOperation(f[1])
	if err != nil {
		t.Fatal(err)
	}
	typ, name, _ := strings.Cut(f[2], ":")
	rt, err := ParseResourceType(typ)
	if err != nil {
		t.Fatal(err)
	}
	return Request{Principal: f[0], Operation: op, Type: rt, Name: name, Host: f[3]}
}

// want is an expected decision: "ALLOWED AllowACL", "DENIED NoACLDeny",
// "THROWS IllegalStateException Broken", "HANGS Hang".
func decisionText(d Decision) string { return d.Outcome() + " " + d.Reason.String() }

type authCase struct {
	name        string
	acls        []string
	cfg         Config
	req         string
	zk, kraft   string // decisionText
	zkACL, kACL string // the deciding ACL, when one is expected
}

func TestAuthorize(t *testing.T) {
	const ip = "1.2.3.4"
	everyone := Config{AllowEveryoneIfNoACLFound: true}
	cases := []authCase{
		{name: "no ACL, default deny", req: "User:alice Read Topic:orders " + ip,
			zk: "DENIED NoACLDeny", kraft: "DENIED NoACLDeny"},
		{name: "no ACL, allow everyone", cfg: everyone, req: "User:alice Read Topic:orders " + ip,
			zk: "ALLOWED NoACLAllowEveryone", kraft: "ALLOWED NoACLAllowEveryone"},
		{name: "super user before a deny", cfg: Config{SuperUsers: []string{"User:admin"}},
			acls: []string{"DENY User:admin All Topic:orders LITERAL *"}, req: "User:admin Write Topic:orders " + ip,
			zk: "ALLOWED SuperUser", kraft: "ALLOWED SuperUser"},
		{name: "super user is exact", cfg: Config{SuperUsers: []string{"User:admin"}}, req: "user:admin Write Topic:orders " + ip,
			zk: "DENIED NoACLDeny", kraft: "DENIED NoACLDeny"},
		{name: "literal allow", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL *"}, req: "User:alice Read Topic:orders " + ip,
			zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL", zkACL: "ALLOW User:alice Read Topic:orders (LITERAL) from *"},
		{name: "literal is not a prefix", acls: []string{"ALLOW User:alice Read Topic:order LITERAL *"}, req: "User:alice Read Topic:orders " + ip,
			zk: "DENIED NoACLDeny", kraft: "DENIED NoACLDeny"},
		{name: "deny wins", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL *", "DENY User:* Read Topic:ord PREFIXED *"},
			req: "User:alice Read Topic:orders " + ip, zk: "DENIED DenyACL", kraft: "DENIED DenyACL",
			zkACL: "DENY User:* Read Topic:ord (PREFIXED) from *", kACL: "DENY User:* Read Topic:ord (PREFIXED) from *"},
		{name: "other principal's ACL takes allow.everyone away", cfg: everyone, acls: []string{"ALLOW User:bob Write Topic:* LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "DENY Read does not deny Describe", acls: []string{"DENY User:alice Read Topic:orders LITERAL *", "ALLOW User:alice Describe Topic:orders LITERAL *"},
			req: "User:alice Describe Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "ALLOW Write implies Describe", acls: []string{"ALLOW User:alice Write Topic:orders LITERAL *"},
			req: "User:alice Describe Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "ALLOW Delete implies Describe", acls: []string{"ALLOW User:alice Delete Topic:orders LITERAL *"},
			req: "User:alice Describe Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "ALLOW Create does not imply Describe", acls: []string{"ALLOW User:alice Create Topic:orders LITERAL *"},
			req: "User:alice Describe Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "ALLOW Describe does not imply Read", acls: []string{"ALLOW User:alice Describe Topic:orders LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "ALLOW AlterConfigs implies DescribeConfigs", acls: []string{"ALLOW User:alice AlterConfigs Topic:orders LITERAL *"},
			req: "User:alice DescribeConfigs Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "ALLOW Alter does not imply DescribeConfigs", acls: []string{"ALLOW User:alice Alter Topic:orders LITERAL *"},
			req: "User:alice DescribeConfigs Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "DENY All denies Write", acls: []string{"DENY User:alice All Topic:orders LITERAL *", "ALLOW User:alice Write Topic:orders LITERAL *"},
			req: "User:alice Write Topic:orders " + ip, zk: "DENIED DenyACL", kraft: "DENIED DenyACL"},
		{name: "ALLOW All allows ClusterAction", acls: []string{"ALLOW User:alice All Cluster:kafka-cluster LITERAL *"},
			req: "User:alice ClusterAction Cluster:kafka-cluster " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "an All request needs an All ACL", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL *"},
			req: "User:alice All Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "User:* is the wildcard principal", acls: []string{"ALLOW User:* Read Topic:orders LITERAL *"},
			req: "Group:x Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "Group:* is no wildcard", acls: []string{"ALLOW Group:* Read Topic:orders LITERAL *"},
			req: "Group:x Read Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "principal type is case-sensitive", acls: []string{"ALLOW user:alice Read Topic:orders LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "host matches as text", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL 1.2.3.4"},
			req: "User:alice Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "IPv6 ::1 never matches", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL ::1"},
			req: "User:alice Read Topic:orders 0:0:0:0:0:0:0:1", zk: "DENIED NoMatchingAllow", kraft: "DENIED NoMatchingAllow"},
		{name: "IPv6 in Java's form matches", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL 0:0:0:0:0:0:0:1"},
			req: "User:alice Read Topic:orders 0:0:0:0:0:0:0:1", zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "prefixed", acls: []string{"ALLOW User:alice Read Topic:ord PREFIXED *"},
			req: "User:alice Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "prefixed equal to the name", acls: []string{"ALLOW User:alice Read Topic:orders PREFIXED *"},
			req: "User:alice Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "prefixed past a non-matching sibling (KAFKA-14265)",
			acls: []string{"ALLOW User:alice Read Topic:o PREFIXED *", "ALLOW User:bob Read Topic:ordea LITERAL *", "ALLOW User:bob Read Topic:oa PREFIXED *"},
			req:  "User:alice Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "prefixed * is no wildcard", acls: []string{"ALLOW User:alice Read Group:* PREFIXED *"},
			req: "User:alice Read Group:g1 " + ip, zk: "DENIED NoACLDeny", kraft: "DENIED NoACLDeny"},
		{name: "literal * covers g1", acls: []string{"ALLOW User:alice Read Group:* LITERAL *"},
			req: "User:alice Read Group:g1 " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "literal * covers *", acls: []string{"ALLOW User:alice Read Group:* LITERAL *"},
			req: "User:alice Read Group:* " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "literal * skipped for *g1 on KRaft", acls: []string{"ALLOW User:alice Read Group:* LITERAL *"},
			req: "User:alice Read Group:*g1 " + ip, zk: "ALLOWED AllowACL", kraft: "DENIED NoACLDeny"},
		{name: "literal * skipped for *g1 on KRaft, allow.everyone", cfg: everyone, acls: []string{"DENY User:alice Read Group:* LITERAL *"},
			req: "User:alice Read Group:*g1 " + ip, zk: "DENIED DenyACL", kraft: "ALLOWED NoACLAllowEveryone"},
		{name: "KRaft loops for ever on !b", acls: []string{"ALLOW User:bob Read Group:!a PREFIXED *"},
			req: "User:alice Read Group:!b " + ip, zk: "DENIED NoACLDeny", kraft: "HANGS Hang", kACL: "ALLOW User:bob Read Group:!a (PREFIXED) from *"},
		{name: "KRaft loops for ever past a * allow", acls: []string{"ALLOW User:alice Read Group:* LITERAL *", "ALLOW User:bob Read Group:!a LITERAL *"},
			req: "User:alice Read Group:!b " + ip, zk: "ALLOWED AllowACL", kraft: "HANGS Hang"},
		{name: "KRaft denies before looping", acls: []string{"DENY User:alice Read Group:* LITERAL *", "ALLOW User:bob Read Group:!a PREFIXED *"},
			req: "User:alice Read Group:!b " + ip, zk: "DENIED DenyACL", kraft: "DENIED DenyACL"},
		{name: "KRaft throws on !ab", acls: []string{"ALLOW User:bob Read Group:!ax PREFIXED *"},
			req: "User:alice Read Group:!ab " + ip, zk: "DENIED NoACLDeny", kraft: "THROWS StringIndexOutOfBoundsException Broken"},
		{name: "below * but a prefix: no trouble", acls: []string{"ALLOW User:alice Read Group:!a PREFIXED *"},
			req: "User:alice Read Group:!a1 " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
		{name: "below * with no common prefix: no trouble", acls: []string{"ALLOW User:bob Read Group:!a PREFIXED *"},
			req: "User:alice Read Group:#a " + ip, zk: "DENIED NoACLDeny", kraft: "DENIED NoACLDeny"},
		{name: "principal without colon", acls: []string{"ALLOW alice Read Topic:orders LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "THROWS IllegalStateException Broken"},
		{name: "principal without colon, other name", acls: []string{"ALLOW alice Read Topic:orders LITERAL *"},
			req: "User:alice Read Topic:other " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "DENIED NoACLDeny"},
		{name: "principal without colon after a deny", acls: []string{"ALLOW alice Read Topic:orders LITERAL *", "DENY User:alice Read Topic:orders LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "DENIED DenyACL"},
		{name: "principal without colon before an allow", acls: []string{"ALLOW alice Read Topic:orders LITERAL *", "ALLOW User:alice Read Topic:orders LITERAL *"},
			req: "User:alice Read Topic:orders " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "THROWS IllegalStateException Broken"},
		{name: "DN principal", acls: []string{"ALLOW User:CN=alice,O=eng Read Topic:orders LITERAL *"},
			req: "User:CN=alice,O=eng Read Topic:orders " + ip, zk: "ALLOWED AllowACL", kraft: "ALLOWED AllowACL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acls := parseACLs(t, c.acls...)
			r := parseRequest(t, c.req)
			for _, side := range []struct {
				a       Authorizer
				want, w string
			}{{NewZK(acls, c.cfg), c.zk, c.zkACL}, {NewKRaft(acls, c.cfg), c.kraft, c.kACL}} {
				d := side.a.Authorize(r)
				if got := decisionText(d); got != side.want {
					t.Errorf("%s: %s: got %s (%s), want %s", side.a.Kind(), r, got, d, side.want)
				}
				if side.w != "" && (d.ACL == nil || d.ACL.String() != side.w) {
					t.Errorf("%s: decided by %v, want %s", side.a.Kind(), d.ACL, side.w)
				}
			}
		})
	}
}

func TestAuthorizeByResourceType(t *testing.T) {
	const ip = "1.2.3.4"
	everyone := Config{AllowEveryoneIfNoACLFound: true}
	type byCase struct {
		name      string
		acls      []string
		cfg       Config
		req       string // principal op type host ("User:alice Write Topic 1.2.3.4")
		zk, kraft string
		probe     bool // KRaft decided by its probe
	}
	cases := []byCase{
		{name: "nothing", req: "User:alice Write Topic " + ip, zk: "DENIED ByTypeNoAllow", kraft: "DENIED ByTypeNoAllow"},
		{name: "super user", cfg: Config{SuperUsers: []string{"User:alice"}}, acls: []string{"DENY User:alice Write Topic:* LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED SuperUser", kraft: "ALLOWED SuperUser", probe: true},
		{name: "allow.everyone, no ACL", cfg: everyone, req: "User:alice Write Topic " + ip,
			zk: "ALLOWED ByTypeAllowEveryone", kraft: "ALLOWED NoACLAllowEveryone", probe: true},
		{name: "allow.everyone and bob's Write Topic:*", cfg: everyone, acls: []string{"ALLOW User:bob Write Topic:* LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowEveryone", kraft: "DENIED ByTypeNoAllow"},
		{name: "allow.everyone and DENY prefixed h hits hardcode", cfg: everyone, acls: []string{"DENY User:alice Write Topic:h PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowEveryone", kraft: "DENIED ByTypeNoAllow"},
		{name: "allow.everyone and DENY prefixed x", cfg: everyone, acls: []string{"DENY User:alice Write Topic:x PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowEveryone", kraft: "ALLOWED NoACLAllowEveryone", probe: true},
		{name: "Describe implied on KRaft only", acls: []string{"ALLOW User:* Write Group:* LITERAL *"},
			req: "User:alice Describe Group " + ip, zk: "DENIED ByTypeNoAllow", kraft: "ALLOWED AllowACL", probe: true},
		{name: "the walk applies no implication", acls: []string{"ALLOW User:alice AlterConfigs Topic:t1 PREFIXED *"},
			req: "User:alice DescribeConfigs Topic " + ip, zk: "DENIED ByTypeNoAllow", kraft: "DENIED ByTypeNoAllow"},
		{name: "wildcard deny", acls: []string{"DENY User:* All Topic:* LITERAL *", "ALLOW User:alice Write Topic:orders LITERAL *"},
			cfg: everyone, req: "User:alice Write Topic " + ip, zk: "DENIED ByTypeDenyWildcard", kraft: "DENIED ByTypeDenyWildcard"},
		{name: "wildcard deny, other host", acls: []string{"DENY User:* All Topic:* LITERAL 9.9.9.9", "ALLOW User:alice Write Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowACL", kraft: "ALLOWED ByTypeAllowACL"},
		{name: "literal allow", acls: []string{"ALLOW User:alice Write Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowACL", kraft: "ALLOWED ByTypeAllowACL"},
		{name: "literal allow denied literally", acls: []string{"ALLOW User:alice Write Topic:orders LITERAL *", "DENY User:alice Write Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "DENIED ByTypeNoAllow", kraft: "DENIED ByTypeNoAllow"},
		{name: "literal allow under a denied prefix", acls: []string{"ALLOW User:alice Write Topic:orders LITERAL *", "DENY User:* All Topic:ord PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "DENIED ByTypeNoAllow", kraft: "DENIED ByTypeNoAllow"},
		{name: "prefix allow under a longer denied prefix", acls: []string{"ALLOW User:alice Write Topic:ord PREFIXED *", "DENY User:alice Write Topic:orders PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowACL", kraft: "ALLOWED ByTypeAllowACL"},
		{name: "allow with another deny", acls: []string{"ALLOW User:alice Write Topic:orders LITERAL *", "DENY User:alice Write Topic:other LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowACL", kraft: "ALLOWED ByTypeAllowACL"},
		{name: "no implication: Read does not give Write", acls: []string{"ALLOW User:alice Read Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "DENIED ByTypeNoAllow", kraft: "DENIED ByTypeNoAllow"},
		{name: "All counts", acls: []string{"ALLOW User:alice All Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowACL", kraft: "ALLOWED ByTypeAllowACL"},
		{name: "wildcard allow", acls: []string{"ALLOW User:alice Write Topic:* LITERAL *", "DENY User:alice Write Topic:a PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowWildcard", kraft: "ALLOWED AllowACL", probe: true},
		{name: "wildcard allow and DENY h", acls: []string{"ALLOW User:alice Write Topic:* LITERAL *", "DENY User:alice Write Topic:h PREFIXED *"},
			req: "User:alice Write Topic " + ip, zk: "ALLOWED ByTypeAllowWildcard", kraft: "ALLOWED ByTypeAllowWildcard"},
		{name: "Any operation throws", req: "User:alice Any Topic " + ip,
			zk: "THROWS IllegalArgumentException Broken", kraft: "THROWS IllegalArgumentException Broken"},
		{name: "colonless principal on the host", acls: []string{"ALLOW alice Write Topic:orders LITERAL *"},
			req: "User:alice Write Topic " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "THROWS IllegalArgumentException Broken"},
		{name: "colonless principal on another host", acls: []string{"ALLOW alice Write Topic:orders LITERAL 9.9.9.9"},
			req: "User:alice Write Topic " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "DENIED ByTypeNoAllow"},
		{name: "colonless principal sorted after a wildcard deny", acls: []string{"ALLOW alice Write Topic:!x LITERAL *", "DENY User:alice Write Topic:* LITERAL 1.2.3.4"},
			req: "User:alice Write Topic " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "DENIED ByTypeDenyWildcard"},
		{name: "colonless principal sorted before a wildcard deny", acls: []string{"ALLOW alice Write Topic:b LITERAL *", "DENY User:alice Write Topic:* LITERAL 1.2.3.4"},
			req: "User:alice Write Topic " + ip, zk: "THROWS IllegalArgumentException Broken", kraft: "THROWS IllegalArgumentException Broken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acls := parseACLs(t, c.acls...)
			f := strings.Fields(c.req)
			op, err := ParseOperation(f[1])
			if err != nil {
				t.Fatal(err)
			}
			rt, err := ParseResourceType(f[2])
			if err != nil {
				t.Fatal(err)
			}
			zd := NewZK(acls, c.cfg).AuthorizeByResourceType(f[0], f[3], op, rt)
			if got := decisionText(zd); got != c.zk {
				t.Errorf("AclAuthorizer: got %s (%s), want %s", got, zd, c.zk)
			}
			kd := NewKRaft(acls, c.cfg).AuthorizeByResourceType(f[0], f[3], op, rt)
			if got := decisionText(kd); got != c.kraft || kd.Probe != c.probe {
				t.Errorf("StandardAuthorizer: got %s probe=%v (%s), want %s probe=%v", got, kd.Probe, kd, c.kraft, c.probe)
			}
		})
	}
}

func TestNewZKLegacy(t *testing.T) {
	acls := parseACLs(t, "ALLOW User:alice Read Topic:ord PREFIXED *", "ALLOW User:alice Write Topic:orders LITERAL *")
	read := Request{Principal: "User:alice", Host: "1.2.3.4", Operation: OpRead, Type: ResourceTopic, Name: "orders"}
	cases := []struct {
		v          Version
		kind, want string
	}{
		{Version{1, 1}, "SimpleAclAuthorizer", "DENIED NoMatchingAllow"}, // no PREFIXED before 2.0: only the literal ACL is in scope
		{Version{2, 0}, "SimpleAclAuthorizer", "ALLOWED AllowACL"},
		{Version{2, 3}, "SimpleAclAuthorizer", "ALLOWED AllowACL"},
		{Version{2, 4}, "AclAuthorizer", "ALLOWED AllowACL"},
		{Kafka39, "AclAuthorizer", "ALLOWED AllowACL"},
	}
	for _, c := range cases {
		a := NewZKLegacy(acls, Config{}, c.v)
		if got := decisionText(a.Authorize(read)); a.Kind() != c.kind || got != c.want {
			t.Errorf("%s: %s decides %s, want %s %s", c.v, a.Kind(), got, c.kind, c.want)
		}
	}
}
