package plan

import (
	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/secret"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// FormatVersion is the version of the saved plan schema. Version 2 added
// Digest and requires both cluster ids; version 3 dropped each change's
// "rpc" (apply decides which RPC carries a change) (docs/plan-file.md).
const FormatVersion = 3

// Kind is a change kind. One vocabulary serves --include/--exclude, JSON,
// the TUI and the audit trail.
type Kind string

// Kinds lists every kind in apply order: the registry's (kinds.go), the
// one list of kinds. Each kind's constant is in its spec's file.
var Kinds []Kind

// Action is what a change does to its resource.
type Action string

// The actions.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
	ActionNoOp   Action = "no-op"
)

// Plan is the ordered set of changes that bring a target in line with a
// source, with the blockers and findings met on the way. It is plain data:
// saved as JSON by --out and applied later.
type Plan struct {
	Format int `json:"format"`
	// Digest is "sha256:" and the hex SHA-256 of the plan's canonical
	// encoding with Digest empty (planfile.Digest); a saved plan whose
	// content does not match it is refused as corrupted or edited.
	Digest string `json:"digest,omitempty"`
	// Signature, on a plan saved with a signing key (plan --out
	// --sign-key), is an ed25519 signature of Digest (internal/plansign):
	// it covers everything the digest covers. Like Digest it is left out
	// of the canonical encoding, and a file holds it last.
	Signature *Signature `json:"signature,omitempty"`
	// Fingerprint identifies the target state the plan was built against (a
	// hash of every resource state the plan's changes expect).
	Fingerprint string   `json:"fingerprint"`
	Source      Endpoint `json:"source"`
	Target      Endpoint `json:"target"`
	Options     Options  `json:"options"`
	// Reverts is set on a revert plan (migrate audit revert): the audited
	// run it undoes, which justifies it instead of a source.
	Reverts  *Reverts           `json:"reverts,omitempty"`
	Changes  []Change           `json:"changes"`
	Blockers []Blocker          `json:"blockers,omitempty"`
	Findings []snapshot.Finding `json:"findings,omitempty"`
	// Policy lists policy notes that are not verdicts on one change, such as
	// adapter entries enforced server-side.
	PolicyNotes []string `json:"policy_notes,omitempty"`
}

// Signature is a saved plan's signature (internal/plansign): the key that
// made it, by its ID (the audit key ID: 16 hex digits of the SHA-256 of
// the ed25519 public key), and the signature, base64.
type Signature struct {
	KeyID   string `json:"key_id"`
	Ed25519 string `json:"ed25519"`
}

// Endpoint describes one side of the plan, without credentials.
type Endpoint struct {
	Kind      string `json:"kind"` // zookeeper, snapshot, kafka
	Address   string `json:"address,omitempty"`
	ClusterID string `json:"cluster_id,omitempty"`
	Digest    string `json:"digest,omitempty"` // snapshot.Digest of what was read
}

// Change is one runnable change to one resource.
//
// Before is the resource's state on the target when the plan was built (nil
// when the resource is absent); After is its state once the change is
// applied (nil for a delete). Apply refuses a change whose resource is in
// neither state (the plan is stale for it) and skips one already in After.
type Change struct {
	ID       string   `json:"id"` // stable: kind + resource key
	Kind     Kind     `json:"kind"`
	Action   Action   `json:"action"`
	Resource Resource `json:"resource"`
	Before   *State   `json:"before"`
	After    *State   `json:"after"`
	Verdict  *Verdict `json:"verdict,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// Resource identifies what a change touches.
type Resource struct {
	Type string `json:"type"` // topic, broker, quota, acl, user, client-metrics, group
	// Name: topic name; broker id ("" = cluster default); quota entity
	// string; ACL key string; user name; subscription name; group id.
	Name      string               `json:"name"`
	Entity    snapshot.QuotaEntity `json:"entity,omitempty"`
	ACL       *snapshot.ACL        `json:"acl,omitempty"`
	Mechanism string               `json:"mechanism,omitempty"`
}

// State is the part of a resource's state a change is about. Which fields
// are set depends on the change kind:
//
//	topic:         Partitions, ReplicationFactor, Assignment (when placed explicitly), Configs
//	partitions:    Partitions, Assignment (of the new partitions, when placed explicitly)
//	reassignment:  Assignment
//	topic-config:  Configs (only the keys the change touches)
//	broker-config: Configs (only the keys the change touches)
//	quota:         Quota (only the keys the change touches)
//	acl:           Present
//	scram-user:    Iterations, Password
//	client-metrics: Configs (only the keys the change touches)
//	group-config:  Configs (only the keys the change touches)
type State struct {
	Partitions        int32              `json:"partitions,omitempty"`
	ReplicationFactor int                `json:"replication_factor,omitempty"`
	Assignment        [][]int32          `json:"assignment,omitempty"`
	Configs           []snapshot.Config  `json:"configs,omitempty"`
	Quota             map[string]float64 `json:"quota,omitempty"`
	Present           bool               `json:"present,omitempty"`
	Iterations        int32              `json:"iterations,omitempty"`
	Password          *secret.Secret     `json:"password,omitempty"`
}

// Verdict is the policy decision on a change.
type Verdict struct {
	Allowed bool   `json:"allowed"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message,omitempty"`
}

// Blocker is a wanted change the tool will not or cannot make.
type Blocker struct {
	ID       string `json:"id"` // stable reason id, e.g. "scram-no-password"
	Kind     Kind   `json:"kind"`
	Resource string `json:"resource"`
	Reason   string `json:"reason"`
	Fix      string `json:"fix,omitempty"`
	// Change is the change that was blocked, when one was computed (for
	// instance a policy denial).
	Change *Change `json:"change,omitempty"`
	// User and Mechanism name the SCRAM credential a scram-no-password
	// blocker is about, for the list of passwords to reset (ScramResets).
	// Build sets them; a plan file does not keep them (the list is written
	// from the plan just built).
	User      string `json:"-"`
	Mechanism string `json:"-"`
}

// ScramReset is a SCRAM credential whose password must be reset on the
// target: the plan has no password to recreate it with.
type ScramReset struct {
	User      string `json:"user"`
	Mechanism string `json:"mechanism"`
}

// ScramResets lists the SCRAM credentials p could not recreate for want of
// a password (its scram-no-password blockers), in blocker order.
func (p *Plan) ScramResets() []ScramReset {
	list := []ScramReset{}
	for _, b := range p.Blockers {
		if b.ID == catalogue.IDBlockScramNoPassword {
			list = append(list, ScramReset{User: b.User, Mechanism: b.Mechanism})
		}
	}
	return list
}

// The placements of Options.Placement.
const (
	// PlacementAuto creates topics with the source's exact replica lists
	// when every broker they name exists on the target, else lets the
	// target place them (with a finding).
	PlacementAuto = "auto"
	// PlacementSource requires the source's exact replica lists.
	PlacementSource = "source"
	// PlacementTarget always lets the target place replicas.
	PlacementTarget = "target"
)

// Options are the choices that shaped a plan.
type Options struct {
	Include        []Kind          `json:"include,omitempty"`
	Exclude        []Kind          `json:"exclude,omitempty"`
	TopicRegex     string          `json:"topics,omitempty"`
	PrincipalRegex string          `json:"principals,omitempty"`
	BrokerIDMap    map[int32]int32 `json:"broker_id_map,omitempty"`
	// Placement is how new topics and partitions get their replicas:
	// PlacementAuto ("" too), PlacementSource or PlacementTarget.
	Placement string `json:"placement,omitempty"`
	Prune     bool   `json:"prune,omitempty"`
	// PruneClusterConfigs lets Prune delete cluster-level (<default>)
	// broker configs the source does not have.
	PruneClusterConfigs bool `json:"prune_cluster_configs,omitempty"`
	// RaiseToTargetMinimums creates topics whose values the target refuses
	// with the nearest value it accepts, each adjustment named in the plan.
	RaiseToTargetMinimums bool   `json:"raise_to_target_minimums,omitempty"`
	Reassign              bool   `json:"reassign,omitempty"`
	ResendSecrets         bool   `json:"resend_secrets,omitempty"`
	TargetVersion         string `json:"target_version,omitempty"`
	Principal             string `json:"principal,omitempty"` // who applies, for the policy
	// OwnUser is the SASL user the tool authenticates to the target as
	// ("" without SASL): Prune never deletes its SCRAM credentials (a
	// blocker instead), which would lock the tool out mid-apply. The
	// command sets it from the connection, at plan, apply and sync.
	OwnUser string `json:"own_user,omitempty"`
	// Policy is "sha256:<hex>" of the TopicActionPolicy file the plan was
	// made with, "" without one; apply --plan requires the same file again.
	Policy string `json:"policy,omitempty"`
	// PrincipalMap is the principal map (--principal-map) the source was
	// mapped with before the plan was built, principalmap.Map.Digest
	// ("sha256:<hex>" of its canonical form), "" without one; apply --plan
	// requires the same map again.
	PrincipalMap string `json:"principal_map,omitempty"`
}
