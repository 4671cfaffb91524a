package cliflags

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// TestErrorText: the inputs a use case's errors blame are worded as the
// flags that give them, wrapped or not; other errors are left as they are.
func TestErrorText(t *testing.T) {
	cause := errors.New("open x.properties: no such file or directory")
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&migration.InputError{Input: migration.InputSourceCommandConfig, Err: cause}, "--source-command-config: open x.properties: no such file or directory"},
		{fmt.Errorf("reading: %w", &migration.InputError{Input: migration.InputZKDataDir, Err: cause}), "reading: --zk-data-dir: open x.properties: no such file or directory"},
		{&migration.InputError{Input: migration.InputZKTimeout, Value: time.Duration(0).String(), Err: errors.New("want a positive duration")}, "--zk-timeout 0s: want a positive duration"},
		{&migration.InputError{Input: migration.InputAuditKey, Err: cause}, "--audit-key: open x.properties: no such file or directory"},
		{&migration.NoKafkaError{Where: "in /data/kafka at zxid 0x1f", Chroot: migration.InputZKChroot}, "no Kafka metadata in /data/kafka at zxid 0x1f (no /brokers, /config or /cluster/id); wrong --zk-chroot?"},
		{&migration.NoKafkaError{Where: "at zk:2181/kafka"}, "no Kafka metadata at zk:2181/kafka (no /brokers, /config or /cluster/id); wrong chroot?"},
		{migration.ErrNoTarget, "give the target: --bootstrap-server host:port [--command-config client.properties]"},
		{cause, cause.Error()},
	} {
		if got := ErrorText(tt.err); got != tt.want {
			t.Errorf("ErrorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestPlanErrorText: a plan error that names an option is shown with the
// flag of that option, and an endpoint error with the flags of its side,
// also when wrapped.
func TestPlanErrorText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&plan.Error{Option: "broker_id_map", Msg: "has no entry for source broker 3"}, "plan: --broker-id-map has no entry for source broker 3"},
		{fmt.Errorf("computing: %w", &plan.Error{Option: "topics", Msg: `"(": bad`}), `computing: plan: --topics "(": bad`},
		{&plan.Error{Msg: "source and target snapshots are required"}, "plan: source and target snapshots are required"},
		{&plan.Error{Option: "new_thing", Msg: "is bad"}, "plan: option new_thing is bad"},
		{fmt.Errorf("plan.json: %w", &plan.EndpointError{Side: "target", Msg: "give the target the plan was made against"}), "plan.json: give the target the plan was made against (--bootstrap-server)"},
		{&plan.EndpointError{Side: "source", Msg: "give the source the plan was made from"}, "give the source the plan was made from (--zookeeper, --zk-data-dir or --snapshot)"},
		{errors.New("other"), "other"},
	}
	for _, tt := range tests {
		if got := planErrorText(tt.err); got != tt.want {
			t.Errorf("planErrorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
