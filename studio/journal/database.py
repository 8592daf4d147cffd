"""Opening a journal's SQLite file: its permissions, WAL mode, tables, format and marker.

`open_database` is the one way a `Journal` gets its connection. It checks what the file is
(the format marker in its header, `studio.journal.marker`) before writing anything to it,
creates a new journal's tables, format, empty head and marker in one transaction, and keeps a
journal, which holds face-down cards before their reveal, readable by its owner alone.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from pathlib import Path
from typing import Any

from studio.errors import JournalError
from studio.journal.chain import FORMAT, GENESIS, Record
from studio.journal.marker import inspect, mark

SCHEMA = (
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
COLUMNS = "id, kind, seq, game_number, cause, batch, body, prev, hash"
"""The columns of `records`, in the order of `Record`'s fields."""

PRIVATE_MODE = 0o600
"""The journal holds face-down cards before their reveal: only its owner may read it. SQLite
gives the -wal and -shm files the database file's permissions."""


def to_record(row: tuple[Any, ...]) -> Record:
    """The `Record` of a row selected as `COLUMNS`."""
    return Record(*row)


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


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
    for statement in SCHEMA:
        conn.execute(statement)
    conn.executemany(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
        [("format", FORMAT), ("head", f"0:{GENESIS}")],
    )
    mark(conn)
    conn.execute("COMMIT")


def open_database(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """A connection to the journal at `path`, checked (and for writing, made) a journal.

    For writing the file is created (0600) if missing, switched to WAL mode with
    `synchronous=FULL`, and made a journal if it is a new file or one written before the marker
    existed. Read-only never creates a file. Raises `JournalError` when the file is missing
    (read-only), others can read it (for writing), is not a journal (its marker says what it
    is: another SQLite file, a journal of another format, an empty file), or cannot be opened;
    nothing is written to a file that is refused, and the connection is closed.
    """
    if readonly and not path.is_file():
        raise JournalError(f"{path}: no such journal file")
    conn: sqlite3.Connection | None = None
    try:
        created = False
        if readonly:
            conn = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
            )
            # A journal never writes text that is not UTF-8: read such bytes with U+FFFD so
            # that the record fails its hash check by name, rather than the read failing.
            conn.text_factory = _lenient_text
        else:
            created = _private_file(path)
            conn = sqlite3.connect(path, isolation_level=None)
        # What the file is, before anything is written to it.
        state = inspect(conn, path)
        if state == "empty" and not created:
            # Made by someone else, or a journal whose creation never committed: a table
            # must not start a fresh record where one was expected without a person saying so.
            raise JournalError(
                f"{path}: not a journal (an empty file: nothing was ever committed to "
                "it); remove it to start a new journal"
            )
        if not readonly:
            _use_wal(conn, path)
            conn.execute("PRAGMA synchronous=FULL")
            if state != "marked":
                _create(conn)
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        fmt = None if row is None else str(row[0])
        if fmt != FORMAT:
            raise JournalError(f"{path}: not a studio journal (format {fmt!r})")
    except sqlite3.Error as err:
        if conn is not None:
            conn.close()
        raise JournalError(f"{path}: cannot open journal: {err}") from err
    except JournalError:
        if conn is not None:
            conn.close()
        raise
    return conn
