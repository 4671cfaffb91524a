// Package plan computes a migration plan: a pure function from a source
// snapshot, a target snapshot, a policy and options to an ordered list of
// changes, blockers and findings. It does no I/O and reads no clock.
package plan
