-- The tables' signed journal checkpoints (restricted stream notices), and whether each still
-- matches what the archive stored: `events_head` must equal the archive chain's hash at
-- `last_seq`. One checkpoint per (table, record count): a second one of the same count with
-- another head means the table's journal was rewritten, and is flagged, not stored.
CREATE TABLE archive_checkpoint (
    table_id    text        NOT NULL,
    records     bigint      NOT NULL,
    last_seq    bigint      NOT NULL,
    head        text        NOT NULL,      -- the journal's chain head (records and inputs)
    events_head text        NOT NULL,      -- the events-only chain at last_seq (the archive's)
    ts          timestamptz NOT NULL,
    key         text        NOT NULL,      -- the table's Ed25519 public key (hex)
    body        text        NOT NULL,      -- the checkpoint's JSON as received (signature in it)
    matched     boolean,                   -- NULL: not checked yet (events not all stored)
    PRIMARY KEY (table_id, records)
);
CREATE INDEX archive_checkpoint_unchecked ON archive_checkpoint (table_id) WHERE matched IS NULL;
