"""Append streamed events to the archive exactly once, per table, in one transaction per batch.

`store(conn, events)` takes events in the order a `Subscriber` delivered them. Per table it locks
the table's row, drops every event at or below the stored `last_seq` (a replay after a restart:
already stored, so nothing is duplicated) after checking that its bytes are the ones stored (a
different payload for a stored (table, seq) is a `conflict` flag: a table replaced by another one,
or history rewritten), links the rest onto the archive chain and writes them with COPY. A table's
`last_seq` moves in the same transaction as its rows, so a crash at any moment loses nothing: the
next run resumes `after` the committed `last_seq` and the stream's replay service supplies the
rest. With `gapless` (the restricted stream carries every event) a jump in seq is a `gap` flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import psycopg
from psycopg.rows import TupleRow

from studio.archive.chain import ARCHIVE_GENESIS, link
from studio.bus.wire import WireEvent


@dataclass(frozen=True)
class Flag:
    """Something the archive found wrong with a table's record at `seq`."""

    table: str
    seq: int
    kind: str
    detail: str


@dataclass(frozen=True)
class Stored:
    """What one `store` call did: rows written, replays dropped, flags raised."""

    written: int
    duplicates: int
    flags: tuple[Flag, ...]


@dataclass(frozen=True)
class Position:
    """How far the archive holds one table: last seq, its event time, when stored."""

    table: str
    last_seq: int
    last_ts: datetime | None
    stored_at: datetime | None


Conn = psycopg.Connection[TupleRow]


def positions(conn: Conn) -> dict[str, Position]:
    """Every table the archive holds, with its position (where a restart resumes)."""
    rows = conn.execute(
        "SELECT table_id, last_seq, last_ts, stored_at FROM archive_table ORDER BY table_id"
    ).fetchall()
    return {r[0]: Position(r[0], int(r[1]), r[2], r[3]) for r in rows}


def store(conn: Conn, events: Iterable[WireEvent], *, gapless: bool = False) -> Stored:
    """Store `events` exactly once (see the module doc); one transaction for the whole batch."""
    by_table: dict[str, list[WireEvent]] = {}
    for event in events:
        by_table.setdefault(event.table, []).append(event)
    written = duplicates = 0
    flags: list[Flag] = []
    with conn.transaction():
        for table in sorted(by_table):  # a fixed lock order: two archives never deadlock
            w, d, f = _store_table(conn, table, by_table[table], gapless)
            written, duplicates = written + w, duplicates + d
            flags.extend(f)
        for flag in flags:
            conn.execute(
                "INSERT INTO archive_flag (table_id, seq, kind, detail) VALUES (%s, %s, %s, %s)",
                (flag.table, flag.seq, flag.kind, flag.detail),
            )
    return Stored(written, duplicates, tuple(flags))


def _store_table(
    conn: Conn, table: str, events: Sequence[WireEvent], gapless: bool
) -> tuple[int, int, list[Flag]]:
    conn.execute(
        "INSERT INTO archive_table (table_id, head) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (table, ARCHIVE_GENESIS),
    )
    row = conn.execute(
        "SELECT last_seq, head FROM archive_table WHERE table_id = %s FOR UPDATE", (table,)
    ).fetchone()
    assert row is not None  # inserted just above
    last_seq, head = int(row[0]), str(row[1])
    flags: list[Flag] = []
    old = [e for e in events if e.seq <= last_seq]
    if old:
        stored: dict[int, str] = dict(
            conn.execute(
                "SELECT seq, payload FROM archive_event WHERE table_id = %s AND seq = ANY(%s)",
                (table, [e.seq for e in old]),
            ).fetchall()
        )
        for event in old:
            if event.seq in stored and stored[event.seq] != event.payload.decode():
                flags.append(
                    Flag(table, event.seq, "conflict", "a stored event came back different")
                )
    rows = []
    for event in events:
        if event.seq <= last_seq:
            continue
        if gapless and event.seq != last_seq + 1:
            flags.append(Flag(table, event.seq, "gap", f"seq {event.seq} follows {last_seq}"))
        prev, head = head, link(head, event.payload)
        env = event.envelope
        rows.append(
            (
                table,
                env.seq,
                env.game_number,
                env.ts,
                env.audience,
                env.type,
                event.payload.decode(),
                prev,
                head,
            )
        )
        last_seq = event.seq
    if rows:
        with conn.cursor().copy(
            "COPY archive_event (table_id, seq, game_number, ts, audience, type, payload,"
            " prev, hash) FROM STDIN"
        ) as copy:
            for r in rows:
                copy.write_row(r)
        conn.execute(
            "UPDATE archive_table SET last_seq = %s, head = %s, last_ts = %s, stored_at = now()"
            " WHERE table_id = %s",
            (last_seq, head, rows[-1][3], table),
        )
    return len(rows), len(old), flags


def verify_table(conn: Conn, table: str) -> Flag | None:
    """Re-walk a table's stored chain; the first row whose link does not hold, or None."""
    head = ARCHIVE_GENESIS
    with conn.transaction(), conn.cursor(name="verify_table") as cur:
        cur.execute(
            "SELECT seq, payload, prev, hash FROM archive_event WHERE table_id = %s ORDER BY seq",
            (table,),
        )
        for seq, payload, prev, digest in cur:
            if prev != head or link(head, payload.encode()) != digest:
                return Flag(table, int(seq), "chain", f"the stored chain breaks at seq {seq}")
            head = digest
    return None
