-- 0002: run endpoints learned after a run began, target locks (one apply
-- per target at a time) and the indexes the audit show/log queries and the
-- resume lookup need.

-- run_endpoints: a run's source and target as known once read (cluster ids
-- come from the clusters themselves). The newest row per run and role
-- overrides the runs row's columns. Hash-chained like every audited table.
CREATE TABLE run_endpoints (
    seq        INTEGER PRIMARY KEY,
    hash       TEXT    NOT NULL,
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    role       TEXT    NOT NULL, -- source or target
    kind       TEXT,
    address    TEXT,
    cluster_id TEXT,
    principal  TEXT
);
CREATE INDEX run_endpoints_run ON run_endpoints (run_id, role, seq);
CREATE INDEX run_endpoints_target ON run_endpoints (role, cluster_id);
CREATE INDEX run_endpoints_address ON run_endpoints (role, address);

-- target_locks is operational state, not evidence: rows are inserted and
-- deleted, so it is not hash-chained. Taking, reclaiming and releasing a
-- lock is recorded in run_events, which is.
CREATE TABLE target_locks (
    target      TEXT    PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    host        TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    acquired_at TEXT    NOT NULL,
    heartbeat   TEXT    NOT NULL
);

CREATE INDEX change_events_run ON change_events (run_id, change_id, seq);
CREATE INDEX rpcs_run ON rpcs (run_id, batch, attempt);
CREATE INDEX rpc_results_run ON rpc_results (run_id, batch, attempt);
CREATE INDEX runs_target ON runs (command, target_address);
CREATE INDEX runs_target_cluster ON runs (command, target_cluster_id);
CREATE INDEX run_events_run ON run_events (run_id, kind);
