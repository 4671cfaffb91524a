package authz

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Wildcards, as Kafka spells them.
const (
	WildcardPrincipal = "User:*"        // the only wildcard principal (AclEntry.WILDCARD_PRINCIPAL)
	WildcardHost      = "*"             // any host
	WildcardResource  = "*"             // a LITERAL ACL on "*" applies to every name of its type
	ClusterName       = "kafka-cluster" // the cluster resource's only name
)

// ACL is one access-control entry on one resource pattern. Principal is
// "Type:name" as stored ("User:alice", "User:CN=x,O=y"); Host is "*" or
// an address as written (it is compared as text).
type ACL struct {
	Type       ResourceType
	Name       string
	Pattern    PatternType
	Principal  string
	Host       string
	Operation  Operation
	Permission Permission
}

// String renders the ACL as Decision.String names it:
// "ALLOW User:alice Read Topic:orders (LITERAL) from *".
func (a ACL) String() string {
	return a.Permission.Enum() + " " + a.Principal + " " + a.Operation.String() + " " + a.Type.String() + ":" + a.Name +
		" (" + a.Pattern.String() + ") from " + a.Host
}

// FromSnapshot converts the snapshot's ACL (Kafka's names as strings) to an
// ACL. The names must be concrete: a resource type, LITERAL or PREFIXED,
// an operation other than Any and Unknown, Allow or Deny. The error names
// the ACL.
func FromSnapshot(a snapshot.ACL) (ACL, error) {
	var out ACL
	var err error
	fail := func(e error) (ACL, error) { return ACL{}, fmt.Errorf("ACL %s: %w", a, e) }
	if out.Type, err = ParseResourceType(a.ResourceType); err != nil {
		return fail(err)
	}
	if out.Type < ResourceTopic {
		return fail(fmt.Errorf("resource type %s is not concrete", out.Type))
	}
	if out.Pattern, err = ParsePatternType(a.PatternType); err != nil {
		return fail(err)
	}
	if out.Pattern != PatternLiteral && out.Pattern != PatternPrefixed {
		return fail(fmt.Errorf("pattern type %s: an ACL is LITERAL or PREFIXED", out.Pattern))
	}
	if out.Operation, err = ParseOperation(a.Operation); err != nil {
		return fail(err)
	}
	if out.Operation < OpAll {
		return fail(fmt.Errorf("operation %s is not concrete", out.Operation))
	}
	if out.Permission, err = ParsePermission(a.Permission); err != nil {
		return fail(err)
	}
	if out.Permission < Deny {
		return fail(fmt.Errorf("permission %s is not Allow or Deny", out.Permission))
	}
	out.Name, out.Principal, out.Host = a.ResourceName, a.Principal, a.Host
	return out, nil
}

// FromSnapshotACLs converts every ACL of a snapshot; the first error names
// its ACL.
func FromSnapshotACLs(in []snapshot.ACL) ([]ACL, error) {
	out := make([]ACL, 0, len(in))
	for _, a := range in {
		c, err := FromSnapshot(a)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Request is one authorization question: may Principal ("User:alice"),
// connected from Host, perform Operation on the resource Type:Name? Host is
// the client address as Java's InetAddress.getHostAddress prints it
// (HostAddress converts); the name is matched as a LITERAL resource, as
// every broker check does.
type Request struct {
	Principal string
	Host      string
	Operation Operation
	Type      ResourceType
	Name      string
}

func (r Request) String() string {
	return r.Principal + " " + r.Operation.String() + " " + r.Type.String() + ":" + r.Name + " from " + r.Host
}

// HostAddress returns an IP address as the brokers compare it with ACL
// hosts: Java's InetAddress.getByName(ip).getHostAddress(). IPv4 is dotted
// decimal; IPv6 is eight lower-case hex groups without zero compression
// ("::1" is "0:0:0:0:0:0:0:1", so an ACL host written "::1" never matches);
// an IPv4-mapped IPv6 address is its IPv4 address. Host names are not
// resolved (Kafka never does either), nor are zones accepted.
func HostAddress(ip string) (string, error) {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "", fmt.Errorf("host %q is not an IP address: %w", ip, err)
	}
	if a.Zone() != "" {
		return "", fmt.Errorf("host %q: a zone is not supported", ip)
	}
	if a.Is4() || a.Is4In6() {
		return a.Unmap().String(), nil
	}
	b := a.As16()
	var s strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			s.WriteByte(':')
		}
		fmt.Fprintf(&s, "%x", uint16(b[i])<<8|uint16(b[i+1]))
	}
	return s.String(), nil
}
