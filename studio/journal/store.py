"""`Journal`: the appends to a table's journal, an append-only, hash-chained SQLite file.

One table `records` holds the hash chain (see `studio.journal.chain`): every input, and every
event the controller returned for it, with its gapless sequence number. A `meta` table holds
the file format, the table's settings (so a later process can rebuild the same controller) and
the chain's head, updated in the same transaction as each append so that cutting records off
the end is detected too. Opening the file (its permissions, format marker and tables) is
`studio.journal.database`'s job, reading it `studio.journal.reader`'s; this module writes.

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

import sqlite3
from collections.abc import Mapping, Sequence
from os import PathLike
from types import TracebackType
from typing import Any

from studio.errors import JournalError
from studio.journal.chain import Record, RecordKind, canonical_json, genesis, record_hash
from studio.journal.database import COLUMNS
from studio.journal.reader import JournalReader


class Journal(JournalReader):
    """An open journal file: append inputs and events, read records back (`JournalReader`).

    `Journal(path)` opens or creates the file for writing; `Journal(path, readonly=True)` opens
    an existing file for reading only (recall, verify) and never creates one. Inputs always
    commit with an fsync; events too when `durable_events` is set (see the module docstring for
    why they need not). One process writes a journal at a time; a second writer is detected at
    its first append. Use it as a context manager; `close()` is idempotent.

    Raises `JournalError` when the file is missing (read-only), is not a journal (its format
    marker, `studio.journal.marker`, says what it is: another SQLite file, a journal of another
    format, an empty file), or cannot be opened (`studio.journal.database.open_database`).
    Nothing is written to a file that is refused.
    """

    def __init__(
        self, path: str | PathLike[str], *, readonly: bool = False, durable_events: bool = False
    ) -> None:
        self.durable_events = durable_events
        super().__init__(path, readonly=readonly)

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
                f"INSERT INTO records ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.id, r.kind, r.seq, r.game_number, r.cause, r.batch, r.body, r.prev, r.hash)
                    for r in records
                ],
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self.path, self._db())


class _Transaction:
    """One write transaction: `BEGIN IMMEDIATE` on entry, `COMMIT` on a clean exit.

    On any exception (in the block or the commit) it rolls back and raises it, an `sqlite3`
    error as a `JournalError`. A class rather than a generator's context manager: every card's
    append opens one, and the generator's machinery is several Python calls more on its way.
    """

    __slots__ = ("_db", "_path")

    def __init__(self, path: object, db: sqlite3.Connection) -> None:
        self._path = path
        self._db = db

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise JournalError(f"{self._path}: cannot write: {err}") from err

    def __exit__(
        self,
        kind: type[BaseException] | None,
        err: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if err is None:
            try:
                self._db.execute("COMMIT")
            except BaseException as failed:
                self._abandon(failed)
                raise
            return
        self._abandon(err)  # the block's own exception, if not SQLite's, goes on as it is

    def _abandon(self, err: BaseException) -> None:
        """Roll back after `err`; raise it as a `JournalError` if SQLite's (else the caller)."""
        db = self._db
        # SQLite rolls a transaction back by itself on some errors (a full disk, a file-size
        # limit, an I/O error): a ROLLBACK then fails and would hide the cause.
        if db.in_transaction:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error as failed:
                err.add_note(f"and the rollback failed too: {failed}")
        if isinstance(err, sqlite3.Error):
            raise JournalError(f"{self._path}: cannot write: {err}") from err
