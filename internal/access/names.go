package access

import (
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
)

// NameClass is one class of resource names of a type that no ACL of either
// side tells apart: Name is the one decided for all of them, Desc says
// which names it stands for.
type NameClass struct {
	Name string `json:"name"`
	// Kind is how the class was found: "literal" (a name an ACL names),
	// "prefix" (a PREFIXED ACL's own name), "beyond" (names that start
	// with a prefix and no longer one), "unnamed" (names no ACL covers),
	// "wildcard" (the name "*" itself), "cluster".
	Kind string `json:"kind"`
	// Prefix is the PREFIXED name a "prefix" or "beyond" class extends.
	Prefix string `json:"prefix,omitempty"`
}

// Desc words the class for people.
func (c NameClass) Desc() string {
	switch c.Kind {
	case "beyond":
		return "any name starting with " + strconv.Quote(c.Prefix) + " and with no longer prefix or name of an ACL (" + strconv.Quote(c.Name) + ")"
	case "unnamed":
		if strings.HasPrefix(c.Name, "*") {
			return "any name starting with \"*\" that no ACL names or prefixes (" + strconv.Quote(c.Name) + ")"
		}
		return "any name no ACL names or prefixes (" + strconv.Quote(c.Name) + ")"
	}
	return c.Name
}

// maxTopicName is the longest topic name Kafka accepts.
const maxTopicName = 249

// topicChar reports whether c may appear in a topic name ([a-zA-Z0-9._-]).
func topicChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// validName reports whether a resource of type t can have name n: a topic
// name is 1-249 of [a-zA-Z0-9._-] and not "." or ".."; the cluster is only
// "kafka-cluster"; other names are any non-empty string.
func validName(t authz.ResourceType, n string) bool {
	switch t {
	case authz.ResourceTopic:
		if n == "" || len(n) > maxTopicName || n == "." || n == ".." {
			return false
		}
		for i := 0; i < len(n); i++ {
			if !topicChar(n[i]) {
				return false
			}
		}
		return true
	case authz.ResourceCluster:
		return n == authz.ClusterName
	}
	return n != ""
}

// nameAlphabet is the characters tried to step beyond a prefix, topic
// characters first (every type accepts them).
const nameAlphabet = "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA9876543210_-.~!#$%&+,:;=?@^|"

// NameClasses returns the name classes of type t that the literal names and
// prefixes of the ACLs (of both sides) can tell apart: each valid literal
// name; "*" itself for types whose names may contain it (a LITERAL "*" is
// both the wildcard and a name, and StandardAuthorizer skips the wildcard
// for names that start with "*"); each prefix, and one name just beyond it
// (it starts with the prefix and with no longer prefix or literal name);
// one name no ACL names or prefixes, and for types other than Topic one
// such name starting with "*". The cluster has only "kafka-cluster". The
// result is sorted by name.
func NameClasses(t authz.ResourceType, literals, prefixes map[string]bool) []NameClass {
	if t == authz.ResourceCluster {
		return []NameClass{{Name: authz.ClusterName, Kind: "cluster"}}
	}
	seen := map[string]bool{}
	var out []NameClass
	add := func(c NameClass) {
		if !validName(t, c.Name) || seen[c.Name] {
			return
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	for n := range literals {
		if n != authz.WildcardResource {
			add(NameClass{Name: n, Kind: "literal"})
		}
	}
	if t != authz.ResourceTopic {
		add(NameClass{Name: authz.WildcardResource, Kind: "wildcard"})
	}
	// A name is "covered" when it is a literal name or a prefix, or has a
	// prefix longer than base.
	taken := func(n string, base int) bool {
		if literals[n] || prefixes[n] {
			return true
		}
		for i := base + 1; i < len(n); i++ {
			if prefixes[n[:i]] {
				return true
			}
		}
		return false
	}
	// next characters after p of the longer literal names and prefixes.
	index := sortedKeys(literals, prefixes)
	for p := range prefixes {
		add(NameClass{Name: p, Kind: "prefix", Prefix: p})
		if b, ok := beyond(t, p, index, taken); ok {
			add(NameClass{Name: b, Kind: "beyond", Prefix: p})
		}
	}
	for _, start := range []string{"", "*"} {
		if start == "*" && t == authz.ResourceTopic {
			continue
		}
		if n, ok := unnamed(t, start, taken); ok {
			add(NameClass{Name: n, Kind: "unnamed"})
		}
	}
	slices.SortFunc(out, func(a, b NameClass) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sortedKeys is the sorted union of the sets' keys.
func sortedKeys(sets ...map[string]bool) []string {
	var out []string
	for _, s := range sets {
		for k := range s {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// beyond returns p followed by one character that no longer literal name or
// prefix continues p with, so that its longest prefix is p and it names
// nothing.
func beyond(t authz.ResourceType, p string, index []string, taken func(string, int) bool) (string, bool) {
	used := map[byte]bool{}
	i, _ := slices.BinarySearch(index, p)
	for ; i < len(index) && strings.HasPrefix(index[i], p); i++ {
		if len(index[i]) > len(p) {
			used[index[i][len(p)]] = true
		}
	}
	for j := 0; j < len(nameAlphabet); j++ {
		c := nameAlphabet[j]
		if used[c] {
			continue
		}
		n := p + string(c)
		if validName(t, n) && !taken(n, len(p)) {
			return n, true
		}
	}
	return "", false
}

// unnamed returns a name starting with start that no literal name or
// prefix covers, if there is one.
func unnamed(t authz.ResourceType, start string, taken func(string, int) bool) (string, bool) {
	for i := 0; i < len(nameAlphabet); i++ {
		if n := start + string(nameAlphabet[i]) + "zkmigrate-unnamed"; validName(t, n) && !taken(n, -1) {
			return n, true
		}
	}
	return "", false
}
