package zkread

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Pattern types as the snapshot spells them.
const (
	PatternLiteral  = "LITERAL"
	PatternPrefixed = "PREFIXED"
)

// ResourceTypes are the ACL resource types, PascalCase as ZooKeeper paths
// spell them.
var ResourceTypes = []string{"Topic", "Group", "Cluster", "TransactionalId", "DelegationToken", "User"}

var operations = []string{"All", "Read", "Write", "Create", "Delete", "Alter", "Describe", "ClusterAction",
	"DescribeConfigs", "AlterConfigs", "IdempotentWrite", "CreateTokens", "DescribeTokens"}

var permissions = []string{"Allow", "Deny"}

// spellings maps each name's PascalCase and UPPER_CASE spellings to the
// PascalCase one, as SecurityUtils' lookup maps accept both.
func spellings(names []string) map[string]string {
	m := make(map[string]string, 2*len(names))
	for _, n := range names {
		m[n] = n
		m[upperSnake(n)] = n
	}
	return m
}

var (
	resourceTypeNames = spellings(ResourceTypes)
	operationNames    = spellings(operations)
	permissionNames   = spellings(permissions)
)

func upperSnake(pascal string) string {
	var b strings.Builder
	for i, r := range pascal {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// ResourceTypeSpellings returns the path segments a resource type's ACLs
// may be under: its PascalCase and UPPER_CASE spellings (one for an
// unknown type: as given).
func ResourceTypeSpellings(t string) []string {
	c, ok := CanonicalResourceType(t)
	if !ok {
		return []string{t}
	}
	return []string{c, upperSnake(c)}
}

// CanonicalResourceType returns the PascalCase resource type for a path
// segment or enum name, and whether it is known.
func CanonicalResourceType(s string) (string, bool) {
	n, ok := resourceTypeNames[s]
	return n, ok
}

// ParseACLs parses an ACL znode ({"version":1,"acls":[...]}) for one
// resource pattern. Entries with unknown operations or permissions make the
// whole znode malformed, as AclEntry.fromBytes does.
func ParseACLs(resourceType, resourceName, patternType string, data []byte) ([]snapshot.ACL, error) {
	z, err := decodeACLs(data)
	if err != nil {
		return nil, err
	}
	if z.ACLs == nil {
		return nil, errors.New("zkread: no acls")
	}
	out := make([]snapshot.ACL, 0, len(z.ACLs))
	for i, a := range z.ACLs {
		op, ok := operationNames[a.Operation]
		if !ok {
			return nil, fmt.Errorf("zkread: acl %d: unknown operation %q", i, a.Operation)
		}
		perm, ok := permissionNames[a.Permission]
		if !ok {
			return nil, fmt.Errorf("zkread: acl %d: unknown permissionType %q", i, a.Permission)
		}
		if typ, _, ok := strings.Cut(a.Principal, ":"); !ok || typ == "" {
			return nil, fmt.Errorf("zkread: acl %d: principal %q is not Type:name", i, a.Principal)
		}
		if a.Host == "" {
			return nil, fmt.Errorf("zkread: acl %d: no host", i)
		}
		out = append(out, snapshot.ACL{ResourceType: resourceType, ResourceName: resourceName, PatternType: patternType,
			Principal: a.Principal, Host: a.Host, Operation: op, Permission: perm})
	}
	return out, checkVersion(z.Version, 1, 1)
}
