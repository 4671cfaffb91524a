package authz

import (
	"fmt"
	"strings"
)

// Config is an authorizer's configuration: super.users and
// allow.everyone.if.no.acl.found.
type Config struct {
	// SuperUsers are principals ("User:admin"), each allowed everything
	// before any ACL is consulted; no wildcard.
	SuperUsers []string
	// AllowEveryoneIfNoACLFound allows a request on a resource that has no
	// ACL at all in scope (for any principal).
	AllowEveryoneIfNoACLFound bool
}

// The two properties both authorizers read.
const (
	SuperUsersProperty    = "super.users"
	AllowEveryoneProperty = "allow.everyone.if.no.acl.found"
)

// ParseZKConfig reads the two properties as ZooKeeper mode's AclAuthorizer.configure
// does (Kafka 3.6-3.9; before 3.6 allow.everyone.if.no.acl.found was not
// trimmed): super.users split on ';' (Java's split: trailing empty pieces
// dropped), each piece trimmed and split at its first ':'; an empty piece
// before the last non-empty one, a whitespace-only value or a piece without
// ':' is an error (the broker does not start). allow.everyone.if.no.acl.found
// is Scala's toBoolean of the trimmed value: "true" or "false" in any case,
// anything else is an error. An empty string here means the property is
// unset (ParseZKProperties tells an empty value from an absent one).
func ParseZKConfig(superUsers, allowEveryone string) (Config, error) {
	return parseZK(superUsers, allowEveryone, allowEveryone != "")
}

// ParseZKProperties is ParseZKConfig over a broker's properties, where an
// allow.everyone.if.no.acl.found present but empty is an error, as in
// AclAuthorizer.
func ParseZKProperties(p map[string]string) (Config, error) {
	ae, set := p[AllowEveryoneProperty]
	return parseZK(p[SuperUsersProperty], ae, set)
}

func parseZK(superUsers, allowEveryone string, allowSet bool) (Config, error) {
	var c Config
	if superUsers != "" {
		for i, piece := range javaSplit(superUsers, ';') {
			p := javaTrim(piece)
			if err := checkPrincipal(p); err != nil {
				return Config{}, fmt.Errorf("%s %q: element %d: %w", SuperUsersProperty, superUsers, i+1, err)
			}
			c.SuperUsers = append(c.SuperUsers, p)
		}
	}
	if allowSet {
		switch v := javaTrim(allowEveryone); {
		case strings.EqualFold(v, "true"): // String.equalsIgnoreCase, as Scala's toBoolean
			c.AllowEveryoneIfNoACLFound = true
		case strings.EqualFold(v, "false"):
		default:
			return Config{}, fmt.Errorf("%s %q: AclAuthorizer accepts only true or false (it throws IllegalArgumentException)", AllowEveryoneProperty, allowEveryone)
		}
	}
	return c, nil
}

// ParseKRaftProperties is ParseKRaftConfig over a node's properties (an
// absent property and an empty one mean the same to StandardAuthorizer).
func ParseKRaftProperties(p map[string]string) (Config, error) {
	return ParseKRaftConfig(p[SuperUsersProperty], p[AllowEveryoneProperty])
}

// ParseKRaftConfig reads the two properties as KRaft's
// StandardAuthorizer.configure does (3.3-4.1): super.users split on ';',
// each piece trimmed, empty pieces skipped, a piece without ':' an error;
// allow.everyone.if.no.acl.found is Boolean.parseBoolean of the trimmed
// value: "true" in any case, anything else (including "yes") is false,
// never an error.
func ParseKRaftConfig(superUsers, allowEveryone string) (Config, error) {
	var c Config
	for i, piece := range javaSplit(superUsers, ';') {
		p := javaTrim(piece)
		if p == "" {
			continue
		}
		if err := checkPrincipal(p); err != nil {
			return Config{}, fmt.Errorf("%s %q: element %d: %w", SuperUsersProperty, superUsers, i+1, err)
		}
		c.SuperUsers = append(c.SuperUsers, p)
	}
	c.AllowEveryoneIfNoACLFound = strings.EqualFold(javaTrim(allowEveryone), "true")
	return c, nil
}

// checkPrincipal is SecurityUtils.parseKafkaPrincipal's check: non-empty,
// with a ':' (the type is what precedes the first one).
func checkPrincipal(p string) error {
	if p == "" {
		return fmt.Errorf("an empty principal (want Type:name)")
	}
	if !strings.Contains(p, ":") {
		return fmt.Errorf("principal %q has no ':' (want Type:name)", p)
	}
	return nil
}

// javaSplit is String.split on one literal character: the pieces between
// separators, with trailing empty pieces removed (so ";" gives none and
// "a;" gives ["a"]); the empty string gives [""], as in Java.
func javaSplit(s string, sep byte) []string {
	if s == "" {
		return []string{""}
	}
	parts := strings.Split(s, string(sep))
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// javaTrim is String.trim: it removes every character up to U+0020 (spaces
// and control characters) from both ends, and nothing else.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}
