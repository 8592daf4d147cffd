"""The archive loop: follow tables with the lossless `Subscriber`, store in batches, survive faults.

The database is the only state: on start, and after any database failure, the loop reads each
table's stored `last_seq`, opens a new `Subscriber` `after` those positions (its replay service
supplies whatever the archive has not committed) and goes on. Events are gathered for at most
`flush_interval` seconds or `batch` events and stored in one transaction; the subscriber is never
ahead of the database by more than that uncommitted batch, which a failure discards and the
replay delivers again. So a restart of the archive, a table or PostgreSQL loses and duplicates
nothing. With `keys` (table -> its CURVE public key text), a table whose key is not the one
allowed (`studio.archive.keys`) is flagged once and its events are dropped unstored; every
`recheck` seconds the loop looks again and, once an operator has allowed it, resubscribes from
the stored positions so that the replay brings what was dropped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import psycopg

from studio.archive.checkpoints import check_checkpoints, store_checkpoints
from studio.archive.keys import record_flag, refused
from studio.archive.migrate import migrate
from studio.archive.store import Conn, Flag, positions, store
from studio.bus import Subscriber
from studio.bus.wire import WireEvent
from studio.errors import BusError
from studio.messages.notices import Checkpoint

log = logging.getLogger(__name__)

SubscriberFactory = Callable[[Mapping[str, int]], Subscriber]
"""Opens a `Subscriber` for every followed table, resuming `after` the given positions."""


@dataclass
class Progress:
    """What the loop has done so far (read by the command's status lines and the bench)."""

    stored: int = 0
    duplicates: int = 0
    reconnects: int = 0
    disk_full: int = 0
    """How many batches the database refused for want of disk space (each retried)."""
    flags: list[Flag] = field(default_factory=list)
    lag: dict[str, float] = field(default_factory=dict)
    """Per table, seconds between the table's time of its last stored event and its storing."""


def follow(
    dsn: str,
    subscribe: SubscriberFactory,
    stop: threading.Event,
    *,
    batch: int = 2000,
    flush_interval: float = 0.1,
    gapless: bool = False,
    retry: float = 0.5,
    progress: Progress | None = None,
    keys: Mapping[str, str] | None = None,
    recheck: float = 1.0,
) -> Progress:
    """Archive until `stop` is set; return the progress. Database faults are retried forever."""
    done = progress or Progress()
    while not stop.is_set():
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                migrate(conn)
                after = {t: p.last_seq for t, p in positions(conn).items()}
                with subscribe(after) as sub:
                    _run(conn, sub, stop, batch, flush_interval, gapless, done, keys or {}, recheck)
        except psycopg.errors.DiskFull as exc:
            # The batch was rolled back and the positions did not move: the replay brings it again.
            # Logged before it is counted: whoever sees the count can rely on the log saying it.
            log.error(
                "archive: the database's disk is full (%s); nothing of this batch was stored,"
                " retrying until there is space",
                str(exc).strip(),
            )
            done.reconnects += 1
            done.disk_full += 1
            stop.wait(retry)
        except psycopg.OperationalError as exc:
            done.reconnects += 1
            log.warning("archive: database unavailable (%s); retrying", str(exc).strip())
            stop.wait(retry)
        except BusError as exc:
            done.reconnects += 1
            log.warning("archive: stream or replay failed (%s); resuming from the database", exc)
            stop.wait(retry)
    return done


def _run(
    conn: Conn,
    sub: Subscriber,
    stop: threading.Event,
    batch: int,
    flush_interval: float,
    gapless: bool,
    done: Progress,
    keys: Mapping[str, str],
    recheck: float,
) -> None:
    bad = _refuse(conn, keys, done)
    checked = time.monotonic()
    while not stop.is_set():
        if bad and time.monotonic() - checked >= recheck:
            checked = time.monotonic()
            if _refuse(conn, keys, done).keys() != bad.keys():
                return  # a table was allowed: resubscribe from the stored positions
        pending: list[WireEvent] = []
        deadline = time.monotonic() + flush_interval
        while len(pending) < batch:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            event = sub.receive(left)
            if event is None:
                break
            if event.table not in bad:
                pending.append(event)
        checkpoints = [cp for cp in sub.notices() if isinstance(cp, Checkpoint)]
        if not pending and not checkpoints:
            continue
        flags: list[Flag] = []
        if pending:
            result = store(conn, pending, gapless=gapless)
            now = datetime.now(UTC)
            done.stored += result.written
            done.duplicates += result.duplicates
            flags.extend(result.flags)
            for event in pending:
                done.lag[event.table] = (now - event.envelope.ts).total_seconds()
        # Checkpoints follow their events on the stream: held to what is stored by now.
        if checkpoints:
            flags.extend(store_checkpoints(conn, (c for c in checkpoints if c.table not in bad)))
        flags.extend(check_checkpoints(conn))
        for flag in flags:
            log.error("archive: %s at %s seq %d: %s", flag.kind, flag.table, flag.seq, flag.detail)
        done.flags.extend(flags)


def _refuse(conn: Conn, keys: Mapping[str, str], done: Progress) -> dict[str, Flag]:
    """The refused tables now; a flag logged and kept the first time a table is refused."""
    bad = refused(conn, keys)
    known = {(f.table, f.detail) for f in done.flags if f.kind == "key"}
    for flag in bad.values():
        if (flag.table, flag.detail) not in known:
            log.error("archive: %s: %s", flag.table, flag.detail)
            record_flag(conn, flag)
            done.flags.append(flag)
    return bad
