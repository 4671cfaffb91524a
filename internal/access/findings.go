package access

import (
	"fmt"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/english"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// Findings are a result as findings in the one vocabulary: one
// ACCESS-DIFFERENCE per cause (ACCESS-NOT-PROVED when it involves a
// setting that is not known), one ACCESS-NOT-PROVED per gap, and the
// result's findings about its inputs.
func Findings(r *Result) []snapshot.Finding {
	var out []snapshot.Finding
	for _, g := range r.Groups {
		f := snapshot.Finding{ID: catalogue.IDAccessDifference, Severity: snapshot.SeverityError, Resource: groupResource(g),
			Message: fmt.Sprintf("%s [%s]: %s request %s (%s)", g.Cause, g.ID, english.N(int(g.Classes), "class", "classes"), classesWord(g.Classes), strings.Join(g.Operations, ", ")),
			Fix:     groupFix(g)}
		if g.NotProved {
			f.ID, f.Severity = catalogue.IDAccessNotProved, snapshot.SeverityWarning
		}
		out = append(out, f)
	}
	for _, g := range r.Gaps {
		res := g.Side
		if len(g.Nodes) > 0 {
			res += " " + strings.Join(g.Nodes, ", ")
		}
		out = append(out, snapshot.Finding{ID: catalogue.IDAccessNotProved, Severity: snapshot.SeverityWarning, Resource: res,
			Message: g.Requests + ": " + g.Why, Fix: "give the node's properties file (--broker-config, --target-config)"})
	}
	return append(out, r.Findings...)
}

func classesWord(n int64) string {
	if n == 1 {
		return "is decided differently"
	}
	return "are decided differently"
}

// groupResource names what a group is about: its principal and resource
// when there is one of each.
func groupResource(g Group) string {
	p, r := "principals", "resources"
	if g.PrincipalCount == 1 {
		p = "principal:" + g.Principals[0]
	} else if g.PrincipalCount > 1 {
		p = fmt.Sprintf("%d principals", g.PrincipalCount)
	}
	if g.ResourceCount == 1 {
		r = g.Resources[0]
	} else if g.ResourceCount > 1 {
		r = fmt.Sprintf("%d resources", g.ResourceCount)
	}
	return p + " on " + r
}

func groupFix(g Group) string {
	switch g.Kind {
	case "super-user":
		return "add the principal to super.users on the side that lacks it (every broker and controller), or give it ACLs there"
	case "allow-everyone":
		return "set allow.everyone.if.no.acl.found alike on every node of both sides, or create the ACLs the resources lack"
	case "principal-form":
		return "give --principal-map with the pair (or the rules) if it is the same client; else recreate the ACLs for the principal it has now"
	case "unmapped":
		return "add a rule or pair for the principal to the principal map (or remove its ACLs if the client is retired)"
	case "no-authorizer":
		return "set authorizer.class.name on every node of the side without one"
	case "authorizer":
		return "the two authorizers decide these names differently: rename the resources, or add an ACL that names them on the target"
	}
	return "recreate the ACL the cause names on the side that lacks it (migrate plan/apply with the acl kind), or remove the one that should not be there"
}

// Summary is a proof in a few numbers, for the audit trail and the lines
// plan and apply print.
type Summary struct {
	Verdict   string `json:"verdict"`
	Classes   int64  `json:"classes"`
	Differing int64  `json:"differing"`
	Causes    int    `json:"causes"`
	Gaps      int    `json:"not_proved"`
	Digest    string `json:"digest"`
}

// Summarize is r in a few numbers.
func Summarize(r *Result) Summary {
	return Summary{Verdict: r.Verdict, Classes: r.Classes, Differing: r.Differing, Causes: len(r.Groups), Gaps: len(r.Gaps), Digest: r.Digest}
}
