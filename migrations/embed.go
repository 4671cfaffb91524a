// Package migrations holds the audit database schema as numbered SQL files,
// embedded into the binary. internal/audit applies them in order, in one
// transaction, when it opens a database; the version reached is recorded in
// the schema_version table.
//
// Files are named NNNN_description.sql and are forward-only once released:
// never edit a released file, add the next number instead. Every table
// whose rows are hash-chained has a "seq INTEGER PRIMARY KEY" (the row's
// position in the chain) and a "hash TEXT NOT NULL" column; columns added
// later must be nullable so that older rows keep their hashes (NULL columns
// are not part of a row's hashed content).
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
