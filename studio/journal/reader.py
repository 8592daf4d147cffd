"""`JournalReader`: an open journal file, what it holds and the queries that read it.

`Journal` (`studio.journal.store`) adds the appends; a journal opened read-only (recall,
verify, the replay service's source) uses only what is here. The head (last record's id and
hash) and the last input and event numbers are read once at opening and kept current by the
appends, so asking for them costs no query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike
from pathlib import Path

from studio.closing import Closing
from studio.errors import JournalError
from studio.journal.chain import GENESIS, Record
from studio.journal.database import COLUMNS, open_database, to_record


class JournalReader(Closing):
    """An open journal file, read by sequence number, id or round.

    Opens `path` with `open_database` (see there for what it refuses, as `JournalError`).
    Context manager; `close()` is idempotent.
    """

    def __init__(self, path: str | PathLike[str], *, readonly: bool) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._conn: sqlite3.Connection | None = None
        self._conn = open_database(self.path, readonly=readonly)
        try:
            head = self._conn.execute(
                f"SELECT {COLUMNS} FROM records ORDER BY id DESC LIMIT 1"
            ).fetchone()
            counts = dict(
                self._conn.execute("SELECT kind, MAX(seq) FROM records GROUP BY kind").fetchall()
            )
        except sqlite3.Error as err:
            self.close()
            raise JournalError(f"{self.path}: cannot open journal: {err}") from err
        last = to_record(head) if head is not None else None
        self._head_id = last.id if last else 0
        self._head_hash = last.hash if last else GENESIS
        self._inputs: int = counts.get("input") or 0
        self._events: int = counts.get("event") or 0

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
                f"SELECT {COLUMNS} FROM records WHERE id > ? ORDER BY id", (after,)
            )
            for row in cursor:
                yield to_record(row)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err

    def events_from(self, seq: int) -> Iterator[Record]:
        """Every stored event with sequence number `seq` or later, in sequence order.

        Reads through the `(kind, seq)` index, so a replay from near the head costs the same on
        a journal of any length. Raises `JournalError` when the file cannot be read.
        """
        try:
            cursor = self._db().execute(
                f"SELECT {COLUMNS} FROM records WHERE kind = 'event' AND seq >= ? ORDER BY seq",
                (seq,),
            )
            for row in cursor:
                yield to_record(row)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err

    def last_input(self) -> Record | None:
        """The most recent input record, or None for a journal without inputs."""
        row = (
            self._db()
            .execute(f"SELECT {COLUMNS} FROM records WHERE kind = 'input' ORDER BY id DESC LIMIT 1")
            .fetchone()
        )
        return None if row is None else to_record(row)

    def last_input_of(self, kind: str) -> Record | None:
        """The most recent input of `kind` (such as "card_drawn"), or None when there is none.

        Reads back from the head, so it costs little while such inputs are frequent.
        """
        try:
            row = (
                self._db()
                .execute(
                    f"SELECT {COLUMNS} FROM records WHERE kind = 'input' "
                    "AND json_extract(body, '$.kind') = ? ORDER BY id DESC LIMIT 1",
                    (kind,),
                )
                .fetchone()
            )
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot read: {err}") from err
        return None if row is None else to_record(row)

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
            f"SELECT {COLUMNS} FROM records WHERE kind = 'event' AND game_number = ? ORDER BY id",
            (game_number,),
        )
        return [to_record(r) for r in rows]
