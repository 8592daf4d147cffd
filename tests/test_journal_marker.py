"""A journal carries a format marker in its SQLite header; a file that is not one is refused.

Every case is a real file: an empty one, random bytes, an SQLite database of another schema or
application, a journal of a newer format, a journal whose creation never committed, one written
before the marker existed. A refused file is named in one line, for reading and for writing,
and is left exactly as it was; the command line says the same in one line, exit status 2.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from studio.cli import main
from studio.errors import JournalError
from studio.journal import Journal, verify
from studio.journal.marker import APPLICATION_ID, USER_VERSION


def _header(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path) as db:
        found = (
            db.execute("PRAGMA application_id").fetchone()[0],
            db.execute("PRAGMA user_version").fetchone()[0],
        )
    db.close()
    return found


def _journal(path: Path, inputs: int = 2) -> Path:
    with Journal(path) as journal:
        for i in range(inputs):
            journal.append_input({"kind": "tick", "i": i})
    return path


def _sqlite(path: Path, *statements: str) -> Path:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def _empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _random_bytes(path: Path) -> Path:
    path.write_bytes(os.urandom(8192))
    return path


def _other_schema(path: Path) -> Path:
    return _sqlite(path, "CREATE TABLE players (name TEXT)", "INSERT INTO players VALUES ('x')")


def _other_application(path: Path) -> Path:
    return _sqlite(path, "PRAGMA application_id = 1234", "CREATE TABLE meta (key, value)")


def _newer_format(path: Path) -> Path:
    _journal(path)
    return _sqlite(path, f"PRAGMA user_version = {USER_VERSION + 1}")


def _newer_unmarked_format(path: Path) -> Path:
    return _sqlite(
        path,
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO meta VALUES ('format', 'studio-journal/9')",
    )


def _creation_never_committed(path: Path) -> Path:
    # A new journal's creating transaction, cut off by a crash: the header is on disk (WAL
    # mode), nothing else.
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN IMMEDIATE")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("ROLLBACK")
    db.close()
    return path


def _tables_without_a_format(path: Path) -> Path:
    # What an earlier version's creation (one commit per statement) left when cut short.
    return _sqlite(
        path,
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE records (id INTEGER PRIMARY KEY, body TEXT)",
    )


def _records_dropped(path: Path) -> Path:
    _journal(path)
    return _sqlite(path, "DROP TABLE records")


REFUSED: list[tuple[str, Callable[[Path], Path], str]] = [
    ("empty", _empty, r"not a journal \(an empty file: nothing was ever committed"),
    ("random", _random_bytes, r"not a journal \(not an SQLite database\)"),
    ("schema", _other_schema, r"not a journal \(an SQLite database with tables players\)"),
    ("app", _other_application, r"another application, application id 0x000004d2"),
    ("newer", _newer_format, rf"a journal of a newer format \(version {USER_VERSION + 1};"),
    ("newer-unmarked", _newer_unmarked_format, r"newer format \('studio-journal/9'"),
    ("torn", _creation_never_committed, r"an empty file: nothing was ever committed"),
    ("torn-old", _tables_without_a_format, r"creation never completed \(no format recorded\)"),
    ("damaged", _records_dropped, r"a damaged journal: its table records is missing"),
]


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_new_journal_carries_the_marker(tmp_path: Path) -> None:
    path = _journal(tmp_path / "t.journal")
    assert _header(path) == (APPLICATION_ID, USER_VERSION)
    assert int.from_bytes(b"STJN", "big") == APPLICATION_ID


@pytest.mark.parametrize(("name", "make", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_file_that_is_not_a_usable_journal_is_refused_untouched(
    tmp_path: Path, name: str, make: Callable[[Path], Path], message: str
) -> None:
    folder = tmp_path / name
    folder.mkdir()
    path = make(folder / "t.journal")
    for part in folder.iterdir():
        part.chmod(0o600)  # the owner's alone, as a journal is: the content is what is refused
    before = _snapshot(folder)
    for readonly in (True, False):
        with pytest.raises(JournalError, match=message) as refused:
            Journal(path, readonly=readonly)
        text = str(refused.value)
        assert text.startswith(f"{path}: ") and "\n" not in text
    assert _snapshot(folder) == before, "a refused file must be left as it was"


@pytest.mark.parametrize(("name", "make", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_the_command_line_names_the_file_in_one_line(
    tmp_path: Path,
    name: str,
    make: Callable[[Path], Path],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = make(tmp_path / "t.journal")
    path.chmod(0o600)
    recall = ["recall", "--journal", str(path), "--last", "1"]
    for argv in (["journal", "verify", str(path)], recall):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, err


def test_a_journal_written_before_the_marker_is_read_and_marked_when_written(
    tmp_path: Path,
) -> None:
    path = _journal(tmp_path / "t.journal", inputs=3)
    _sqlite(path, "PRAGMA application_id = 0", "PRAGMA user_version = 0")
    with Journal(path, readonly=True) as journal:
        assert journal.input_count == 3 and verify(journal).ok
    assert _header(path) == (0, 0), "reading writes nothing"
    with Journal(path) as journal:
        journal.append_input({"kind": "tick", "i": 3})
        assert verify(journal).ok
    assert _header(path) == (APPLICATION_ID, USER_VERSION)
    with Journal(path, readonly=True) as journal:
        assert journal.input_count == 4
