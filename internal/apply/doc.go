// Package apply executes a plan against a target cluster through the Kafka
// admin protocol (franz-go kadm/kmsg), batching, validating, retrying, and
// reporting every step as an Event.
package apply
