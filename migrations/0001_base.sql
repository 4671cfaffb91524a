-- 0001: the base audit schema.
--
-- Every table below except chain_head is append-only and hash-chained:
-- seq is the row's position in one chain shared by all tables (allocated from
-- chain_head inside the writing transaction), hash = SHA-256 of the previous
-- row's hash and this row's canonical content (see docs/audit.md).
-- Times are RFC 3339 text in UTC; durations are integer microseconds.

-- chain_head caches the newest link (one row). It is a convenience, not
-- evidence: audit verify recomputes the chain and compares.
CREATE TABLE chain_head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL,
    hash TEXT    NOT NULL
);
INSERT INTO chain_head (id, seq, hash) VALUES (1, 0, '');

-- runs: one row per command run (plan, apply, check, ...).
CREATE TABLE runs (
    seq               INTEGER PRIMARY KEY,
    hash              TEXT    NOT NULL,
    id                INTEGER NOT NULL UNIQUE,
    command           TEXT    NOT NULL,
    args              TEXT    NOT NULL, -- JSON array, redacted
    os_user           TEXT    NOT NULL,
    host              TEXT    NOT NULL,
    pid               INTEGER NOT NULL,
    tool_version      TEXT    NOT NULL,
    started_at        TEXT    NOT NULL,
    source_kind       TEXT,
    source_address    TEXT,
    source_cluster_id TEXT,
    source_principal  TEXT,
    target_kind       TEXT,
    target_address    TEXT,
    target_cluster_id TEXT,
    target_principal  TEXT,
    options           TEXT  -- JSON, redacted
);

-- run_ends: how a run ended. A run without a row here never finished.
CREATE TABLE run_ends (
    seq         INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL UNIQUE REFERENCES runs (id),
    finished_at TEXT    NOT NULL,
    outcome     TEXT    NOT NULL,
    exit_code   INTEGER NOT NULL,
    succeeded   INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    skipped     INTEGER NOT NULL
);

-- run_events: notes on a run: apply started, lock taken or reclaimed,
-- resumes run N, audit write errors.
CREATE TABLE run_events (
    seq          INTEGER PRIMARY KEY,
    hash         TEXT    NOT NULL,
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    at           TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    other_run_id INTEGER,
    detail       TEXT
);

-- snapshots: what a run read.
CREATE TABLE snapshots (
    seq    INTEGER PRIMARY KEY,
    hash   TEXT    NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs (id),
    at     TEXT    NOT NULL,
    role   TEXT    NOT NULL, -- source or target
    digest TEXT    NOT NULL,
    counts TEXT    NOT NULL  -- JSON object
);

-- plans: the plan a run built or applied.
CREATE TABLE plans (
    seq         INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    at          TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    changes     INTEGER NOT NULL,
    blockers    INTEGER NOT NULL,
    findings    INTEGER NOT NULL,
    counts      TEXT    NOT NULL, -- JSON: changes per kind
    plan_json   TEXT    NOT NULL  -- redacted
);

-- changes: every change of a recorded plan, as planned.
CREATE TABLE changes (
    seq           INTEGER PRIMARY KEY,
    hash          TEXT    NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs (id),
    change_id     TEXT    NOT NULL,
    kind          TEXT    NOT NULL,
    action        TEXT    NOT NULL,
    resource_type TEXT    NOT NULL,
    resource      TEXT    NOT NULL,
    rpc           TEXT    NOT NULL,
    before_state  TEXT,   -- JSON, redacted
    after_state   TEXT    -- JSON, redacted
);
CREATE INDEX changes_run ON changes (run_id, change_id);

-- change_events: every state transition of a change after planned (the
-- changes row is the planned state): sent, succeeded, failed, skipped.
CREATE TABLE change_events (
    seq           INTEGER PRIMARY KEY,
    hash          TEXT    NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs (id),
    change_id     TEXT    NOT NULL,
    at            TEXT    NOT NULL,
    status        TEXT    NOT NULL, -- sent, succeeded, failed, skipped
    reason        TEXT,             -- why skipped: already-applied, stale, ...
    batch         INTEGER,
    validate_only INTEGER NOT NULL DEFAULT 0,
    error_code    INTEGER,
    error_name    TEXT,
    message       TEXT
);

-- rpcs: every admin RPC, written before it is sent (intent).
CREATE TABLE rpcs (
    seq           INTEGER PRIMARY KEY,
    hash          TEXT    NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs (id),
    batch         INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    api           TEXT    NOT NULL,
    api_version   INTEGER NOT NULL, -- -1 when not known before sending
    broker        INTEGER NOT NULL, -- node id; -1 when the client picks
    principal     TEXT,
    validate_only INTEGER NOT NULL,
    started_at    TEXT    NOT NULL,
    resources     INTEGER NOT NULL,
    change_ids    TEXT    NOT NULL -- JSON array
);

-- rpc_results: the outcome of an RPC, written after it returned.
CREATE TABLE rpc_results (
    seq         INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    batch       INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    api         TEXT    NOT NULL,
    api_version INTEGER NOT NULL, -- as negotiated; -1 when unknown
    broker      INTEGER NOT NULL,
    finished_at TEXT    NOT NULL,
    duration_us INTEGER NOT NULL,
    result      TEXT    NOT NULL, -- ok or error
    error       TEXT
);

-- verdicts: policy decisions on changes.
CREATE TABLE verdicts (
    seq       INTEGER PRIMARY KEY,
    hash      TEXT    NOT NULL,
    run_id    INTEGER NOT NULL REFERENCES runs (id),
    change_id TEXT    NOT NULL,
    allowed   INTEGER NOT NULL,
    rule      TEXT,
    message   TEXT
);

-- blockers: wanted changes the tool will not or cannot make.
CREATE TABLE blockers (
    seq         INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    blocker_id  TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    resource    TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    fix         TEXT,
    change_id   TEXT,
    rule        TEXT
);

-- findings: facts worth knowing, from reading, planning or checking.
CREATE TABLE findings (
    seq        INTEGER PRIMARY KEY,
    hash       TEXT    NOT NULL,
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    finding_id TEXT    NOT NULL,
    severity   TEXT    NOT NULL,
    resource   TEXT    NOT NULL,
    message    TEXT    NOT NULL,
    fix        TEXT
);
