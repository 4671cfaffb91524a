package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/authz"
)

// cell is one variant's decision on one request.
type cell struct {
	v        *variant
	d        authz.Decision
	none     bool // no authorizer: allowed
	unmapped bool // no target principal: the client cannot authenticate
	// idem: the idempotent-producer class, decided by IdempotentWrite on
	// the cluster or else authorizeByResourceType(Write, Topic); d is the
	// deciding one, cluster says which.
	idem, cluster bool
}

func (c *cell) outcome() string {
	switch {
	case c.none:
		return "ALLOWED"
	case c.unmapped:
		return "DENIED"
	}
	return c.d.Outcome()
}

// reason words the decision for people.
func (c *cell) reason() string {
	switch {
	case c.none:
		return "allowed: no authorizer (authorizer.class.name is not set)"
	case c.unmapped:
		return "refused: the principal map gives no principal on the target, so the client cannot authenticate"
	}
	s := c.d.String()
	if c.idem {
		if c.cluster {
			s = "IdempotentWrite on the cluster: " + s
		} else {
			s = "authorizeByResourceType(Write, Topic): " + s
		}
	}
	return s
}

// norm is the decision's cause as grouping sees it: the ACL that decided,
// or one of the defaults.
func (c *cell) norm() string {
	switch {
	case c.none:
		return "none"
	case c.unmapped:
		return "unmapped"
	}
	switch c.d.Reason {
	case authz.SuperUser:
		return "super"
	case authz.NoACLAllowEveryone, authz.ByTypeAllowEveryone:
		return "allow-everyone"
	case authz.NoACLDeny, authz.NoMatchingAllow, authz.ByTypeNoAllow:
		return "no-allow"
	case authz.Broken, authz.Hang:
		s := "broken:" + c.d.Outcome()
		if c.d.ACL != nil {
			s += ":" + c.d.ACL.String()
		}
		return s
	}
	if c.d.ACL != nil {
		return "acl:" + c.d.ACL.String()
	}
	return c.d.Reason.String()
}

// request decides one request on variant v for pair pi.
func (e *engine) request(v *variant, pi int, host string, op authz.Operation, t authz.ResourceType, name string) cell {
	return e.requestWith(v, nil, pi, host, op, t, name)
}

// requestWith is request with the authorizer azOf gives (nil: the
// variant's own, over all the side's ACLs).
func (e *engine) requestWith(v *variant, azOf func(*variant) authz.Authorizer, pi int, host string, op authz.Operation, t authz.ResourceType, name string) cell {
	c := cell{v: v}
	if v.side == SideTarget && e.pairs[pi].unmapped {
		c.unmapped = true
		return c
	}
	if v.az == nil {
		c.none = true
		return c
	}
	az := v.az
	if azOf != nil {
		az = azOf(v)
	}
	c.d = az.Authorize(authz.Request{Principal: e.principalOn(v, pi), Host: e.host(host), Operation: op, Type: t, Name: name})
	return c
}

// host is the host decided for h ("" is a host no ACL names).
func (e *engine) host(h string) string {
	if h == "" {
		return e.otherHost
	}
	return h
}

// decideCached is decide for a name whose decisions depend on content
// alone (key: the pair's ACLs in scope, the User:* ones, which kinds of
// ACLs are in scope, whether the pair is a super user where; noKey when
// they depend on more): it decides over mini, the ACLs in scope that can matter (the
// pair's, User:*'s and one of each other kind, which keep the scope
// non-empty for each authorizer), and skips content decided alike on every
// side before. A difference is recorded with its own ACLs as reasons.
func (e *engine) decideCached(key contentID, pi int, t authz.ResourceType, c NameClass, hostsOf func() []string, ops []authz.Operation, weight int64,
	all func() []NameClass, mini func() aclSets) {
	if key == noKey {
		e.decide(pi, t, c, hostsOf(), ops, weight, all, nil)
		return
	}
	key.mask = e.intern(e.superMask(pi))
	if n, ok := e.cache[key]; ok {
		e.res.Classes += n * weight
		return
	}
	before, classes := e.res.Differing, e.res.Classes
	m := mini()
	azs := map[string]authz.Authorizer{}
	e.decide(pi, t, c, hostsOf(), ops, weight, all, func(v *variant) authz.Authorizer {
		side := 0
		if v.side == SideTarget {
			side = 1
		}
		k := string(v.kind) + "\x00" + v.class + "\x00" + v.super + "\x00" + v.allow + "\x00" + v.side
		az, ok := azs[k]
		if !ok {
			az = newAuthorizer(v.kind, m[side], v.cfg, v.class)
			azs[k] = az
		}
		return az
	})
	if e.res.Differing == before {
		e.cache[key] = (e.res.Classes - classes) / weight
	}
}

// superMask says which variants see pair pi as a super user, or as no
// principal at all.
func (e *engine) superMask(pi int) string {
	if m, ok := e.masks[pi]; ok {
		return m
	}
	b := make([]byte, len(e.vars))
	for i, v := range e.vars {
		switch {
		case v.side == SideTarget && e.pairs[pi].unmapped:
			b[i] = 'u'
		case slices.Contains(v.cfg.SuperUsers, e.principalOn(v, pi)):
			b[i] = 's'
		default:
			b[i] = '-'
		}
	}
	e.masks[pi] = string(b)
	return e.masks[pi]
}

// decide decides pair pi on every host and operation of name class c of
// type t on every variant that decides it; weight is the number of name
// classes c stands for, and all (nil: c alone) lists them, for a
// counterexample's resources.
func (e *engine) decide(pi int, t authz.ResourceType, c NameClass, hosts []string, ops []authz.Operation, weight int64, all func() []NameClass, azOf func(*variant) authz.Authorizer) {
	cells := make([]cell, 0, len(e.vars))
	for _, h := range hosts {
		for _, op := range ops {
			cells = cells[:0]
			for _, v := range e.vars {
				if v.decides(t, op) {
					cells = append(cells, e.requestWith(v, azOf, pi, h, op, t, c.Name))
				}
			}
			e.res.Classes += weight
			if differ(cells) {
				e.record(pi, h, op.String(), t, c, cells, weight, all)
			}
		}
	}
}

func differ(cells []cell) bool {
	for i := 1; i < len(cells); i++ {
		if cells[i].outcome() != cells[0].outcome() {
			return true
		}
	}
	return false
}

// runIdempotent decides InitProducerId without a transactional id for
// every principal and host: IdempotentWrite on the cluster, or else
// authorizeByResourceType(Write, Topic) (Kafka 2.8+, kafka-authorizers
// §1.3). Brokers decide it. The cluster check depends only on the content
// of the principal's and User:*'s Cluster ACLs, so it is decided once per
// content; a principal whose outcomes differ is decided again for its own
// reasons.
func (e *engine) runIdempotent() {
	pairHosts := map[int]map[string]bool{}
	clusterContent := map[int]*[2][]string{}
	wild := map[string]bool{}
	for side, acls := range [][]authz.ACL{e.src, e.tgt} {
		for _, a := range acls {
			if a.Type != authz.ResourceTopic && a.Type != authz.ResourceCluster {
				continue
			}
			if a.Principal == authz.WildcardPrincipal || !strings.Contains(a.Principal, ":") {
				wild[a.Host] = true
				continue
			}
			for _, pi := range e.pairsOf(side, a.Principal) {
				if pairHosts[pi] == nil {
					pairHosts[pi] = map[string]bool{}
					clusterContent[pi] = &[2][]string{}
				}
				pairHosts[pi][a.Host] = true
				if a.Type == authz.ResourceCluster {
					clusterContent[pi][side] = append(clusterContent[pi][side], a.Pattern.String()+":"+a.Name+"\x01"+aclContent(a))
				}
			}
		}
	}
	var scopes []*variant
	for _, v := range e.vars {
		if v.scope == ScopeAll {
			scopes = append(scopes, v)
		}
	}
	clusterCache := map[string]bool{}
	outcomes := make([]string, len(scopes))
	for pi := range e.pairs {
		if e.fullSuper[pi] {
			continue
		}
		content := ""
		if c := clusterContent[pi]; c != nil {
			for side := range 2 {
				slices.Sort(c[side])
				content += strings.Join(c[side], "\x01") + "\x04"
			}
		}
		for _, h := range unionHosts(pairHosts[pi], wild) {
			for i, v := range scopes {
				if v.side == SideTarget && e.pairs[pi].unmapped {
					outcomes[i] = "DENIED"
					continue
				}
				if v.az == nil {
					outcomes[i] = "ALLOWED"
					continue
				}
				key := fmt.Sprint(i) + "\x00" + e.superMask(pi) + "\x00" + h + "\x00" + content
				allowed, ok := clusterCache[key]
				if !ok || e.noCache {
					allowed = v.az.Authorize(authz.Request{Principal: e.principalOn(v, pi), Host: e.host(h), Operation: authz.OpIdempotentWrite,
						Type: authz.ResourceCluster, Name: authz.ClusterName}).Allowed
					clusterCache[key] = allowed
				}
				outcomes[i] = "ALLOWED"
				if !allowed {
					outcomes[i] = v.az.AuthorizeByResourceType(e.principalOn(v, pi), e.host(h), authz.OpWrite, authz.ResourceTopic).Outcome()
				}
			}
			e.res.Classes++
			same := true
			for i := 1; i < len(outcomes); i++ {
				same = same && outcomes[i] == outcomes[0]
			}
			if same {
				continue
			}
			cells := make([]cell, 0, len(scopes))
			for _, v := range scopes {
				cells = append(cells, e.idempotent(v, pi, h))
			}
			e.record(pi, h, IdempotentRequest, authz.ResourceCluster, NameClass{Name: authz.ClusterName, Kind: "idempotent"}, cells, 1, nil)
		}
	}
}

// idempotent decides InitProducerId without a transactional id on
// variant v for pair pi from host h: IdempotentWrite on the cluster, else
// authorizeByResourceType(Write, Topic); the reason is the check that
// decided (the second when both deny, unless it denies for want of any
// ACL and the first had one).
func (e *engine) idempotent(v *variant, pi int, h string) cell {
	c := e.request(v, pi, h, authz.OpIdempotentWrite, authz.ResourceCluster, authz.ClusterName)
	c.idem, c.cluster = true, true
	if !c.none && !c.unmapped && !c.d.Allowed {
		d := v.az.AuthorizeByResourceType(e.principalOn(v, pi), e.host(h), authz.OpWrite, authz.ResourceTopic)
		if d.Allowed || c.norm() == "no-allow" {
			c.d, c.cluster = d, false
		}
	}
	return c
}

// IdempotentRequest names the idempotent-producer request class.
const IdempotentRequest = "InitProducerId (idempotent producer, no transactional id)"
