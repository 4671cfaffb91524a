package access

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/props"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// The broker and controller keys the authorizers read, and the keys that
// say which node a properties file configures.
const (
	KeyClass         = "authorizer.class.name"
	KeySuperUsers    = "super.users"
	KeyAllowEveryone = "allow.everyone.if.no.acl.found"
	KeyRoles         = "process.roles"
	KeyNodeID        = "node.id"
	KeyBrokerID      = "broker.id"
	KeyVoters        = "controller.quorum.voters"
)

// NodeKeys are the keys a live node is asked for (DescribeConfigs).
var NodeKeys = []string{KeyClass, KeySuperUsers, KeyAllowEveryone, KeyRoles, KeyVoters}

// The authorizer classes Kafka ships.
const (
	ClassAclAuthorizer       = "kafka.security.authorizer.AclAuthorizer"
	ClassSimpleAclAuthorizer = "kafka.security.auth.SimpleAclAuthorizer"
	ClassStandardAuthorizer  = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
)

// Kind is the decision procedure a node runs.
type Kind string

// The kinds.
const (
	KindZK     Kind = "AclAuthorizer"      // ZooKeeper mode (and SimpleAclAuthorizer before it)
	KindKRaft  Kind = "StandardAuthorizer" // KRaft
	KindNone   Kind = "none"               // no authorizer: every request is allowed
	KindCustom Kind = "custom"             // another class: its decisions are not known
)

// KindOf is the kind of an authorizer.class.name value ("" is no
// authorizer).
func KindOf(class string) Kind {
	switch strings.TrimSpace(class) {
	case "":
		return KindNone
	case ClassAclAuthorizer, ClassSimpleAclAuthorizer:
		return KindZK
	case ClassStandardAuthorizer:
		return KindKRaft
	}
	return KindCustom
}

// The roles of a node.
const (
	RoleBroker     = "broker"
	RoleController = "controller"
)

// Setting is one authorizer setting of one node and where it comes from.
type Setting struct {
	Value string `json:"value,omitempty"`
	// Set says the node's configuration sets the key; when it does not,
	// Kafka's default applies (no authorizer, no super users, false).
	Set bool `json:"set"`
	// Known says the value is known. A live node hides super.users and
	// allow.everyone.if.no.acl.found (DescribeConfigs returns keys Kafka
	// does not define as sensitive), so only a file gives them.
	Known bool `json:"known"`
	// Where is "FILE:LINE", "node 1 (DescribeConfigs)" or "default".
	Where string `json:"where,omitempty"`
}

// Node is the authorizer configuration of one broker or controller.
type Node struct {
	Name          string   `json:"name"`
	ID            string   `json:"id,omitempty"`
	Roles         []string `json:"roles"`
	Class         Setting  `json:"authorizer_class"`
	SuperUsers    Setting  `json:"super_users"`
	AllowEveryone Setting  `json:"allow_everyone_if_no_acl_found"`
}

// Has reports whether the node has role r.
func (n *Node) Has(r string) bool { return slices.Contains(n.Roles, r) }

// Known reports whether every setting of the node is known.
func (n *Node) Known() bool { return n.Class.Known && n.SuperUsers.Known && n.AllowEveryone.Known }

// Kind is the node's decision procedure (from its class; KindCustom when
// the class is not known).
func (n *Node) Kind() Kind {
	if !n.Class.Known {
		return KindCustom
	}
	return KindOf(n.Class.Value)
}

const defaultWhere = "default"

func fileSetting(f *props.File, key string) Setting {
	if v, ok := f.Get(key); ok {
		return Setting{Value: v, Set: true, Known: true, Where: f.Where(key)}
	}
	return Setting{Known: true, Where: defaultWhere}
}

// NodeFromFile is the node a properties file configures: its roles from
// process.roles (a file without it is a ZooKeeper-mode broker's), its id
// from node.id or broker.id, each setting with its file:line.
func NodeFromFile(f *props.File) Node {
	n := Node{Name: f.Path, Roles: rolesOf(f.Get(KeyRoles))}
	if id, ok := f.Get(KeyNodeID); ok {
		n.ID = strings.TrimSpace(id)
	} else if id, ok := f.Get(KeyBrokerID); ok {
		n.ID = strings.TrimSpace(id)
	}
	n.Class = fileSetting(f, KeyClass)
	n.SuperUsers = fileSetting(f, KeySuperUsers)
	n.AllowEveryone = fileSetting(f, KeyAllowEveryone)
	return n
}

// NodeFromStatic is the node of a server.properties file a snapshot holds
// (--broker-config when it was read): as NodeFromFile, without line
// numbers.
func NodeFromStatic(sc snapshot.StaticConfig) Node {
	get := func(key string) (snapshot.Config, bool) {
		for _, c := range sc.Configs {
			if c.Key == key {
				return c, true
			}
		}
		return snapshot.Config{}, false
	}
	where := sc.File
	setting := func(key string) Setting {
		c, ok := get(key)
		switch {
		case !ok:
			return Setting{Known: true, Where: defaultWhere}
		case c.Sensitive:
			return Setting{Set: true, Where: where}
		}
		return Setting{Value: c.Value, Set: true, Known: true, Where: where}
	}
	roles, ok := get(KeyRoles)
	n := Node{Name: sc.File, ID: sc.BrokerID, Roles: rolesOf(roles.Value, ok)}
	n.Class, n.SuperUsers, n.AllowEveryone = setting(KeyClass), setting(KeySuperUsers), setting(KeyAllowEveryone)
	return n
}

// rolesOf reads process.roles; unset, the node is a ZooKeeper-mode broker.
func rolesOf(v string, set bool) []string {
	if !set {
		return []string{RoleBroker}
	}
	var out []string
	for _, r := range strings.Split(v, ",") {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// LiveEntry is one key of a live node as DescribeConfigs returns it.
type LiveEntry struct {
	Value  *string // nil: hidden by the node
	Source string  // STATIC_BROKER_CONFIG, DYNAMIC_BROKER_CONFIG, DEFAULT_CONFIG, ...
}

// NodeFromLive is a live node (a broker that answered DescribeConfigs) from
// the entries it returned for NodeKeys; a key it did not return is not set.
func NodeFromLive(id int32, entries map[string]LiveEntry) Node {
	where := fmt.Sprintf("node %d (DescribeConfigs)", id)
	setting := func(key string) Setting {
		e, ok := entries[key]
		if !ok || e.Source == "DEFAULT_CONFIG" || e.Source == "" {
			return Setting{Known: true, Where: defaultWhere}
		}
		if e.Value == nil {
			return Setting{Set: true, Where: where}
		}
		return Setting{Value: *e.Value, Set: true, Known: true, Where: where}
	}
	r, ok := entries[KeyRoles]
	roles := []string{RoleBroker}
	if ok && r.Value != nil && *r.Value != "" {
		roles = rolesOf(*r.Value, true)
	}
	n := Node{Name: "node " + strconv.Itoa(int(id)), ID: strconv.Itoa(int(id)), Roles: roles}
	n.Class, n.SuperUsers, n.AllowEveryone = setting(KeyClass), setting(KeySuperUsers), setting(KeyAllowEveryone)
	return n
}

// Voters are the controller ids of controller.quorum.voters
// ("1@host:9093,2@host:9093"); nil when it is empty or does not parse.
func Voters(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		id, _, ok := strings.Cut(strings.TrimSpace(part), "@")
		if !ok {
			return nil
		}
		if _, err := strconv.Atoi(id); err != nil {
			return nil
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// UnknownNode is a node whose settings no input gives (a controller that
// does not answer DescribeConfigs and has no --target-config file, or a
// side described by nothing at all).
func UnknownNode(name, id string, roles ...string) Node {
	unknown := Setting{Where: "not given"}
	return Node{Name: name, ID: id, Roles: roles, Class: unknown, SuperUsers: unknown, AllowEveryone: unknown}
}

// Merge combines what a live node returned with the properties file given
// for it (same node id): the live value wins where both are known, the
// file gives what the node hides, and every disagreement (the file is not
// what the node runs) is a finding naming both places.
func Merge(live, file Node) (Node, []snapshot.Finding) {
	out := live
	out.Name = live.Name + " + " + file.Name
	var fs []snapshot.Finding
	merge := func(key string, l, f Setting) Setting {
		switch {
		case l.Known && f.Known && (l.Set != f.Set || l.Value != f.Value):
			fs = append(fs, mismatch(live.Name, key, l, f))
			return l
		case !l.Known && f.Known && f.Set:
			f.Where += " (" + live.Name + " sets it and hides its value)"
			return f
		case !l.Known && f.Known:
			fs = append(fs, mismatch(live.Name, key, l, f))
			return l
		}
		return l
	}
	out.Class = merge(KeyClass, live.Class, file.Class)
	out.SuperUsers = merge(KeySuperUsers, live.SuperUsers, file.SuperUsers)
	out.AllowEveryone = merge(KeyAllowEveryone, live.AllowEveryone, file.AllowEveryone)
	if !slices.Equal(live.Roles, file.Roles) {
		fs = append(fs, snapshot.Finding{ID: catalogue.IDAccessConfigMismatch, Severity: snapshot.SeverityWarning, Resource: file.Name,
			Message: fmt.Sprintf("%s runs with process.roles=%s, the file says %s", live.Name, strings.Join(live.Roles, ","), strings.Join(file.Roles, ",")),
			Fix:     "give the file the node runs with (--target-config)"})
	}
	return out, fs
}

func mismatch(node, key string, l, f Setting) snapshot.Finding {
	return snapshot.Finding{ID: catalogue.IDAccessConfigMismatch, Severity: snapshot.SeverityWarning, Resource: f.Where,
		Message: fmt.Sprintf("%s: %s runs with %s, the file has %s; the node's own is used", key, node, settingText(l), settingText(f)),
		Fix:     "give the file the node runs with (--target-config), or restart the node with it"}
}

// settingText words a setting for a message.
func settingText(s Setting) string {
	switch {
	case !s.Known && s.Set:
		return "it set (value hidden)"
	case !s.Known:
		return "it unknown"
	case !s.Set:
		return "it unset"
	}
	return strconv.Quote(s.Value)
}
