"""Recall whole rounds from the archive, in the journal recall's own shape and rendering.

Rows are checked against the archive chain's stored hash before they are shown (a recall must
never show an edited card as the one on record), then handed to `studio.journal.recall.
build_round`, so `studio recall --archive` prints exactly what `studio recall --journal` does.
"""

from __future__ import annotations

import json

from studio.archive.chain import link
from studio.archive.store import Conn
from studio.errors import InputError, JournalError
from studio.journal.recall import RecalledRound, build_round


def recall_round(conn: Conn, game_number: str) -> RecalledRound:
    """The round `game_number` from any table; InputError when the archive has none.

    Raises JournalError when a stored row does not match its hash.
    """
    rows = conn.execute(
        "SELECT table_id, seq, payload, prev, hash FROM archive_event"
        " WHERE game_number = %s ORDER BY table_id, seq",
        (game_number,),
    ).fetchall()
    if not rows:
        raise InputError(f"no round {game_number!r} in the archive")
    events = []
    for table, seq, payload, prev, digest in rows:
        if link(prev, payload.encode()) != digest:
            raise JournalError(f"archive: {table} seq {seq} does not match its hash (edited)")
        events.append(json.loads(payload))
    return build_round(game_number, events)


def recall_last(conn: Conn, table: str, count: int) -> list[RecalledRound]:
    """The last `count` rounds of `table`, oldest first; InputError for a count below 1."""
    if count < 1:
        raise InputError(f"--last needs a count of at least 1, got {count}")
    rows = conn.execute(
        "SELECT game_number FROM archive_event WHERE table_id = %s AND game_number IS NOT NULL"
        " GROUP BY game_number ORDER BY min(seq) DESC LIMIT %s",
        (table, count),
    ).fetchall()
    return [recall_round(conn, str(r[0])) for r in reversed(rows)]
