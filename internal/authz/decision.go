package authz

// ReasonKind is why an authorizer decided as it did.
type ReasonKind int8

// The reasons. Authorize gives SuperUser, AllowACL, DenyACL,
// NoACLAllowEveryone, NoACLDeny, NoMatchingAllow, Broken or Hang;
// AuthorizeByResourceType gives SuperUser, Broken and the ByType reasons
// (and, on KRaft, any reason of its "hardcode" probe, with Decision.Probe set).
const (
	// SuperUser: the principal is in super.users; nothing else is consulted.
	SuperUser ReasonKind = iota + 1
	// AllowACL: no DENY ACL in scope matches and this ALLOW ACL does.
	AllowACL
	// DenyACL: this DENY ACL in scope matches (deny wins).
	DenyACL
	// NoACLAllowEveryone: no ACL at all is in scope for the resource (for
	// any principal) and allow.everyone.if.no.acl.found is true.
	NoACLAllowEveryone
	// NoACLDeny: no ACL at all is in scope, and allow.everyone is false.
	NoACLDeny
	// NoMatchingAllow: ACLs are in scope but none allows this request.
	NoMatchingAllow
	// Broken: Kafka throws instead of deciding (Decision.Exception names
	// what it throws); the request fails, so it is not allowed.
	Broken
	// Hang: StandardAuthorizer loops for ever on this request (its
	// wildcard walk jumps back to where it started, see the package
	// doc); the request never completes, so it is not allowed.
	Hang

	// ByTypeDenyWildcard (authorizeByResourceType): a LITERAL "*" DENY
	// ACL for the operation (or All) matches.
	ByTypeDenyWildcard
	// ByTypeAllowEveryone (AclAuthorizer's authorizeByResourceType):
	// allow.everyone.if.no.acl.found is true and no LITERAL "*" DENY
	// matches; whether the type has ACLs is not checked.
	ByTypeAllowEveryone
	// ByTypeAllowWildcard: a LITERAL "*" ALLOW ACL for the operation (or
	// All) matches.
	ByTypeAllowWildcard
	// ByTypeAllowACL: this ALLOW ACL (literal or prefixed) for the
	// operation (or All) names a resource no matching DENY covers.
	ByTypeAllowACL
	// ByTypeNoAllow: no matching ALLOW ACL survives the DENY ACLs.
	ByTypeNoAllow
)

var reasonNames = map[ReasonKind]string{
	SuperUser: "SuperUser", AllowACL: "AllowACL", DenyACL: "DenyACL", NoACLAllowEveryone: "NoACLAllowEveryone",
	NoACLDeny: "NoACLDeny", NoMatchingAllow: "NoMatchingAllow", Broken: "Broken", Hang: "Hang",
	ByTypeDenyWildcard: "ByTypeDenyWildcard", ByTypeAllowEveryone: "ByTypeAllowEveryone", ByTypeAllowWildcard: "ByTypeAllowWildcard",
	ByTypeAllowACL: "ByTypeAllowACL", ByTypeNoAllow: "ByTypeNoAllow",
}

// String is the reason's name: "DenyACL".
func (k ReasonKind) String() string {
	if n, ok := reasonNames[k]; ok {
		return n
	}
	return "ReasonKind(?)"
}

// Decision is an authorizer's answer and why.
type Decision struct {
	Allowed bool
	Reason  ReasonKind
	// ACL is the ACL that decided, when one did (AllowACL, DenyACL, the
	// ByType reasons with an ACL; for Broken and Hang, the ACL Kafka
	// stumbled on, when one is to blame). It points into the authorizer's
	// own copy: do not modify it.
	ACL *ACL
	// Exception is the Java exception Kafka throws, for Broken:
	// "IllegalStateException", "IllegalArgumentException",
	// "StringIndexOutOfBoundsException".
	Exception string
	// Probe is set when StandardAuthorizer's authorizeByResourceType
	// decided by its authorize probe of the resource named "hardcode":
	// Reason and ACL are then the probe's.
	Probe bool
}

// Outcome is the decision as Kafka's caller sees it: "ALLOWED", "DENIED",
// "THROWS <Exception>" or "HANGS".
func (d Decision) Outcome() string {
	switch {
	case d.Reason == Hang:
		return "HANGS"
	case d.Reason == Broken:
		return "THROWS " + d.Exception
	case d.Allowed:
		return "ALLOWED"
	}
	return "DENIED"
}

// String is a short human reason: "allowed by ALLOW User:alice Read
// Topic:orders (LITERAL) from *", "allowed: super user", "denied: no ACL
// in scope (allow.everyone.if.no.acl.found is false)".
func (d Decision) String() string {
	s := d.text()
	if d.Probe {
		s += " (authorizeByResourceType's probe of the resource \"hardcode\")"
	}
	return s
}

func (d Decision) text() string {
	acl := func() string {
		if d.ACL == nil {
			return "?"
		}
		return d.ACL.String()
	}
	switch d.Reason {
	case SuperUser:
		return "allowed: super user"
	case AllowACL:
		return "allowed by " + acl()
	case DenyACL:
		return "denied by " + acl()
	case NoACLAllowEveryone:
		return "allowed: no ACL in scope and allow.everyone.if.no.acl.found is true"
	case NoACLDeny:
		return "denied: no ACL in scope (allow.everyone.if.no.acl.found is false)"
	case NoMatchingAllow:
		return "denied: no ALLOW ACL matches"
	case Broken:
		s := "fails: Kafka throws " + d.Exception
		if d.ACL != nil {
			s += " on " + d.ACL.String()
		}
		return s
	case Hang:
		s := "never answered: StandardAuthorizer loops for ever"
		if d.ACL != nil {
			s += " on " + d.ACL.String()
		}
		return s
	case ByTypeDenyWildcard:
		return "denied for every resource of the type by " + acl()
	case ByTypeAllowEveryone:
		return "allowed: allow.everyone.if.no.acl.found is true (AclAuthorizer's authorizeByResourceType)"
	case ByTypeAllowWildcard:
		return "allowed for some resource of the type by " + acl()
	case ByTypeAllowACL:
		return "allowed for some resource of the type by " + acl()
	case ByTypeNoAllow:
		return "denied: no ALLOW ACL of the type survives the DENY ACLs"
	}
	return "no decision"
}
