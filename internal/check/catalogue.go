package check

import "github.com/zkmigrate/zkmigrate/internal/catalogue"

// Rule is one entry of the finding vocabulary: a kind of finding with a
// stable id. The vocabulary lives in internal/catalogue, shared with the
// readers and the plan.
type Rule = catalogue.Finding

// idReadIssue is the id readers' findings are reported under.
const idReadIssue = "READ-PROBLEM"

// Catalogue returns check's rules, in documentation order. Ids never change
// meaning; a retired id is not reused.
func Catalogue() []Rule { return catalogue.FindingsFrom(catalogue.FromCheck) }

// Lookup returns the check rule with the given id.
func Lookup(id string) (Rule, bool) {
	r, ok := byID[id]
	return r, ok
}

var byID = func() map[string]Rule {
	m := map[string]Rule{}
	for _, r := range Catalogue() {
		m[r.ID] = r
	}
	return m
}()

// Check's categories, in catalogue order.
const (
	CatRead   = catalogue.CatRead
	CatKRaft  = catalogue.CatKRaft
	CatKafka4 = catalogue.CatKafka4
	CatCarry  = catalogue.CatCarry
	CatACL    = catalogue.CatACL
	CatTopic  = catalogue.CatTopic
	CatPolicy = catalogue.CatPolicy
	CatCross  = catalogue.CatCross
)
