package testbed

import (
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// RetryUnknownTopic runs do again while it fails with
// UNKNOWN_TOPIC_OR_PARTITION, for at most bound: a 3.9 broker learns of a
// topic just created a little after ZooKeeper holds it.
func RetryUnknownTopic(bound time.Duration, do func() error) error {
	until := time.Now().Add(bound)
	for {
		err := do()
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(until) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
