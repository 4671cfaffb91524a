// Package migration holds the use cases of a migration that the commands
// (cmd/migrate) and the terminal UI share, each over the stages below it:
// compute a plan from a source and a target (Compute), justify a saved plan
// against the source and target read now (LoadSaved, Justify), take the
// target's apply lock and close runs a killed apply left open (AcquireLock),
// apply a plan with the secrets this run holds (Planned.Apply), check
// that the target shows what was applied (Verify), and compute and justify
// the revert of an audited run (ComputeRevert; LoadSaved of a revert plan,
// JustifyRevert).
//
// It takes plain requests — no flags, no flag names — and returns plain
// values and errors; it prints nothing. Progress goes to the Hooks a
// request carries. The commands map their flags to requests and render the
// results, naming flags in errors where a typed error here (PolicyError)
// leaves the wording to them.
package migration
