package plan_test

import (
	"slices"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/catalogue"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestPruneScram: --prune deletes exactly the target's SCRAM credentials
// the source lacks, for the principals wanted, and blocks (never plans)
// the delete of the user the tool authenticates as.
func TestPruneScram(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    plan.Options
		deletes []string // change ids
		blocked []string // prune-own-credential blockers' change ids
	}{
		{"no prune", plan.Options{}, nil, nil},
		{"prune", plan.Options{Prune: true},
			[]string{"scram-user:admin/SCRAM-SHA-512", "scram-user:alice/SCRAM-SHA-512", "scram-user:carol/SCRAM-SHA-256"}, nil},
		{"own user", plan.Options{Prune: true, OwnUser: "admin"},
			[]string{"scram-user:alice/SCRAM-SHA-512", "scram-user:carol/SCRAM-SHA-256"}, []string{"scram-user:admin/SCRAM-SHA-512"}},
		{"own user not on target", plan.Options{Prune: true, OwnUser: "dave"},
			[]string{"scram-user:admin/SCRAM-SHA-512", "scram-user:alice/SCRAM-SHA-512", "scram-user:carol/SCRAM-SHA-256"}, nil},
		{"principals", plan.Options{Prune: true, PrincipalRegex: "^User:(alice|admin)$", OwnUser: "admin"},
			[]string{"scram-user:alice/SCRAM-SHA-512"}, []string{"scram-user:admin/SCRAM-SHA-512"}},
		{"principals leave the own user out", plan.Options{Prune: true, PrincipalRegex: "^User:carol$", OwnUser: "admin"},
			[]string{"scram-user:carol/SCRAM-SHA-256"}, nil},
		{"kind excluded", plan.Options{Prune: true, OwnUser: "admin", Exclude: []plan.Kind{plan.KindScramUser}}, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := mustBuild(plan.Input{Source: legacy(), Target: strayScramTarget(), Credentials: creds(), Options: tt.opts})
			var deletes, blocked []string
			for _, c := range p.Changes {
				if c.Kind == plan.KindScramUser && c.Action == plan.ActionDelete {
					deletes = append(deletes, c.ID)
					if c.After != nil || c.Before == nil {
						t.Errorf("%s: a delete has a before-state and no after-state: %+v", c.ID, c)
					}
				}
			}
			for _, b := range p.Blockers {
				if b.ID == catalogue.IDBlockPruneOwnCredential {
					blocked = append(blocked, b.Change.ID)
				}
			}
			if !slices.Equal(deletes, tt.deletes) {
				t.Errorf("deletes %v, want %v", deletes, tt.deletes)
			}
			if !slices.Equal(blocked, tt.blocked) {
				t.Errorf("own-credential blockers %v, want %v", blocked, tt.blocked)
			}
		})
	}
}
