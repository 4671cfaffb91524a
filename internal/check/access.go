package check

import (
	"errors"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/access"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
)

// checkAccess compares the source's ACLs and settings under ZooKeeper
// mode's AclAuthorizer with the same ACLs and settings under KRaft's
// StandardAuthorizer, as a faithful migration leaves them
// (internal/access): what the two authorizers decide differently for the
// same data (names starting with "*", the idempotent producer's
// by-resource-type check with allow.everyone.if.no.acl.found, ACLs whose
// principal has no type) is an ACCESS-DIFFERENCE; a setting the
// AclAuthorizer refuses is an ACCESS-BAD-SETTING. Without server.properties
// the brokers are taken to have the defaults (no super users,
// allow.everyone.if.no.acl.found false), which the finding says.
func checkAccess(c *run) {
	var src []access.Node
	for _, sc := range c.s.StaticConfigs {
		src = append(src, access.NodeFromStatic(sc))
	}
	assumed := len(src) == 0
	if assumed {
		def := access.Setting{Known: true, Where: "default"}
		src = []access.Node{{Name: "the brokers (no server.properties given: Kafka's defaults assumed)", Roles: []string{access.RoleBroker},
			Class: access.Setting{Value: access.ClassAclAuthorizer, Set: true, Known: true}, SuperUsers: def, AllowEveryone: def}}
	}
	tgt := make([]access.Node, len(src))
	for i, n := range src {
		n.Name = n.Name + " as KRaft"
		n.Roles = []string{access.RoleBroker, access.RoleController}
		if n.Kind() == access.KindZK {
			n.Class.Value = access.ClassStandardAuthorizer
		}
		tgt[i] = n
	}
	res, err := access.Compare(access.Input{
		Source: access.Side{Name: "the source", ACLs: c.s.ACLs, Nodes: src},
		Target: access.Side{Name: "the same ACLs and settings under StandardAuthorizer", ACLs: c.s.ACLs, Nodes: tgt},
	})
	if err != nil {
		resource := "acls"
		var se *access.SettingError
		if errors.As(err, &se) {
			resource = "file:" + se.Where
		}
		c.add(catalogue.IDAccessBadSetting, resource, err.Error(), "")
		return
	}
	for _, f := range access.Findings(res) {
		if f.ID == catalogue.IDAccessNotProved && assumed || strings.HasPrefix(f.Resource, access.SideTarget) {
			continue // the target's mirror of the source's own facts
		}
		msg := f.Message
		if f.ID == catalogue.IDAccessDifference {
			msg = "after a faithful migration, " + lowerFirst(msg)
			if assumed {
				msg += "; assuming Kafka's default settings (give --broker-config)"
			}
		}
		c.addSev(f.ID, f.Severity, f.Resource, msg, f.Fix)
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	if strings.HasPrefix(s, "User:") || strings.HasPrefix(s, "source") || strings.HasPrefix(s, "target") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
