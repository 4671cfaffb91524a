package access

import (
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// The verdicts.
const (
	// Equivalent: the target decides every request class as the source.
	Equivalent = "equivalent"
	// Differences: some request classes are decided differently (and
	// the operator did not accept their cause).
	Differences = "differences"
	// NotProved: no difference was found among what could be decided,
	// but part of it could not be (NotProved lists what).
	NotProved = "not proved"
)

// Result is the outcome of a comparison: the machine contract of
// `migrate access diff -o json`.
type Result struct {
	Verdict string `json:"verdict"`
	// Digest is "sha256:" and the hex SHA-256 of both inputs (ACLs,
	// settings, principal map) and the verdict, counts and group ids: the
	// proof's identity in the audit trail.
	Digest string     `json:"digest"`
	Source SideResult `json:"source"`
	Target SideResult `json:"target"`
	// PrincipalMap names the map the target principals come from ("" when
	// none: every principal is compared with itself).
	PrincipalMap string `json:"principal_map,omitempty"`
	// Classes is the number of request classes decided on both sides;
	// Differing of them are decided differently.
	Classes   int64 `json:"classes"`
	Differing int64 `json:"differing"`
	// Principals, Hosts and Names count what the classes range over.
	Principals int `json:"principals"`
	Hosts      int `json:"hosts"`
	Names      int `json:"names"`
	// Groups are the counterexamples grouped by cause, largest first.
	Groups []Group `json:"groups,omitempty"`
	// Gaps are what could not be decided, so is not proved.
	Gaps []Gap `json:"not_proved,omitempty"`
	// Accepted is how many request classes accepted causes change;
	// UnusedAccepts are accepted ids no cause has.
	Accepted      int64    `json:"accepted,omitempty"`
	UnusedAccepts []string `json:"unused_accepts,omitempty"`
	// Findings are facts about the inputs: nodes that disagree, a file
	// that is not what a node runs, a side without an authorizer.
	Findings []snapshot.Finding `json:"findings,omitempty"`
}

// SideResult describes one side of the proof.
type SideResult struct {
	Name  string `json:"name"`
	ACLs  int    `json:"acls"`
	Nodes []Node `json:"nodes"`
	// Authorizers are its distinct configurations, each with the nodes
	// that run it and the requests they decide.
	Authorizers []Authorizer `json:"authorizers"`
}

// Authorizer is one distinct authorizer configuration of a side.
type Authorizer struct {
	Nodes    []string `json:"nodes"`
	Decides  string   `json:"decides"` // ScopeAll or ScopeController
	Kind     Kind     `json:"kind"`
	Class    string   `json:"class,omitempty"`
	Settings string   `json:"settings"`
}

// Group is the counterexamples one cause makes: one missing ACL is one
// group with the number of request classes it changes.
type Group struct {
	// ID is stable for the same cause: "ACCESS-" and 10 hex digits.
	ID string `json:"id"`
	// Kind is what the cause is: "acl" (an ACL decides on one side and
	// not, or another way, on the other), "super-user", "allow-everyone",
	// "principal-form" (the same ACLs under another principal: a
	// principal map is missing), "no-authorizer", "unmapped" (the
	// principal map gives the principal no target principal), "broken"
	// (Kafka throws or never answers on one side), "authorizer" (the same
	// ACL applied by one side's authorizer and not the other's).
	Kind  string `json:"kind"`
	Cause string `json:"cause"`
	// NotProved marks a group whose cause involves a setting that is not
	// known: it may not be a difference at all.
	NotProved bool `json:"not_proved,omitempty"`
	// Accepted marks a cause the operator accepted (--accept ID): it is
	// still listed, and does not count against the verdict.
	Accepted bool  `json:"accepted,omitempty"`
	Classes  int64 `json:"classes"`
	// Principals, Resources and Operations affected: at most ListMax of
	// each, with the totals.
	Principals     []string `json:"principals"`
	PrincipalCount int      `json:"principal_count"`
	Resources      []string `json:"resources"`
	ResourceCount  int      `json:"resource_count"`
	Operations     []string `json:"operations"`
	// Example is one counterexample of the group, with every side's
	// decision and reason.
	Example Counterexample `json:"example"`

	key        string
	principals map[string]bool
	resources  map[string]bool
	ops        map[string]bool
	srcACL     *snapshot.ACL // the ACL deciding on the source only (kind acl)
	tgtACL     *snapshot.ACL // the ACL deciding on the target only (kind acl)
}

// ListMax bounds the principals and resources listed per group.
const ListMax = 20

// Counterexample is one request class decided differently.
type Counterexample struct {
	Principal string `json:"principal"`
	// TargetPrincipal is the principal the target sees when a principal
	// map changes it.
	TargetPrincipal string `json:"target_principal,omitempty"`
	Host            string `json:"host"`
	Operation       string `json:"operation"`
	Resource        string `json:"resource"`
	// Names says which names the resource stands for, when it is a class
	// of names rather than one.
	Names     string         `json:"names,omitempty"`
	Decisions []SideDecision `json:"decisions"`
}

// SideDecision is one authorizer configuration's decision on a request.
type SideDecision struct {
	Side    string   `json:"side"`
	Nodes   []string `json:"nodes"`
	Decides string   `json:"decides,omitempty"`
	// Outcome is ALLOWED, DENIED, "THROWS <exception>" or HANGS.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	// ACL is the ACL that decided, when one did.
	ACL *snapshot.ACL `json:"acl,omitempty"`
}

// Gap is a part of the request classes that could not be decided.
type Gap struct {
	Side     string   `json:"side"`
	Nodes    []string `json:"nodes"`
	Requests string   `json:"requests"`
	Why      string   `json:"why"`
}
