-- 0007: the access proofs a run made (docs/access.md): `migrate access
-- diff`, plan's proof of the target as the plan would leave it, apply's of
-- the target it left. One row per proof, hash-chained like every row: what
-- was proved ("target": the target as read; "planned": as the plan would
-- leave it), the verdict (equivalent, differences, not proved), the
-- request classes decided and those decided differently, the causes, the
-- parts not proved, the classes accepted causes change, and the proof's
-- digest (both inputs and the verdict).
CREATE TABLE access_proofs (
    seq        INTEGER PRIMARY KEY,
    hash       TEXT    NOT NULL,
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    at         TEXT    NOT NULL,
    what       TEXT    NOT NULL,
    verdict    TEXT    NOT NULL,
    classes    INTEGER NOT NULL,
    differing  INTEGER NOT NULL,
    causes     INTEGER NOT NULL,
    not_proved INTEGER NOT NULL,
    accepted   INTEGER NOT NULL,
    digest     TEXT    NOT NULL
);
CREATE INDEX access_proofs_by_run ON access_proofs (run_id);
