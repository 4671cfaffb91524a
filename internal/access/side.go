package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Side is one cluster as the proof sees it: its ACLs, the authorizer
// configuration of each of its nodes and its Kafka release line.
type Side struct {
	// Name names the side in the result: "source zookeeper 127.0.0.1:2181".
	Name string
	ACLs []snapshot.ACL
	// Nodes are its brokers (and KRaft controllers), each with its own
	// settings. A ZooKeeper-mode broker decides every request it gets; a
	// KRaft broker every request but the admin requests it forwards,
	// which its controllers decide (ControllerRequests).
	Nodes []Node
	// Version is the Kafka line ("3.9", "4.1"): the operations each
	// resource type has (authz.Operations). "" is 3.9 for a source and
	// 4.1 for a target.
	Version string
	// Gaps name what of the side is not known (ACLs a reader could not
	// represent, ...): each is a gap of the proof.
	Gaps []string
	// Findings are facts met while reading the side's settings (a file
	// that is not what a node runs); the result carries them.
	Findings []snapshot.Finding
}

// The two sides.
const (
	SideSource = "source"
	SideTarget = "target"
)

// Scopes of a variant: which requests its nodes decide.
const (
	ScopeAll        = "all requests"
	ScopeController = "requests the controllers decide"
)

// controllerOps are the operations KRaft controllers check, per resource
// type: the admin requests brokers forward to them (CreateTopics,
// DeleteTopics, CreatePartitions, (Incremental)AlterConfigs, CreateAcls,
// DeleteAcls, AlterUserScramCredentials, AlterClientQuotas,
// AlterPartitionReassignments, ElectLeaders, UpdateFeatures, the
// delegation-token calls) and what clients send to controllers directly
// (KIP-919: DescribeCluster, DescribeConfigs, ...), plus the nodes'
// own ClusterAction (kafka-authorizers §2.2, §4.2).
var controllerOps = map[authz.ResourceType][]authz.Operation{
	authz.ResourceCluster:         {authz.OpCreate, authz.OpAlter, authz.OpDescribe, authz.OpClusterAction, authz.OpDescribeConfigs, authz.OpAlterConfigs, authz.OpIdempotentWrite, authz.OpDelete},
	authz.ResourceTopic:           {authz.OpCreate, authz.OpDelete, authz.OpAlter, authz.OpAlterConfigs, authz.OpDescribe, authz.OpDescribeConfigs},
	authz.ResourceGroup:           {authz.OpAlterConfigs, authz.OpDescribeConfigs},
	authz.ResourceUser:            {authz.OpCreateTokens, authz.OpDescribeTokens},
	authz.ResourceDelegationToken: {authz.OpDescribe},
}

// ControllerDecides reports whether KRaft controllers decide requests for
// op on resources of type t.
func ControllerDecides(t authz.ResourceType, op authz.Operation) bool {
	return slices.Contains(controllerOps[t], op)
}

// variant is one distinct authorizer configuration of one side, with the
// nodes that run it and the requests they decide.
type variant struct {
	side string
	key  string // variantKey of its nodes
	// slot names the variant without its nodes' names ("target/all
	// requests/1"), so that a cause's id does not change with file paths.
	slot  string
	nodes []string
	kind  Kind
	scope string
	class string
	// super and allow are the settings as written ("" when unset or
	// unknown); unknownSuper and unknownAllow say a value is not known.
	super, allow               string
	unknownSuper, unknownAllow bool
	cfg                        authz.Config
	az                         authz.Authorizer // nil for KindNone and KindCustom
	// where names the settings' origins for messages.
	whereSuper, whereAllow string
}

// label names the variant's nodes for people: "source (server.properties)".
func (v *variant) label() string {
	s := v.side + " (" + strings.Join(v.nodes, ", ")
	if v.scope == ScopeController {
		s += "; as controller"
	}
	return s + ")"
}

// decides reports whether the variant decides requests for op on type t.
func (v *variant) decides(t authz.ResourceType, op authz.Operation) bool {
	return v.scope == ScopeAll || ControllerDecides(t, op)
}

// variantKey is what makes two nodes' configurations the same.
func variantKey(n *Node) string {
	return strings.Join([]string{string(n.Kind()), n.Class.Value, n.SuperUsers.Value, n.AllowEveryone.Value,
		fmt.Sprint(n.SuperUsers.Known, n.AllowEveryone.Known, n.Class.Known)}, "\x00")
}

// buildVariants groups a side's nodes by configuration and parses each
// configuration as its authorizer does. A setting the authorizer refuses
// at start-up is an error naming where it is set. findings name nodes
// that disagree, and a side without an authorizer.
func buildVariants(side string, nodes []Node, acls []authz.ACL) ([]*variant, []snapshot.Finding, error) {
	var out []*variant
	var findings []snapshot.Finding
	byKey := map[string]*variant{}
	scopes := []string{ScopeAll}
	if side == SideTarget {
		scopes = append(scopes, ScopeController)
	}
	azCache := map[string]authz.Authorizer{}
	for _, scope := range scopes {
		for i := range nodes {
			n := &nodes[i]
			role := RoleBroker
			if scope == ScopeController {
				role = RoleController
			}
			if side == SideSource {
				role = "" // every ZooKeeper-mode broker decides everything
			}
			if role != "" && !n.Has(role) {
				continue
			}
			vk := variantKey(n)
			key := scope + "\x00" + vk
			if v := byKey[key]; v != nil {
				v.nodes = append(v.nodes, n.Name)
				continue
			}
			v := &variant{side: side, key: vk, nodes: []string{n.Name}, kind: n.Kind(), scope: scope, class: n.Class.Value,
				unknownSuper: !n.SuperUsers.Known, unknownAllow: !n.AllowEveryone.Known,
				whereSuper: n.SuperUsers.Where, whereAllow: n.AllowEveryone.Where}
			if n.SuperUsers.Known {
				v.super = n.SuperUsers.Value
			}
			if n.AllowEveryone.Known {
				v.allow = n.AllowEveryone.Value
			}
			if err := v.parse(); err != nil {
				return nil, nil, err
			}
			if v.kind == KindZK || v.kind == KindKRaft {
				ck := string(v.kind) + "\x00" + v.super + "\x00" + v.allow
				if az, ok := azCache[ck]; ok {
					v.az = az
				} else {
					v.az = newAuthorizer(v.kind, acls, v.cfg, v.class)
					azCache[ck] = v.az
				}
			}
			byKey[key] = v
			same := 0
			for _, o := range out {
				if o.scope == scope {
					same++
				}
			}
			v.slot = fmt.Sprintf("%s/%s/%d", side, scope, same)
			out = append(out, v)
		}
	}
	// A controller variant that a broker variant with the same settings
	// already covers decides nothing the broker variant does not.
	kept := out[:0]
	for _, v := range out {
		if v.scope == ScopeController {
			if b := byKey[ScopeAll+"\x00"+v.key]; b != nil {
				for _, n := range v.nodes {
					if !slices.Contains(b.nodes, n) {
						b.nodes = append(b.nodes, n)
					}
				}
				continue
			}
		}
		kept = append(kept, v)
	}
	out = kept
	var all []*variant
	for _, v := range out {
		if v.scope == ScopeAll {
			all = append(all, v)
		}
	}
	if len(all) > 1 || len(out) > len(all) {
		var parts []string
		for _, v := range out {
			parts = append(parts, v.label()+": "+v.settingsText())
		}
		findings = append(findings, snapshot.Finding{ID: catalogue.IDAccessNodesDisagree, Severity: snapshot.SeverityWarning, Resource: side,
			Message: "the " + side + "'s nodes run different authorizer settings: " + strings.Join(parts, "; "),
			Fix:     "give every node the same authorizer.class.name, super.users and allow.everyone.if.no.acl.found"})
	}
	for _, v := range out {
		if v.kind == KindNone {
			findings = append(findings, snapshot.Finding{ID: catalogue.IDAccessNoAuthorizer, Severity: snapshot.SeverityWarning, Resource: v.label(),
				Message: "no authorizer.class.name: every request is allowed on " + v.label(),
				Fix:     "set authorizer.class.name on every node"})
		}
	}
	return out, findings, nil
}

// parse reads the variant's settings as its authorizer does.
func (v *variant) parse() error {
	parse := authz.ParseKRaftConfig
	if v.kind == KindZK {
		parse = authz.ParseZKConfig
	}
	if v.kind != KindZK && v.kind != KindKRaft {
		return nil
	}
	su, err := parse(v.super, "")
	if err != nil {
		return &SettingError{Where: v.whereSuper, Key: KeySuperUsers, Err: err}
	}
	ae, err := parse("", v.allow)
	if err != nil {
		return &SettingError{Where: v.whereAllow, Key: KeyAllowEveryone, Err: err}
	}
	v.cfg = authz.Config{SuperUsers: su.SuperUsers, AllowEveryoneIfNoACLFound: ae.AllowEveryoneIfNoACLFound}
	return nil
}

// SettingError is a setting the node's authorizer refuses at start-up.
type SettingError struct {
	Where string // FILE:LINE
	Key   string
	Err   error
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s: %v (the broker does not start with it)", e.Where, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }

// newAuthorizer builds the decision procedure of a kind.
func newAuthorizer(k Kind, acls []authz.ACL, cfg authz.Config, class string) authz.Authorizer {
	if k == KindKRaft {
		return authz.NewKRaft(acls, cfg)
	}
	if class == ClassSimpleAclAuthorizer {
		return authz.NewZKLegacy(acls, cfg, authz.Version{Major: 2, Minor: 3})
	}
	return authz.NewZK(acls, cfg)
}

// settingsText words a variant's configuration.
func (v *variant) settingsText() string {
	cls := string(v.kind)
	if v.kind == KindCustom {
		cls = v.class
		if cls == "" {
			cls = "not known"
		}
	}
	su, ae := quoteOr(v.super, "none"), quoteOr(v.allow, "false")
	if v.unknownSuper {
		su = "not known"
	}
	if v.unknownAllow {
		ae = "not known"
	}
	return "authorizer " + cls + ", super.users " + su + ", allow.everyone.if.no.acl.found " + ae
}

func quoteOr(s, none string) string {
	if strings.TrimSpace(s) == "" {
		return none
	}
	return fmt.Sprintf("%q", s)
}
