-- Retention: each exported stretch of a table's events (seqs first_seq..last_seq, removed from
-- archive_event) with the chain's hash before and after it and the SHA-256 of its file, so a
-- re-import is checked against what was removed and the chain walk can start after it.
CREATE TABLE archive_export (
    table_id    text   NOT NULL REFERENCES archive_table (table_id),
    first_seq   bigint NOT NULL,
    last_seq    bigint NOT NULL,
    prev        text   NOT NULL,      -- the chain's hash before first_seq
    head        text   NOT NULL,      -- the chain's hash after last_seq
    file        text   NOT NULL,      -- the file's name
    sha256      text   NOT NULL,      -- of the file's bytes
    exported_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, first_seq)
);
