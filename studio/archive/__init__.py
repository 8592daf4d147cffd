"""The studio archive: every table's events in one PostgreSQL database, exactly once.

`migrate` brings a database to the newest schema (plain versioned SQL files in `migrations/`);
`store` appends a batch of streamed events under the key (table, seq), extends the archive's own
hash chain per table and flags what does not fit; `chain` is that chain's pure arithmetic.
"""
