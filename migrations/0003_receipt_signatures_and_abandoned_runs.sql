-- 0003: signed receipts, and runs closed as abandoned by the run that took
-- over their target.

-- run_ends.closed_by: the run that closed this run as "abandoned" (this run
-- was killed long ago; the closing apply took over the target's lock and
-- resumed its work). NULL when the run recorded its own end. exit_code is
-- -1 for an abandoned run (it never exited normally).
ALTER TABLE run_ends ADD COLUMN closed_by INTEGER REFERENCES runs (id);

-- receipt_signatures: an ed25519 signature of a run's receipt (the hash of
-- its run_ends row) by the key given with --audit-key; the key itself is
-- never stored, only its id. Hash-chained like every audited table: the
-- signature row follows the run_ends row it signs.
CREATE TABLE receipt_signatures (
    seq         INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs (id), -- the run whose end is signed
    signed_seq  INTEGER NOT NULL, -- chain position of that run_ends row
    signed_hash TEXT    NOT NULL, -- its hash: the receipt
    key_id      TEXT    NOT NULL, -- first 16 hex digits of SHA-256(public key)
    signature   TEXT    NOT NULL, -- base64 ed25519 signature (see docs/audit.md)
    at          TEXT    NOT NULL
);
CREATE INDEX receipt_signatures_signed ON receipt_signatures (signed_seq);
