package authz

import (
	"fmt"
	"strconv"
	"strings"
)

// Operation is Kafka's AclOperation, with its wire codes.
type Operation int8

// The operations. TwoPhaseCommit exists from Kafka 4.1 (KIP-939).
const (
	OpUnknown         Operation = 0
	OpAny             Operation = 1 // filters only
	OpAll             Operation = 2
	OpRead            Operation = 3
	OpWrite           Operation = 4
	OpCreate          Operation = 5
	OpDelete          Operation = 6
	OpAlter           Operation = 7
	OpDescribe        Operation = 8
	OpClusterAction   Operation = 9
	OpDescribeConfigs Operation = 10
	OpAlterConfigs    Operation = 11
	OpIdempotentWrite Operation = 12
	OpCreateTokens    Operation = 13
	OpDescribeTokens  Operation = 14
	OpTwoPhaseCommit  Operation = 15
)

// ResourceType is Kafka's ResourceType, with its wire codes.
type ResourceType int8

// The resource types.
const (
	ResourceUnknown         ResourceType = 0
	ResourceAny             ResourceType = 1 // filters only
	ResourceTopic           ResourceType = 2
	ResourceGroup           ResourceType = 3
	ResourceCluster         ResourceType = 4
	ResourceTransactionalID ResourceType = 5
	ResourceDelegationToken ResourceType = 6
	ResourceUser            ResourceType = 7
)

// PatternType is Kafka's PatternType, with its wire codes. An ACL is
// LITERAL or PREFIXED; Any and Match exist only in filters.
type PatternType int8

// The pattern types.
const (
	PatternUnknown  PatternType = 0
	PatternAny      PatternType = 1
	PatternMatch    PatternType = 2
	PatternLiteral  PatternType = 3
	PatternPrefixed PatternType = 4
)

// Permission is Kafka's AclPermissionType, with its wire codes.
type Permission int8

// The permission types.
const (
	PermissionUnknown Permission = 0
	PermissionAny     Permission = 1 // filters only
	Deny              Permission = 2
	Allow             Permission = 3
)

// Kafka's enum constant names, indexed by code.
var (
	operationEnum  = []string{"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT"}
	resourceEnum   = []string{"UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"}
	patternEnum    = []string{"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"}
	permissionEnum = []string{"UNKNOWN", "ANY", "DENY", "ALLOW"}
)

// pascal is SecurityUtils.toPascalCase: DESCRIBE_CONFIGS -> DescribeConfigs.
func pascal(enum string) string {
	var b strings.Builder
	up := true
	for i := 0; i < len(enum); i++ {
		c := enum[i]
		switch {
		case c == '_':
			up = true
		case up:
			b.WriteByte(c)
			up = false
		default:
			b.WriteByte(c - 'A' + 'a')
		}
	}
	return b.String()
}

// names is one enum's spellings: PascalCase by code, and the lookup map
// SecurityUtils builds (PascalCase and its upper case) plus the enum
// constant names (what Kafka's E.fromString accepts, upper-cased).
type names struct {
	pascal []string
	lookup map[string]int8
}

func newNames(enum []string) names {
	n := names{pascal: make([]string, len(enum)), lookup: make(map[string]int8, 3*len(enum))}
	for code, e := range enum {
		p := pascal(e)
		n.pascal[code] = p
		n.lookup[p] = int8(code)
		n.lookup[strings.ToUpper(p)] = int8(code)
		n.lookup[e] = int8(code)
	}
	return n
}

var (
	operationNames  = newNames(operationEnum)
	resourceNames   = newNames(resourceEnum)
	patternNames    = newNames(patternEnum)
	permissionNames = newNames(permissionEnum)
)

// parse looks s up as SecurityUtils.valueFromMap does (exactly, then
// upper-cased with Java's toUpperCase(Locale.ROOT)); the map also holds
// the enum constant names (DESCRIBE_CONFIGS), which SecurityUtils itself
// maps to UNKNOWN but AclOperation.fromString and kafka-acls' help accept.
func (n names) parse(kind, s string) (int8, error) {
	if c, ok := n.lookup[s]; ok {
		return c, nil
	}
	if c, ok := n.lookup[javaUpper(s)]; ok {
		return c, nil
	}
	return 0, fmt.Errorf("unknown %s %q (want one of %s)", kind, s, strings.Join(n.pascal[2:], ", "))
}

func (n names) name(kind string, c int8) string {
	if c >= 0 && int(c) < len(n.pascal) {
		return n.pascal[c]
	}
	return kind + "(" + strconv.Itoa(int(c)) + ")"
}

// javaUpper is String.toUpperCase(Locale.ROOT) for what can matter here:
// the result is compared with ASCII names, so only characters whose upper
// case is ASCII need mapping (a-z; dotless i and long s, by Unicode's simple
// mapping; the Latin ligatures and sharp s, by its special casing). Any
// other character is kept, and so never matches.
func javaUpper(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r == 'ı': // U+0131
			b.WriteByte('I')
		case r == 'ſ': // U+017F
			b.WriteByte('S')
		case r == 'ß':
			b.WriteString("SS")
		case r == 'ﬀ':
			b.WriteString("FF")
		case r == 'ﬁ':
			b.WriteString("FI")
		case r == 'ﬂ':
			b.WriteString("FL")
		case r == 'ﬃ':
			b.WriteString("FFI")
		case r == 'ﬄ':
			b.WriteString("FFL")
		case r == 'ﬅ', r == 'ﬆ':
			b.WriteString("ST")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ParseOperation reads an operation as Kafka's SecurityUtils.operation does
// (PascalCase "DescribeConfigs", or any case of it without underscores,
// "DESCRIBECONFIGS"), and also the enum constant form in any case
// ("DESCRIBE_CONFIGS", as AclOperation.fromString reads it). Where
// SecurityUtils would return UNKNOWN for an unrecognised name, it returns an
// error naming the name; "Unknown" and "Any" parse to OpUnknown and OpAny.
func ParseOperation(s string) (Operation, error) {
	c, err := operationNames.parse("operation", s)
	return Operation(c), err
}

// ParseResourceType reads a resource type as ParseOperation reads an operation.
func ParseResourceType(s string) (ResourceType, error) {
	c, err := resourceNames.parse("resource type", s)
	return ResourceType(c), err
}

// ParsePatternType reads a pattern type (LITERAL, PREFIXED; Literal and
// any case are accepted too, as PatternType.fromString does).
func ParsePatternType(s string) (PatternType, error) {
	c, err := patternNames.parse("pattern type", s)
	return PatternType(c), err
}

// ParsePermission reads a permission type as ParseOperation reads an operation.
func ParsePermission(s string) (Permission, error) {
	c, err := permissionNames.parse("permission type", s)
	return Permission(c), err
}

// String is Kafka's PascalCase name (SecurityUtils.operationName): "DescribeConfigs".
func (o Operation) String() string { return operationNames.name("Operation", int8(o)) }

// String is Kafka's PascalCase name: "TransactionalId".
func (t ResourceType) String() string { return resourceNames.name("ResourceType", int8(t)) }

// String is Kafka's enum name, as kafka-acls and the audit log print it: "LITERAL".
func (p PatternType) String() string {
	if p >= 0 && int(p) < len(patternEnum) {
		return patternEnum[p]
	}
	return "PatternType(" + strconv.Itoa(int(p)) + ")"
}

// String is Kafka's PascalCase name: "Allow".
func (p Permission) String() string { return permissionNames.name("Permission", int8(p)) }

// Enum is the operation's Java enum constant name: "DESCRIBE_CONFIGS".
func (o Operation) Enum() string { return enumName(operationEnum, int8(o)) }

// Enum is the resource type's Java enum constant name: "TRANSACTIONAL_ID".
func (t ResourceType) Enum() string { return enumName(resourceEnum, int8(t)) }

// Enum is the permission's Java enum constant name: "ALLOW".
func (p Permission) Enum() string { return enumName(permissionEnum, int8(p)) }

func enumName(enum []string, c int8) string {
	if c >= 0 && int(c) < len(enum) {
		return enum[c]
	}
	return strconv.Itoa(int(c))
}

// ResourceTypes are the concrete resource types, in code order.
var ResourceTypes = []ResourceType{ResourceTopic, ResourceGroup, ResourceCluster, ResourceTransactionalID, ResourceDelegationToken, ResourceUser}

// Version is a Kafka release line, major.minor: what operations a resource
// type has depends on it.
type Version struct{ Major, Minor int }

// The two lines zkmigrate migrates between.
var (
	Kafka39 = Version{3, 9}
	Kafka41 = Version{4, 1}
)

// ParseVersion reads "3.9", "3.9.1" or "4.1.1" (the patch is ignored).
func ParseVersion(s string) (Version, error) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("kafka version %q: want major.minor[.patch]", s)
	}
	maj, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || maj < 0 || minor < 0 {
		return Version{}, fmt.Errorf("kafka version %q: want major.minor[.patch]", s)
	}
	return Version{maj, minor}, nil
}

// AtLeast reports whether v is the release line o or a later one.
func (v Version) AtLeast(o Version) bool {
	return v.Major > o.Major || v.Major == o.Major && v.Minor >= o.Minor
}

func (v Version) String() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// Operations returns the operations valid for a resource type in release
// line v, as AclEntry.supportedOperations lists them (kafka-acls enforces
// them; brokers and controllers accept any operation on any type), in code
// order, without All. Group gains DescribeConfigs and AlterConfigs in 4.0
// (KAFKA-14510, group configs), TransactionalId TwoPhaseCommit in 4.1
// (KIP-939). A type that is not concrete has none.
func Operations(t ResourceType, v Version) []Operation {
	switch t {
	case ResourceTopic:
		return []Operation{OpRead, OpWrite, OpCreate, OpDelete, OpAlter, OpDescribe, OpDescribeConfigs, OpAlterConfigs}
	case ResourceGroup:
		if v.AtLeast(Version{4, 0}) {
			return []Operation{OpRead, OpDelete, OpDescribe, OpDescribeConfigs, OpAlterConfigs}
		}
		return []Operation{OpRead, OpDelete, OpDescribe}
	case ResourceCluster:
		return []Operation{OpCreate, OpAlter, OpDescribe, OpClusterAction, OpDescribeConfigs, OpAlterConfigs, OpIdempotentWrite}
	case ResourceTransactionalID:
		if v.AtLeast(Kafka41) {
			return []Operation{OpWrite, OpDescribe, OpTwoPhaseCommit}
		}
		return []Operation{OpWrite, OpDescribe}
	case ResourceDelegationToken:
		return []Operation{OpDescribe}
	case ResourceUser:
		return []Operation{OpCreateTokens, OpDescribeTokens}
	}
	return nil
}

// Supports reports whether op is valid on resource type t in release line
// v: one of Operations(t, v), or All.
func Supports(t ResourceType, op Operation, v Version) bool {
	if op == OpAll {
		return len(Operations(t, v)) > 0
	}
	for _, o := range Operations(t, v) {
		if o == op {
			return true
		}
	}
	return false
}
