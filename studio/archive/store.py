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
    """Store `events` exactly once (see the module doc); one transaction for the whole batch.

    A handful of round trips per batch whatever the number of tables: the tables' rows are
    locked in one statement (in table order, so two archives never deadlock), every new row
    goes in one COPY and every position moves in one UPDATE.
    """
    by_table: dict[str, list[WireEvent]] = {}
    for event in events:
        by_table.setdefault(event.table, []).append(event)
    if not by_table:
        return Stored(0, 0, ())
    names = sorted(by_table)
    flags: list[Flag] = []
    rows: list[tuple[object, ...]] = []
    moved: list[tuple[str, int, str, datetime]] = []
    duplicates = 0
    with conn.transaction():
        conn.execute(
            "INSERT INTO archive_table (table_id, head) SELECT t, %s FROM unnest(%s::text[]) t"
            " ON CONFLICT DO NOTHING",
            (ARCHIVE_GENESIS, names),
        )
        state = {
            str(r[0]): (int(r[1]), str(r[2]))
            for r in conn.execute(
                "SELECT table_id, last_seq, head FROM archive_table WHERE table_id = ANY(%s)"
                " ORDER BY table_id FOR UPDATE",
                (names,),
            ).fetchall()
        }
        old = [e for t in names for e in by_table[t] if e.seq <= state[t][0]]
        duplicates = len(old)
        if old:
            flags.extend(_conflicts(conn, old))
        for table in names:
            last_seq, head = state[table]
            for event in by_table[table]:
                if event.seq <= last_seq:
                    continue
                if gapless and event.seq != last_seq + 1:
                    flags.append(
                        Flag(table, event.seq, "gap", f"seq {event.seq} follows {last_seq}")
                    )
                prev, head = head, link(head, event.payload)
                env = event.envelope
                rows.append(
                    (table, env.seq, env.game_number, env.ts, env.audience, env.type,
                     event.payload.decode(), prev, head)
                )  # fmt: skip
                last_seq = event.seq
            if last_seq != state[table][0]:
                moved.append((table, last_seq, head, by_table[table][-1].envelope.ts))
        if rows:
            with conn.cursor().copy(
                "COPY archive_event (table_id, seq, game_number, ts, audience, type, payload,"
                " prev, hash) FROM STDIN"
            ) as copy:
                for r in rows:
                    copy.write_row(r)
            conn.execute(
                "UPDATE archive_table a SET last_seq = m.s, head = m.h, last_ts = m.ts,"
                " stored_at = now() FROM unnest(%s::text[], %s::bigint[], %s::text[],"
                " %s::timestamptz[]) AS m(t, s, h, ts) WHERE a.table_id = m.t",
                ([m[0] for m in moved], [m[1] for m in moved], [m[2] for m in moved],
                 [m[3] for m in moved]),
            )  # fmt: skip
        for flag in flags:
            conn.execute(
                "INSERT INTO archive_flag (table_id, seq, kind, detail) VALUES (%s, %s, %s, %s)",
                (flag.table, flag.seq, flag.kind, flag.detail),
            )
    return Stored(len(rows), duplicates, tuple(flags))


def _conflicts(conn: Conn, old: Sequence[WireEvent]) -> list[Flag]:
    """A `conflict` flag for each already-stored key that came back with other bytes."""
    stored: dict[tuple[str, int], str] = {
        (str(r[0]), int(r[1])): str(r[2])
        for r in conn.execute(
            "SELECT e.table_id, e.seq, e.payload FROM archive_event e"
            " JOIN unnest(%s::text[], %s::bigint[]) AS k(t, s) ON e.table_id = k.t AND e.seq = k.s",
            ([e.table for e in old], [e.seq for e in old]),
        ).fetchall()
    }
    return [
        Flag(e.table, e.seq, "conflict", "a stored event came back different")
        for e in old
        if stored.get((e.table, e.seq), e.payload.decode()) != e.payload.decode()
    ]


def verify_table(conn: Conn, table: str) -> Flag | None:
    """Re-walk a table's stored chain; the first row whose link does not hold, or None."""
    # Rows exported by retention are gone: the walk starts from the newest export's head.
    exported = conn.execute(
        "SELECT head FROM archive_export WHERE table_id = %s ORDER BY last_seq DESC LIMIT 1",
        (table,),
    ).fetchone()
    head = str(exported[0]) if exported is not None else ARCHIVE_GENESIS
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
