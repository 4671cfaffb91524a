package access

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/principalmap"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// acl reads "Allow User:alice Read Topic:LITERAL:orders *" (host
// optional, "*" by default).
func acl(s string) snapshot.ACL {
	f := strings.Fields(s)
	res := strings.SplitN(f[3], ":", 3)
	host := "*"
	if len(f) > 4 {
		host = f[4]
	}
	return snapshot.ACL{Permission: f[0], Principal: f[1], Operation: f[2], ResourceType: res[0], PatternType: res[1], ResourceName: res[2], Host: host}
}

func acls(ss ...string) []snapshot.ACL {
	out := make([]snapshot.ACL, len(ss))
	for i, s := range ss {
		out[i] = acl(s)
	}
	return out
}

// node is a broker (and controller) with known settings.
func node(name, class, super, allow string, roles ...string) Node {
	if len(roles) == 0 {
		roles = []string{RoleBroker, RoleController}
	}
	set := func(v string) Setting { return Setting{Value: v, Set: v != "", Known: true, Where: name + ":1"} }
	return Node{Name: name, Roles: roles, Class: set(class), SuperUsers: set(super), AllowEveryone: set(allow)}
}

func zkSide(super, allow string, as ...string) Side {
	return Side{Name: "source", ACLs: acls(as...), Nodes: []Node{node("server.properties", ClassAclAuthorizer, super, allow)}}
}

func kraftSide(super, allow string, as ...string) Side {
	return Side{Name: "target", ACLs: acls(as...), Nodes: []Node{node("node 1", ClassStandardAuthorizer, super, allow)}}
}

// mustCompare runs the comparison with and without the content cache and
// requires both to give the same result.
func mustCompare(t *testing.T, in Input) *Result {
	t.Helper()
	r, err := compare(in, false)
	if err != nil {
		t.Fatal(err)
	}
	full, err := compare(in, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, full) {
		t.Fatalf("the cached comparison differs from the full one:\ncached: %s\nfull:   %s", summary(r), summary(full))
	}
	return r
}

func summary(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s classes=%d differing=%d", r.Verdict, r.Classes, r.Differing)
	for _, g := range r.Groups {
		fmt.Fprintf(&b, "\n  [%s] %d %s principals=%v resources=%v ops=%v", g.Kind, g.Classes, g.Cause, g.Principals, g.Resources, g.Operations)
	}
	return b.String()
}

// Each planted difference is reported once, as one group naming the
// principal and the resource it is about.
func TestPlantedDifferences(t *testing.T) {
	base := []string{
		"Allow User:alice Read Topic:LITERAL:orders",
		"Allow User:bob Write Topic:PREFIXED:ord",
		"Allow User:carol Read Group:LITERAL:billing",
		"Allow User:carol Read Group:PREFIXED:bill",
		"Deny User:mallory Read Topic:LITERAL:orders 10.0.0.7",
	}
	without := func(drop string) []string {
		return slices.DeleteFunc(slices.Clone(base), func(s string) bool { return s == drop })
	}
	for _, tc := range []struct {
		name           string
		in             Input
		kind           string
		principals     []string
		resources      []string
		ops            []string
		causeMentions  string
		wantClassesMin int64
	}{
		{
			name: "lost super user",
			in:   Input{Source: zkSide("User:admin", "", base...), Target: kraftSide("", "", base...)},
			kind: "super-user", principals: []string{"User:admin"}, causeMentions: "User:admin is a super user on source",
		},
		{
			name: "differing allow.everyone",
			in:   Input{Source: zkSide("", "true", base...), Target: kraftSide("", "false", base...)},
			// bob may write to topics (the by-resource-type check),
			// the others only as "any other principal".
			kind: "allow-everyone", principals: []string{"User:alice", "User:carol", "User:mallory", "any other principal"},
			causeMentions: `allow.everyone.if.no.acl.found "true"`,
		},
		{
			name: "a dropped ACL",
			in:   Input{Source: zkSide("", "", base...), Target: kraftSide("", "", without("Allow User:alice Read Topic:LITERAL:orders")...)},
			kind: "acl", principals: []string{"User:alice"}, resources: []string{"Topic:orders"}, ops: []string{"Describe", "Read"},
			causeMentions: "ALLOW User:alice Read Topic:orders (LITERAL) from *",
		},
		{
			name: "a principal that changed form",
			in: Input{Source: zkSide("", "", "Allow User:CN=jakub,OU=eng Write Topic:LITERAL:orders"),
				Target: kraftSide("", "", "Allow User:jakub Write Topic:LITERAL:orders")},
			kind: "principal-form", principals: []string{"User:CN=jakub,OU=eng", "User:jakub"},
			resources: []string{"Cluster:kafka-cluster, or Write on any Topic", "Topic:orders"},
			ops:       []string{"Describe", IdempotentRequest, "Write"}, causeMentions: "User:CN=jakub,OU=eng on the source appears as User:jakub on the target",
		},
		{
			name: "a prefixed pattern narrowed",
			in: Input{Source: zkSide("", "", "Allow User:bob Read Topic:PREFIXED:ord"),
				Target: kraftSide("", "", "Allow User:bob Read Topic:PREFIXED:orders")},
			kind: "acl", principals: []string{"User:bob"}, ops: []string{"Describe", "Read"},
			resources:     []string{`Topic:(any name starting with "ord" and with no longer prefix or name of an ACL ("ordz"))`, "Topic:ord"},
			causeMentions: "ALLOW User:bob Read Topic:ord (PREFIXED)",
		},
		{
			name: "ACLs left behind for one principal",
			in: Input{Source: zkSide("", "", base...),
				Target: kraftSide("", "", without("Allow User:carol Read Group:LITERAL:billing")...)},
			// carol keeps Read on billing through the prefix "bill": the
			// dropped ACL changes nothing, so no group is expected.
			kind: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCompare(t, tc.in)
			if tc.kind == "" {
				if r.Verdict != Equivalent || len(r.Groups) != 0 {
					t.Fatalf("want equivalent, got %s", summary(r))
				}
				return
			}
			if r.Verdict != Differences || len(r.Groups) != 1 {
				t.Fatalf("want one group, got %s", summary(r))
			}
			g := r.Groups[0]
			if g.Kind != tc.kind || !slices.Equal(g.Principals, tc.principals) || !strings.Contains(g.Cause, tc.causeMentions) {
				t.Errorf("got %s\nwant kind %s, principals %v, a cause mentioning %q", summary(r), tc.kind, tc.principals, tc.causeMentions)
			}
			if tc.resources != nil && !slices.Equal(g.Resources, tc.resources) {
				t.Errorf("resources %q, want %q", g.Resources, tc.resources)
			}
			if tc.ops != nil && !slices.Equal(g.Operations, tc.ops) {
				t.Errorf("operations %q, want %q", g.Operations, tc.ops)
			}
			if g.Classes != r.Differing || g.Classes == 0 {
				t.Errorf("group counts %d classes, the result %d", g.Classes, r.Differing)
			}
			if len(g.Example.Decisions) != 2 || g.Example.Decisions[0].Outcome == g.Example.Decisions[1].Outcome {
				t.Errorf("example %+v: want two different decisions", g.Example)
			}
		})
	}
}

// A faithful copy is proved equivalent, with a digest that is stable and
// changes with the inputs; a principal map makes a principal that changed
// form equivalent.
func TestEquivalentAndDigest(t *testing.T) {
	as := []string{
		"Allow User:alice Read Topic:LITERAL:orders", "Allow User:bob All Topic:PREFIXED:pay", "Deny User:* Write Topic:LITERAL:audit",
		"Allow User:* Describe Topic:LITERAL:*", "Allow User:alice Read Group:PREFIXED:app-", "Allow User:svc IdempotentWrite Cluster:LITERAL:kafka-cluster",
		"Allow User:svc Write TransactionalId:PREFIXED:tx-", "Allow User:alice CreateTokens User:LITERAL:User:bob", "Allow User:alice Read Topic:LITERAL:orders 10.1.2.3",
	}
	in := Input{Source: zkSide("User:admin;User:CN=broker,O=corp", "", as...), Target: kraftSide("User:admin;User:CN=broker,O=corp", "", as...)}
	r := mustCompare(t, in)
	if r.Verdict != Equivalent || r.Differing != 0 || r.Classes == 0 {
		t.Fatalf("want equivalent: %s", summary(r))
	}
	if again := mustCompare(t, in); again.Digest != r.Digest || !strings.HasPrefix(r.Digest, "sha256:") {
		t.Errorf("digest %s then %s", r.Digest, again.Digest)
	}
	in.Target = kraftSide("User:admin;User:CN=broker,O=corp", "", as[1:]...)
	if d := mustCompare(t, in); d.Digest == r.Digest {
		t.Error("the digest did not change with the target's ACLs")
	}

	form := Input{Source: zkSide("", "", "Allow User:CN=jakub,OU=eng Write Topic:LITERAL:orders"), Target: kraftSide("", "", "Allow User:jakub Write Topic:LITERAL:orders"),
		Map: func(p string) (string, error) {
			if p == "User:CN=jakub,OU=eng" {
				return "User:jakub", nil
			}
			return p, nil
		}, MapName: "test map"}
	if r := mustCompare(t, form); r.Verdict != Equivalent {
		t.Errorf("with the map: %s", summary(r))
	}
}

// Node settings: an unknown setting makes the proof "not proved", a custom
// authorizer is a gap, a setting the ZooKeeper authorizer refuses is an
// error naming file:line, controllers decide only their requests, and a
// principal the map gives no target principal is one group.
func TestSettings(t *testing.T) {
	as := []string{"Allow User:alice Read Topic:LITERAL:orders"}
	t.Run("hidden super.users", func(t *testing.T) {
		tgt := kraftSide("", "", as...)
		tgt.Nodes[0].SuperUsers = Setting{Set: true, Where: "node 1 (DescribeConfigs)"}
		r := mustCompare(t, Input{Source: zkSide("User:admin", "", as...), Target: tgt})
		if r.Verdict != NotProved || len(r.Gaps) != 1 || !strings.Contains(r.Gaps[0].Why, "super.users") {
			t.Fatalf("got %s gaps %+v", summary(r), r.Gaps)
		}
		if len(r.Groups) != 1 || !r.Groups[0].NotProved {
			t.Errorf("the lost super user should be a not-proved group: %s", summary(r))
		}
	})
	t.Run("custom authorizer", func(t *testing.T) {
		tgt := kraftSide("", "", as...)
		tgt.Nodes[0].Class.Value = "com.example.OpaAuthorizer"
		r := mustCompare(t, Input{Source: zkSide("", "", as...), Target: tgt})
		if r.Verdict != NotProved || len(r.Gaps) != 1 || !strings.Contains(r.Gaps[0].Why, "com.example.OpaAuthorizer") {
			t.Fatalf("got %s gaps %+v", summary(r), r.Gaps)
		}
	})
	t.Run("empty super.users element", func(t *testing.T) {
		_, err := Compare(Input{Source: zkSide("User:a;;User:b", "", as...), Target: kraftSide("User:a;;User:b", "", as...)})
		var se *SettingError
		if !errors.As(err, &se) || se.Where != "server.properties:1" || !strings.Contains(err.Error(), "server.properties:1") {
			t.Fatalf("err %v, want a SettingError at server.properties:1", err)
		}
		// StandardAuthorizer skips the empty element.
		if _, err := Compare(Input{Source: zkSide("User:a;User:b", "", as...), Target: kraftSide("User:a;;User:b", "", as...)}); err != nil {
			t.Errorf("KRaft refuses an empty element: %v", err)
		}
	})
	t.Run("bad boolean", func(t *testing.T) {
		if _, err := Compare(Input{Source: zkSide("", "yes", as...), Target: kraftSide("", "", as...)}); err == nil || !strings.Contains(err.Error(), "allow.everyone") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("ACL with a filter operation", func(t *testing.T) {
		_, err := Compare(Input{Source: zkSide("", "", "Allow User:a Any Topic:LITERAL:x"), Target: kraftSide("", "", as...)})
		if err == nil || !strings.Contains(err.Error(), "User:a") || !strings.Contains(err.Error(), "source") {
			t.Fatalf("err %v, want one naming the source ACL", err)
		}
	})
	t.Run("controllers", func(t *testing.T) {
		tgt := kraftSide("User:admin", "", as...)
		tgt.Nodes = []Node{node("node 1", ClassStandardAuthorizer, "User:admin", "", RoleBroker), node("node 2", ClassStandardAuthorizer, "", "", RoleController)}
		r := mustCompare(t, Input{Source: zkSide("User:admin", "", as...), Target: tgt})
		if len(r.Groups) != 1 || r.Groups[0].Kind != "super-user" {
			t.Fatalf("got %s", summary(r))
		}
		for _, op := range r.Groups[0].Operations {
			if op == "Read" || op == IdempotentRequest {
				t.Errorf("controllers do not decide %s", op)
			}
		}
		if !slices.Contains(r.Groups[0].Operations, "CreateTokens") || !strings.Contains(r.Groups[0].Cause, "as controller") {
			t.Errorf("got %s", summary(r))
		}
		found := false
		for _, f := range r.Findings {
			found = found || f.ID == "ACCESS-NODES-DISAGREE"
		}
		if !found {
			t.Errorf("no ACCESS-NODES-DISAGREE finding: %+v", r.Findings)
		}
	})
	t.Run("unmapped principal", func(t *testing.T) {
		in := Input{Source: zkSide("", "", as...), Target: kraftSide("", "", as...), Map: func(p string) (string, error) {
			if p == "User:alice" {
				return "", principalmap.ErrNoMatch
			}
			return p, nil
		}}
		r := mustCompare(t, in)
		if len(r.Groups) != 1 || r.Groups[0].Kind != "unmapped" || !slices.Equal(r.Groups[0].Principals, []string{"User:alice (the principal map gives it no target principal)"}) {
			t.Fatalf("got %s", summary(r))
		}
	})
}

// StandardAuthorizer does not apply a LITERAL "*" ACL to names starting
// with "*": one group, whichever principals hold such ACLs.
func TestAuthorizerQuirkIsOneGroup(t *testing.T) {
	as := []string{"Allow User:a Read Group:LITERAL:*", "Allow User:b Read Group:LITERAL:*", "Allow User:c Delete Group:LITERAL:*"}
	r := mustCompare(t, Input{Source: zkSide("", "", as...), Target: kraftSide("", "", as...)})
	if len(r.Groups) != 1 || r.Groups[0].Kind != "authorizer" || r.Groups[0].PrincipalCount != 3 || !strings.Contains(r.Groups[0].Cause, `names that start with "*"`) {
		t.Fatalf("got %s", summary(r))
	}
}

// The content cache gives what deciding every class gives, over random
// ACL sets built from alphabets that meet every known divergence.
func TestCacheMatchesFullRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	names := []string{"*", "f", "fo", "foo", "foob", "fooa", "fob", "*f", "f*", "!a", "!b"}
	principals := []string{"User:alice", "User:*", "Group:alice", "user:alice", "User:bob"}
	hosts := []string{"*", "1.2.3.4", "0:0:0:0:0:0:0:1"}
	ops := []string{"All", "Read", "Write", "Describe", "Delete", "Alter", "DescribeConfigs", "AlterConfigs", "Create", "IdempotentWrite"}
	types := []string{"Topic", "Group", "TransactionalId", "Cluster"}
	gen := func() []string {
		var out []string
		for range 1 + rng.IntN(12) {
			typ := types[rng.IntN(len(types))]
			name, pat := names[rng.IntN(len(names))], []string{"LITERAL", "PREFIXED"}[rng.IntN(2)]
			if typ == "Topic" && strings.ContainsAny(name, "*!") && name != "*" {
				name = "foo"
			}
			if typ == "Cluster" {
				name, pat = "kafka-cluster", "LITERAL"
			}
			out = append(out, fmt.Sprintf("%s %s %s %s:%s:%s %s", []string{"Allow", "Allow", "Deny"}[rng.IntN(3)],
				principals[rng.IntN(len(principals))], ops[rng.IntN(len(ops))], typ, pat, name, hosts[rng.IntN(len(hosts))]))
		}
		return out
	}
	for i := range 300 {
		src, tgt := gen(), gen()
		if i%3 == 0 {
			tgt = src
		}
		super := []string{"", "User:alice", "User:bob;User:*"}[rng.IntN(3)]
		allow := []string{"", "true", "false"}[rng.IntN(3)]
		mustCompare(t, Input{Source: zkSide(super, allow, src...), Target: kraftSide([]string{"", "User:alice"}[rng.IntN(2)], allow, tgt...)})
	}
}

// An accepted cause is listed as accepted and leaves the verdict to the
// rest; an accepted id no cause has is named.
func TestAccept(t *testing.T) {
	as := []string{"Allow User:alice Read Topic:LITERAL:orders"}
	in := Input{Source: zkSide("", "", as...), Target: kraftSide("User:ANONYMOUS", "", as...)}
	r := mustCompare(t, in)
	if r.Verdict != Differences || len(r.Groups) != 1 {
		t.Fatalf("got %s", summary(r))
	}
	id := r.Groups[0].ID
	// The id does not depend on the nodes' names.
	in.Target.Nodes[0].Name = "elsewhere/server.properties"
	if again := mustCompare(t, in); again.Groups[0].ID != id {
		t.Errorf("id %s became %s with another node name", id, again.Groups[0].ID)
	}
	in.Accept = []string{id, "ACCESS-0000000000"}
	acc := mustCompare(t, in)
	if acc.Verdict != Equivalent || !acc.Groups[0].Accepted || acc.Accepted != acc.Groups[0].Classes || !slices.Equal(acc.UnusedAccepts, []string{"ACCESS-0000000000"}) {
		t.Fatalf("accepted: %s, %+v", summary(acc), acc.UnusedAccepts)
	}
	if acc.Digest == r.Digest {
		t.Error("accepting did not change the digest")
	}
	in.Target.ACLs = nil // a planted difference besides the accepted one
	if d := mustCompare(t, in); d.Verdict != Differences {
		t.Errorf("a dropped ACL with an accepted cause: %s", summary(d))
	}
}

// A target-only DENY against an ACL both sides have is the DENY's cause,
// not the authorizers'.
func TestExtraDenyIsItsOwnCause(t *testing.T) {
	as := []string{"Allow User:alice Read Topic:LITERAL:orders"}
	r := mustCompare(t, Input{Source: zkSide("", "", as...), Target: kraftSide("", "", append(as, "Deny User:alice Read Topic:PREFIXED:ord")...)})
	if len(r.Groups) != 1 || r.Groups[0].Kind != "acl" || !strings.Contains(r.Groups[0].Cause, "denied by DENY User:alice Read Topic:ord (PREFIXED)") {
		t.Fatalf("got %s", summary(r))
	}
}
