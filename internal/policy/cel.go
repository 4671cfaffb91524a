package policy

import (
	"reflect"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// stateType is the CEL name of TopicState in type-check errors.
const stateType = "policy.TopicState"

// Two environments share the same functions. checkEnv declares pre and post
// as TopicState objects, so that a misspelt field or a type mismatch
// (post.partitons, post.partitions > "3") is an error at load. runEnv
// declares them dyn, so that at run time a field of a null pre or post is
// an evaluation error (fail closed) rather than a silent null.
var (
	envOnce            sync.Once
	checkEnv, runEnv   *cel.Env
	envErr             error
	celStateReflection = reflect.TypeFor[TopicState]()
)

func commonOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		ext.Math(),
		cel.Variable("action", cel.StringType),
		cel.Variable("topic", cel.StringType),
		cel.Variable("principal", cel.StringType),
	}
}

func envs() (*cel.Env, *cel.Env, error) {
	envOnce.Do(func() {
		opts := append(commonOptions(),
			ext.NativeTypes(celStateReflection, ext.ParseStructTags(true)),
			cel.Variable("pre", cel.ObjectType(stateType)),
			cel.Variable("post", cel.ObjectType(stateType)))
		checkEnv, envErr = cel.NewEnv(opts...)
		if envErr != nil {
			return
		}
		runEnv, envErr = cel.NewEnv(append(commonOptions(),
			cel.Variable("pre", cel.DynType),
			cel.Variable("post", cel.DynType))...)
	})
	return checkEnv, runEnv, envErr
}

// activation holds one request's variables, converted once and shared by
// every rule evaluated for the request.
type activation struct {
	action, topic, principal ref.Val
	pre, post                ref.Val
}

func newActivation(r Request) interpreter.Activation {
	return &activation{
		action:    types.String(r.Action),
		topic:     types.String(r.Topic),
		principal: types.String(r.Principal),
		pre:       stateValue(r.Pre),
		post:      stateValue(r.Post),
	}
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "action":
		return a.action, true
	case "topic":
		return a.topic, true
	case "principal":
		return a.principal, true
	case "pre":
		return a.pre, true
	case "post":
		return a.post, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// stateValue converts a TopicState to a CEL map with the field names of the
// file format; nil becomes null. A nil assignment is an empty list and nil
// configs an empty map, so rules never meet a null inside a state.
func stateValue(s *TopicState) ref.Val {
	if s == nil {
		return types.NullValue
	}
	asg := s.Assignment
	if asg == nil {
		asg = [][]int32{}
	}
	cfg := s.Configs
	if cfg == nil {
		cfg = map[string]string{}
	}
	m := map[ref.Val]ref.Val{
		types.String("partitions"):         types.Int(s.Partitions),
		types.String("replication_factor"): types.Int(s.ReplicationFactor),
		types.String("assignment"):         types.DefaultTypeAdapter.NativeToValue(asg),
		types.String("configs"):            types.NewStringStringMap(types.DefaultTypeAdapter, cfg),
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, m)
}
