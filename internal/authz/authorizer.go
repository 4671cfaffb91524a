package authz

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Authorizer is one of Kafka's ACL authorizers over a fixed set of ACLs and
// a configuration. Its methods are safe for concurrent use, and Authorize
// allocates nothing.
type Authorizer interface {
	// Authorize decides one request, as Authorizer.authorize does for one
	// LITERAL Action.
	Authorize(r Request) Decision
	// AuthorizeByResourceType decides whether principal, from host, may
	// perform op on at least one resource of type t (KIP-679): what
	// InitProducerId without a transactional id asks for (Write, Topic)
	// when IdempotentWrite on the cluster is denied.
	AuthorizeByResourceType(principal, host string, op Operation, t ResourceType) Decision
	// InScope returns the ACLs the authorizer consults for a request on
	// t:name, whoever asks: the ACLs whose existence makes
	// allow.everyone.if.no.acl.found not apply, and the only ones whose
	// principal, host, operation and permission can change a decision on
	// that name (so two names with the same ACLs in scope are decided
	// alike for every principal, host and operation — on
	// StandardAuthorizer, unless a name starts below "*": whether its walk
	// loops or throws depends on ACLs out of scope). AclAuthorizer: the
	// LITERAL ACLs on name and on "*", and the PREFIXED ACLs on every
	// prefix of name (the empty prefix only for the empty name).
	// StandardAuthorizer: the ACLs its walk reaches — the same, except that
	// a LITERAL "*" is not consulted for other names that start with "*",
	// a PREFIXED "" applies to every name, and for a name starting below
	// "*" the walk may loop or throw first (then only what it reached). The
	// slice is new, each ACL in it once, in no promised order.
	InScope(t ResourceType, name string) []ACL
	// Config is the configuration the authorizer was built with.
	Config() Config
	// Kind names the Kafka class: "AclAuthorizer", "SimpleAclAuthorizer"
	// or "StandardAuthorizer".
	Kind() string
}

// entry is an ACL with what matching needs precomputed.
type entry struct {
	ACL
	wildPrincipal bool // Principal is exactly "User:*"
	wildHost      bool // Host is exactly "*"
	colonless     bool // Principal has no ':' (Kafka cannot parse it)
}

func newEntry(a ACL) entry {
	return entry{ACL: a, wildPrincipal: a.Principal == WildcardPrincipal, wildHost: a.Host == WildcardHost,
		colonless: !strings.Contains(a.Principal, ":")}
}

// matches reports whether the entry's principal and host match: the same
// principal (type and name, as a string) or User:*, the same host text or *.
func (e *entry) matches(principal, host string) bool {
	return (e.wildPrincipal || e.Principal == principal) && (e.wildHost || e.Host == host)
}

// opBit is op's bit in an operation set; 0 for codes outside 0-31.
func opBit(op Operation) uint32 {
	if op < 0 || op > 31 {
		return 0
	}
	return 1 << uint(op)
}

// allowOps is the set of ACL operations whose ALLOW grants op: op itself,
// All, and for Describe the operations that imply it (Read, Write, Delete,
// Alter), for DescribeConfigs AlterConfigs. DENY has no implications: its
// set is denyOps.
func allowOps(op Operation) uint32 {
	s := opBit(op) | opBit(OpAll)
	switch op {
	case OpDescribe:
		s |= opBit(OpRead) | opBit(OpWrite) | opBit(OpDelete) | opBit(OpAlter)
	case OpDescribeConfigs:
		s |= opBit(OpAlterConfigs)
	}
	return s
}

func denyOps(op Operation) uint32 { return opBit(op) | opBit(OpAll) }

// typeIndex bounds a resource type for the per-type arrays (0-7).
func typeIndex(t ResourceType) (int, bool) {
	if t < 0 || int(t) >= numTypes {
		return 0, false
	}
	return int(t), true
}

const numTypes = 8

// checkByTypeArgs is SecurityUtils.authorizeByResourceTypeCheckArgs: the
// type and operation must be concrete, or Kafka throws.
func checkByTypeArgs(op Operation, t ResourceType) (Decision, bool) {
	if t == ResourceAny || t == ResourceUnknown || op == OpAny || op == OpUnknown {
		return Decision{Reason: Broken, Exception: "IllegalArgumentException"}, false
	}
	return Decision{}, true
}

func superSet(users []string) map[string]struct{} {
	m := make(map[string]struct{}, len(users))
	for _, u := range users {
		m[u] = struct{}{}
	}
	return m
}

// hasDominantPrefixedDeny reports whether some prefix of name (by whole
// characters, name itself included) is in one of the deny prefix sets, as
// AclAuthorizer's hasDominantPrefixedDeny and the default
// authorizeByResourceType do; it returns the set's representative ACL.
func hasDominantPrefixedDeny(name string, deny func(prefix string) *entry) *entry {
	for i := range name {
		if i == 0 {
			continue
		}
		if e := deny(name[:i]); e != nil {
			return e
		}
	}
	if name != "" {
		return deny(name)
	}
	return nil
}

// javaCompare is String.compareTo: by UTF-16 code units. It differs from
// Go's byte order only where a character above U+FFFF meets one in
// U+E000-U+FFFF.
func javaCompare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	j := i
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if ra != rb {
		if ua, ub := firstUnit(ra), firstUnit(rb); ua != ub {
			return int(ua) - int(ub)
		}
		return int(ra - rb) // the same high surrogate: code point order
	}
	if a[j] < b[j] { // invalid UTF-8
		return -1
	}
	return 1
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) uint16 {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return uint16(hi)
	}
	return uint16(r)
}

// commonPrefix is StandardAuthorizerData.matchesUpTo in bytes: the length
// of the longest common prefix of a and b, in whole characters.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return i
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

// utf16Len is a string's length in Java chars.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
