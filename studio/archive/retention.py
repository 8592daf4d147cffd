"""Retention: old rounds exported to compressed files with their hashes, removed, re-importable.

`export_before(conn, cutoff, directory)` takes, per table, the oldest stretch of stored events
that ends before the first round still younger than `cutoff` (never splitting a round: a stretch
ends before the first event of the round that crosses the cutoff), writes it as gzip'd JSON lines
(one header line, then one line per event with its payload and its archive-chain `prev` and
`hash`), records the file's SHA-256 and the chain's hashes around the stretch in
`archive_export`, and deletes the rows, all in one transaction after the file is fsynced.
`import_file` checks the file against its recorded SHA-256 and re-walks its chain from the
recorded `prev` to the recorded `head` before putting the rows back exactly (COPY), so a file
edited on disk is refused. Only a table's newest export can be re-imported (the stored rows stay
one unbroken stretch of the chain). The walk of `verify_table` starts after the newest export.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from studio.archive.chain import link
from studio.archive.store import Conn
from studio.errors import InputError, JournalError


@dataclass(frozen=True)
class Export:
    """One exported stretch of a table: where it is and how to check it."""

    table: str
    first_seq: int
    last_seq: int
    path: Path
    sha256: str


def _cut(conn: Conn, table: str, cutoff: datetime) -> int:
    """The last seq of `table` that may go: before the round (or event) crossing `cutoff`."""
    row = conn.execute(
        "SELECT seq, game_number FROM archive_event WHERE table_id = %s AND ts >= %s"
        " ORDER BY seq LIMIT 1",
        (table, cutoff),
    ).fetchone()
    if row is None:
        last = conn.execute(
            "SELECT coalesce(max(seq), 0) FROM archive_event WHERE table_id = %s", (table,)
        ).fetchone()
        return int(last[0]) if last else 0
    seq, game = int(row[0]), row[1]
    if game is not None:
        first = conn.execute(
            "SELECT min(seq) FROM archive_event WHERE table_id = %s AND game_number = %s",
            (table, game),
        ).fetchone()
        seq = int(first[0]) if first and first[0] is not None else seq
    return seq - 1


def export_before(conn: Conn, cutoff: datetime, directory: Path) -> list[Export]:
    """Export and remove every table's events older than `cutoff`; the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    done: list[Export] = []
    tables = [str(r[0]) for r in conn.execute("SELECT table_id FROM archive_table ORDER BY 1")]
    for table in tables:
        with conn.transaction():
            conn.execute("SELECT 1 FROM archive_table WHERE table_id = %s FOR UPDATE", (table,))
            last = _cut(conn, table, cutoff)
            rows = conn.execute(
                "SELECT seq, game_number, ts, audience, type, payload, prev, hash, archived_at"
                " FROM archive_event WHERE table_id = %s AND seq <= %s ORDER BY seq",
                (table, last),
            ).fetchall()
            if not rows:
                continue
            first_seq, last_seq = int(rows[0][0]), int(rows[-1][0])
            path = directory / f"{table}-{first_seq:012}-{last_seq:012}.jsonl.gz"
            header = {"table": table, "first_seq": first_seq, "last_seq": last_seq}
            lines = [json.dumps(header)]
            for seq, game, ts, audience, type_, payload, prev, digest, archived in rows:
                lines.append(
                    json.dumps(
                        {"seq": seq, "game_number": game, "ts": ts.isoformat(),
                         "audience": audience, "type": type_, "payload": payload,
                         "prev": prev, "hash": digest, "archived_at": archived.isoformat()}
                    )
                )  # fmt: skip
            data = gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
            digest = hashlib.sha256(data).hexdigest()
            with open(path, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())  # on disk before its rows leave the database
            path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n")
            conn.execute(
                "INSERT INTO archive_export (table_id, first_seq, last_seq, prev, head, file,"
                " sha256) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (table, first_seq, last_seq, rows[0][6], rows[-1][7], path.name, digest),
            )
            conn.execute(
                "DELETE FROM archive_event WHERE table_id = %s AND seq <= %s", (table, last_seq)
            )
            done.append(Export(table, first_seq, last_seq, path, digest))
    return done


def import_file(conn: Conn, path: Path) -> Export:
    """Put an exported file's rows back, exactly; InputError or JournalError when it does not check.

    Refused: a file the archive did not export (or no longer records), a file whose SHA-256
    differs from the recorded one, a chain that does not lead from the recorded `prev` to the
    recorded `head`, and any export but the table's newest.
    """
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror}") from err
    digest = hashlib.sha256(data).hexdigest()
    with conn.transaction():
        row = conn.execute(
            "SELECT table_id, first_seq, last_seq, prev, head, sha256 FROM archive_export"
            " WHERE file = %s FOR UPDATE",
            (path.name,),
        ).fetchone()
        if row is None:
            raise InputError(f"{path.name}: the archive records no such export")
        table, first_seq, last_seq, prev, head, recorded = row
        if digest != recorded:
            raise JournalError(f"{path.name}: SHA-256 {digest} is not the recorded {recorded}")
        newer = conn.execute(
            "SELECT 1 FROM archive_export WHERE table_id = %s AND first_seq > %s",
            (table, first_seq),
        ).fetchone()
        if newer is not None:
            raise InputError(f"{path.name}: re-import {table}'s newer exports first")
        lines = gzip.decompress(data).decode().splitlines()[1:]
        events = [json.loads(line) for line in lines]
        at = str(prev)
        for event in events:
            if event["prev"] != at or link(at, event["payload"].encode()) != event["hash"]:
                raise JournalError(f"{path.name}: the chain breaks at seq {event['seq']}")
            at = event["hash"]
        if at != head or [e["seq"] for e in events] != list(range(first_seq, last_seq + 1)):
            raise JournalError(f"{path.name}: does not end at the recorded head")
        with conn.cursor().copy(
            "COPY archive_event (table_id, seq, game_number, ts, audience, type, payload,"
            " prev, hash, archived_at) FROM STDIN"
        ) as copy:
            for e in events:
                copy.write_row(
                    (table, e["seq"], e["game_number"], e["ts"], e["audience"], e["type"],
                     e["payload"], e["prev"], e["hash"], e["archived_at"])
                )  # fmt: skip
        conn.execute(
            "DELETE FROM archive_export WHERE table_id = %s AND first_seq = %s", (table, first_seq)
        )
    return Export(str(table), int(first_seq), int(last_seq), path, digest)
