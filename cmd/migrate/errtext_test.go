package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/migration"
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
		if got := errorText(tt.err); got != tt.want {
			t.Errorf("errorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
