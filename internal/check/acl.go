package check

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// supportedOps is AclEntry.supportedOperations: the operations the
// authorizer ever checks per resource type (All matches every one).
var supportedOps = map[string][]string{
	"Topic":           {"Read", "Write", "Create", "Describe", "Delete", "Alter", "DescribeConfigs", "AlterConfigs"},
	"Group":           {"Read", "Describe", "Delete"},
	"Cluster":         {"Create", "ClusterAction", "DescribeConfigs", "AlterConfigs", "IdempotentWrite", "Alter", "Describe"},
	"TransactionalId": {"Describe", "Write"},
	"DelegationToken": {"Describe"},
	"User":            {"CreateTokens", "DescribeTokens"},
}

var knownOps = []string{"All", "Read", "Write", "Create", "Delete", "Alter", "Describe", "ClusterAction",
	"DescribeConfigs", "AlterConfigs", "IdempotentWrite", "CreateTokens", "DescribeTokens"}

// canon maps PascalCase and UPPER_CASE spellings (both accepted by Kafka)
// to PascalCase.
var canon = func() map[string]string {
	m := map[string]string{}
	add := func(s string) { m[fold(s)] = s }
	for _, s := range knownOps {
		add(s)
	}
	for t := range supportedOps {
		add(t)
	}
	for _, s := range []string{"Allow", "Deny", "LITERAL", "PREFIXED"} {
		add(s)
	}
	return m
}()

func fold(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// canonical returns the PascalCase spelling of an enum name, or s itself
// when unknown.
func canonical(s string) string {
	if c, ok := canon[fold(s)]; ok {
		return c
	}
	return s
}

// acl is an ACL with its enum names normalised.
type acl struct {
	snapshot.ACL
}

func normalise(a snapshot.ACL) acl {
	a.ResourceType = canonical(a.ResourceType)
	a.PatternType = canonical(a.PatternType)
	a.Operation = canonical(a.Operation)
	a.Permission = canonical(a.Permission)
	return acl{a}
}

func (a acl) pattern() string { return a.ResourceType + ":" + a.PatternType + ":" + a.ResourceName }

const wildcardPrincipal = "User:*"

// checkACLs runs the ACL hygiene checks; every one is linear in the number
// of ACLs (denies are indexed by resource and principal).
func checkACLs(c *run) {
	if len(c.s.ACLs) == 0 {
		return
	}
	acls := make([]acl, len(c.s.ACLs))
	for i, a := range c.s.ACLs {
		acls[i] = normalise(a)
	}
	checkACLHosts(c, acls)
	checkACLOperations(c, acls)
	checkClusterCreate(c, acls)
	checkDenyShadows(c, acls)
}

func checkACLHosts(c *run, acls []acl) {
	for _, a := range acls {
		if a.Host == "*" {
			continue
		}
		reason, want := hostProblem(a.Host)
		if reason == "" {
			continue
		}
		sev := SeverityWarning
		if a.Permission == "Deny" {
			sev = SeverityError
		}
		fix := ""
		if want != "" {
			fix = fmt.Sprintf("Recreate the entry with host %s, the form Kafka compares against, and delete this one.", want)
		}
		c.addSev("ACL-HOST-NEVER-MATCHES", sev, "acl:"+a.pattern(),
			fmt.Sprintf("%s %s %s from host %q: %s", a.Permission, a.Principal, a.Operation, a.Host, reason), fix)
	}
}

// hostProblem says why an ACL host never matches, and the string Kafka
// would compare when the host is a valid address in another spelling.
func hostProblem(h string) (reason, want string) {
	if strings.Contains(h, "/") {
		return "a CIDR range; Kafka compares hosts as exact strings", ""
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return "not an IP address (hostnames are never resolved)", ""
	}
	if v4 := ip.To4(); v4 != nil {
		if s := v4.String(); s != h {
			return "clients connecting over IPv4 are seen as " + s, s
		}
		return "", ""
	}
	if s := javaIPv6(ip); s != h {
		return "Java prints this address as " + s, s
	}
	return "", ""
}

// javaIPv6 formats an IPv6 address as Java's Inet6Address.getHostAddress
// does: eight groups of lower-case hex without leading zeros, never "::".
func javaIPv6(ip net.IP) string {
	var b strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%x", uint16(ip[i])<<8|uint16(ip[i+1]))
	}
	return b.String()
}

func checkACLOperations(c *run, acls []acl) {
	for _, a := range acls {
		if a.Operation == "All" {
			continue
		}
		ops, knownType := supportedOps[a.ResourceType]
		if !knownType || slices.Contains(ops, a.Operation) {
			continue // unknown resource types are the reader's to report
		}
		what := "Kafka never checks " + a.Operation + " on a " + a.ResourceType
		if !slices.Contains(knownOps, a.Operation) {
			what = "unknown operation " + a.Operation
		}
		c.add("ACL-UNCHECKED-OPERATION", "acl:"+a.pattern(),
			fmt.Sprintf("%s %s %s from %s: %s", a.Permission, a.Principal, a.Operation, a.Host, what),
			fmt.Sprintf("Delete the entry, or use an operation %s supports: %s.", a.ResourceType, strings.Join(ops, ", ")))
	}
}

// checkClusterCreate finds principals allowed Create (or All) on the
// cluster and suggests the topic patterns they already use.
func checkClusterCreate(c *run, acls []acl) {
	grants := map[string][]string{} // principal → Cluster grants
	topics := map[string][]string{} // principal → topic patterns it is allowed on
	seenTopic := map[string]bool{}
	for _, a := range acls {
		if a.Permission != "Allow" {
			continue
		}
		switch a.ResourceType {
		case "Cluster":
			if a.Operation == "Create" || a.Operation == "All" {
				grants[a.Principal] = append(grants[a.Principal], fmt.Sprintf("Allow %s on %s from %s", a.Operation, a.pattern(), a.Host))
			}
		case "Topic":
			k := a.Principal + "\x00" + a.pattern()
			if !seenTopic[k] {
				seenTopic[k] = true
				topics[a.Principal] = append(topics[a.Principal], a.pattern())
			}
		}
	}
	for p, gs := range grants {
		msg := strings.Join(gs, "; ")
		if p == wildcardPrincipal {
			msg += " (every principal may create any topic)"
		}
		fix := "Grant Create only on the topic names or PREFIXED patterns " + p + " should create, then remove the Cluster grant."
		if ts := topics[p]; len(ts) > 0 {
			slices.Sort(ts)
			fix = fmt.Sprintf("Grant Create on the topic patterns %s already uses (%s), e.g. kafka-acls --add --allow-principal %s --operation Create --topic <name> [--resource-pattern-type prefixed]; then remove the Cluster grant.", p, sample(ts, 5), p)
		}
		c.add("ACL-CLUSTER-CREATE", "principal:"+p, msg, fix)
	}
}

// checkDenyShadows finds Allow entries cancelled by a Deny entry. Denies are
// indexed by (type, name, principal) for LITERAL patterns and by (type,
// principal) → prefix for PREFIXED ones, so each Allow costs a few map
// lookups per character of its resource name.
func checkDenyShadows(c *run, acls []acl) {
	literal := map[string][]int{}
	prefixed := map[string]map[string][]int{}
	for i, a := range acls {
		if a.Permission != "Deny" {
			continue
		}
		switch a.PatternType {
		case "LITERAL":
			k := a.ResourceType + "\x00" + a.ResourceName + "\x00" + a.Principal
			literal[k] = append(literal[k], i)
		case "PREFIXED":
			k := a.ResourceType + "\x00" + a.Principal
			m := prefixed[k]
			if m == nil {
				m = map[string][]int{}
				prefixed[k] = m
			}
			m[a.ResourceName] = append(m[a.ResourceName], i)
		}
	}
	if len(literal) == 0 && len(prefixed) == 0 {
		return
	}
	covers := func(allow acl, ids []int) int {
		for _, i := range ids {
			d := acls[i]
			if (d.Operation == "All" || d.Operation == allow.Operation) && (d.Host == "*" || d.Host == allow.Host) {
				return i
			}
		}
		return -1
	}
	for _, a := range acls {
		if a.Permission != "Allow" || (a.PatternType != "LITERAL" && a.PatternType != "PREFIXED") {
			continue
		}
		principals := []string{a.Principal}
		if a.Principal != wildcardPrincipal {
			principals = append(principals, wildcardPrincipal)
		}
		found := -1
		for _, p := range principals {
			if a.PatternType == "LITERAL" {
				if found = covers(a, literal[a.ResourceType+"\x00"+a.ResourceName+"\x00"+p]); found >= 0 {
					break
				}
			}
			if a.ResourceName != "*" {
				if found = covers(a, literal[a.ResourceType+"\x00*\x00"+p]); found >= 0 {
					break
				}
			}
			if m := prefixed[a.ResourceType+"\x00"+p]; m != nil && a.ResourceName != "*" {
				for n := 1; n <= len(a.ResourceName) && found < 0; n++ {
					found = covers(a, m[a.ResourceName[:n]])
				}
				if found >= 0 {
					break
				}
			}
		}
		if found < 0 {
			continue
		}
		d := acls[found]
		c.add("ACL-DENY-SHADOWS-ALLOW", "acl:"+a.pattern(),
			fmt.Sprintf("Allow %s %s from %s is cancelled by Deny %s %s on %s from %s", a.Principal, a.Operation, a.Host, d.Principal, d.Operation, d.pattern(), d.Host), "")
	}
}
