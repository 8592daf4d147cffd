"""The append-only SQLite file behind a table's journal.

One table `records` holds the hash chain (see `studio.journal.chain`): every input, and every
event the controller returned for it, with its gapless sequence number. A `meta` table holds
the file format, the table's settings (so a later process can rebuild the same controller) and
the chain's head, updated in the same transaction as each append so that cutting records off
the end is detected too. The header carries the format marker (`studio.journal.marker`), checked
before anything is written to a file; the tables, the format and the marker are created in one
transaction.

The database runs in WAL mode. An input commits with `synchronous=FULL`: the commit returns only
after the WAL is on disk. Every table (`studio run`, `studio simulate`, a recovery's restart)
appends each input together with the events it caused (`append_input(data, events=...)`), one
transaction and one fsync for both, so a crash keeps both or neither. `append_events` alone is
the second commit of the two-commit way earlier versions wrote (and recovery's, storing the
events such a journal's crash kept from being stored): it commits with `synchronous=NORMAL`
unless `durable_events` is set, in the WAL (it survives the process dying at any moment) and on
disk with the next fsync, which covers the whole WAL; a power loss can only take the events of
the last input, and recovery rebuilds exactly those from the durable input (they are a pure
function of the inputs).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import Any

from studio.closing import Closing
from studio.errors import JournalError
from studio.journal.chain import (
    FORMAT,
    GENESIS,
    Record,
    RecordKind,
    canonical_json,
    genesis,
    record_hash,
)
from studio.journal.marker import inspect, mark

log = logging.getLogger(__name__)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('input', 'event')),
    seq INTEGER NOT NULL,
    game_number TEXT,
    cause INTEGER,
    batch INTEGER,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS records_kind_seq ON records (kind, seq)",
    "CREATE INDEX IF NOT EXISTS records_game ON records (game_number)",
)
"""The journal's tables and indexes, one statement each (created in one transaction)."""
_COLUMNS = "id, kind, seq, game_number, cause, batch, body, prev, hash"


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _row(row: tuple[Any, ...]) -> Record:
    return Record(*row)


def _use_wal(conn: sqlite3.Connection, path: Path, attempts: int = 50) -> None:
    """Switch the file to WAL mode, or raise `JournalError`.

    SQLite answers the pragma with the mode it kept, without an error, when another connection
    (a reader such as `studio recall` polling a new file) holds a lock at that instant; a journal
    left in rollback mode would then block its readers and writers, so retry and check.
    """
    for _ in range(attempts):
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode is not None and str(mode[0]).lower() == "wal":
            return
        time.sleep(0.02)
    raise JournalError(f"{path}: cannot switch the journal to WAL mode (another process holds it)")


PRIVATE_MODE = 0o600
"""The journal holds face-down cards before their reveal: only its owner may read it. SQLite
gives the -wal and -shm files the database file's permissions."""


def _private_file(path: Path) -> bool:
    """Create `path` readable by its owner alone, or refuse one that others can read.

    The -wal and -shm files are checked too: a local user must not read a live round's hole
    cards from the journal or its WAL. Returns whether the file was created now. Raises
    `JournalError`.
    """
    created = False
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE))
        created = True
    except FileExistsError:
        pass
    except OSError as err:
        raise JournalError(f"{path}: cannot create journal: {err.strerror}") from err
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = part.stat().st_mode
        except FileNotFoundError:
            continue
        if mode & 0o077:
            raise JournalError(
                f"{part}: other users can read this journal (mode {stat.S_IMODE(mode):o}); "
                f"it holds face-down cards: `chmod 600 {part}` before starting"
            )
    return created


def _create(conn: sqlite3.Connection) -> None:
    """Make the file a journal: its tables, format, empty head and marker, in one transaction.

    A crash keeps all of it or none: a file is never a journal with only some of its tables.
    A journal written before the marker existed gets only what it lacks (every statement is
    `IF NOT EXISTS` or `OR IGNORE`), and the marker.
    """
    conn.execute("BEGIN IMMEDIATE")
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.executemany(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
        [("format", FORMAT), ("head", f"0:{GENESIS}")],
    )
    mark(conn)
    conn.execute("COMMIT")


class Journal(Closing):
    """An open journal file: append inputs and events, read records back.

    `Journal(path)` opens or creates the file for writing; `Journal(path, readonly=True)` opens
    an existing file for reading only (recall, verify) and never creates one. Inputs always
    commit with an fsync; events too when `durable_events` is set (see the module docstring for
    why they need not). One process
    writes a journal at a time; a second writer is detected at its first append. Use it as a
    context manager; `close()` is idempotent.

    Raises `JournalError` when the file is missing (read-only), is not a journal (its format
    marker, `studio.journal.marker`, says what it is: another SQLite file, a journal of another
    format, an empty file), or cannot be opened. Nothing is written to a file that is refused.
    """

    def __init__(
        self, path: str | PathLike[str], *, readonly: bool = False, durable_events: bool = False
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.durable_events = durable_events
        self._conn: sqlite3.Connection | None = None
        if readonly and not self.path.is_file():
            raise JournalError(f"{self.path}: no such journal file")
        created = False
        try:
            if readonly:
                conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
                # A journal never writes text that is not UTF-8: read such bytes with U+FFFD so
                # that the record fails its hash check by name, rather than the read failing.
                conn.text_factory = _lenient_text
            else:
                created = _private_file(self.path)
                conn = sqlite3.connect(self.path, isolation_level=None)
            self._conn = conn
            # What the file is, before anything is written to it.
            state = inspect(conn, self.path)
            if state == "empty" and not created:
                # Made by someone else, or a journal whose creation never committed: a table
                # must not start a fresh record where one was expected without a person saying so.
                raise JournalError(
                    f"{self.path}: not a journal (an empty file: nothing was ever committed to "
                    "it); remove it to start a new journal"
                )
            if not readonly:
                _use_wal(conn, self.path)
                conn.execute("PRAGMA synchronous=FULL")
                if state != "marked":
                    _create(conn)
            fmt = self.meta("format")
            if fmt != FORMAT:
                raise JournalError(f"{self.path}: not a studio journal (format {fmt!r})")
            head = conn.execute(
                f"SELECT {_COLUMNS} FROM records ORDER BY id DESC LIMIT 1"
            ).fetchone()
            counts = dict(
                conn.execute("SELECT kind, MAX(seq) FROM records GROUP BY kind").fetchall()
            )
        except sqlite3.Error as err:
            self.close()
            raise JournalError(f"{self.path}: cannot open journal: {err}") from err
        except JournalError:
            self.close()
            raise
        last = _row(head) if head is not None else None
        self._head_id = last.id if last else 0
        self._head_hash = last.hash if last else GENESIS
        self._inputs: int = counts.get("input") or 0
        self._events: int = counts.get("event") or 0

    # -- context management -------------------------------------------------------------------

    def close(self) -> None:
        """Close the file; calling it again does nothing."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    @property
    def closed(self) -> bool:
        """Whether `close()` has been called."""
        return self._conn is None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"{self.path}: journal is closed")
        return self._conn

    # -- state ----------------------------------------------------------------------------------

    @property
    def head_id(self) -> int:
        """The id of the last record (0 for an empty journal)."""
        return self._head_id

    @property
    def head_hash(self) -> str:
        """The hash of the last record (`GENESIS` for an empty journal)."""
        return self._head_hash

    @property
    def input_count(self) -> int:
        """How many inputs the journal holds (the last input's number)."""
        return self._inputs

    @property
    def last_event_seq(self) -> int:
        """The sequence number of the last stored event (0 when none)."""
        return self._events

    def meta(self, key: str) -> str | None:
        """The metadata value stored under `key`, or None."""
        row = self._db().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store `value` under `key` durably.

        The settings are part of the chain (the first record's `prev` hashes them), so they can
        be stored only while the journal holds no records; `format` and `head` are the journal's
        own. Raises `JournalError` otherwise.
        """
        if key in ("format", "head"):
            raise JournalError(f"{self.path}: meta.{key} is written by the journal itself")
        with self._transaction():
            if key == "settings" and self._db().execute("SELECT 1 FROM records").fetchone():
                raise JournalError(
                    f"{self.path}: the settings of a journal that holds records cannot change"
                )
            self._db().execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- appending ------------------------------------------------------------------------------

    def append_input(
        self,
        data: Mapping[str, Any],
        *,
        events: Sequence[Mapping[str, Any]] = (),
        bodies: Sequence[str] | None = None,
    ) -> Record:
        """Append one input (its JSON form) in its own durable transaction; return its record.

        `events`, if given, are the events the input caused (as for `append_events`, with their
        `bodies`): they are appended in the same transaction, after the input, so the input and
        its events reach the disk with one fsync and a crash keeps both or neither. When this
        returns the input (and its events) are on disk. Raises `JournalError` for an event seq
        that does not follow the stored ones, when the write fails, or when another process has
        appended to the journal since it was opened; then nothing was written.
        """
        record = self._chain(
            self._head_id + 1, "input", self._inputs + 1, None, None, None, data, self._prev()
        )
        records = [record]
        records += self._event_records(events, bodies, record.id, record.hash, record.seq)
        self._write(records, durable=True)
        self._inputs = record.seq
        if events:
            self._events = records[-1].seq
        return record

    def append_events(
        self, events: Sequence[Mapping[str, Any]], *, bodies: Sequence[str] | None = None
    ) -> list[Record]:
        """Append the events one input caused, in one transaction; return their records.

        Each event is an envelope's JSON form; its `seq` must continue the stored events without
        a gap. Every record names the last stored input as its `cause` and `len(events)` as its
        `batch`, so `verify` can tell a whole batch from one cut short. `bodies`, if given, are
        the events' canonical JSON texts made already (`studio.journal.chain.canonical_json`):
        they are stored as they are instead of being made again, and only each event's `seq`
        and `game_number` are read from `events`. The commit is fsynced only with
        `durable_events` (see the module docstring). Raises `JournalError` for a gap or
        duplicate, or when the write fails.
        """
        records = self._event_records(events, bodies, self._head_id, self._prev(), self._inputs)
        if records:
            self._write(records, durable=self.durable_events)
            self._events = records[-1].seq
        return records

    def _event_records(
        self,
        events: Sequence[Mapping[str, Any]],
        bodies: Sequence[str] | None,
        head_id: int,
        head_hash: str,
        cause: int,
    ) -> list[Record]:
        """The chained records of `events` after the record `head_id`, caused by input `cause`."""
        if bodies is not None and len(bodies) != len(events):
            raise JournalError(f"{len(bodies)} bodies given for {len(events)} events")
        records: list[Record] = []
        seq = self._events
        batch = len(events)
        for i, data in enumerate(events):
            got = data.get("seq")
            if got != seq + 1:
                raise JournalError(f"event seq {got!r} does not follow stored seq {seq}")
            game = data.get("game_number")
            record = self._chain(
                head_id + 1,
                "event",
                got,
                game,
                cause,
                batch,
                data if bodies is None else bodies[i],
                head_hash,
            )
            records.append(record)
            head_id, head_hash, seq = record.id, record.hash, got
        return records

    def _prev(self) -> str:
        """The `prev` of the next record: the head's hash, or the genesis of the settings."""
        if self._head_id == 0:
            return genesis(self.meta("settings"))
        return self._head_hash

    @staticmethod
    def _chain(
        record_id: int,
        kind: RecordKind,
        seq: int,
        game_number: Any,
        cause: int | None,
        batch: int | None,
        data: Mapping[str, Any] | str,
        prev: str,
    ) -> Record:
        try:
            body = data if isinstance(data, str) else canonical_json(data)
        except (TypeError, ValueError) as err:
            raise JournalError(f"{kind} {seq} cannot be stored as JSON: {err}") from err
        game = game_number if isinstance(game_number, str) else None
        digest = record_hash(
            record_id, kind, seq, prev, body, game_number=game, cause=cause, batch=batch
        )
        return Record(record_id, kind, seq, game, cause, batch, body, prev, digest)

    def _write(self, records: list[Record], *, durable: bool) -> None:
        if self.readonly:
            raise JournalError(f"{self.path}: journal is open read-only")
        db = self._db()
        old = f"{self._head_id}:{self._head_hash}"
        new = f"{records[-1].id}:{records[-1].hash}"
        if not durable:
            db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._write_records(db, records, old, new)
        finally:
            if not durable:
                db.execute("PRAGMA synchronous=FULL")
        self._head_id, self._head_hash = records[-1].id, records[-1].hash

    def _write_records(
        self, db: sqlite3.Connection, records: list[Record], old: str, new: str
    ) -> None:
        with self._transaction():
            # Move the head first, so a second writer fails on the head, not on an id.
            moved = db.execute(
                "UPDATE meta SET value = ? WHERE key = 'head' AND value = ?", (new, old)
            ).rowcount
            if moved != 1:
                raise JournalError(
                    f"{self.path}: the journal's head moved: another process is writing it"
                )
            db.executemany(
                f"INSERT INTO records ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.id, r.kind, r.seq, r.game_number, r.cause, r.batch, r.body, r.prev, r.hash)
                    for r in records
                ],
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot write: {err}") from err
        try:
            yield
            db.execute("COMMIT")
        except BaseException as err:
            # SQLite rolls a transaction back by itself on some errors (a full disk, a file-size
            # limit, an I/O error): a ROLLBACK then fails and would hide the cause.
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error as failed:
                    err.add_note(f"and the rollback failed too: {failed}")
            if isinstance(err, sqlite3.Error):
                raise JournalError(f"{self.path}: cannot write: {err}") from err
            raise

    # -- reading --------------------------------------------------------------------------------

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Read inside one transaction: every query sees the same state of the file.

        A journal is read while its table writes it (recall, verify of a live table); without
        this the head could be read after appends the records were read before.
        """
        db = self._db()
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.execute("COMMIT")

    def records(self, after: int = 0) -> Iterator[Record]:
        """Every record with an id above `after`, in chain order.

        Raises `JournalError` when the file cannot be read.
        """
        try:
            cursor = self._db().execute(
                f"SELECT {_COLUMNS} FROM records WHERE id > ? ORDER BY id", (after,)
            )
            for row in cursor:
                yield _row(row)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err

    def events_from(self, seq: int) -> Iterator[Record]:
        """Every stored event with sequence number `seq` or later, in sequence order.

        Reads through the `(kind, seq)` index, so a replay from near the head costs the same on
        a journal of any length. Raises `JournalError` when the file cannot be read.
        """
        try:
            cursor = self._db().execute(
                f"SELECT {_COLUMNS} FROM records WHERE kind = 'event' AND seq >= ? ORDER BY seq",
                (seq,),
            )
            for row in cursor:
                yield _row(row)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err

    def last_input(self) -> Record | None:
        """The most recent input record, or None for a journal without inputs."""
        row = (
            self._db()
            .execute(
                f"SELECT {_COLUMNS} FROM records WHERE kind = 'input' ORDER BY id DESC LIMIT 1"
            )
            .fetchone()
        )
        return None if row is None else _row(row)

    def last_input_of(self, kind: str) -> Record | None:
        """The most recent input of `kind` (such as "card_drawn"), or None when there is none.

        Reads back from the head, so it costs little while such inputs are frequent.
        """
        try:
            row = (
                self._db()
                .execute(
                    f"SELECT {_COLUMNS} FROM records WHERE kind = 'input' "
                    "AND json_extract(body, '$.kind') = ? ORDER BY id DESC LIMIT 1",
                    (kind,),
                )
                .fetchone()
            )
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err
        return None if row is None else _row(row)

    def last_event_seq_of(self, audience: str, up_to: int | None = None) -> int:
        """The seq of the last stored event for `audience` at or below `up_to`, or 0 if none.

        `audience` is "public" or "restricted"; `up_to` None means any. Reads back from `up_to`
        through the `(kind, seq)` index, so it costs little while such events are frequent.
        Raises `JournalError` when the file cannot be read.
        """
        limit = self._events if up_to is None else up_to
        try:
            row = (
                self._db()
                .execute(
                    "SELECT seq FROM records WHERE kind = 'event' AND seq <= ? "
                    "AND json_extract(body, '$.audience') = ? ORDER BY seq DESC LIMIT 1",
                    (limit, audience),
                )
                .fetchone()
            )
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err
        return 0 if row is None else int(row[0])

    def game_numbers(self) -> list[str]:
        """The game numbers that have events, in the order their rounds began."""
        rows = self._db().execute(
            "SELECT game_number FROM records WHERE kind = 'event' AND game_number IS NOT NULL "
            "GROUP BY game_number ORDER BY MIN(id)"
        )
        return [str(r[0]) for r in rows]

    def round_events(self, game_number: str) -> list[Record]:
        """The stored events of the round `game_number`, in order (empty for an unknown one)."""
        rows = self._db().execute(
            f"SELECT {_COLUMNS} FROM records WHERE kind = 'event' AND game_number = ? ORDER BY id",
            (game_number,),
        )
        return [_row(r) for r in rows]
