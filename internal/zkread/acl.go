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

// canonical maps PascalCase or UPPER_CASE spellings to PascalCase, as
// SecurityUtils' lookup maps accept both.
func canonical(s string, names []string) (string, bool) {
	for _, n := range names {
		if s == n || s == upperSnake(n) {
			return n, true
		}
	}
	return "", false
}

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

// CanonicalResourceType returns the PascalCase resource type for a path
// segment or enum name, and whether it is known.
func CanonicalResourceType(s string) (string, bool) { return canonical(s, ResourceTypes) }

// ParseACLs parses an ACL znode ({"version":1,"acls":[...]}) for one
// resource pattern. Entries with unknown operations or permissions make the
// whole znode malformed, as AclEntry.fromBytes does.
func ParseACLs(resourceType, resourceName, patternType string, data []byte) ([]snapshot.ACL, error) {
	var z struct {
		Version flexInt `json:"version"`
		ACLs    []struct {
			Principal  string `json:"principal"`
			Permission string `json:"permissionType"`
			Operation  string `json:"operation"`
			Host       string `json:"host"`
		} `json:"acls"`
	}
	if err := decodeJSON(data, &z); err != nil {
		return nil, err
	}
	if z.ACLs == nil {
		return nil, errors.New("zkread: no acls")
	}
	out := make([]snapshot.ACL, 0, len(z.ACLs))
	for i, a := range z.ACLs {
		op, ok := canonical(a.Operation, operations)
		if !ok {
			return nil, fmt.Errorf("zkread: acl %d: unknown operation %q", i, a.Operation)
		}
		perm, ok := canonical(a.Permission, permissions)
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
