-- The archive's first schema: every table it follows, every event it stored, every flag it raised.
-- The key of an event is (table_id, seq): a second copy of an event can never be stored.

CREATE TABLE archive_table (
    table_id    text PRIMARY KEY,
    last_seq    bigint NOT NULL DEFAULT 0,     -- the highest seq stored (what `after` resumes from)
    head        text   NOT NULL,               -- the archive chain's hash after last_seq
    last_ts     timestamptz,                   -- the table's time of its last stored event
    stored_at   timestamptz                    -- when the archive stored it (lag = now - last_ts)
);

CREATE TABLE archive_event (
    table_id    text        NOT NULL REFERENCES archive_table (table_id),
    seq         bigint      NOT NULL CHECK (seq >= 1),
    game_number text,
    ts          timestamptz NOT NULL,
    audience    text        NOT NULL,
    type        text        NOT NULL,
    payload     text        NOT NULL,          -- the envelope's JSON exactly as the stream carried it
    prev        text        NOT NULL,
    hash        text        NOT NULL,
    archived_at timestamptz NOT NULL DEFAULT now(),  -- its storing transaction's time (lag)
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX archive_event_game ON archive_event (game_number);
CREATE INDEX archive_event_ts ON archive_event (ts);

CREATE TABLE archive_flag (
    id          bigserial PRIMARY KEY,
    table_id    text        NOT NULL,
    seq         bigint      NOT NULL,
    kind        text        NOT NULL,          -- 'conflict' | 'gap' | 'regress'
    detail      text        NOT NULL,
    raised_at   timestamptz NOT NULL DEFAULT now()
);
