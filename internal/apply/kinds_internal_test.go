package apply

import (
	"errors"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestKindRegistry: every plan kind has an apply spec, and each kind's
// actions map to the RPC that carries them; an action a kind has no RPC
// for, and an unknown kind, are errors naming them.
func TestKindRegistry(t *testing.T) {
	for _, k := range plan.Kinds {
		if s, err := kindSpecOf(k); err != nil || s.rpc == nil {
			t.Errorf("kind %s: no apply spec with an rpc (%v)", k, err)
		}
	}
	if len(kindSpecs) != len(plan.Kinds) {
		t.Errorf("apply registers %d kinds, plan.Kinds lists %d", len(kindSpecs), len(plan.Kinds))
	}
	// Every action plan.Validate lets a kind have is one an RPC carries.
	for _, k := range plan.Kinds {
		actions, err := plan.Actions(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			if _, err := rpcFor(&plan.Change{Kind: k, Action: a}); err != nil {
				t.Errorf("kind %s action %s: %v", k, a, err)
			}
		}
	}
	tests := []struct {
		kind     plan.Kind
		action   plan.Action
		rpc      string // "" when no RPC carries it
		validate bool
	}{
		{plan.KindTopic, plan.ActionCreate, RPCCreateTopics, true},
		{plan.KindTopic, plan.ActionDelete, RPCDeleteTopics, false},
		{plan.KindTopic, plan.ActionUpdate, "", false},
		{plan.KindPartitions, plan.ActionUpdate, RPCCreatePartitions, true},
		{plan.KindReassignment, plan.ActionUpdate, RPCAlterReassignments, false},
		{plan.KindTopicConfig, plan.ActionUpdate, RPCIncrementalAlter, true},
		{plan.KindBrokerConfig, plan.ActionUpdate, RPCIncrementalAlter, true},
		{plan.KindQuota, plan.ActionCreate, RPCAlterClientQuotas, true},
		{plan.KindQuota, plan.ActionDelete, RPCAlterClientQuotas, true},
		{plan.KindACL, plan.ActionCreate, RPCCreateACLs, false},
		{plan.KindACL, plan.ActionDelete, RPCDeleteACLs, false},
		{plan.KindACL, plan.ActionUpdate, "", false},
		{plan.KindScramUser, plan.ActionCreate, RPCAlterUserScramCredRPC, false},
		{plan.KindClientMetrics, plan.ActionCreate, RPCIncrementalAlter, true},
		{plan.KindClientMetrics, plan.ActionDelete, RPCIncrementalAlter, true},
		{plan.KindGroupConfig, plan.ActionUpdate, RPCIncrementalAlter, true},
	}
	for _, tt := range tests {
		c := &plan.Change{ID: "x", Kind: tt.kind, Action: tt.action}
		got, err := RPCOf(c)
		switch {
		case tt.rpc == "" && err == nil:
			t.Errorf("%s %s: RPC %s, want an error", tt.kind, tt.action, got)
		case tt.rpc != "" && (err != nil || got != tt.rpc):
			t.Errorf("%s %s: RPCOf = %q, %v; want %s", tt.kind, tt.action, got, err, tt.rpc)
		case tt.rpc != "":
			if x, _ := rpcFor(c); x.validateOnly != tt.validate {
				t.Errorf("%s: validate_only %v, want %v", tt.rpc, x.validateOnly, tt.validate)
			}
		}
	}
	var uk *plan.UnknownKindError
	if _, err := RPCOf(&plan.Change{Kind: "delegation-token", Action: plan.ActionCreate}); !errors.As(err, &uk) || uk.Kind != "delegation-token" {
		t.Errorf("RPCOf(unknown kind) = %v, want an *plan.UnknownKindError naming delegation-token", err)
	}
}
