package zkgen

import "strings"

// aclTypes are the resource type nodes AclAuthorizer creates under both ACL
// roots at startup.
var aclTypes = []string{"Topic", "Group", "Cluster", "TransactionalId", "DelegationToken", "User"}

// aclOps are the operations AclEntry.supportedOperations lists per type.
var aclOps = map[string][]string{
	"Topic":           {"Read", "Write", "Create", "Describe", "Delete", "Alter", "DescribeConfigs", "AlterConfigs"},
	"Group":           {"Read", "Describe", "Delete"},
	"Cluster":         {"Create", "ClusterAction", "DescribeConfigs", "AlterConfigs", "IdempotentWrite", "Alter", "Describe"},
	"TransactionalId": {"Describe", "Write"},
	"User":            {"CreateTokens", "DescribeTokens"},
}

// oddOps are valid operation names that make no sense on some types; the
// CreateAcls RPC accepts them, so real clusters hold a few.
var oddOps = []string{"Write", "ClusterAction", "IdempotentWrite", "CreateTokens", "Read"}

type aclResource struct {
	typ      string
	prefixed bool
	name     string
	entries  []aclEntry
	seen     map[aclEntry]bool
}

func (r *aclResource) path() string {
	if r.prefixed {
		return "/kafka-acl-extended/prefixed/" + r.typ + "/" + r.name
	}
	return "/kafka-acl/" + r.typ + "/" + r.name
}

// acls writes cfg.ACLs entries grouped per resource pattern, one znode per
// pattern holding several entries (about 3.6 on average).
func (g *gen) acls(emit func([]Node) error) error {
	total := g.cfg.ACLs
	if total == 0 {
		return nil
	}
	rng := g.rng(5)
	var order []*aclResource
	byKey := map[string]*aclResource{}
	resource := func(typ string, prefixed bool, name string) *aclResource {
		k := typ + "\x00" + name
		if prefixed {
			k = "p\x00" + k
		}
		if r := byKey[k]; r != nil {
			return r
		}
		r := &aclResource{typ: typ, prefixed: prefixed, name: name, seen: map[aclEntry]bool{}}
		byKey[k] = r
		order = append(order, r)
		return r
	}
	principal := func() string {
		switch r := rng.IntN(100); {
		case r < 1:
			return "User:*"
		case r < 90 && len(g.userNames) > 0:
			return "User:" + g.userNames[rng.IntN(len(g.userNames))]
		default:
			return "User:" + userName(rng)
		}
	}
	host := func() string {
		switch r := rng.IntN(1000); {
		case r < 900:
			return "*"
		case r < 985:
			return ipv4(rng)
		case r < 992:
			return ipv6(rng)
		default:
			return "app-01.corp.example.com" // a host name never matches (the authorizer compares IPs)
		}
	}
	topic := func() string {
		if len(g.topicNames) > 0 && rng.IntN(10) < 9 {
			return g.topicNames[rng.IntN(len(g.topicNames))]
		}
		return topicName(rng)
	}

	n := 0
	add := func(r *aclResource, k int) {
		for tries := 0; k > 0 && n < total && tries < 4*k+8; tries++ {
			e := aclEntry{Principal: principal(), PermissionType: "Allow", Host: host()}
			ops := aclOps[r.typ]
			switch x := rng.IntN(1000); {
			case x < 30:
				e.Operation = "All"
			case x < 32:
				e.Operation = pick(rng, oddOps)
			default:
				e.Operation = pick(rng, ops)
			}
			if rng.IntN(100) < 6 {
				e.PermissionType = "Deny"
			}
			if r.seen[e] {
				continue
			}
			r.seen[e] = true
			r.entries = append(r.entries, e)
			n++
			k--
			if e.PermissionType == "Deny" {
				g.sum.ACLDenyEntries++
			}
		}
	}

	add(resource("Cluster", false, "kafka-cluster"), min(8, total))
	for n < total {
		k := 1
		for k < 40 && rng.IntN(100) < 72 {
			k++
		}
		var r *aclResource
		switch x := rng.IntN(1000); {
		case x < 450:
			r = resource("Topic", false, topic())
		case x < 580:
			t, d := pick(rng, teams), pick(rng, domains)
			if rng.IntN(2) == 0 {
				r = resource("Topic", true, t+".")
			} else {
				r = resource("Topic", true, t+"."+d+".")
			}
		case x < 760:
			r = resource("Group", false, groupName(rng))
		case x < 820:
			r = resource("Group", true, pick(rng, teams)+".")
		case x < 900:
			r = resource("TransactionalId", false, transactionalID(rng))
		case x < 940:
			r = resource("TransactionalId", true, pick(rng, teams)+"-"+pick(rng, apps)+"-")
		case x < 970:
			r = resource("Cluster", false, "kafka-cluster")
		case x < 985:
			r = resource(pick(rng, []string{"Topic", "Group"}), false, "*")
		default:
			p := principal()
			if p == "User:*" || strings.Contains(p, "/") { // AclAuthorizer rejects '/' in resource names
				p = "User:svc-" + pick(rng, teams) + "-" + pick(rng, apps)
			}
			r = resource("User", false, p)
		}
		add(r, k)
	}
	for _, r := range order {
		if len(r.entries) == 0 {
			continue
		}
		if err := emit([]Node{{r.path(), aclZNode(r.entries)}}); err != nil {
			return err
		}
		g.sum.ACLResources++
		g.sum.ACLEntries += len(r.entries)
		if r.prefixed {
			g.sum.ACLPrefixedResources++
		}
	}
	return nil
}
