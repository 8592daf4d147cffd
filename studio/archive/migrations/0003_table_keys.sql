-- The CURVE public key each table was first archived under: a table answering with another key
-- is refused (flagged, nothing stored) until an operator allows the new key.
CREATE TABLE archive_table_key (
    table_id    text PRIMARY KEY,
    key         text NOT NULL,
    allowed_at  timestamptz NOT NULL DEFAULT now()
);
