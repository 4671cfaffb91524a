package apply

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// The admin RPCs apply sends. Plan says what changes; apply decides which
// RPC carries it (RPCOf).
const (
	RPCCreateTopics          = "CreateTopics"
	RPCDeleteTopics          = "DeleteTopics"
	RPCCreatePartitions      = "CreatePartitions"
	RPCAlterReassignments    = "AlterPartitionReassignments"
	RPCIncrementalAlter      = "IncrementalAlterConfigs"
	RPCAlterClientQuotas     = "AlterClientQuotas"
	RPCCreateACLs            = "CreateAcls"
	RPCDeleteACLs            = "DeleteAcls"
	RPCAlterUserScramCredRPC = "AlterUserScramCredentials"
)

// An rpc is one admin API that carries changes of one kind.
type rpc struct {
	name string
	// validateOnly: the RPC has a validate_only mode (a server-side dry run).
	validateOnly bool
	// build makes the request for a batch and a function that reads the
	// response into one outcome per change, in order.
	build func(r *runner, b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome))
}

// kindSpec is how apply carries one change kind. Each kind's spec lives in
// its own file (kind_<name>.go) and is registered in kindSpecs.
type kindSpec struct {
	// rpc is the RPC that carries c, nil for an action the kind has none for.
	rpc func(c *plan.Change) *rpc
	// batchKey splits a kind's changes further than by RPC (nil: no split).
	batchKey func(c *plan.Change) string
	// records counts what one change makes on the controller, against the
	// per-request limit (nil: 1).
	records func(c *plan.Change) int
	// onePerUser: at most one change per user in one request.
	onePerUser bool
	// broker is the broker a batch must go to, -1 when the client chooses
	// (nil: -1).
	broker func(c *plan.Change) int32
	// alreadyDone recognises the error a retried request gets when an
	// earlier attempt went through but its response was lost (nil: none).
	alreadyDone func(c *plan.Change, code int16) bool
	// lane names the kinds whose changes to one resource must go one
	// after another in plan.Kinds order (a topic's creation, then its
	// partitions, reassignment and configs). Without ConcurrentKinds
	// every kind waits for the one before; with it every kind goes at
	// once, and a change waits only when an earlier kind of its lane
	// changes the same resource in the same run.
	lane string
}

// topicLane holds the kinds that act on a topic, so must follow its
// creation and each other.
const topicLane = "topic"

// kindLanes groups kinds by lane, each lane in plan.Kinds order, the lanes
// in the order of their first kind.
func kindLanes() [][]plan.Kind {
	var lanes [][]plan.Kind
	at := map[string]int{}
	for _, k := range plan.Kinds {
		name := kindSpecs[k].lane
		if name == "" {
			name = string(k)
		}
		i, ok := at[name]
		if !ok {
			i = len(lanes)
			at[name] = i
			lanes = append(lanes, nil)
		}
		lanes[i] = append(lanes[i], k)
	}
	return lanes
}

// kindsApart is every kind in a lane of its own.
func kindsApart() [][]plan.Kind {
	out := make([][]plan.Kind, len(plan.Kinds))
	for i, k := range plan.Kinds {
		out[i] = []plan.Kind{k}
	}
	return out
}

var kindSpecs = map[plan.Kind]*kindSpec{
	plan.KindTopic:         topicKind,
	plan.KindPartitions:    partitionsKind,
	plan.KindReassignment:  reassignmentKind,
	plan.KindTopicConfig:   topicConfigKind,
	plan.KindBrokerConfig:  brokerConfigKind,
	plan.KindQuota:         quotaKind,
	plan.KindACL:           aclKind,
	plan.KindScramUser:     scramUserKind,
	plan.KindClientMetrics: clientMetricsKind,
	plan.KindGroupConfig:   groupConfigKind,
}

func kindSpecOf(k plan.Kind) (*kindSpec, error) {
	if s, ok := kindSpecs[k]; ok {
		return s, nil
	}
	return nil, &plan.UnknownKindError{Kind: k}
}

// rpcFor returns the RPC that carries c, or an error naming the kind or
// the action it cannot carry.
func rpcFor(c *plan.Change) (*rpc, error) {
	s, err := kindSpecOf(c.Kind)
	if err != nil {
		return nil, err
	}
	r := s.rpc(c)
	if r == nil {
		return nil, fmt.Errorf("no RPC carries a %s change with action %q", c.Kind, c.Action)
	}
	return r, nil
}

// RPCOf names the admin RPC that carries c ("CreateTopics"), or returns an
// error for a kind or action apply cannot carry.
func RPCOf(c *plan.Change) (string, error) {
	r, err := rpcFor(c)
	if err != nil {
		return "", err
	}
	return r.name, nil
}

// byAction picks the RPC for a change by its action: create for
// ActionCreate, del for ActionDelete, nil for any other.
func byAction(create, del *rpc) func(c *plan.Change) *rpc {
	return func(c *plan.Change) *rpc {
		switch c.Action {
		case plan.ActionCreate:
			return create
		case plan.ActionDelete:
			return del
		}
		return nil
	}
}

// always carries every change of a kind with one RPC.
func always(r *rpc) func(c *plan.Change) *rpc { return func(*plan.Change) *rpc { return r } }

// outcomes maps resource names to their index in a batch, and sets the
// outcome of a named resource.
type outcomes map[string]int

func indexByName(b []*plan.Change) outcomes {
	m := make(outcomes, len(b))
	for i, c := range b {
		m[c.Resource.Name] = i
	}
	return m
}

func (idx outcomes) set(out []outcome, name string, code int16, msg *string) {
	if i, ok := idx[name]; ok {
		out[i] = outcome{code: code, msg: deref(msg)}
	}
}
