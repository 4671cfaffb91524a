package authz

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseConfig: super.users and allow.everyone.if.no.acl.found come from
// operators' files. Neither parser panics; StandardAuthorizer's accepts
// whatever AclAuthorizer's does, to the same result; every super user is a
// trimmed Type:name.
func FuzzParseConfig(f *testing.F) {
	for _, c := range [][2]string{{"", ""}, {"User:admin", "true"}, {"User:a;;User:b", "yes"}, {";User:a", "false"}, {"User:CN=x,O=y;User:b", "TRUE"},
		{" ", " true "}, {"admin", "falſe"}, {"User:a;", "\ttrue\x01"}, {";", ""}, {"User:\x00;User: b ", "\u00a0true"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, su, ae string) {
		zc, zerr := ParseZKConfig(su, ae)
		kc, kerr := ParseKRaftConfig(su, ae)
		for _, c := range []Config{zc, kc} {
			for _, p := range c.SuperUsers {
				if p == "" || javaTrim(p) != p || !strings.Contains(p, ":") {
					t.Fatalf("super user %q of %q is not a trimmed Type:name", p, su)
				}
			}
		}
		if zerr == nil {
			if kerr != nil {
				t.Fatalf("AclAuthorizer accepts %q, StandardAuthorizer does not: %v", su, kerr)
			}
			if !slices.Equal(zc.SuperUsers, kc.SuperUsers) || zc.AllowEveryoneIfNoACLFound != kc.AllowEveryoneIfNoACLFound {
				t.Fatalf("%q, %q: AclAuthorizer %+v, StandardAuthorizer %+v", su, ae, zc, kc)
			}
		}
		if zerr != nil && !strings.Contains(zerr.Error(), SuperUsersProperty) && !strings.Contains(zerr.Error(), AllowEveryoneProperty) {
			t.Fatalf("error %q names no property", zerr)
		}
	})
}

// FuzzParseEnums: the enum parsers never panic, accept exactly Kafka's
// spellings (any case of the PascalCase name without underscores, or the
// enum constant name) and round-trip.
func FuzzParseEnums(f *testing.F) {
	for _, s := range []string{"Read", "DESCRIBE_CONFIGS", "describeconfigs", "Topic", "TRANSACTIONAL_ID", "Allow", "deny", "LITERAL", "deſcribe",
		"CLUﬆER", "ßread", "", "Any", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		up := javaUpper(s)
		check := func(kind string, c int8, err error, enum []string) {
			accepted := false
			for code, e := range enum {
				if up == e || up == strings.ReplaceAll(e, "_", "") || s == pascal(e) {
					accepted = true
					if err != nil || int(c) != code {
						t.Fatalf("%s %q: got %d, %v; want %s", kind, s, c, err, e)
					}
				}
			}
			if !accepted && err == nil {
				t.Fatalf("%s %q accepted as %d", kind, s, c)
			}
		}
		op, err := ParseOperation(s)
		check("operation", int8(op), err, operationEnum)
		if err == nil {
			if back, err := ParseOperation(op.String()); err != nil || back != op {
				t.Fatalf("%v does not round-trip", op)
			}
		}
		rt, err := ParseResourceType(s)
		check("resource type", int8(rt), err, resourceEnum)
		pt, err := ParsePatternType(s)
		check("pattern type", int8(pt), err, patternEnum)
		pm, err := ParsePermission(s)
		check("permission", int8(pm), err, permissionEnum)
	})
}

// FuzzHostAddress: never panics; its result is its own host address.
func FuzzHostAddress(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "::1", "::ffff:1.2.3.4", "fe80::1%eth0", "FE80::DB8:1", "", "1.2.3", "::ffff:0:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := HostAddress(s)
		if err != nil {
			return
		}
		again, err := HostAddress(h)
		if err != nil || again != h {
			t.Fatalf("HostAddress(%q) = %q, but HostAddress(%q) = %q, %v", s, h, h, again, err)
		}
		if strings.Contains(h, ":") && strings.Count(h, ":") != 7 {
			t.Fatalf("HostAddress(%q) = %q: not eight groups", s, h)
		}
	})
}

// FuzzAuthorize decodes ACL sets and requests from bytes and holds the two
// ports to each other where Kafka's two authorizers agree: names of
// letters (no "*" but the LITERAL and PREFIXED "*" ACLs, nothing sorted
// below "*") and principals with ':'. The ZooKeeper port looks ACLs up by
// name and prefix in hash maps, the KRaft port walks a sorted list as
// Kafka does: two ways to the same set.
func FuzzAuthorize(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("allow everyone, deny bob, prefixed f, literal foo; alice reads foob"))
	f.Add([]byte{255, 254, 3, 3, 3, 7, 9, 11, 200, 100, 50, 25, 12, 6, 3, 1, 0, 0, 0, 0})
	names := []string{"*", "f", "fo", "foo", "foob", "fooa", "fob", "b", "ba", "hardcode", "h"}
	principals := []string{"User:alice", "User:bob", "User:*", "Group:alice", "user:alice"}
	hosts := []string{"*", "1.2.3.4", "10.0.0.1"}
	types := []ResourceType{ResourceTopic, ResourceGroup}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		next := func(n int) int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1]) % n
		}
		cfg := Config{AllowEveryoneIfNoACLFound: next(2) == 1}
		if next(3) == 0 {
			cfg.SuperUsers = []string{"User:bob"}
		}
		var acls []ACL
		for range next(12) {
			acls = append(acls, ACL{Type: types[next(2)], Name: names[next(len(names))], Pattern: PatternType(3 + next(2)),
				Principal: principals[next(len(principals))], Host: hosts[next(len(hosts))], Operation: Operation(2 + next(13)),
				Permission: Permission(2 + next(2))})
		}
		z, k := NewZK(acls, cfg), NewKRaft(acls, cfg)
		for i < len(data) {
			name := names[1+next(len(names)-1)] + []string{"", "a", "bar"}[next(3)]
			r := Request{Principal: principals[next(len(principals))], Host: hosts[1+next(2)], Operation: Operation(2 + next(13)),
				Type: types[next(2)], Name: name}
			zd, kd := z.Authorize(r), k.Authorize(r)
			if zd.Allowed != kd.Allowed || zd.Reason != kd.Reason {
				t.Fatalf("%s over %v: AclAuthorizer %s, StandardAuthorizer %s", r, acls, zd, kd)
			}
			if zd.ACL != nil && (zd.Reason == DenyACL) != (zd.ACL.Permission == Deny) {
				t.Fatalf("%s: decided by %s with reason %s", r, zd.ACL, zd.Reason)
			}
			if !slices.Equal(sortedACLs(z.InScope(r.Type, r.Name)), sortedACLs(k.InScope(r.Type, r.Name))) {
				t.Fatalf("%s: in scope differ", r)
			}
		}
	})
}

func sortedACLs(as []ACL) []ACL {
	as = slices.Clone(as)
	slices.SortFunc(as, compareStandard)
	return slices.Compact(as)
}

// FuzzKRaftFastPath holds StandardAuthorizer's Authorize, which looks the
// ACLs in scope up by name where the walk can neither throw nor loop, to
// the walk itself, step for step, on names with "*" and characters below
// it, empty names, and principals without ':'.
func FuzzKRaftFastPath(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte("*g1 with a literal star, !b below it, and alice without a colon"))
	f.Add([]byte{1, 9, 0, 3, 0, 1, 1, 3, 4, 2, 9, 0, 0, 0, 7, 1, 3, 0, 0, 0})
	names := []string{"*", "*f", "f*", "f", "fo", "foo", "foob", "", "!", "!a", "!ab", "#", "hardcode", "h", "*g"}
	principals := []string{"User:alice", "User:bob", "User:*", "Group:alice", "alice"}
	hosts := []string{"*", "1.2.3.4", "10.0.0.1"}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		next := func(n int) int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1]) % n
		}
		cfg := Config{AllowEveryoneIfNoACLFound: next(2) == 1}
		var acls []ACL
		for range next(10) {
			acls = append(acls, ACL{Type: ResourceGroup, Name: names[next(len(names))], Pattern: PatternType(3 + next(2)),
				Principal: principals[next(len(principals))], Host: hosts[next(len(hosts))], Operation: Operation(2 + next(13)),
				Permission: Permission(1 + next(3))})
		}
		k := NewKRaft(acls, cfg).(*kraftAuthorizer)
		t1 := &k.types[ResourceGroup]
		for i < len(data) {
			r := Request{Principal: principals[next(4)], Host: hosts[1+next(2)], Operation: Operation(2 + next(13)), Type: ResourceGroup,
				Name: names[next(len(names))] + []string{"", "a", "1"}[next(3)]}
			got, want := k.Authorize(r), k.walk(t1.entries, &r)
			if got.Allowed != want.Allowed || got.Reason != want.Reason || got.Exception != want.Exception {
				t.Fatalf("%s over %v: Authorize %s, the walk %s", r, acls, got, want)
			}
			if got, want := sortedACLs(k.InScope(r.Type, r.Name)), sortedACLs(k.walkScope(int(r.Type), r.Name)); !slices.Equal(got, want) {
				t.Fatalf("%s over %v: InScope %v, the walk reaches %v", r, acls, got, want)
			}
		}
	})
}
