// Package audit keeps zkmigrate's audit trail: an SQLite database (through
// github.com/mattn/go-sqlite3, cgo, WAL) recording every run, what it read,
// the plan it built or applied, every change with its state transitions,
// every admin RPC, policy decisions, blockers and findings.
//
// The schema lives in numbered SQL files in the migrations package, applied
// in order in one transaction by Open. A database written by a newer tool is
// refused; an older one is migrated forward.
//
// Every audited row is append-only and hash-chained: it carries
// hash = SHA-256(previous row's hash, this row's canonical content), in one
// chain across all tables and runs, in commit order (the chain head is read
// inside the writing transaction, which holds SQLite's write lock). Finish
// returns the chain head after a run (its receipt); Verify recomputes the
// chain and reports the first broken link, and checks an anchor receipt kept
// elsewhere.
//
// During apply, the Observer writes intent before an RPC is sent (BatchSent
// is committed before Observe returns) and the outcome after, so a process
// killed at any point leaves a consistent, verifiable database; the next
// apply finds the killed run with IncompleteRuns and links to it with
// MarkResumes.
//
// Secrets are never stored: arguments are redacted, plans are stored with
// secrets by reference only, and every text value written is scrubbed of
// the secret values the run has seen. The package does not decide what to
// apply, never talks to Kafka or ZooKeeper, and prints nothing.
package audit
