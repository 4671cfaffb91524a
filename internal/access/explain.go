package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
)

// Question is one request to explain: may Principal, from Host, perform
// Operation on Resource ("Topic:orders")?
type Question struct {
	Principal string
	// Host is the client's IP address ("" is a host no ACL names).
	Host      string
	Operation string
	Resource  string
}

// Explanation is how each side decides one request.
type Explanation struct {
	Principal string `json:"principal"`
	// TargetPrincipal is the principal the target sees, when a
	// principal map changes it ("" when it is the same); Unmapped says
	// the map gives none.
	TargetPrincipal string `json:"target_principal,omitempty"`
	Unmapped        bool   `json:"unmapped,omitempty"`
	Host            string `json:"host"`
	Operation       string `json:"operation"`
	Resource        string `json:"resource"`
	// Same says every side decides it alike.
	Same      bool           `json:"same"`
	Decisions []SideDecision `json:"decisions"`
	Gaps      []Gap          `json:"not_proved,omitempty"`
	Findings  []string       `json:"findings,omitempty"`
}

// ParseResource reads "Type:name" ("Topic:orders", "Cluster:kafka-cluster";
// the name may hold ':').
func ParseResource(s string) (authz.ResourceType, string, error) {
	typ, name, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return 0, "", fmt.Errorf("resource %q: want Type:name, e.g. Topic:orders", s)
	}
	t, err := authz.ParseResourceType(typ)
	if err != nil || t < authz.ResourceTopic {
		return 0, "", fmt.Errorf("resource %q: unknown resource type %q (Topic, Group, Cluster, TransactionalId, DelegationToken, User)", s, typ)
	}
	return t, name, nil
}

// InitProducerID is the operation Question takes for the idempotent
// producer's request (IdempotentWrite on the cluster, or else Write on some
// topic); its resource is the cluster.
const InitProducerID = "InitProducerId"

// Explain decides one request on every side, with each decision's reason.
// The host is compared as Kafka does (authz.HostAddress: an IPv6 address
// in Java's full form).
func Explain(in Input, q Question) (*Explanation, error) {
	if !strings.Contains(q.Principal, ":") {
		return nil, fmt.Errorf("principal %q: want Type:name, e.g. User:alice", q.Principal)
	}
	idem := strings.EqualFold(q.Operation, InitProducerID)
	op, err := authz.ParseOperation(q.Operation)
	if idem {
		op, err = authz.OpIdempotentWrite, nil
		if q.Resource == "" {
			q.Resource = authz.ResourceCluster.String() + ":" + authz.ClusterName
		}
	}
	if err != nil || op <= authz.OpAll {
		return nil, fmt.Errorf("operation %q: want one a request checks (Read, Write, Describe, Create, Delete, Alter, DescribeConfigs, AlterConfigs, ClusterAction, IdempotentWrite, CreateTokens, DescribeTokens, TwoPhaseCommit) or InitProducerId", q.Operation)
	}
	t, name, err := ParseResource(q.Resource)
	if err != nil {
		return nil, err
	}
	if idem && (t != authz.ResourceCluster || name != authz.ClusterName) {
		return nil, fmt.Errorf("operation InitProducerId is decided on Cluster:kafka-cluster (and any topic), not %s", q.Resource)
	}
	host := ""
	if q.Host != "" {
		if host, err = authz.HostAddress(q.Host); err != nil {
			return nil, err
		}
	}
	e, err := newEngine(in)
	if err != nil {
		return nil, err
	}
	pi := e.pairFor(q.Principal)
	p := e.pairs[pi]
	x := &Explanation{Principal: q.Principal, Host: host, Operation: op.String(), Resource: t.String() + ":" + name, Gaps: e.res.Gaps}
	if idem {
		x.Operation, x.Resource = IdempotentRequest, resourceText(t, NameClass{Kind: "idempotent"})
	}
	if host == "" {
		x.Host = "(any host no ACL names: " + e.otherHost + ")"
	}
	if p.tgt != p.src {
		x.TargetPrincipal = p.tgt
	}
	x.Unmapped = p.unmapped
	var cells []cell
	for _, v := range e.vars {
		switch {
		case idem && v.scope == ScopeAll:
			c := e.idempotent(v, pi, host)
			cells = append(cells, c)
			x.Decisions = append(x.Decisions, sideDecision(&c))
		case !idem && v.decides(t, op):
			c := e.request(v, pi, host, op, t, name)
			cells = append(cells, c)
			x.Decisions = append(x.Decisions, sideDecision(&c))
		}
	}
	x.Same = !differ(cells)
	for _, f := range e.res.Findings {
		x.Findings = append(x.Findings, f.Message)
	}
	return x, nil
}

// pairFor returns the pair of a source principal, adding it when no ACL
// or setting names it.
func (e *engine) pairFor(p string) int {
	if i, ok := e.srcIdx[p]; ok {
		return i
	}
	t, ok := e.mapped(p)
	if !ok {
		t = p
	}
	e.pairs = append(e.pairs, pair{src: p, tgt: t, unmapped: !ok})
	return len(e.pairs) - 1
}

func sideDecision(c *cell) SideDecision {
	sd := SideDecision{Side: c.v.side, Nodes: c.v.nodes, Outcome: c.outcome(), Reason: c.reason()}
	if c.v.scope != ScopeAll {
		sd.Decides = c.v.scope
	}
	if c.d.ACL != nil {
		a := toSnapshot(*c.d.ACL)
		sd.ACL = &a
	}
	return sd
}

// WhoResult is who may do what on one resource, on each side.
type WhoResult struct {
	Resource string `json:"resource"`
	// Sides are the authorizer configurations, in the order each row's
	// Allowed lists them.
	Sides []Authorizer `json:"sides"`
	Rows  []WhoRow     `json:"rows"`
	Gaps  []Gap        `json:"not_proved,omitempty"`
}

// Same reports whether every side allows every principal the same.
func (w *WhoResult) Same() bool {
	for _, row := range w.Rows {
		if row.Differs {
			return false
		}
	}
	return true
}

// WhoRow is one principal, from one host, and the operations each side
// allows it.
type WhoRow struct {
	Principal       string `json:"principal"`
	TargetPrincipal string `json:"target_principal,omitempty"`
	Host            string `json:"host"`
	// Allowed lists, per side (WhoResult.Sides), the operations allowed.
	Allowed [][]string `json:"allowed"`
	Differs bool       `json:"differs"`
}

// Who lists, for one resource, every principal an ACL in scope or a
// setting names (and any other principal), from every host such an ACL
// names (and any other host), with the operations each side allows.
func Who(in Input, resource string) (*WhoResult, error) {
	t, name, err := ParseResource(resource)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(in)
	if err != nil {
		return nil, err
	}
	w := &WhoResult{Resource: t.String() + ":" + name, Gaps: e.res.Gaps}
	for _, v := range e.vars {
		w.Sides = append(w.Sides, Authorizer{Nodes: v.nodes, Decides: v.scope, Kind: v.kind, Class: v.class, Settings: v.settingsText()})
	}
	// Principals and hosts: those of the ACLs in scope on either side,
	// the super users, any other.
	hosts := map[string]bool{}
	pis := map[int]bool{len(e.pairs) - 1: true}
	for side := range 2 {
		for _, az := range e.scope[side] {
			for _, a := range az.InScope(t, name) {
				hosts[a.Host] = true
				if !isWild(a) {
					for _, pi := range e.pairsOf(side, a.Principal) {
						pis[pi] = true
					}
				}
			}
		}
	}
	for pi := range e.pairs {
		if e.fullSuper[pi] || slices.Contains(e.someSuper, pi) {
			pis[pi] = true
		}
	}
	ops := e.operations(t)
	for _, pi := range sortedInts(pis) {
		p := e.pairs[pi]
		for _, h := range unionHosts(hosts) {
			row := WhoRow{Principal: e.label(pi), Host: h}
			if p.tgt != p.src && p.src != "" {
				row.TargetPrincipal = p.tgt
			}
			if h == "" {
				row.Host = "(any other host)"
			}
			row.Allowed = make([][]string, len(e.vars))
			for i := range row.Allowed {
				row.Allowed[i] = []string{}
			}
			for _, op := range ops {
				var cells []cell
				for i, v := range e.vars {
					if !v.decides(t, op) {
						continue
					}
					c := e.request(v, pi, h, op, t, name)
					if c.outcome() == "ALLOWED" {
						row.Allowed[i] = append(row.Allowed[i], op.String())
					}
					cells = append(cells, c)
				}
				row.Differs = row.Differs || differ(cells)
			}
			w.Rows = append(w.Rows, row)
		}
	}
	return w, nil
}
