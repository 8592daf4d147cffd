"""Which key each table is archived under: a table replaced by one with another key is refused.

The first time the archive follows a table with a CURVE key, that key is recorded. Later, a
table named the same but answering with another key (a machine swapped, a key leaked and
replaced, or an impostor) is refused: flagged `key` and none of its events stored (its position
does not move, so nothing is lost) until an operator allows the new key with `allow`
(`studio archive-allow`), after which the archive resumes it from its stored position.
"""

from __future__ import annotations

from collections.abc import Mapping

from studio.archive.store import Conn, Flag


def refused(conn: Conn, keys: Mapping[str, str]) -> dict[str, Flag]:
    """The tables of `keys` (table -> public key text) whose key is not the allowed one.

    A table seen for the first time has its key recorded and is not refused.
    """
    out: dict[str, Flag] = {}
    with conn.transaction():
        for table, key in sorted(keys.items()):
            conn.execute(
                "INSERT INTO archive_table_key (table_id, key) VALUES (%s, %s)"
                " ON CONFLICT DO NOTHING",
                (table, key),
            )
            row = conn.execute(
                "SELECT key FROM archive_table_key WHERE table_id = %s", (table,)
            ).fetchone()
            if row is not None and str(row[0]) != key:
                detail = f"answers with key {key}, not the allowed {row[0]}: refused until allowed"
                out[table] = Flag(table, 0, "key", detail)
    return out


def allow(conn: Conn, table: str, key: str) -> None:
    """Make `key` the allowed key of `table` (the operator's decision)."""
    with conn.transaction():
        conn.execute(
            "INSERT INTO archive_table_key (table_id, key) VALUES (%s, %s) ON CONFLICT (table_id)"
            " DO UPDATE SET key = excluded.key, allowed_at = now()",
            (table, key),
        )


def record_flag(conn: Conn, flag: Flag) -> None:
    """Keep `flag` in `archive_flag` for the operators."""
    conn.execute(
        "INSERT INTO archive_flag (table_id, seq, kind, detail) VALUES (%s, %s, %s, %s)",
        (flag.table, flag.seq, flag.kind, flag.detail),
    )
