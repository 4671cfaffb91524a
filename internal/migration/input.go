package migration

import "fmt"

// Input names an input of a use case, for the errors that blame it: a
// command words it in its own terms (the flag that gives it).
type Input string

// The inputs errors blame.
const (
	InputSourceCommandConfig Input = "source command config"
	InputZKDataDir           Input = "ZooKeeper data directory"
	InputZKChroot            Input = "chroot"
	InputZKTimeout           Input = "ZooKeeper timeout"
)

// InputError is a bad input: Input (with Value, when the message names
// it) and what is wrong with it.
type InputError struct {
	Input Input
	Value string
	Err   error
}

func (e *InputError) Error() string { return e.Text(string(e.Input)) }

// Text is the error with the input called name.
func (e *InputError) Text(name string) string {
	if e.Value != "" {
		name += " " + e.Value
	}
	return fmt.Sprintf("%s: %v", name, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// NoKafkaError is a ZooKeeper tree that holds none of Kafka's znodes where
// it was read (Where: "at host:2181/kafka", "in /data at zxid 0x1f"): most
// likely the wrong chroot. Chroot is the input that gave it ("" the
// connect string's).
type NoKafkaError struct {
	Where  string
	Chroot Input
}

func (e *NoKafkaError) Error() string { return e.Text(string(e.Chroot)) }

// Text is the error with the chroot's input called name ("" chroot).
func (e *NoKafkaError) Text(name string) string {
	if name == "" {
		name = "chroot"
	}
	return fmt.Sprintf("no Kafka metadata %s (no /brokers, /config or /cluster/id); wrong %s?", e.Where, name)
}
