package check

import "github.com/zkmigrate/zkmigrate/internal/catalogue"

// Rule is one entry of the finding vocabulary: a kind of finding with a
// stable id. The vocabulary lives in internal/catalogue, shared with the
// readers and the plan.
type Rule = catalogue.Finding

// Catalogue returns the rules check reports (its own, the readers' it
// passes through, the plan's it shares), in documentation order. Ids never
// change meaning; a retired id is kept as an alias of the ids that replace
// it.
func Catalogue() []Rule { return catalogue.ReportedBy(catalogue.FromCheck) }

// Lookup returns the rule with the given id (or former id) from the whole
// vocabulary.
func Lookup(id string) (Rule, bool) { return catalogue.LookupFinding(id) }

// Check's categories, in catalogue order.
const (
	CatKRaft  = catalogue.CatKRaft
	CatKafka4 = catalogue.CatKafka4
	CatCarry  = catalogue.CatCarry
	CatACL    = catalogue.CatACL
	CatTopic  = catalogue.CatTopic
	CatPolicy = catalogue.CatPolicy
	CatCross  = catalogue.CatCross
)
