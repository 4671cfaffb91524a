// Package cliflags holds the flag groups several commands share — the
// source (Source, ZKDataDir), the target (Target), the audit trail (Audit)
// and the flags that shape a plan (Plan) — each registering its flags,
// checking them without reading anything (Validate: a usage error stops a
// command before its audit trail records a run), and mapping them to the
// request of the use case in internal/migration. It reads no cluster; the
// commands in cmd/migrate decide what to do with the requests.
package cliflags
