"""The format marker that makes a SQLite file a journal, and the check on every opening.

SQLite keeps two integers in a database's header for the application that owns it: the
application id says whose file it is (`file(1)` and other tools read it) and the user version
which format of that application's. A journal carries `APPLICATION_ID` and `USER_VERSION` (the
number of the chain format `studio.journal.chain.FORMAT`), written in the same transaction that
creates its tables, so a journal is either whole and marked or has nothing in it.

`inspect(conn, path)` reads the header and the schema, writes nothing, and says what the file
is: a journal to use (`"marked"`), a journal of this format written before the marker existed
(`"unmarked"`: its `meta.format` names the format; opened for writing it is marked then), or a
file with nothing in it (`"empty"`: a new file, or one whose creation never committed). Anything
else raises `JournalError` with one line naming the file and what it is: not an SQLite file, an
SQLite file of another application or schema, a journal of an unknown (newer or older) format,
or a marked journal whose tables are missing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from studio.errors import JournalError
from studio.journal.chain import FORMAT

APPLICATION_ID = 0x53544A4E
"""`PRAGMA application_id` of a journal: "STJN" (studio journal) in ASCII."""
USER_VERSION = int(FORMAT.rpartition("/")[2])
"""`PRAGMA user_version` of a journal: the number of its chain format (`studio-journal/2`: 2)."""
TABLES = frozenset({"meta", "records"})
"""The tables every journal has."""

FileState = Literal["marked", "unmarked", "empty"]


def mark(conn: sqlite3.Connection) -> None:
    """Write the marker into `conn`'s header (inside the caller's transaction)."""
    # PRAGMA takes no parameters; both values are this module's own integers.
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {USER_VERSION}")


def inspect(conn: sqlite3.Connection, path: Path) -> FileState:
    """What the SQLite file behind `conn` is (see the module docstring); writes nothing.

    Raises `JournalError` for a file that is not a journal this studio can use.
    """
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            str(row[0])
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as err:
        if getattr(err, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise JournalError(f"{path}: not a journal (not an SQLite database)") from err
        raise JournalError(f"{path}: cannot read the journal: {err}") from err
    if app_id == APPLICATION_ID:
        return _marked(path, version, tables)
    if app_id != 0:
        raise JournalError(
            f"{path}: not a journal (an SQLite database of another application, "
            f"application id {app_id:#010x})"
        )
    if not tables:
        return "empty"
    if "meta" not in tables:
        raise JournalError(
            f"{path}: not a journal (an SQLite database with tables {', '.join(sorted(tables))})"
        )
    return _unmarked(conn, path, tables)


def _marked(path: Path, version: int, tables: set[str]) -> FileState:
    if version > USER_VERSION:
        raise JournalError(
            f"{path}: a journal of a newer format (version {version}; this studio reads "
            f"version {USER_VERSION}): open it with the studio that wrote it"
        )
    if version < USER_VERSION:
        raise JournalError(
            f"{path}: a journal of an unknown format (version {version}; this studio reads "
            f"version {USER_VERSION})"
        )
    missing = TABLES - tables
    if missing:
        raise JournalError(
            f"{path}: a damaged journal: its table {', '.join(sorted(missing))} is missing"
        )
    return "marked"


def _unmarked(conn: sqlite3.Connection, path: Path, tables: set[str]) -> FileState:
    """A journal written before the marker: its format is in `meta`."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as err:
        raise JournalError(f"{path}: not a journal (its meta table is not a journal's)") from err
    fmt = None if row is None else str(row[0])
    if fmt == FORMAT:
        missing = TABLES - tables
        if missing:
            raise JournalError(
                f"{path}: a damaged journal: its table {', '.join(sorted(missing))} is missing"
            )
        return "unmarked"
    if fmt is None:
        raise JournalError(
            f"{path}: a journal whose creation never completed (no format recorded): "
            "remove it to start a new journal"
        )
    number = fmt.removeprefix("studio-journal/")
    if number.isdigit() and int(number) > USER_VERSION:
        raise JournalError(
            f"{path}: a journal of a newer format ({fmt!r}; this studio reads {FORMAT!r}): "
            "open it with the studio that wrote it"
        )
    if number.isdigit():
        raise JournalError(
            f"{path}: journal format {fmt!r} is no longer supported (this studio reads "
            f"{FORMAT!r}, whose chain also covers every column and the settings); "
            "start a new journal"
        )
    raise JournalError(f"{path}: not a journal (format {fmt!r})")
