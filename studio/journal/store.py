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

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from hashlib import sha256
from os import PathLike
from types import TracebackType
from typing import Any, cast

from studio.errors import JournalError
from studio.journal.chain import Record, RecordKind, canonical_json, genesis, record_hash
from studio.journal.database import COLUMNS
from studio.journal.reader import JournalReader

BACKSTOP_CHECKPOINT_PAGES = 10_000
"""SQLite's own checkpoint of a journal checkpointed between rounds: after 10,000 WAL pages
(40 MB, about a hundred rounds without an end), so the WAL stays bounded if rounds stop ending.
SQLite's default, 1,000 pages, ran a checkpoint inside a card's commit every ~135 commits."""

_MOVE_HEAD = "UPDATE meta SET value = ? WHERE key = 'head' AND value = ?"
_INSERT = f"INSERT INTO records ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
_json_text = json.encoder.encode_basestring
"""A string as `canonical_json` writes it (`studio.journal.chain.record_hash` uses the same)."""
_record = cast(Callable[[tuple[Any, ...]], Record], partial(tuple.__new__, Record))
"""A `Record` of its nine columns, made as the tuple it is: its generated `__new__` is a Python
call, three per card."""


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
        self,
        path: str | PathLike[str],
        *,
        readonly: bool = False,
        durable_events: bool = False,
        checkpoint_between_rounds: bool = False,
    ) -> None:
        self.durable_events = durable_events
        super().__init__(path, readonly=readonly)
        if checkpoint_between_rounds and not readonly:
            try:
                # PRAGMA takes no parameters; the value is this module's own integer.
                self._db().execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_CHECKPOINT_PAGES}")
            except sqlite3.Error as err:
                self.close()
                raise JournalError(f"{self.path}: cannot open journal: {err}") from err

    def checkpoint(self) -> bool:
        """Copy the WAL into the database file now; return whether all of it was copied.

        A table calls it between rounds (`checkpoint_between_rounds`): the next commit then
        writes the WAL over from its start, in place. Durability does not depend on it: every
        commit is on disk in the WAL already. PASSIVE: it never waits for a reader, and what a
        reader still needs is copied by a later call (or SQLite's backstop). Raises
        `JournalError`.
        """
        try:
            busy, _, _ = self._db().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: checkpoint failed: {err}") from err
        return not busy

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
        data: Mapping[str, Any] | str,
        *,
        events: Sequence[Mapping[str, Any]] = (),
        bodies: Sequence[str] | None = None,
    ) -> Record:
        """Append one input (its JSON form) in its own durable transaction; return its record.

        `data` is the input's JSON form, or its canonical JSON text made already
        (`studio.journal.chain.canonical_json`). `events`, if given, are the events the input
        caused (as for `append_events`, with their `bodies`): they are appended in the same
        transaction, after the input, so the input and its events reach the disk with one
        fsync and a crash keeps both or neither. When this returns the input (and its events)
        are on disk. Raises `JournalError` for an event seq that does not follow the stored
        ones, when the write fails, or when another process has appended to the journal since
        it was opened; then nothing was written.
        """
        if bodies is None:
            return self._append_mapped(data, events)
        # Every table's every input comes this way, a card's before its commit, where each
        # helper's call costs several times its warm figure (the caches are cold after the idle
        # gap between cards): `_chain`, `_event_records` and `_write` inline (the statements
        # are `_write_records`'). The records and their hashes are the helpers' (`record_hash`'s
        # canonical form; tests/test_journal.py, and tests/test_runtime_frames.py pins the bytes).
        if len(bodies) != len(events):
            raise JournalError(f"{len(bodies)} bodies given for {len(events)} events")
        if self.readonly:
            raise JournalError(f"{self.path}: journal is open read-only")
        old_id, old_hash = self._head_id, self._head_hash
        prev = old_hash if old_id else self._prev()
        try:
            body = data if isinstance(data, str) else canonical_json(data)
        except (TypeError, ValueError) as err:
            raise JournalError(f"input {self._inputs + 1} cannot be stored as JSON: {err}") from err
        record_id, cause = old_id + 1, self._inputs + 1
        text = (
            f'{{"batch":null,"body":{body},"cause":null,"game_number":null,"id":{record_id},'
            f'"kind":"input","prev":"{prev}","seq":{cause}}}'
        )
        digest = sha256(text.encode()).hexdigest()
        records = [_record((record_id, "input", cause, None, None, None, body, prev, digest))]
        prev = digest
        seq, batch = self._events, len(events)
        for i, numbers in enumerate(events):
            got = numbers.get("seq")
            if got != seq + 1:
                raise JournalError(f"event seq {got!r} does not follow stored seq {seq}")
            game = numbers.get("game_number")
            game = game if isinstance(game, str) else None
            body = bodies[i]
            record_id, seq = record_id + 1, got
            game_text = "null" if game is None else _json_text(game)
            text = (
                f'{{"batch":{batch},"body":{body},"cause":{cause},"game_number":{game_text},'
                f'"id":{record_id},"kind":"event","prev":"{prev}","seq":{seq}}}'
            )
            digest = sha256(text.encode()).hexdigest()
            records.append(
                _record((record_id, "event", seq, game, cause, batch, body, prev, digest))
            )
            prev = digest
        self._write_records(self._db(), records, f"{old_id}:{old_hash}", f"{record_id}:{prev}")
        self._head_id, self._head_hash = record_id, prev
        self._inputs = cause
        if events:
            self._events = seq
        return records[0]

    def _append_mapped(
        self, data: Mapping[str, Any] | str, events: Sequence[Mapping[str, Any]]
    ) -> Record:
        """`append_input` without the events' bodies: each is made from its mapping."""
        record = self._chain(
            self._head_id + 1, "input", self._inputs + 1, None, None, None, data, self._prev()
        )
        records = [record]
        records += self._event_records(events, None, record.id, record.hash, record.seq)
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
        """Move the head from `old` to `new` and insert `records`, in one transaction.

        `_Transaction`'s statements, inline (three Python calls fewer on every card's way).
        Raises `JournalError` (rolled back) when SQLite fails or another writer moved the head.
        """
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot write: {err}") from err
        try:
            # Move the head first, so a second writer fails on the head, not on an id.
            moved = db.execute(_MOVE_HEAD, (new, old)).rowcount
            if moved != 1:
                raise JournalError(
                    f"{self.path}: the journal's head moved: another process is writing it"
                )
            db.executemany(_INSERT, records)  # a Record is its row, in COLUMNS' order
            db.execute("COMMIT")
        except BaseException as err:
            _abandon(self.path, db, err)
            raise

    def _transaction(self) -> _Transaction:
        return _Transaction(self.path, self._db())


def _abandon(path: object, db: sqlite3.Connection, err: BaseException) -> None:
    """Roll back after `err`; raise it as a `JournalError` if SQLite's (else the caller does)."""
    # SQLite rolls a transaction back by itself on some errors (a full disk, a file-size
    # limit, an I/O error): a ROLLBACK then fails and would hide the cause.
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error as failed:
            err.add_note(f"and the rollback failed too: {failed}")
    if isinstance(err, sqlite3.Error):
        raise JournalError(f"{path}: cannot write: {err}") from err


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
        _abandon(self._path, self._db, err)
