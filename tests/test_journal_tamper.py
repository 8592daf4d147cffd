"""Tampering that only rewrites what is already in the file: what `verify` catches, what it can't.

The cases a review found (defect B2): records cut off the end with the head set to the new last
record (no hashing needed), an input's `game_number` column edited, `meta.settings` edited. Each
is caught now; the one truncation no check inside the file can catch (whole trailing inputs with
all their events) is pinned too, so that the documented limit stays true and harmless.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studio.cli import main
from studio.controller import TableController
from studio.errors import JournalError, ReplayMismatchError
from studio.journal import Journal, Record, record_hash, recover, verify
from studio.journal.recorder import bind_settings
from studio.messages import TableSettings
from studio.simulation import simulate

SETTINGS = TableSettings(game="caribbean-stud")
LATER = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("played") / "j"
    simulate(path, SETTINGS, rounds=3, seed=7)
    return path


@pytest.fixture
def journal_path(played: Path, tmp_path: Path) -> Path:
    path = tmp_path / "j"
    shutil.copy(played, path)
    return path


def _records(path: Path) -> list[Record]:
    with Journal(path, readonly=True) as journal:
        return list(journal.records())


def _sql(path: Path, statement: str, *args: object) -> None:
    with sqlite3.connect(path) as db:
        db.execute(statement, args)
    db.close()


def _cut_after(path: Path, last: int) -> None:
    """Delete every record after `last` and set the head to it: no hash computed."""
    _sql(path, "DELETE FROM records WHERE id > ?", last)
    _sql(
        path,
        "UPDATE meta SET value = (SELECT id || ':' || hash FROM records WHERE id = ?) "
        "WHERE key = 'head'",
        last,
    )


def _bad(path: Path) -> tuple[int | None, str]:
    with Journal(path, readonly=True) as journal:
        report = verify(journal)
    assert not report.ok
    return report.bad_record, report.problem or ""


def _recover(path: Path) -> None:
    with Journal(path) as journal:
        recover(journal, TableController(bind_settings(journal, None)), now=LATER)


def _a_batch(path: Path) -> list[Record]:
    """The events of the last input that caused at least two, in the middle of the journal."""
    records = _records(path)
    batches: dict[int, list[Record]] = {}
    for record in records[: len(records) // 2]:
        if record.kind == "event" and record.cause is not None:
            batches.setdefault(record.cause, []).append(record)
    return [b for b in batches.values() if len(b) >= 2 and len(b) == b[0].batch][-1]


def test_the_played_journal_is_sound(journal_path: Path) -> None:
    with Journal(journal_path, readonly=True) as journal:
        assert verify(journal).ok
    assert main(["journal", "verify", str(journal_path)]) == 0


def test_cutting_an_inputs_events_short_and_moving_the_head_is_detected(
    journal_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = _a_batch(journal_path)
    _cut_after(journal_path, batch[0].id)
    bad, problem = _bad(journal_path)
    assert bad == batch[0].id
    assert "cut off the end" in problem
    assert main(["journal", "verify", str(journal_path)]) == 1
    assert f"BAD: record {batch[0].id} " in capsys.readouterr().out
    with pytest.raises(JournalError, match="cut off the end"):
        _recover(journal_path)
    assert _records(journal_path)[-1].id == batch[0].id, "a refused recovery writes nothing"


def test_deleting_the_tail_of_a_batch_and_rehashing_it_fails_the_replay(
    journal_path: Path,
) -> None:
    # A forger who also rewrites the batch size of the events left, and their hashes, passes
    # the chain; the replay rebuilds the whole batch and sees that events are missing.
    batch = _a_batch(journal_path)
    kept = batch[0]
    _sql(journal_path, "DELETE FROM records WHERE id > ?", kept.id)
    digest = record_hash(
        kept.id,
        kept.kind,
        kept.seq,
        kept.prev,
        kept.body,
        game_number=kept.game_number,
        cause=kept.cause,
        batch=1,
    )
    _sql(journal_path, "UPDATE records SET batch = 1, hash = ? WHERE id = ?", digest, kept.id)
    _sql(journal_path, "UPDATE meta SET value = ? WHERE key = 'head'", f"{kept.id}:{digest}")
    with Journal(journal_path, readonly=True) as journal:
        assert verify(journal).ok
    assert main(["journal", "verify", "--no-replay", str(journal_path)]) == 0
    assert main(["journal", "verify", str(journal_path)]) == 1
    with pytest.raises(ReplayMismatchError, match="rebuilt"):
        _recover(journal_path)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE records SET game_number = 'T01-19990101-000000' WHERE id = ?",
        "UPDATE records SET cause = 1 WHERE id = ?",
        "UPDATE records SET batch = 5 WHERE id = ?",
    ],
    ids=["input-game-number", "input-cause", "input-batch"],
)
def test_every_column_of_an_input_is_covered(journal_path: Path, statement: str) -> None:
    first = next(r for r in _records(journal_path) if r.kind == "input" and r.id > 1)
    _sql(journal_path, statement, first.id)
    bad, problem = _bad(journal_path)
    assert bad == first.id
    assert "does not match its hash" in problem


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE records SET game_number = 'T01-19990101-000000' WHERE id = ?",
        "UPDATE records SET game_number = NULL WHERE id = ?",
        "UPDATE records SET cause = cause + 1 WHERE id = ?",
        "UPDATE records SET batch = batch + 1 WHERE id = ?",
    ],
    ids=["game-number", "no-game-number", "cause", "batch"],
)
def test_every_column_of_an_event_is_covered(journal_path: Path, statement: str) -> None:
    event = _a_batch(journal_path)[0]
    _sql(journal_path, statement, event.id)
    bad, problem = _bad(journal_path)
    assert bad == event.id
    assert "does not match its hash" in problem


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE meta SET value = replace(value, '\"T01\"', '\"T99\"') WHERE key = 'settings'",
        "DELETE FROM meta WHERE key = 'settings'",
    ],
    ids=["edited", "removed"],
)
def test_the_settings_are_covered(
    journal_path: Path, statement: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _sql(journal_path, statement)
    bad, problem = _bad(journal_path)
    assert bad == 1
    assert "settings" in problem
    assert main(["journal", "verify", str(journal_path)]) == 1
    assert "BAD: record 1 " in capsys.readouterr().out


def test_settings_cannot_change_once_records_exist(journal_path: Path) -> None:
    with Journal(journal_path) as journal:
        with pytest.raises(JournalError, match="cannot change"):
            journal.set_meta("settings", TableSettings(game="ultimate-holdem").model_dump_json())
        with pytest.raises(JournalError, match="written by the journal"):
            journal.set_meta("head", "1:" + "0" * 64)
        assert verify(journal).ok


def test_cutting_whole_trailing_inputs_is_the_documented_limit(
    journal_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Cut right after an input, its events and every later record gone, head moved: the file
    # is exactly what a crash after journalling that input leaves. Nothing in the file tells
    # them apart (docs/journal.md: only an anchor outside the file can). Recovery restores
    # the very events that were deleted, so only the later inputs are lost.
    original = _records(journal_path)
    batch = _a_batch(journal_path)
    cause = next(r for r in original if r.kind == "input" and r.seq == batch[0].cause)
    _cut_after(journal_path, cause.id)
    with Journal(journal_path, readonly=True) as journal:
        assert verify(journal).ok
    assert main(["journal", "verify", str(journal_path)]) == 0
    assert f"last input's {len(batch)} events are not stored" in capsys.readouterr().out
    _recover(journal_path)
    restored = _records(journal_path)[cause.id : cause.id + len(batch)]
    assert [r.body for r in restored] == [r.body for r in batch]
    assert [r.hash for r in restored] == [r.hash for r in batch]


def test_a_journal_of_the_old_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'studio-journal/1')")
    db.close()
    path.chmod(0o600)  # the owner's alone, as a journal is: the format is what is refused
    for readonly in (True, False):
        with pytest.raises(JournalError, match=r"no longer supported.*start a new journal"):
            Journal(path, readonly=readonly)
    assert main(["journal", "verify", str(path)]) == 2
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.close()
    assert tables == {"meta"}, "refusing an old journal must not touch it"


def test_a_body_that_is_not_utf8_is_named_as_the_bad_record(
    journal_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The read used to fail as a whole (exit 2, "cannot read"), naming no record.
    event = _a_batch(journal_path)[0]
    _sql(journal_path, "UPDATE records SET body = CAST(X'7BFF7D' AS TEXT) WHERE id = ?", event.id)
    assert main(["journal", "verify", str(journal_path)]) == 1
    out = capsys.readouterr().out
    assert f"record {event.id} " in out and "does not match its hash" in out


@pytest.mark.parametrize(
    "body",
    [
        'replace(body, \'"card":"\', \'"card":"K\')',  # a forged card, valid JSON
        "'not json'",
        "CAST(X'7BFF7D' AS TEXT)",
    ],
    ids=["forged-card", "not-json", "not-utf8"],
)
def test_recall_refuses_an_edited_event_instead_of_showing_it(
    journal_path: Path, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dealt = next(r for r in _records(journal_path) if r.kind == "event" and '"card":"' in r.body)
    _sql(journal_path, f"UPDATE records SET body = {body} WHERE id = ?", dealt.id)
    argv = ["recall", "--journal", str(journal_path), str(dealt.game_number)]
    assert main([*argv, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"record {dealt.id}" in err and "journal verify" in err
