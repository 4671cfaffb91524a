package access

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/authz"
)

// FuzzNameClasses: for any literal names and prefixes (from clusters, so
// untrusted), every class is a name the type can have, listed once, every
// valid literal name is a class, and a name beyond a prefix is neither a
// literal name nor a prefix and has no longer prefix.
func FuzzNameClasses(f *testing.F) {
	f.Add(uint8(2), "orders\nord\n*\nx", "ord\norders\n*")
	f.Add(uint8(3), "*g1\n!a\n!b", "!\n*\nteam-")
	f.Add(uint8(4), "kafka-cluster\nother", "kafka")
	f.Add(uint8(5), "", "")
	f.Fuzz(func(t *testing.T, typ uint8, lits, pres string) {
		rt := authz.ResourceTypes[int(typ)%len(authz.ResourceTypes)]
		set := func(s string) map[string]bool {
			m := map[string]bool{}
			for _, n := range strings.Split(s, "\n") {
				if n != "" {
					m[n] = true
				}
			}
			return m
		}
		l, p := set(lits), set(pres)
		classes := NameClasses(rt, l, p)
		seen := map[string]bool{}
		for _, c := range classes {
			if !validName(rt, c.Name) || seen[c.Name] {
				t.Fatalf("%s: class %q invalid or listed twice", rt, c.Name)
			}
			seen[c.Name] = true
			if c.Kind == "beyond" {
				if l[c.Name] || p[c.Name] || !strings.HasPrefix(c.Name, c.Prefix) {
					t.Fatalf("%s: beyond %q of %q is named", rt, c.Name, c.Prefix)
				}
				for k := len(c.Prefix) + 1; k < len(c.Name); k++ {
					if p[c.Name[:k]] {
						t.Fatalf("%s: beyond %q has the longer prefix %q", rt, c.Name, c.Name[:k])
					}
				}
			}
		}
		for n := range l {
			if n != authz.WildcardResource && validName(rt, n) && !seen[n] {
				t.Fatalf("%s: literal %q is not a class", rt, n)
			}
		}
	})
}

// FuzzVoters: controller.quorum.voters from a live node never panics and
// gives numeric ids, each once.
func FuzzVoters(f *testing.F) {
	for _, s := range []string{"1@h:9093,2@h:9093", "", "x", "1@", "@h", "1@a,1@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		for _, id := range Voters(s) {
			if _, err := strconv.Atoi(id); err != nil || seen[id] {
				t.Fatalf("Voters(%q): id %q", s, id)
			}
			seen[id] = true
		}
	})
}

// FuzzParseResource: a --resource value never panics, and what it accepts
// names a concrete type and a non-empty name.
func FuzzParseResource(f *testing.F) {
	for _, s := range []string{"Topic:orders", "User:User:bob", "Cluster:kafka-cluster", "topic:x", "Any:x", ":", "Topic:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, name, err := ParseResource(s)
		if err == nil && (typ < authz.ResourceTopic || name == "") {
			t.Fatalf("ParseResource(%q) = %v %q", s, typ, name)
		}
	})
}
