-- 0008: what a revert needs that earlier runs did not keep, and the link
-- from a revert to the run it reverts (migrate audit revert).

-- found_states: the whole state of a resource an apply found on the target
-- before a change that deletes it, when the change's before-state holds only
-- part of it (a topic: its replica assignment and configs besides its
-- partition count and replication factor). Written with the apply-started
-- event, before any request is sent. A revert re-creates the resource from
-- it; runs recorded before this version cannot re-create deleted topics.
-- The state is plan.State JSON, redacted (secrets by reference only).
CREATE TABLE found_states (
    seq       INTEGER PRIMARY KEY,
    hash      TEXT    NOT NULL,
    run_id    INTEGER NOT NULL REFERENCES runs (id),
    change_id TEXT    NOT NULL,
    state     TEXT    NOT NULL
);
CREATE INDEX found_states_run ON found_states (run_id, change_id);

-- reverts: an apply run that applied a revert plan, the run it reverts, and
-- that run's record digest the plan was made from: the chain position and
-- hash of the reverted run's own last row. audit verify checks that the row
-- at that position is still that run's, with that hash.
CREATE TABLE reverts (
    seq          INTEGER PRIMARY KEY,
    hash         TEXT    NOT NULL,
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    reverted_run INTEGER NOT NULL REFERENCES runs (id),
    record_seq   INTEGER NOT NULL,
    record_hash  TEXT    NOT NULL
);
CREATE INDEX reverts_run ON reverts (run_id);
CREATE INDEX reverts_reverted ON reverts (reverted_run);
