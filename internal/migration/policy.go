package migration

import (
	"fmt"
	"io"

	"github.com/zkmigrate/zkmigrate/internal/policy"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// ConvertRequest is policy convert's: the brokers' server.properties
// holding the legacy policy settings, and where the results go.
type ConvertRequest struct {
	BrokerConfigs []string
	// Out is the policy file to write ("": Stdout); ControllerOut the
	// KRaft controllers' policy properties ("": none).
	Out, ControllerOut string
	Stdout             io.Writer
	Hooks              Hooks // Warn: each setting the conversion warns about
}

// ConvertPolicy converts the brokers' legacy policy settings into a
// TopicActionPolicy file and controller properties (policy.LoadConverting),
// and writes each where r says (files atomically), the policy first.
func ConvertPolicy(r ConvertRequest) error {
	conv, err := policy.LoadConverting(r.BrokerConfigs)
	if err != nil {
		return err
	}
	for _, w := range conv.Warnings {
		r.Hooks.warn(fmt.Errorf("warning: %s", w))
	}
	if r.Out == "" {
		_, err = r.Stdout.Write(conv.Policy)
	} else {
		err = snapshot.WriteFileAtomic(r.Out, conv.Policy, 0o644)
	}
	if err != nil || r.ControllerOut == "" {
		return err
	}
	return snapshot.WriteFileAtomic(r.ControllerOut, conv.ControllerConfig, 0o644)
}
