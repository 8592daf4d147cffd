"""The tables' signed checkpoints in the archive: stored, and held to the events stored.

A checkpoint (`studio.messages.notices.Checkpoint`, from the restricted stream) states a table's
journal end and `events_head`, the events-only chain's value at its `last_seq`, which is the
archive's own chain (`studio.archive.chain`). So once the archive has stored up to `last_seq`
it can tell whether what it holds is what the table journalled. Flags (kind `checkpoint`):

- a bad signature, or one by another key than the table's first checkpoint's (not stored);
- a second checkpoint of the same record count with another head (the journal was rewritten);
- a checkpoint whose `events_head` differs from the archive's chain at `last_seq`.

A checkpoint whose events are not all stored yet waits (`matched` NULL) and is checked later;
one whose events retention removed is checked against the export's head when `last_seq` is an
export's end, and otherwise stays unchecked.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.archive.chain import ARCHIVE_GENESIS
from studio.archive.store import Conn, Flag
from studio.journal.anchors import signature_ok
from studio.messages.notices import Checkpoint


def store_checkpoints(conn: Conn, checkpoints: Iterable[Checkpoint]) -> list[Flag]:
    """Store each checkpoint once; return the flags raised (those are not stored)."""
    flags: list[Flag] = []
    with conn.transaction():
        for cp in checkpoints:
            row = conn.execute(
                "SELECT key FROM archive_checkpoint WHERE table_id = %s ORDER BY records LIMIT 1",
                (cp.table,),
            ).fetchone()
            trusted = str(row[0]) if row is not None else None
            if not signature_ok(cp, trusted):
                whose = "another key than the table's" if trusted else "a bad signature"
                flags.append(_flag(cp, f"the checkpoint of {cp.ts.isoformat()} has {whose}"))
                continue
            same = conn.execute(
                "SELECT head, last_seq FROM archive_checkpoint"
                " WHERE table_id = %s AND records = %s",
                (cp.table, cp.records),
            ).fetchone()
            if same is not None:
                if (str(same[0]), int(same[1])) != (cp.head, cp.last_seq):
                    flags.append(
                        _flag(
                            cp,
                            f"two checkpoints of record {cp.records} disagree: the table's "
                            "journal was rewritten",
                        )
                    )
                continue
            conn.execute(
                "INSERT INTO archive_checkpoint (table_id, records, last_seq, head, events_head,"
                " ts, key, body) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (cp.table, cp.records, cp.last_seq, cp.head, cp.events_head, cp.ts, cp.key,
                 cp.model_dump_json()),
            )  # fmt: skip
        _record(conn, flags)
    return flags


def check_checkpoints(conn: Conn) -> list[Flag]:
    """Hold every unchecked checkpoint whose events are stored to the archive's chain.

    Marks each `matched` true or false; returns a flag for each that does not match.
    """
    flags: list[Flag] = []
    with conn.transaction():
        rows = conn.execute(
            "SELECT c.table_id, c.records, c.last_seq, c.events_head, c.ts,"
            " COALESCE(e.hash, x.head) FROM archive_checkpoint c"
            " JOIN archive_table t ON t.table_id = c.table_id AND t.last_seq >= c.last_seq"
            " LEFT JOIN archive_event e ON e.table_id = c.table_id AND e.seq = c.last_seq"
            " LEFT JOIN archive_export x ON x.table_id = c.table_id AND x.last_seq = c.last_seq"
            " WHERE c.matched IS NULL"
        ).fetchall()
        for table, records, last_seq, events_head, ts, stored in rows:
            if stored is None and int(last_seq) > 0:
                continue  # removed by retention inside an export: nothing left to hold it to
            held = str(stored) if stored is not None else ARCHIVE_GENESIS
            matched = held == events_head
            conn.execute(
                "UPDATE archive_checkpoint SET matched = %s WHERE table_id = %s AND records = %s",
                (matched, table, records),
            )
            if not matched:
                flags.append(
                    Flag(
                        str(table),
                        int(last_seq),
                        "checkpoint",
                        f"the checkpoint of {ts.isoformat()} chains events 1..{last_seq} to "
                        f"{events_head[:16]}, the archive stored {held[:16]}",
                    )
                )
        _record(conn, flags)
    return flags


def _flag(cp: Checkpoint, detail: str) -> Flag:
    return Flag(cp.table, cp.last_seq, "checkpoint", detail)


def _record(conn: Conn, flags: list[Flag]) -> None:
    for flag in flags:
        conn.execute(
            "INSERT INTO archive_flag (table_id, seq, kind, detail) VALUES (%s, %s, %s, %s)",
            (flag.table, flag.seq, flag.kind, flag.detail),
        )
