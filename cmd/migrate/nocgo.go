//go:build !cgo

package main

// migrate is built with cgo only: its audit trail is SQLite through
// mattn/go-sqlite3, which is C. Without cgo that driver compiles to a stub
// that fails at run time, and migrate would run with no audit trail, so
// such a build stops here instead. Build with CGO_ENABLED=1 and a C
// compiler (Debian: gcc libc6-dev).
var _ = migrate_needs_cgo_for_its_audit_trail_sqlite_via_go_sqlite3_build_with_CGO_ENABLED_1_and_gcc
