package authz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func TestParseConfig(t *testing.T) {
	type want struct {
		supers string // joined with "|", or "error"
		allow  string // "true", "false" or "error"
	}
	cases := []struct {
		superUsers, allowEveryone string
		zk, kraft                 want
	}{
		{"", "", want{"", "false"}, want{"", "false"}},
		{"User:admin", "true", want{"User:admin", "true"}, want{"User:admin", "true"}},
		{"User:CN=x,O=y;User:b", "TRUE", want{"User:CN=x,O=y|User:b", "true"}, want{"User:CN=x,O=y|User:b", "true"}},
		{" User:a ; User:b ", " false ", want{"User:a|User:b", "false"}, want{"User:a|User:b", "false"}},
		{"User:a;;User:b", "false", want{"error", ""}, want{"User:a|User:b", "false"}},
		{";User:a", "false", want{"error", ""}, want{"User:a", "false"}},
		{"User:a;", "false", want{"User:a", "false"}, want{"User:a", "false"}},
		{"User:a;;", "false", want{"User:a", "false"}, want{"User:a", "false"}},
		{";", "false", want{"", "false"}, want{"", "false"}},
		{" ", "false", want{"error", ""}, want{"", "false"}},
		{"User:a; ;User:b", "false", want{"error", ""}, want{"User:a|User:b", "false"}},
		{"admin", "false", want{"error", ""}, want{"error", ""}},
		{"User: a", "false", want{"User: a", "false"}, want{"User: a", "false"}},
		{"User:a:b", "false", want{"User:a:b", "false"}, want{"User:a:b", "false"}},
		{"", "yes", want{"", "error"}, want{"", "false"}},
		{"", "1", want{"", "error"}, want{"", "false"}},
		{"", "True", want{"", "true"}, want{"", "true"}},
		{"", "falſe", want{"", "false"}, want{"", "false"}},      // equalsIgnoreCase: ſ upper-cases to S
		{"", "\ttrue\x01", want{"", "true"}, want{"", "true"}},   // trim removes control characters
		{"", "\u00a0true", want{"", "error"}, want{"", "false"}}, // but not NO-BREAK SPACE
	}
	show := func(c Config, err error) want {
		if err != nil {
			if !strings.Contains(err.Error(), "super.users") && !strings.Contains(err.Error(), "allow.everyone") {
				t.Errorf("error %q names neither property", err)
			}
			if strings.Contains(err.Error(), "super.users") {
				return want{"error", ""}
			}
			return want{strings.Join(c.SuperUsers, "|"), "error"}
		}
		return want{strings.Join(c.SuperUsers, "|"), fmt.Sprint(c.AllowEveryoneIfNoACLFound)}
	}
	for _, c := range cases {
		zc, zerr := ParseZKConfig(c.superUsers, c.allowEveryone)
		if got := show(zc, zerr); got != c.zk {
			t.Errorf("ParseZKConfig(%q, %q) = %+v (%v), want %+v", c.superUsers, c.allowEveryone, got, zerr, c.zk)
		}
		kc, kerr := ParseKRaftConfig(c.superUsers, c.allowEveryone)
		if got := show(kc, kerr); got != c.kraft {
			t.Errorf("ParseKRaftConfig(%q, %q) = %+v (%v), want %+v", c.superUsers, c.allowEveryone, got, kerr, c.kraft)
		}
	}
}

func TestParseEnums(t *testing.T) {
	ops := []struct {
		in   string
		want Operation // OpUnknown with err for no match
		ok   bool
	}{
		{"DescribeConfigs", OpDescribeConfigs, true},
		{"DESCRIBECONFIGS", OpDescribeConfigs, true},
		{"describeconfigs", OpDescribeConfigs, true},
		{"DESCRIBE_CONFIGS", OpDescribeConfigs, true},
		{"describe_Configs", OpDescribeConfigs, true},
		{"Read", OpRead, true},
		{"READ", OpRead, true},
		{"rEaD", OpRead, true},
		{"All", OpAll, true},
		{"Any", OpAny, true},
		{"Unknown", OpUnknown, true},
		{"TwoPhaseCommit", OpTwoPhaseCommit, true},
		{"IdempotentWrite", OpIdempotentWrite, true},
		{"Describe Configs", 0, false},
		{"", 0, false},
		{"Reads", 0, false},
		{"deſcribe", OpDescribe, true}, // Java upper-cases ſ to S
	}
	for _, c := range ops {
		got, err := ParseOperation(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseOperation(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	if _, err := ParseOperation("Reads"); err == nil || !strings.Contains(err.Error(), `"Reads"`) {
		t.Errorf("error %v does not name the input", err)
	}
	types := map[string]ResourceType{"Topic": ResourceTopic, "TRANSACTIONAL_ID": ResourceTransactionalID, "TransactionalId": ResourceTransactionalID,
		"TRANSACTIONALID": ResourceTransactionalID, "DelegationToken": ResourceDelegationToken, "user": ResourceUser, "CLUﬆER": ResourceCluster}
	for in, want := range types {
		if got, err := ParseResourceType(in); err != nil || got != want {
			t.Errorf("ParseResourceType(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	pats := map[string]PatternType{"LITERAL": PatternLiteral, "Prefixed": PatternPrefixed, "prefixed": PatternPrefixed}
	for in, want := range pats {
		if got, err := ParsePatternType(in); err != nil || got != want {
			t.Errorf("ParsePatternType(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	perms := map[string]Permission{"Allow": Allow, "DENY": Deny, "deny": Deny}
	for in, want := range perms {
		if got, err := ParsePermission(in); err != nil || got != want {
			t.Errorf("ParsePermission(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// Every name round-trips through String and Enum.
	for op := OpUnknown; op <= OpTwoPhaseCommit; op++ {
		for _, s := range []string{op.String(), op.Enum()} {
			if got, err := ParseOperation(s); err != nil || got != op {
				t.Errorf("ParseOperation(%q) = %v, %v; want %v", s, got, err, op)
			}
		}
	}
	for _, rt := range ResourceTypes {
		if got, err := ParseResourceType(rt.String()); err != nil || got != rt {
			t.Errorf("ParseResourceType(%q) = %v, %v", rt.String(), got, err)
		}
	}
	if OpDescribeConfigs.String() != "DescribeConfigs" || ResourceTransactionalID.String() != "TransactionalId" || PatternPrefixed.String() != "PREFIXED" ||
		Allow.String() != "Allow" || Operation(40).String() != "Operation(40)" {
		t.Errorf("names: %s %s %s %s %s", OpDescribeConfigs, ResourceTransactionalID, PatternPrefixed, Allow, Operation(40))
	}
}

func TestHostAddress(t *testing.T) {
	cases := map[string]string{
		"1.2.3.4":           "1.2.3.4",
		"::1":               "0:0:0:0:0:0:0:1",
		"::":                "0:0:0:0:0:0:0:0",
		"FE80::0db8:1":      "fe80:0:0:0:0:0:db8:1",
		"2001:db8::ff00:42": "2001:db8:0:0:0:0:ff00:42",
		"::ffff:1.2.3.4":    "1.2.3.4",
		"::1.2.3.4":         "0:0:0:0:0:0:102:304",
		"host.example":      "error",
		"fe80::1%eth0":      "error",
		"":                  "error",
	}
	for in, want := range cases {
		got, err := HostAddress(in)
		if err != nil {
			got = "error"
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
				t.Errorf("HostAddress(%q): error %q does not name the host", in, err)
			}
		}
		if got != want {
			t.Errorf("HostAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOperations(t *testing.T) {
	cases := []struct {
		t    ResourceType
		v    Version
		want string
	}{
		{ResourceTopic, Kafka39, "Read Write Create Delete Alter Describe DescribeConfigs AlterConfigs"},
		{ResourceGroup, Kafka39, "Read Delete Describe"},
		{ResourceGroup, Version{4, 0}, "Read Delete Describe DescribeConfigs AlterConfigs"},
		{ResourceGroup, Kafka41, "Read Delete Describe DescribeConfigs AlterConfigs"},
		{ResourceCluster, Kafka41, "Create Alter Describe ClusterAction DescribeConfigs AlterConfigs IdempotentWrite"},
		{ResourceTransactionalID, Kafka39, "Write Describe"},
		{ResourceTransactionalID, Version{4, 0}, "Write Describe"},
		{ResourceTransactionalID, Kafka41, "Write Describe TwoPhaseCommit"},
		{ResourceDelegationToken, Kafka39, "Describe"},
		{ResourceUser, Kafka41, "CreateTokens DescribeTokens"},
		{ResourceAny, Kafka41, ""},
	}
	for _, c := range cases {
		var names []string
		for _, op := range Operations(c.t, c.v) {
			names = append(names, op.String())
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("Operations(%s, %s) = %s, want %s", c.t, c.v, got, c.want)
		}
	}
	if !Supports(ResourceGroup, OpAll, Kafka39) || Supports(ResourceGroup, OpWrite, Kafka41) || Supports(ResourceGroup, OpDescribeConfigs, Kafka39) ||
		!Supports(ResourceGroup, OpDescribeConfigs, Kafka41) || Supports(ResourceAny, OpAll, Kafka41) {
		t.Error("Supports disagrees with Operations")
	}
	for in, want := range map[string]Version{"3.9": Kafka39, "3.9.1": Kafka39, "4.1.1": Kafka41, "2.0": {2, 0}} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"3", "x.y", "", "-1.2"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q): no error", in)
		}
	}
}

func TestFromSnapshot(t *testing.T) {
	good := snapshot.ACL{ResourceType: "Topic", ResourceName: "orders", PatternType: "LITERAL", Principal: "User:alice", Host: "*", Operation: "Read", Permission: "Allow"}
	got, err := FromSnapshot(good)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ACL{Type: ResourceTopic, Name: "orders", Pattern: PatternLiteral, Principal: "User:alice", Host: "*", Operation: OpRead, Permission: Allow}); got != want {
		t.Errorf("FromSnapshot = %+v, want %+v", got, want)
	}
	if s := got.String(); s != "ALLOW User:alice Read Topic:orders (LITERAL) from *" {
		t.Errorf("String = %q", s)
	}
	bad := []struct {
		edit func(*snapshot.ACL)
		msg  string
	}{
		{func(a *snapshot.ACL) { a.ResourceType = "Topics" }, `unknown resource type "Topics"`},
		{func(a *snapshot.ACL) { a.ResourceType = "Any" }, "not concrete"},
		{func(a *snapshot.ACL) { a.PatternType = "MATCH" }, "LITERAL or PREFIXED"},
		{func(a *snapshot.ACL) { a.Operation = "Any" }, "not concrete"},
		{func(a *snapshot.ACL) { a.Operation = "Reed" }, `unknown operation "Reed"`},
		{func(a *snapshot.ACL) { a.Permission = "Any" }, "not Allow or Deny"},
	}
	for _, b := range bad {
		a := good
		b.edit(&a)
		_, err := FromSnapshot(a)
		if err == nil || !strings.Contains(err.Error(), b.msg) || !strings.Contains(err.Error(), "User:alice") {
			t.Errorf("FromSnapshot(%s): error %v, want one naming the ACL and %q", a, err, b.msg)
		}
	}
	all, err := FromSnapshotACLs([]snapshot.ACL{good, good})
	if err != nil || len(all) != 2 {
		t.Errorf("FromSnapshotACLs = %v, %v", all, err)
	}
}

func TestInScope(t *testing.T) {
	acls := parseACLs(t,
		"ALLOW User:a Read Group:* LITERAL *",
		"ALLOW User:a Read Group:* PREFIXED *",
		"ALLOW User:a Read Group:*g PREFIXED *",
		"ALLOW User:a Read Group:*g1 LITERAL *",
		"ALLOW User:a Read Group:*g LITERAL *",
		"ALLOW User:a Read Group:g PREFIXED *",
		"ALLOW User:a Read Group:g1 LITERAL *",
		"ALLOW User:a Read Group:g12 PREFIXED *",
		"ALLOW User:a Read Topic:g1 LITERAL *",
	)
	names := func(as []ACL) string {
		var s []string
		for _, a := range as {
			s = append(s, a.Name+"/"+a.Pattern.String())
		}
		slices.Sort(s)
		return strings.Join(s, " ")
	}
	cases := []struct{ name, zk, kraft string }{
		{"g1", "*/LITERAL g/PREFIXED g1/LITERAL", "*/LITERAL g/PREFIXED g1/LITERAL"},
		{"*g1", "*/LITERAL */PREFIXED *g/PREFIXED *g1/LITERAL", "*/PREFIXED *g/PREFIXED *g1/LITERAL"},
		{"*", "*/LITERAL */PREFIXED", "*/LITERAL */PREFIXED"},
		{"x", "*/LITERAL", "*/LITERAL"},
	}
	z, k := NewZK(acls, Config{}), NewKRaft(acls, Config{})
	for _, c := range cases {
		if got := names(z.InScope(ResourceGroup, c.name)); got != c.zk {
			t.Errorf("AclAuthorizer InScope(Group:%s) = %s, want %s", c.name, got, c.zk)
		}
		if got := names(k.InScope(ResourceGroup, c.name)); got != c.kraft {
			t.Errorf("StandardAuthorizer InScope(Group:%s) = %s, want %s", c.name, got, c.kraft)
		}
	}
}

func TestDecisionString(t *testing.T) {
	a := parseACL(t, "DENY User:* Write Topic:ord PREFIXED 1.2.3.4")
	cases := map[string]Decision{
		"allowed: super user": {Allowed: true, Reason: SuperUser},
		"denied by DENY User:* Write Topic:ord (PREFIXED) from 1.2.3.4":                                                                      {Reason: DenyACL, ACL: &a},
		"denied: no ACL in scope (allow.everyone.if.no.acl.found is false)":                                                                  {Reason: NoACLDeny},
		"fails: Kafka throws IllegalStateException on DENY User:* Write Topic:ord (PREFIXED) from 1.2.3.4":                                   {Reason: Broken, Exception: "IllegalStateException", ACL: &a},
		"allowed: no ACL in scope and allow.everyone.if.no.acl.found is true (authorizeByResourceType's probe of the resource \"hardcode\")": {Allowed: true, Reason: NoACLAllowEveryone, Probe: true},
	}
	for want, d := range cases {
		if got := d.String(); got != want {
			t.Errorf("String = %q, want %q", got, want)
		}
	}
	outcomes := map[string]Decision{"ALLOWED": {Allowed: true, Reason: AllowACL}, "DENIED": {Reason: NoMatchingAllow},
		"THROWS IllegalStateException": {Reason: Broken, Exception: "IllegalStateException"}, "HANGS": {Reason: Hang}}
	for want, d := range outcomes {
		if got := d.Outcome(); got != want {
			t.Errorf("Outcome = %q, want %q", got, want)
		}
	}
}
